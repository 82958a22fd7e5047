"""Evidence retention: keep photo-finish bundles by age and total size, oldest
first, never deleting a held (disputed) bundle; and notice a full disk.

Evidence lives in `<data_dir>/evidence/<bundle>/`; holds are kept in
`<data_dir>/evidence/pinned.json` (the file's name from before holds were
called holds, so holds made then still count). `hold` keeps a disputed bundle,
`release` lets retention have it again, `held` lists what is kept. ("Hold",
not "pin": a pin here is a GPIO pin, and the PIN guards the table.) Events
(the match log) are never deleted: they are small, and they are the record.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

HOLDS_FILE = "pinned.json"
MIN_FREE_BYTES = 200 * 1024 * 1024  # below this, record events only


@dataclass
class RetentionReport:
    """What one retention pass did."""

    kept: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    total_bytes: int = 0


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _read_holds(evidence_dir: Path) -> set[str]:
    """The held bundle names."""
    try:
        data = json.loads((evidence_dir / HOLDS_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return set()
    return {str(x) for x in data} if isinstance(data, list) else set()


def _write_holds(evidence_dir: Path, names: Iterable[str]) -> None:
    """Replace the held set (written atomically)."""
    evidence_dir.mkdir(parents=True, exist_ok=True)
    tmp = evidence_dir / (HOLDS_FILE + ".tmp")
    tmp.write_text(json.dumps(sorted(set(names))), encoding="utf-8")
    tmp.replace(evidence_dir / HOLDS_FILE)


def _check_name(name: str) -> None:
    if "/" in name or name.startswith(".") or not name:
        raise ValueError(f"not a bundle name: {name!r}")


def hold(evidence_dir: Path, name: str) -> None:
    """Hold one bundle, so retention never deletes it (holding twice is harmless).

    Args:
        evidence_dir: the directory holding the bundles and the holds file.
        name: the bundle's directory name (the `ref` of its `evidenced` event);
            it need not exist yet, so a round can be disputed before its bundle is written.

    Raises:
        ValueError: `name` is empty, hidden or a path rather than a name.
    """
    _check_name(name)
    _write_holds(evidence_dir, _read_holds(evidence_dir) | {name})


def release(evidence_dir: Path, name: str) -> None:
    """Release a held bundle: retention may delete it again (releasing twice is harmless)."""
    _check_name(name)
    _write_holds(evidence_dir, _read_holds(evidence_dir) - {name})


def held(evidence_dir: Path) -> list[str]:
    """The held bundle names, sorted (a hold may name a bundle not written yet)."""
    return sorted(_read_holds(evidence_dir))


def enforce(evidence_dir: Path, *, max_age_s: float, max_bytes: int,
            now_s: float) -> RetentionReport:
    """Delete bundles older than `max_age_s`, then the oldest until under `max_bytes`.

    Args:
        evidence_dir: the directory holding one sub-directory per bundle.
        max_age_s: age limit (by the bundle directory's modification time).
        max_bytes: total size limit of released and held bundles together.
        now_s: the current wall-clock time (file times are wall-clock).
    """
    report = RetentionReport()
    if not evidence_dir.is_dir():
        return report
    holds = _read_holds(evidence_dir)
    bundles = sorted((p for p in evidence_dir.iterdir() if p.is_dir()),
                     key=lambda p: (p.stat().st_mtime, p.name))
    sizes = {p.name: _size(p) for p in bundles}
    total = sum(sizes.values())
    for p in bundles:
        if p.name in holds:
            report.held.append(p.name)
            continue
        too_old = now_s - p.stat().st_mtime > max_age_s
        if too_old or total > max_bytes:
            shutil.rmtree(p, ignore_errors=True)
            total -= sizes[p.name]
            report.deleted.append(p.name)
        else:
            report.kept.append(p.name)
    report.total_bytes = total
    return report


def disk_has_room(path: Path, min_free: int = MIN_FREE_BYTES) -> bool:
    """True when the file system holding `path` has at least `min_free` bytes free."""
    probe = path if path.exists() else path.parent
    try:
        return shutil.disk_usage(probe).free >= min_free
    except OSError:
        return False

"""Evidence retention: keep photo-finish bundles by age and total size, oldest
first, never deleting a pinned (disputed) bundle; and notice a full disk.

Evidence lives in `<data_dir>/evidence/<bundle>/`; pins are kept in
`<data_dir>/evidence/pinned.json`. `pin` keeps a disputed bundle, `release`
lets retention have it again, `pinned` lists what is kept. Events (the match
log) are never deleted: they are small, and they are the record.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

PIN_FILE = "pinned.json"
MIN_FREE_BYTES = 200 * 1024 * 1024  # below this, record events only


@dataclass
class RetentionReport:
    """What one retention pass did."""

    kept: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)
    total_bytes: int = 0


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def read_pins(evidence_dir: Path) -> set[str]:
    """The pinned bundle names."""
    try:
        data = json.loads((evidence_dir / PIN_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return set()
    return {str(x) for x in data} if isinstance(data, list) else set()


def set_pins(evidence_dir: Path, names: Iterable[str]) -> None:
    """Replace the pinned set (written atomically)."""
    evidence_dir.mkdir(parents=True, exist_ok=True)
    tmp = evidence_dir / (PIN_FILE + ".tmp")
    tmp.write_text(json.dumps(sorted(set(names))), encoding="utf-8")
    tmp.replace(evidence_dir / PIN_FILE)


def pin(evidence_dir: Path, name: str, *, on: bool = True) -> None:
    """Pin one bundle, so retention never deletes it; `on=False` releases it.

    Args:
        evidence_dir: the directory holding the bundles and `pinned.json`.
        name: the bundle's directory name (the `ref` of its `evidenced` event);
            it need not exist yet, so a round can be disputed before its bundle is written.
        on: False to release the pin (as `release` does).

    Raises:
        ValueError: `name` is empty, hidden or a path rather than a name.
    """
    if "/" in name or name.startswith(".") or not name:
        raise ValueError(f"not a bundle name: {name!r}")
    pins = read_pins(evidence_dir)
    if on:
        pins.add(name)
    else:
        pins.discard(name)
    set_pins(evidence_dir, pins)


def release(evidence_dir: Path, name: str) -> None:
    """Release a pinned bundle: retention may delete it again (releasing twice is harmless)."""
    pin(evidence_dir, name, on=False)


def pinned(evidence_dir: Path) -> list[str]:
    """The pinned bundle names, sorted (a pin may name a bundle not written yet)."""
    return sorted(read_pins(evidence_dir))


def enforce(evidence_dir: Path, *, max_age_s: float, max_bytes: int,
            now_s: float) -> RetentionReport:
    """Delete bundles older than `max_age_s`, then the oldest until under `max_bytes`.

    Args:
        evidence_dir: the directory holding one sub-directory per bundle.
        max_age_s: age limit (by the bundle directory's modification time).
        max_bytes: total size limit of unpinned and pinned bundles together.
        now_s: the current wall-clock time (file times are wall-clock).
    """
    report = RetentionReport()
    if not evidence_dir.is_dir():
        return report
    pins = read_pins(evidence_dir)
    bundles = sorted((p for p in evidence_dir.iterdir() if p.is_dir()),
                     key=lambda p: (p.stat().st_mtime, p.name))
    sizes = {p.name: _size(p) for p in bundles}
    total = sum(sizes.values())
    for p in bundles:
        if p.name in pins:
            report.pinned.append(p.name)
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

"""Evidence: a compressed ring buffer of recent frames, photo-finish bundles, and checks.

- `FrameRing` keeps the last few seconds as JPEG bytes (about 25 KB a frame at
  640x480 instead of 900 KB raw), so the kiosk's memory stays small.
- `write_bundle` saves one decided grab as a directory: `strip.jpg` (the
  frames around the lift side by side, with timestamps and overlays),
  `clip.webm` (the same moment as slow-motion video that Chromium plays),
  `decision.json`, and `manifest.json` with every file's SHA-256. The bundle's
  hash is the SHA-256 of the manifest; it goes into the match log with
  `Match.evidence(round, sha256, "photo-finish", ref)`.
- A dispute bundle (`export_dispute`) is a directory with the match's
  hash-chained records (`match.jsonl`) and the round's photo-finish bundles;
  `verify_dispute` checks the chain, every file against its manifest, and that
  each bundle's hash is the one the log recorded.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.errors import KnappError, StoreError
from controller.store import EventStore, Record, canonical_json, verify_records
from controller.vision.detect import TableView
from controller.vision.frames import Frame, Image
from controller.vision.track import Decision

BUNDLE_FORMAT = "knapp-photo-finish/1"
DISPUTE_FORMAT = "knapp-dispute/1"
STRIP_FRAMES = 6
CLIP_SECONDS = 0.5      # each side of the lift
CLIP_SLOWDOWN = 4


class EvidenceError(KnappError, ValueError):
    """A bundle or dispute directory is incomplete or was altered."""


class FrameRing:
    """The last `seconds` of frames, JPEG-compressed.

    Args:
        seconds: how much to keep, measured on the frames' own timestamps.
        quality: JPEG quality (75 keeps detail for a judge at a tenth of the size).
    """

    def __init__(self, seconds: float = 4.0, *, quality: int = 75) -> None:
        self.span_ns = round(seconds * 1e9)
        self.quality = quality
        self._items: deque[tuple[int, int, bytes]] = deque()
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def push(self, frame: Frame) -> None:
        """Add a frame and drop those older than the span."""
        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:  # pragma: no cover - only on an encoder failure
            raise EvidenceError("JPEG encoding failed")
        data = buf.tobytes()
        self._items.append((frame.t_ns, frame.index, data))
        self.nbytes += len(data)
        while self._items and frame.t_ns - self._items[0][0] > self.span_ns:
            self.nbytes -= len(self._items.popleft()[2])

    def frames(self, t0_ns: int | None = None, t1_ns: int | None = None) -> list[Frame]:
        """Decode the frames with `t0_ns <= t <= t1_ns` (all when not given)."""
        out = []
        for t, index, data in self._items:
            if (t0_ns is None or t >= t0_ns) and (t1_ns is None or t <= t1_ns):
                img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
                out.append(Frame(np.asarray(img, np.uint8), t, index, True))
        return out


def sha256_file(path: Path) -> str:
    """Return the hex SHA-256 of a file."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Bundle:
    """A written photo-finish bundle: its directory and its hash (the manifest's)."""

    path: Path
    sha256: str


def _overlay(img: Image, frame: Frame, decision: Decision, view: TableView | None,
             lift_ns: int) -> Image:
    out = img.copy()
    if view is not None:
        pad = view.pad(decision.figure)
        cv2.circle(out, (round(pad.centre[0]), round(pad.centre[1])),
                   round(pad.radius_px * 1.4), (0, 255, 255), 2, cv2.LINE_AA)
    dt = (frame.t_ns - lift_ns) / 1e6
    text = f"#{frame.index}  {dt:+.1f} ms"
    colour = (0, 0, 255) if frame.t_ns >= lift_ns else (255, 255, 255)
    cv2.putText(out, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(out, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
    who = decision.seat or "?"
    line = f"{decision.kind} {decision.figure.value} by {who} ({decision.confidence:.0%})"
    cv2.putText(out, line, (8, out.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(out, line, (8, out.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                (255, 255, 255), 1, cv2.LINE_AA)
    return out


def write_bundle(directory: str | Path, decision: Decision, frames: Sequence[Frame], *,
                 view: TableView | None = None, origin_ns: int = 0,
                 fps: float = 30.0) -> Bundle:
    """Write a photo-finish bundle for `decision` from the frames around it.

    Args:
        directory: the bundle's directory (created; must not hold a bundle yet).
        decision: the decided grab (or feint).
        frames: frames around the lift, e.g. `FrameRing.frames(lift - 0.5 s, lift + 0.5 s)`.
        view: the calibrated table, to mark the figure's pad.
        origin_ns: times in `decision.json` are ms from here.
        fps: the camera's frame rate (the clip plays at a quarter of it).
    """
    if not frames:
        raise EvidenceError("no frames for the bundle (is the ring buffer running?)")
    out = Path(directory)
    if (out / "manifest.json").exists():
        raise EvidenceError(f"{out}: already holds a bundle")
    out.mkdir(parents=True, exist_ok=True)
    lift = decision.lift_ns if decision.lift_ns is not None else frames[len(frames) // 2].t_ns
    lift = int(lift)
    drawn = [_overlay(f.image, f, decision, view, lift) for f in frames]
    after = next((i for i, f in enumerate(frames) if f.t_ns >= lift), len(frames) - 1)
    lo = max(0, min(after - STRIP_FRAMES // 2, len(frames) - STRIP_FRAMES))
    strip_imgs = [cv2.resize(d, (d.shape[1] // 2, d.shape[0] // 2), interpolation=cv2.INTER_AREA)
                  for d in drawn[lo:lo + STRIP_FRAMES]]
    cv2.imwrite(str(out / "strip.jpg"), cv2.hconcat(strip_imgs), [cv2.IMWRITE_JPEG_QUALITY, 85])
    h, w = drawn[0].shape[:2]
    writer = cv2.VideoWriter(str(out / "clip.webm"), cv2.VideoWriter.fourcc(*"VP80"),
                             max(1.0, fps / CLIP_SLOWDOWN), (w, h))
    try:
        for d in drawn:
            writer.write(d if d.shape[:2] == (h, w) else cv2.resize(d, (w, h)))
    finally:
        writer.release()
    decision_json = {"decision": decision.to_json(origin_ns),
                     "frames": [{"index": f.index, "t_ns": f.t_ns} for f in frames],
                     "lift_index": decision.lift_index}
    (out / "decision.json").write_text(json.dumps(decision_json, indent=2) + "\n",
                                       encoding="utf-8")
    names = [n for n in ("strip.jpg", "clip.webm", "decision.json") if (out / n).exists()]
    manifest = {"format": BUNDLE_FORMAT, "files": {n: sha256_file(out / n) for n in names}}
    text = canonical_json(manifest)
    (out / "manifest.json").write_text(text, encoding="utf-8")
    return Bundle(out, hashlib.sha256(text.encode()).hexdigest())


def verify_bundle(directory: str | Path) -> str:
    """Check every file of a bundle against its manifest; return the bundle's hash.

    Raises:
        EvidenceError: naming the missing or altered file.
    """
    d = Path(directory)
    try:
        text = (d / "manifest.json").read_text(encoding="utf-8")
        manifest = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise EvidenceError(f"{d}: no readable manifest.json ({exc})") from exc
    if manifest.get("format") != BUNDLE_FORMAT:
        raise EvidenceError(f"{d}: not a photo-finish bundle")
    for name, digest in sorted(manifest.get("files", {}).items()):
        path = d / name
        if not path.is_file():
            raise EvidenceError(f"{d}: {name} is missing")
        if sha256_file(path) != digest:
            raise EvidenceError(f"{d}: {name} was altered (SHA-256 differs from the manifest)")
    return hashlib.sha256(text.encode()).hexdigest()


def export_dispute(store: EventStore, match_id: str, bundles: Sequence[str | Path],
                   directory: str | Path) -> Path:
    """Write a dispute bundle: the match's chained records plus photo-finish bundles."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    records = store.records(match_id)
    verify_records(match_id, records)
    with (out / "match.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            f.write(canonical_json({"match_id": r.match_id, "seq": r.seq, "kind": r.kind,
                                    "body": r.body, "prev": r.prev, "hash": r.hash}) + "\n")
    names = []
    for b in bundles:
        src = Path(b)
        shutil.copytree(src, out / src.name, dirs_exist_ok=True)
        names.append(src.name)
    (out / "dispute.json").write_text(canonical_json(
        {"format": DISPUTE_FORMAT, "match_id": match_id, "bundles": names}), encoding="utf-8")
    return out


def _read_records(path: Path) -> list[Record]:
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvidenceError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    for n, line in enumerate(lines, 1):
        try:
            d: dict[str, Any] = json.loads(line)
            records.append(Record(str(d["match_id"]), int(d["seq"]), str(d["kind"]),
                                  str(d["body"]), str(d["prev"]), str(d["hash"])))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise EvidenceError(f"{path}: line {n} is not a record ({exc})") from exc
    return records


def logged_evidence(records: Sequence[Record]) -> dict[str, str]:
    """Return sha256 -> ref of every `evidenced` event in `records`."""
    out = {}
    for r in records:
        if r.kind == "evidenced":
            body = json.loads(r.body)
            out[str(body.get("sha256"))] = str(body.get("ref", ""))
    return out


def verify_dispute(directory: str | Path) -> list[str]:
    """Check a dispute bundle; return what was verified, one line each.

    Raises:
        EvidenceError or StoreError: naming the first thing that does not hold.
    """
    d = Path(directory)
    try:
        meta = json.loads((d / "dispute.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EvidenceError(f"{d}: no readable dispute.json ({exc})") from exc
    if meta.get("format") != DISPUTE_FORMAT:
        raise EvidenceError(f"{d}: not a dispute bundle")
    match_id = str(meta["match_id"])
    records = _read_records(d / "match.jsonl")
    if any(r.match_id != match_id for r in records):
        raise StoreError(f"{d}: match.jsonl mixes records of other matches")
    head = verify_records(match_id, records)
    lines = [f"match {match_id}: {len(records)} records, hash chain intact, head {head[:16]}"]
    logged = logged_evidence(records)
    for name in meta.get("bundles", []):
        digest = verify_bundle(d / name)
        if digest not in logged:
            raise EvidenceError(f"{d / name}: its hash {digest[:16]} is not in the match log "
                                "(bundle replaced or from another match)")
        lines.append(f"bundle {name}: files intact, hash {digest[:16]} recorded in the log")
    return lines

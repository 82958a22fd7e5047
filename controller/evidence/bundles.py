"""Photo-finish bundles: one decided grab as a directory of files with their hashes.

`write_bundle` saves `strip.jpg` (the frames around the lift side by side,
with timestamps and overlays), `clip.webm` (the same moment as slow-motion
video that Chromium plays), `decision.json`, and `manifest.json` with every
file's SHA-256. The bundle's hash is the SHA-256 of the manifest; it goes into
the match log with `Match.evidence(round, sha256, "photo-finish", ref)`.
`verify_bundle` checks the files against the manifest. The frames come from
the camera's ring buffer (`controller.vision.ring.FrameRing`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2

from controller.errors import KnappError
from controller.store import canonical_json
from controller.vision.detect import TableView
from controller.vision.frames import Frame, Image
from controller.vision.track import Decision

BUNDLE_FORMAT = "knapp-photo-finish/1"
STRIP_FRAMES = 6
CLIP_SECONDS = 0.5      # each side of the lift
CLIP_SLOWDOWN = 4


class EvidenceError(KnappError, ValueError):
    """A bundle or dispute directory is incomplete or was altered."""


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

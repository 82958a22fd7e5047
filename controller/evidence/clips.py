"""Labelled clips: each settled round at a table with pads, as a video and its truth.

A clip is derived data, like a photo-finish bundle: the frames the camera's
ring buffer kept around the round's lifts, written as `NAME.avi` (MJPEG, the
nominal frame rate), and `NAME.json`, a `knapp-labelled-round/1` label whose
truth comes from the match log, never from an edit of it:

- the lift time of each grab is the pad's (`Claim.t_ns` of a claim whose time
  did not come from the camera), moved onto the video's own timeline (frame k
  plays at k / fps) through the frames' real timestamps;
- the seat is the one the table accepted: the camera's when it was sure and
  nobody corrected it, the table's answer to "who took it?" otherwise, and the
  referee's when the card was given to another seat.

A round gives no clip when its truth is not known from the log: voided or
taken back, too close to call (the claims are the camera's contact times, not
the pads' lifts), refereed by the camera alone. `knapp vision eval CLIPS`
scores the camera on these clips; `enforce_clips` keeps the folder under the
evidence retention limits, holds included.
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.evidence.retention import RetentionReport
from controller.vision.evaluate import LABEL_FORMAT, SCORES_FILE

CLIPS_DIR = "clips"
VIDEO_SUFFIX = ".avi"
CLIP_BEFORE_S = 1.5   # before the round's first lift: the reach, and the hand's way in
CLIP_AFTER_S = 0.5    # after its last lift (what the ring holds when the clip is due)
NO_TRUTH_OUTCOMES = ("void", "undone", "interrupted", "redeal")


@dataclass(frozen=True, slots=True)
class TrueGrab:
    """One grab of a round as the table settled it: who, which figure, the pad's lift time."""

    seat: str
    figure: str
    lift_ns: int


def clips_dir(data_path: Path) -> Path:
    """The folder of a table's labelled clips (`<data_dir>/clips`)."""
    return data_path / CLIPS_DIR


def clip_name(match_id: str, round_index: int) -> str:
    """A round's clip name; its bundles are `NAME-FIGURE`, so a bundle's hold keeps the clip."""
    return f"{match_id}-{round_index:03d}"


def _pad_timed(source: str) -> bool:
    # "gpio+camera", "serial+table", "sim+camera": the pad's time. "camera+camera" (no
    # pads) and "camera contact" (two hands on one figure) carry the camera's own times.
    return not source.startswith("camera")


def round_truth(rnd: Any) -> list[TrueGrab] | None:
    """The grabs of a settled round as the table accepted them, or None when not known.

    Args:
        rnd: a `controller.knapp.match.Round`.
    """
    outcome = rnd.outcome.value if rnd.outcome is not None else None
    if outcome is None or outcome in NO_TRUTH_OUTCOMES or not rnd.claims:
        return None
    if not all(_pad_timed(c.source) for c in rnd.claims):
        return None
    figures = [c.figure.value for c in rnd.claims]
    if len(set(figures)) != len(figures):
        return None  # a figure leaves its pad once a round: two claims on it are not the pads'
    awarded = [c["seat"] for c in rnd.corrections if c.get("kind") == "awarded"]
    first = rnd.first_correct()
    if awarded and first is None:
        return None  # given to a seat although nobody took the right figure: whose lift?
    out = []
    for c in sorted(rnd.claims, key=lambda c: c.t_ns):
        seat = awarded[-1] if awarded and c is first else c.seat
        out.append(TrueGrab(seat, c.figure.value, int(c.t_ns)))
    return out


def video_seconds(t_ns: int, frame_t_ns: Sequence[int], fps: float) -> float:
    """Where host time `t_ns` falls on a video whose frame k (taken at `frame_t_ns[k]`)
    plays at k / fps: between two frames in proportion, beyond the ends in real time."""
    ts = list(frame_t_ns)
    if not ts:
        raise ValueError("a clip needs frames")
    if t_ns <= ts[0]:
        return (t_ns - ts[0]) / 1e9
    if t_ns >= ts[-1]:
        return (len(ts) - 1) / fps + (t_ns - ts[-1]) / 1e9
    k = bisect.bisect_right(ts, t_ns) - 1
    span = ts[k + 1] - ts[k]
    return (k + ((t_ns - ts[k]) / span if span > 0 else 0.0)) / fps


def truth_json(grabs: Sequence[TrueGrab], frame_t_ns: Sequence[int],
               fps: float) -> list[dict[str, Any]]:
    """The label's truth: times in seconds from the clip's first frame, on its timeline."""
    return [{"kind": "grab", "seat": g.seat, "figure": g.figure, "touch_s": None,
             "lift_s": round(video_seconds(g.lift_ns, frame_t_ns, fps), 6), "others": []}
            for g in grabs]


def camera_section(cam: Any) -> dict[str, Any]:
    """A `[camera]` section (as TOML would give it) that parses back to `cam`'s layout.

    The label carries it, so a clip is scored with the layout it was recorded
    with even after the table's file changed. `source` and `calibration` are
    left out: the clip is the source, and the label holds its calibration.
    """
    zones = dict(cam.seat_zones)
    seats: dict[str, Any] = {}
    for name, at in cam.seats:
        seats[name] = ({"at": list(at), "zone": [list(p) for p in zones[name]]}
                       if name in zones else list(at))
    radii = dict(cam.pad_radii)
    pads: dict[str, Any] = {}
    for fig, at in cam.pads:
        pads[fig.value] = {"at": list(at), "radius_mm": radii[fig]} if fig in radii else list(at)
    return {"width": cam.width, "height": cam.height, "fps": cam.fps,
            "table_mm": list(cam.table_mm), "ring_seconds": cam.ring_seconds,
            "markers": {"corners_mm": [[list(p) for p in quad] for quad in cam.marker_corners]},
            "figures": {fig.value: list(size) for fig, size in cam.figure_sizes},
            "pads": pads, "seats": seats}


def write_clip(directory: Path, name: str, frames: Sequence[Any], grabs: Sequence[TrueGrab],
               *, fps: float, camera: dict[str, Any] | None, seats: Sequence[str],
               calibration: dict[str, Any] | None, recorded: dict[str, Any]) -> Path:
    """Write `NAME.avi` and then its label `NAME.json`; return the label's path.

    The label is written last and atomically, so a clip cut short (power, a full
    disk) is a video without a label: `read_labels` skips it and retention
    removes it.

    Args:
        directory: the clips folder (created).
        name: the clip's name (`clip_name`).
        frames: `controller.vision.frames.Frame`s, oldest first.
        grabs: the round's truth (`round_truth`), in host time.
        fps: the camera's nominal frame rate: the video's.
        camera: the layout as a `[camera]` section (`camera_section`), or None.
        seats: the table's seats, in order.
        calibration: the live calibration's JSON form, or None.
        recorded: where the truth came from (match, round, ...), kept in the label.
    """
    import cv2

    if not frames:
        raise ValueError(f"{name}: no frames for the clip (is the ring buffer running?)")
    directory.mkdir(parents=True, exist_ok=True)
    video = directory / (name + VIDEO_SUFFIX)
    h, w = frames[0].image.shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), float(fps), (w, h))
    if not writer.isOpened():
        raise OSError(f"{video}: OpenCV cannot write an MJPEG video here")
    try:
        for f in frames:
            img = f.image
            writer.write(img if img.shape[:2] == (h, w) else cv2.resize(img, (w, h)))
    finally:
        writer.release()
    stamps = [int(f.t_ns) for f in frames]
    label = {"format": LABEL_FORMAT, "fps": float(fps), "kind": "table", "seats": list(seats),
             "camera": camera, "truth": truth_json(grabs, stamps, fps),
             "calibration": calibration,
             "recorded": {**recorded, "first_frame_t_ns": stamps[0], "frames": len(frames),
                          "frame_t_ns": stamps}}
    path = directory / (name + ".json")
    tmp = directory / (name + ".json.tmp")
    tmp.write_text(json.dumps(label, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def relabel(directory: Path, name: str, grabs: Sequence[TrueGrab] | None) -> Path | None:
    """Derive clip `name`'s truth again (after a correction); return its label, or None.

    With no truth left (the round was voided or taken back) the clip is deleted:
    the table no longer says what happened in it.
    """
    path = directory / (name + ".json")
    if not grabs:
        for p in (path, directory / (name + VIDEO_SUFFIX)):
            p.unlink(missing_ok=True)
        return None
    label = json.loads(path.read_text(encoding="utf-8"))
    truth = truth_json(grabs, label["recorded"]["frame_t_ns"], float(label["fps"]))
    if truth != label["truth"]:
        label["truth"] = truth
        tmp = directory / (name + ".json.tmp")
        tmp.write_text(json.dumps(label, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    return path


def _groups(directory: Path) -> dict[str, list[Path]]:
    """The clips' files by clip name (a video, its label, a label being written); other
    files in the folder are not clips and are left alone."""
    out: dict[str, list[Path]] = {}
    for p in directory.iterdir():
        if not p.is_file() or p.name == SCORES_FILE:
            continue
        for suffix in (".json.tmp", ".json", VIDEO_SUFFIX):
            if p.name.endswith(suffix) and len(p.name) > len(suffix):
                out.setdefault(p.name[:-len(suffix)], []).append(p)
                break
    return out


def _held(name: str, holds: set[str]) -> bool:
    # A hold names a bundle (`NAME-FIGURE`); holding any bundle of the round keeps its clip.
    return any(h == name or h.startswith(name + "-") for h in holds)


def enforce_clips(directory: Path, *, holds: set[str], max_age_s: float, max_bytes: int,
                  now_s: float) -> RetentionReport:
    """Delete clips older than `max_age_s`, then the oldest until under `max_bytes`.

    The evidence rules, for the clips folder on its own: a clip whose round has a
    held bundle is never deleted; `scores.json` is not a clip and stays.

    Args:
        directory: the clips folder.
        holds: the held bundle names (`controller.evidence.retention.held`).
        max_age_s: age limit (by the newest file of the clip).
        max_bytes: total size limit of the clips folder.
        now_s: the current wall-clock time (file times are wall-clock).
    """
    report = RetentionReport()
    if not directory.is_dir():
        return report
    groups = _groups(directory)
    stats = {n: [p.stat() for p in files] for n, files in groups.items()}
    age = {n: max(s.st_mtime for s in st) for n, st in stats.items()}
    size = {n: sum(s.st_size for s in st) for n, st in stats.items()}
    total = sum(size.values())
    for name in sorted(groups, key=lambda n: (age[n], n)):
        if _held(name, holds):
            report.held.append(name)
            continue
        if now_s - age[name] > max_age_s or total > max_bytes:
            for p in groups[name]:
                p.unlink(missing_ok=True)
            total -= size[name]
            report.deleted.append(name)
        else:
            report.kept.append(name)
    report.total_bytes = total
    return report

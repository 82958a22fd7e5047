"""`knapp vision analyze|demo`: the camera's view of a recorded round."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.cli import seed_arg
from controller.config import load_config


def register(sub: Any) -> None:
    """Add the `vision` command."""
    p: argparse.ArgumentParser = sub.add_parser("vision", help="analyse table camera video")
    vsub = p.add_subparsers(dest="vision_command", metavar="ACTION")
    vsub.required = True
    a = vsub.add_parser("analyze", help="list every grab and feint in a recorded video")
    a.add_argument("video", help="video file (any format OpenCV reads)")
    a.add_argument("--config", required=True, help="the table configuration file (TOML)")
    a.add_argument("--calibration", help="calibration file (default: the configuration's, "
                                         "else calibrate from the first frames)")
    a.add_argument("--json", action="store_true", help="one JSON object per line")
    a.set_defaults(func=_analyze)
    m = vsub.add_parser("markers", help="write the four table markers to print: a PDF at "
                                        "exact scale with a ruler, or a PNG")
    m.add_argument("out", help="file to write: .pdf (A4 or Letter pages) or .png")
    size = m.add_mutually_exclusive_group()
    size.add_argument("--config", help="the table configuration: markers at its "
                                       "[camera.markers] size")
    size.add_argument("--size-mm", type=float, help="marker side (default 50)")
    m.add_argument("--paper", choices=("a4", "letter"), help="PDF page size (default a4)")
    m.add_argument("--dpi", type=int, help="PNG resolution (default 300)")
    m.set_defaults(func=_markers)
    d = vsub.add_parser("demo", help="render a synthetic round to a video file, to try analyze")
    d.add_argument("out", help="output video (.mkv: lossless FFV1)")
    d.add_argument("--config", required=True, help="the table configuration file (TOML)")
    d.add_argument("--seed", type=seed_arg, default=1, help="which random round (default 1)")
    d.set_defaults(func=_demo)


def _analyze(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from controller.vision.analyze import analyze
    from controller.vision.calibrate import Calibration
    from controller.vision.frames import CameraError
    from controller.vision.sources import VideoCaptureSource

    # The video first: a missing video named as a missing calibration sent people to
    # recalibrate a table that was fine.
    if not Path(args.video).is_file():
        raise CameraError(f"{args.video}: no such video file")
    cfg = load_config(args.config)
    cam = cfg.camera
    cal_path = args.calibration or cam.calibration
    calibration = Calibration.load(cal_path) if cal_path else None
    source = VideoCaptureSource(args.video)
    total = source.frame_count
    with tqdm(total=total, unit="frame", file=sys.stderr, leave=False,
              disable=not sys.stderr.isatty()) as bar:
        done = [0]

        def progress(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n

        try:
            result = analyze(source, cam, calibration, progress=progress)
        finally:
            source.close()
    for problem, count in sorted(result.statuses.items()):
        print(f"warning: {count} frame(s) unusable: {problem}", file=sys.stderr)
    for decision in sorted(result.decisions, key=_when):
        if args.json:
            print(json.dumps(decision.to_json(result.origin_ns)))
        else:
            print(_describe(decision, result.origin_ns))
    if not args.json and not result.decisions:
        print(f"{Path(args.video).name}: {result.frames} frames, no grabs and no feints")
    return 0


def _when(d: Any) -> int:
    t = d.lift_ns if d.lift_ns is not None else d.touch_ns
    return int(t if t is not None else d.decided_ns)


def _describe(d: Any, origin: int) -> str:
    j = d.to_json(origin)
    seat = j["seat"] or "(no arm seen: ask the table)"
    touch = "no touch" if j["touch_ms"] is None else f"touch {j['touch_ms']:8.1f} ms"
    if d.kind == "grab":
        text = (f"grab   {seat:<10} {j['figure']:<7} {touch}  lift {j['lift_ms']:8.1f} ms "
                f"±{j['uncertainty_ms']:.1f}  confidence {j['confidence']:.3f}")
    else:
        text = f"feint  {seat:<10} {j['figure']:<7} {touch}"
    for c in j["other_claims"]:
        text += f"\n       also on it: {c['seat']} (touch {c['touch_ms']} ms)"
    return text


def _demo(args: argparse.Namespace) -> int:
    from controller.sim.render import write_video
    from controller.sim.scenarios import random_scene

    cam = (load_config(args.config)).camera
    scene = random_scene(cam, args.seed)
    renderer = write_video(scene, args.out)
    print(f"{args.out}: {renderer.frame_count} frames at {scene.fps:g} fps; what happened:")
    for e in renderer.ground_truth():
        lift = "" if e.lift_s is None else f", lift {e.lift_s * 1000:.1f} ms"
        touch = "no touch" if e.touch_s is None else f"touch {e.touch_s * 1000:.1f} ms"
        others = "".join(f", {s} also on it at {t * 1000:.1f} ms" for s, t in e.others)
        print(f"  {e.kind} {e.seat} {e.figure.value}: {touch}{lift}{others}")
    return 0


def _markers(args: argparse.Namespace) -> int:
    from controller.vision.config import DEFAULT_MARKER_MM, MARKER_IDS
    from controller.vision.printing import MarkerPrintError, marker_sides, write_markers

    if args.config:
        sides = marker_sides(load_config(args.config).camera.marker_corners)
    else:
        side = DEFAULT_MARKER_MM if args.size_mm is None else args.size_mm
        sides = dict.fromkeys(MARKER_IDS, side)
    try:
        print(write_markers(args.out, sides, paper=args.paper, dpi=args.dpi))
    except MarkerPrintError as exc:
        print(f"knapp vision markers: {exc}", file=sys.stderr)
        return 2
    return 0

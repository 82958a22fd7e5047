"""`knapp vision analyze|eval|demo|markers`: the camera's view of recorded rounds."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli import seed_arg
from controller.config import TableConfig, load_config, parse_config
from controller.errors import KnappError

if TYPE_CHECKING:
    from controller.vision.calibrate import Calibration
    from controller.vision.config import CameraConfig
    from controller.vision.evaluate import Labelled

MISTAKES_SHOWN = 20  # the camera's mistakes listed under the table (--json has them all)


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
    e = vsub.add_parser("eval", help="score the camera on a folder of labelled rounds (a "
                                     "table's own clips, or a synthetic set)")
    e.add_argument("dir", help="the folder: NAME.json labels beside their videos NAME.*")
    e.add_argument("--config", help="the table configuration (TOML), for labels that carry "
                                    "no [camera] section of their own")
    e.add_argument("--calibration", help="calibration file for every clip (default: each "
                                         "clip's first frames, else the calibration its "
                                         "label recorded, else the configuration's)")
    e.add_argument("--json", action="store_true", help="the scores as one JSON object")
    e.add_argument("--save", action="store_true",
                   help="write DIR/scores.json (what the setup page shows)")
    e.set_defaults(func=_eval)
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


def _eval(args: argparse.Namespace) -> int:
    """Score the camera on every labelled clip in a folder; exit 2 on unusable input."""
    from tqdm import tqdm

    from controller.vision.calibrate import Calibration
    from controller.vision.evaluate import evaluate, read_labels, report, save_scores

    folder = Path(args.dir)

    def refuse(*lines: str) -> int:
        for line in lines:
            print(f"knapp vision eval: {line}", file=sys.stderr)
        return 2

    if not folder.is_dir():
        return refuse(f"{folder}: no such folder")
    try:
        rounds = read_labels(folder)
    except ValueError as exc:
        return refuse(str(exc))
    if not rounds:
        return refuse(f"{folder}: no labelled clips in it (NAME.json beside its video NAME.*)")
    table = load_config(args.config) if args.config else None
    given = Calibration.load(args.calibration) if args.calibration else None
    plans: dict[Path, _Plan] = {}
    problems: list[str] = []
    for r in rounds:
        try:
            plans[r.video] = _plan(r, table, given)
        except (KnappError, ValueError) as exc:
            problems.append(str(exc))
    if problems:
        return refuse(*problems)

    unscored: list[str] = []
    notes: list[str] = []
    bar = tqdm(total=len(rounds), unit="clip", file=sys.stderr, leave=False,
               disable=not sys.stderr.isatty())

    def analyse(r: Labelled) -> tuple[list[dict[str, Any]], int]:
        bar.set_postfix_str(r.video.name, refresh=False)
        try:
            return _decisions(r, plans[r.video], notes)
        except KnappError as exc:
            # One clip the camera cannot calibrate on (or read) is scored as every grab
            # missed, and named: a run over a whole folder must not stop for it.
            grabs = sum(1 for e in r.truth if e.get("kind") == "grab")
            unscored.append(f"{r.video.name}: {exc}; its {grabs} grab(s) scored as missed")
            return [], _frame_count(r.video)
        finally:
            bar.update(1)

    try:
        by_kind = evaluate(rounds, analyse)
    finally:
        bar.close()
    for line in notes + unscored:
        print(f"warning: {line}", file=sys.stderr)
    text, total = report(folder.resolve().name, by_kind)
    saved = save_scores(folder, by_kind, source=folder.resolve().name) if args.save else None
    if args.json:
        print(json.dumps({"folder": folder.resolve().name, "total": total.to_json(),
                          "kinds": {k: t.to_json() for k, t in sorted(by_kind.items())},
                          "unscored": unscored, "mistakes": total.failures}))
    else:
        print(text)
        print("\n".join(_overall(total)))
        for line in total.failures[:MISTAKES_SHOWN]:
            print(f"  mistake: {line}")
        if len(total.failures) > MISTAKES_SHOWN:
            print(f"  ... and {len(total.failures) - MISTAKES_SHOWN} more (--json lists all)")
    if saved is not None:
        print(f"wrote {saved}", file=sys.stderr if args.json else sys.stdout)
    return 0


@dataclass(frozen=True)
class _Plan:
    """How one clip is analysed: its layout, and the calibrations to use.

    `given` (`--calibration`) is used as it is. Otherwise the clip's own first
    frames are calibrated on, as the synthetic sets are; `fallback` (the one the
    table recorded in the label, else the table file's) is used only when they do
    not calibrate (hands over the markers). The recorded one is not the first
    choice: it was learnt on the camera's raw frames, and a clip holds the ring
    buffer's JPEG frames, whose colours it does not quite fit.
    """

    cam: CameraConfig
    given: Calibration | None
    fallback: Calibration | None
    fallback_error: str | None = None


def _plan(r: Labelled, table: TableConfig | None, given: Calibration | None) -> _Plan:
    """Check a clip before any is analysed: its layout parses, its video opens."""
    from controller.vision.calibrate import Calibration, CalibrationError
    from controller.vision.sources import VideoCaptureSource

    label = r.video.with_suffix(".json")
    if r.camera is not None:
        seats = r.seats or (table.seats if table is not None else ())
        if not seats:
            raise ValueError(f"{label}: names no seats (and no --config gives them)")
        try:
            cam = parse_config({"table": {"seats": list(seats)}, "camera": r.camera},
                               source=str(label)).camera
        except KnappError as exc:
            raise ValueError(f"{label}: malformed camera section: {exc}") from exc
    elif table is not None:
        cam = table.camera
    else:
        raise ValueError(f"{label}: no camera section in the label: give --config TABLE.toml")
    VideoCaptureSource(str(r.video)).close()  # a video that will not open: named now
    fallback, error = None, None
    raw = json.loads(label.read_text(encoding="utf-8")).get("calibration")
    try:
        if raw is not None:
            if not isinstance(raw, dict):
                raise CalibrationError(f"{label}: its calibration is not a JSON object")
            fallback = Calibration.from_json(raw, str(label))
        elif r.camera is None and cam.calibration is not None:
            fallback = Calibration.load(cam.calibration)
    except CalibrationError as exc:
        error = str(exc)
    return _Plan(cam, given, fallback, error)


def _decisions(r: Labelled, plan: _Plan, notes: list[str]) -> tuple[list[dict[str, Any]], int]:
    """The camera's decisions on one clip (ms from its first frame) and its frame count."""
    from controller.vision.analyze import Analysis, analyze
    from controller.vision.calibrate import CalibrationError
    from controller.vision.sources import VideoCaptureSource

    def run(calibration: Calibration | None) -> Analysis:
        source = VideoCaptureSource(str(r.video))
        try:
            return analyze(source, plan.cam, calibration)
        finally:
            source.close()

    try:
        result = run(plan.given)
    except CalibrationError as exc:
        if plan.given is not None or plan.fallback is None:
            also = f" (and {plan.fallback_error})" if plan.fallback_error else ""
            raise CalibrationError(f"calibration failed: {exc}{also}") from exc
        result = run(plan.fallback)
        notes.append(f"{r.video.name}: its first frames do not calibrate ({exc}); "
                     "analysed with the calibration it was recorded with")
    return [d.to_json(result.origin_ns) for d in result.decisions], result.frames


def _frame_count(video: Path) -> int:
    """How many frames a video holds (0 when it cannot say)."""
    from controller.vision.sources import VideoCaptureSource

    try:
        source = VideoCaptureSource(str(video))
    except KnappError:
        return 0
    try:
        return max(0, int(source.frame_count or 0))
    finally:
        source.close()


def _overall(t: Any) -> list[str]:
    """The headline lines under the per-kind table."""

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:.1f} %" if b else "n/a"

    return [f"overall: rests on {t.rounds} round(s), {t.grabs} grab(s), {t.frames} frames",
            f"  seat right (named with confidence)  {pct(t.seat_ok, t.grabs)}",
            f"  figure right                        {pct(t.figure_ok, t.grabs)}",
            f"  asked (the table is asked)          {pct(t.asked, t.grabs)}",
            f"  wrong seat above the threshold      {t.wrong_confident}",
            f"  lift within one frame               {pct(t.lift_within_frame, t.lift_timed)}"
            f" of {t.lift_timed} timed",
            f"  phantom grabs                       {t.phantom}",
            f"  missed grabs                        {t.missed}"]


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

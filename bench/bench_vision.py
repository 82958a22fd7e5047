"""Benchmark the table camera on the camera world: per kind, tuning and held-out seeds.

Draws `--rounds` rounds per set from `controller/sim/world_scenes.py` (every
kind in turn: grabs, races 15-150 ms apart, feints, sleeves in the figures'
colours, light changes, covered markers, six players, two grabs at once; 30,
60 and 120 fps), renders them through the world's own lens, calibrates from
each video's first frames (hands may be in view) and analyses it the way the
table does, frame by frame. Two sets of seeds: "tuning" (what the pipeline
may be tuned on) and "held-out" (never looked at while tuning); both are
reported every time, per kind and overall:

- seat (the right seat named with confidence), figure, asked (no seat, or one
  below the confidence threshold: the table is asked), wrong seats above it;
- lift time within one frame, and how often the stated uncertainty covers the
  truth;
- phantom grabs (grabs reported where no figure left its pad) and missed grabs;
- cost per frame (detection and tracking, one core) as a ratio to a bare
  HSV-threshold-plus-contours baseline timed on the same frames in the same run.

It writes a plot (seat and asked by kind, lift error, cost) and a
reliability plot (stated confidence against the share right) to
bench/results/. `--keep DIR` writes each set's videos and labels (the same
files `knapp vision eval DIR` scores) and reuses them.

Usage: python bench/bench_vision.py [--rounds 80] [--start N] [--sets tuning,heldout]
       [--keep DIR] [--jobs 2] [--kinds race,six] [--plot PATH] [--json PATH]
       [--no-texture-arms] [--low-contrast-arms] [--no-carried-seats] [--no-fist-seats]

`--no-texture-arms`, `--low-contrast-arms`, `--no-carried-seats` and `--no-fist-seats`
switch a cue off or on for the run (the product's settings otherwise), to compare on the
same videos.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from controller.sim.world_render import WorldSource
from controller.sim.world_scenes import KINDS, heldout_seeds, kind_of, tuning_seeds, world_round
from controller.vision import detect as detect_mod
from controller.vision import track as track_mod
from controller.vision.analyze import FrameAnalyser, calibrate_from, calibration_frames
from controller.vision.confidence import ASK_BELOW
from controller.vision.evaluate import Tally, report, score, write_label
from controller.vision.frames import Frame
from controller.vision.sources import VideoCaptureSource

RESULTS = Path(__file__).parent / "results"

# The baseline of hardware.md §7: HSV, six inRange (red needs two), a 5x5
# elliptical opening, external contours and moments per colour.
HSV_RANGES = [((0, 80, 80), (10, 255, 255)), ((170, 80, 80), (180, 255, 255)),
              ((100, 80, 80), (130, 255, 255)), ((40, 80, 80), (80, 255, 255)),
              ((20, 80, 80), (35, 255, 255)), ((0, 0, 200), (180, 40, 255))]
KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def baseline(img: np.ndarray) -> int:
    """Bare HSV threshold plus contours; return the blob count (so nothing is skipped)."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    masks = [cv2.inRange(hsv, np.array(lo), np.array(hi)) for lo, hi in HSV_RANGES]
    masks = [cv2.bitwise_or(masks[0], masks[1]), *masks[2:]]
    n = 0
    for m in masks:
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, KERNEL)
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        n += sum(1 for c in contours if cv2.moments(c)["m00"] > 0)
    return n


def _frames(seed: str, kind: str, keep: Path | None) -> tuple[Any, list[Frame]]:
    """The round's world and its frames: rendered, or read back from a kept set."""
    world = world_round(seed, kind)
    video = keep / f"{seed.replace(':', '-')}.mkv" if keep else None
    if video is not None and video.exists():
        src = VideoCaptureSource(str(video))
        frames = []
        while (f := src.read()) is not None:
            frames.append(Frame(f.image, round(f.index * 1e9 / world.fps), f.index, True))
        src.close()
        if len(frames) == world.frame_count:
            return world, frames
    source = WorldSource(world)
    frames = []
    while (f := source.read()) is not None:
        frames.append(f)
    if video is not None:
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"FFV1"), world.fps,
                                 world.lens.size)
        for f in frames:
            writer.write(f.image)
        writer.release()
        data = world.to_json()
        write_label(video.with_suffix(".json"), data["truth"], fps=world.fps, kind=kind,  # type: ignore[arg-type]
                    camera=world.extra["camera"], seats=tuple(world.extra["seats"]))  # type: ignore[arg-type]
    return world, frames


def _one_round(job: tuple[str, str, Path | None]) -> tuple[str, Tally, list[int], list[int]]:
    """Render (or read back) one round, calibrate, analyse and score it."""
    seed, kind, keep = job
    world, frames = _frames(seed, kind, keep)
    try:
        cal = calibrate_from(frames[:calibration_frames(world.fps)], world.camera)
    except Exception as exc:   # report, don't stop the run
        t = score(world.to_json()["truth"], [], world.fps, name=seed, frames=len(frames))  # type: ignore[arg-type]
        t.failures.insert(0, f"{seed}: calibration failed: {exc}")
        return kind, t, [], []
    analyser = FrameAnalyser(world.camera, cal, fps=world.fps)
    decisions = []
    ours: list[int] = []
    base: list[int] = []
    for f in frames:
        t0 = time.perf_counter_ns()
        decisions.extend(analyser.feed(f))
        t1 = time.perf_counter_ns()
        baseline(f.image)
        t2 = time.perf_counter_ns()
        ours.append(t1 - t0)
        base.append(t2 - t1)
    decisions.extend(analyser.finish())
    origin = frames[0].t_ns
    return kind, score(world.to_json()["truth"], [d.to_json(origin) for d in decisions],  # type: ignore[arg-type]
                       world.fps, name=f"{seed} ({kind}, {world.fps:g} fps)",
                       frames=len(frames)), ours, base


def _pin(queue: Any, low_contrast: bool = False, texture: bool = True,
         carried: bool = True, fist: bool = True) -> None:
    """Pool initializer: each worker on a core of its own, OpenCV single-threaded."""
    detect_mod.LOW_CONTRAST_ARMS = low_contrast
    detect_mod.TEXTURE_ARMS = texture
    track_mod.CARRIED_SEATS = carried
    track_mod.FIST_SEATS = fist
    core = queue.get()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    cv2.setNumThreads(1)


def _run_set(name: str, seeds: list[str], kinds: tuple[str, ...], keep: Path | None,
             cost: dict[str, list[int]], jobs: int = 1) -> dict[str, Tally]:
    by_kind: dict[str, Tally] = {}
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    # A seed's kind follows its own number, whatever --start is.
    work = [(seed, kind_of(int(seed.split(":")[1])), keep) for seed in seeds]
    work = [w for w in work if w[1] in kinds]
    if jobs > 1:
        import multiprocessing

        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        queue = multiprocessing.get_context("spawn").Queue()
        for k in range(jobs):
            queue.put(cores[k % len(cores)] if cores else k)
        # Spawned workers import the module afresh: the trial switch goes with them.
        pool = multiprocessing.get_context("spawn").Pool(
            jobs, _pin, (queue, detect_mod.LOW_CONTRAST_ARMS, detect_mod.TEXTURE_ARMS,
                         track_mod.CARRIED_SEATS, track_mod.FIST_SEATS))
        results = pool.imap(_one_round, work)
    else:
        pool = None
        results = map(_one_round, work)
    for kind, t, ours, base in tqdm(results, total=len(work), desc=name, unit="round",
                                    file=sys.stderr):
        by_kind.setdefault(kind, Tally()).add(t)
        cost["ours"].extend(ours)
        cost["base"].extend(base)
    if pool is not None:
        pool.close()
    return by_kind


def _table(name: str, by_kind: dict[str, Tally]) -> Tally:
    text, total = report(name, by_kind)
    print("\n" + text)
    return total


def _wilson_low(ok: int, n: int, z: float = 1.96) -> float:
    if n == 0:
        return math.nan
    p = ok / n
    d = 1 + z * z / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - margin) / d


def _plots(results: dict[str, dict[str, Tally]], totals: dict[str, Tally],
           cost: dict[str, list[int]], plot: Path, reliability: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(16, 4.8))
    kinds = sorted({k for r in results.values() for k in r})
    width = 0.8 / max(1, len(results))
    for j, (name, by_kind) in enumerate(results.items()):
        ys = np.arange(len(kinds)) + j * width
        seat = [100 * by_kind[k].seat_ok / by_kind[k].grabs if k in by_kind and by_kind[k].grabs
                else 0 for k in kinds]
        asked = [100 * by_kind[k].asked / by_kind[k].grabs if k in by_kind and by_kind[k].grabs
                 else 0 for k in kinds]
        ax[0].barh(ys, seat, height=width, label=f"{name}: seat right")
        ax[0].barh(ys, asked, left=seat, height=width, alpha=0.4, label=f"{name}: asked")
    ax[0].set_yticks(np.arange(len(kinds)) + width / 2, kinds)
    ax[0].axvline(99.5, color="red", ls="--", label="goal 99.5 %")
    ax[0].set_xlim(0, 101)   # seats right are far below half on the hard kinds
    ax[0].set_title("seat by kind (named with confidence, and asked)")
    ax[0].legend(loc="lower left", fontsize=7)
    for name, t in totals.items():
        ax[1].hist(np.clip(t.lift_err_frames, 0, 4), bins=40, alpha=0.6, label=name)
    ax[1].axvline(1.0, color="red", ls="--", label="one frame")
    ax[1].set_title("lift time error (frames, clipped at 4)")
    ax[1].legend()
    ours, base = np.array(cost["ours"]) / 1e6, np.array(cost["base"]) / 1e6
    ax[2].hist([base, ours], bins=50, range=(0, float(np.percentile(ours, 99)) * 1.2),
               label=[f"HSV+contours baseline (median {np.median(base):.2f} ms)",
                      f"knapp vision (median {np.median(ours):.2f} ms, "
                      f"{np.median(ours) / np.median(base):.2f}x)"], color=["#aaa", "#a74"])
    ax[2].set_title("ms per frame, one core")
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(plot, dpi=90)
    fig2, axr = plt.subplots(figsize=(5.5, 5))
    edges = np.linspace(0, 1, 11)
    for name, t in totals.items():
        if not t.reliability:
            continue
        conf = np.array([c for c, _ in t.reliability])
        right = np.array([r for _, r in t.reliability], float)
        idx = np.clip(np.digitize(conf, edges) - 1, 0, 9)
        xs = [conf[idx == b].mean() for b in range(10) if np.any(idx == b)]
        ys = [right[idx == b].mean() for b in range(10) if np.any(idx == b)]
        ns = [int(np.sum(idx == b)) for b in range(10) if np.any(idx == b)]
        axr.plot(xs, ys, "o-", label=f"{name} ({len(conf)} grabs)")
        for x, y, n in zip(xs, ys, ns, strict=True):
            axr.annotate(str(n), (x, y), fontsize=7, xytext=(3, -9), textcoords="offset points")
    axr.plot([0, 1], [0, 1], "k:", label="perfectly calibrated")
    axr.axvline(ASK_BELOW, color="red", ls="--", label=f"ask below {ASK_BELOW:g}")
    axr.set_xlabel("stated confidence")
    axr.set_ylabel("share of seats right")
    axr.set_title("reliability of the camera's seat confidence")
    axr.legend(loc="upper left", fontsize=8)
    fig2.tight_layout()
    fig2.savefig(reliability, dpi=90)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=80, help="rounds per set (default 80)")
    ap.add_argument("--sets", default="tuning,heldout", help="tuning, heldout or both")
    ap.add_argument("--start", type=int, default=0, help="first seed index of each set")
    ap.add_argument("--kinds", default=",".join(KINDS), help="only these kinds")
    ap.add_argument("--keep", help="keep each set's videos and labels under this directory")
    ap.add_argument("--plot", default=str(RESULTS / "vision.png"))
    ap.add_argument("--reliability", default=str(RESULTS / "vision-reliability.png"))
    ap.add_argument("--json", help="also write the figures as JSON here")
    ap.add_argument("--failures", type=int, default=30, help="failures to list per set")
    ap.add_argument("--core", type=int, default=-1,
                    help="the core to run on (index among this machine's; default the last)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="rounds analysed side by side, each process on a core of its own")
    ap.add_argument("--low-contrast-arms", action="store_true",
                    help="try detect.LOW_CONTRAST_ARMS (off in the product: docs/camera.md)")
    ap.add_argument("--no-texture-arms", action="store_true",
                    help="without detect.TEXTURE_ARMS (arms found by colour alone), to compare")
    ap.add_argument("--no-carried-seats", action="store_true",
                    help="without track.CARRIED_SEATS (where the figure went), to compare")
    ap.add_argument("--no-fist-seats", action="store_true",
                    help="without track.FIST_SEATS (where the hand the figure was last "
                         "found in went), to compare")
    args = ap.parse_args()
    detect_mod.LOW_CONTRAST_ARMS = args.low_contrast_arms
    track_mod.CARRIED_SEATS = not args.no_carried_seats
    track_mod.FIST_SEATS = not args.no_fist_seats
    detect_mod.TEXTURE_ARMS = not args.no_texture_arms

    if hasattr(os, "sched_setaffinity") and args.jobs <= 1:
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[args.core % len(cores)]})
    cv2.setNumThreads(1)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = set(kinds) - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds {sorted(unknown)} (kinds: {', '.join(KINDS)})")
    cost: dict[str, list[int]] = {"ours": [], "base": []}
    results: dict[str, dict[str, Tally]] = {}
    for name in (s.strip() for s in args.sets.split(",")):
        if name not in ("tuning", "heldout"):
            ap.error(f"--sets takes tuning and/or heldout, not {name!r}")
        seeds = (tuning_seeds if name == "tuning" else heldout_seeds)(args.rounds, args.start)
        keep = Path(args.keep) / name if args.keep else None
        results[name] = _run_set(name, seeds, kinds, keep, cost, args.jobs)

    print(f"\nknapp vision bench: OpenCV {cv2.__version__}, numpy {np.__version__}, one core; "
          f"ask below confidence {ASK_BELOW:g}")
    totals = {name: _table(name, by_kind) for name, by_kind in results.items()}
    ours = statistics.median(cost["ours"]) / 1e6 if cost["ours"] else math.nan
    base = statistics.median(cost["base"]) / 1e6 if cost["base"] else math.nan
    print(f"\ncost per frame (median, one core): ours {ours:.2f} ms (p95 "
          f"{np.percentile(cost['ours'], 95) / 1e6:.2f}), baseline {base:.2f} ms: "
          f"{ours / base:.2f}x   [goal <= 1.5x]")
    for name, t in totals.items():
        print(f"{name}: seat {100 * t.seat_ok / max(1, t.grabs):.2f} % (Wilson 95 % low "
              f"{100 * _wilson_low(t.seat_ok, t.grabs):.2f} %), figure "
              f"{100 * t.figure_ok / max(1, t.grabs):.2f} %, "
              f"asked {100 * t.asked / max(1, t.grabs):.2f} %, "
              f"wrong above threshold {t.wrong_confident}, phantom grabs {t.phantom}")
        right = sum(r for _, r in t.reliability)
        print(f"  seats right at any confidence: {right} of {t.grabs}; by threshold "
              "(answered / wrong among them): " + ", ".join(
                  f"{thr:g}: {sum(c >= thr for c, _ in t.reliability)}/"
                  f"{sum(c >= thr and not r for c, r in t.reliability)}"
                  for thr in (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)))
        if t.failures:
            print(f"  {len(t.failures)} failures; first {min(len(t.failures), args.failures)}:")
            for line in t.failures[:args.failures]:
                print("   ", line)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"ask_below": ASK_BELOW, "ms_ours": ours, "ms_base": base,
             "sets": {n: {"total": totals[n].to_json(),
                          "kinds": {k: {**t.to_json(), "lift_err_frames": t.lift_err_frames,
                                        "reliability": t.reliability}
                                    for k, t in r.items()}}
                      for n, r in results.items()}}, indent=1))
    _plots(results, totals, cost, Path(args.plot), Path(args.reliability))
    print(f"\nplots: {args.plot}, {args.reliability}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Trace one camera-world round frame by frame: the arms the camera found against
the true hands, then its decisions against the truth.

For tracing a wrong seat on tuning seeds (never on held-out ones): where each arm
entered, where its tip was, whether it touched a figure, next to where each
player's hands truly were.

Usage: python bench/trace_round.py tune:601 [--keep DIR] [--from 2.2] [--to 2.9]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_vision import _frames  # the benchmark's own frames, kept or drawn

from controller.sim.world_scenes import kind_of
from controller.vision.analyze import (
    FrameAnalyser,
    calibrate_from,
    calibration_frames,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", help="a seed label, e.g. tune:601")
    ap.add_argument("--keep", help="the --keep directory of bench_vision (videos read back)")
    ap.add_argument("--from", dest="t0", type=float, default=0.0, help="first second shown")
    ap.add_argument("--to", dest="t1", type=float, default=1e9, help="last second shown")
    args = ap.parse_args()
    keep = Path(args.keep) / ("heldout" if args.seed.startswith("heldout") else "tuning") \
        if args.keep else None
    world, frames = _frames(args.seed, kind_of(int(args.seed.split(":")[1])), keep)
    cal = calibrate_from(frames[:calibration_frames(world.fps)], world.camera)
    analyser = FrameAnalyser(world.camera, cal, fps=world.fps)
    decisions = []
    for f in frames:
        decisions.extend(analyser.feed(f))
        t = f.t_ns / 1e9
        det = analyser.last
        if det is None or not args.t0 <= t <= args.t1:
            continue
        def touch(a: object) -> str:
            got = "+".join(x.value for x in a.touching)  # type: ignore[attr-defined]
            return f" touch {got}" if got else ""

        arms = " ".join(f"{a.seat}[edge {a.entry_mm[0]:.0f},{a.entry_mm[1]:.0f} "
                        f"tip {a.tip_mm[0]:.0f},{a.tip_mm[1]:.0f}"
                        f"{' shared' if a.shared else ''}{' colour' if a.by_colour else ''}"
                        f"{touch(a)}]"
                        for a in det.arms)
        hands = " ".join(f"{p.seat}{k}({w[0]:.0f},{w[1]:.0f})" for p in world.players
                         for k, h in enumerate(p.hands) if h is not None
                         for w in [h.state(t)[0]])
        print(f"{t:6.3f} {det.status:8} arms: {arms or '-'} | true hands: {hands}")
    decisions.extend(analyser.finish())
    print(f"\n{args.seed}: {world.kind}, {world.fps:g} fps; seats {dict(world.camera.seats)}")
    print("pads", {f.value: p for f, p in world.camera.pads})
    for d in decisions:
        print("camera:", d.to_json(frames[0].t_ns))
    for e in world.to_json()["truth"]:
        print("truth: ", e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How well would two markers place the pads? Pad error of the table-to-image fit
from each pair of markers, against the fit from all four and the world's true lens.

Calibration needs three of the four markers. Where hands hide two, a fit from the
other two is the tempting fallback; this measures what it would cost. For each
round of the camera world (`controller/sim/world_scenes.py`, tuning and held-out
seeds), frame 0 is rendered, its markers found, and a homography fitted from all
four, from each diagonal pair (0+2, 1+3) and from each pair along a side. The
error is the largest distance, in table millimetres, between where a fit and the
true lens (radial distortion included) put the five pad centres. Pads are
30-36 mm in radius: an error of a third of that misreads a pad.

Usage: python bench/bench_marker_pairs.py [--rounds 40] [--sets tuning,heldout]
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np
from tqdm import tqdm

from controller.sim.world_render import WorldRenderer
from controller.sim.world_scenes import heldout_seeds, kind_of, tuning_seeds, world_round
from controller.vision.calibrate import markers_in, project

FITS = {"all four": (0, 1, 2, 3), "diagonal 0+2": (0, 2), "diagonal 1+3": (1, 3),
        "side 0+1": (0, 1), "side 1+2": (1, 2), "side 2+3": (2, 3), "side 3+0": (3, 0)}


def pad_errors(seed: str) -> dict[str, float]:
    """Each fit's largest pad error (mm) on `seed`'s first frame (fits whose markers
    were not all found are left out)."""
    world = world_round(seed, kind_of(int(seed.split(":")[1])))
    found = markers_in(WorldRenderer(world).render(0))
    cam = world.camera
    pads = np.array([p for _, p in cam.pads], np.float64)
    true = world.lens.project(np.c_[pads, np.zeros(len(pads))])
    mm_per_px = np.array([1.0 / world.lens.scale_at((x, y, 0.0)) for x, y in pads])
    out: dict[str, float] = {}
    for name, ids in FITS.items():
        if not all(i in found for i in ids):
            continue
        img = np.concatenate([found[i] for i in ids]).astype(np.float64)
        mm = np.array([p for i in ids for p in cam.marker_corners[i]], np.float64)
        H, _ = cv2.findHomography(mm, img, 0)  # noqa: N806 - the usual name
        if H is None:
            out[name] = float("inf")
            continue
        err = np.linalg.norm(project(H, pads) - true, axis=1) * mm_per_px
        out[name] = float(err.max())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=40, help="rounds per set")
    ap.add_argument("--sets", default="tuning,heldout", help="tuning, heldout or both")
    args = ap.parse_args()
    for name in [s for s in args.sets.split(",") if s]:
        seeds = (tuning_seeds if name == "tuning" else heldout_seeds)(args.rounds)
        errors: dict[str, list[float]] = {k: [] for k in FITS}
        for seed in tqdm(seeds, desc=name, unit="round", file=sys.stderr):
            for fit, e in pad_errors(seed).items():
                errors[fit].append(e)
        print(f"\n{name}: {len(seeds)} rounds; largest pad error per round, mm")
        print(f"  {'fit':14} {'rounds':>6} {'median':>7} {'p95':>7} {'max':>7}")
        for fit, e in errors.items():
            if e:
                a = np.array(e)
                print(f"  {fit:14} {len(a):6d} {np.median(a):7.1f} {np.percentile(a, 95):7.1f} "
                      f"{a.max():7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

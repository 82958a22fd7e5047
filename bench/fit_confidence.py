"""Fit the camera's seat confidence to how often it is right, on tuning seeds only.

Reads `bench_vision.py --json` output, fits an isotonic (monotone) map from the
stated confidence to the share of seats right on the tuning set, prints it in
the form `controller/vision/confidence.py` keeps (`CALIBRATION`), and, given a
held-out run too, reports how far stated confidence is from the truth before and
after the map on seeds it was not fitted on (expected calibration error), with a
reliability plot of both.

Usage: python bench/fit_confidence.py TUNING.json [--heldout HELDOUT.json]
       [--plot bench/results/vision-calibration.png]

The isotonic fit is pool-adjacent-violators, a dozen lines: scikit-learn would
be a large dependency for one function.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from controller.vision.confidence import ASK_BELOW, CALIBRATION, calibrated

RESULTS = Path(__file__).resolve().parent / "results"


def pairs(path: str, name: str) -> list[tuple[float, bool]]:
    """Every grab's (stated confidence, seat right) in set `name` of a bench JSON."""
    data = json.loads(Path(path).read_text())
    kinds = data["sets"][name]["kinds"]
    return [(float(c), bool(r)) for k in kinds.values() for c, r in k["reliability"]]


def isotonic(xy: list[tuple[float, bool]]) -> list[tuple[float, float, int]]:
    """Pool adjacent violators: (lowest confidence of a block, share right, grabs)."""
    groups: dict[float, list[float]] = {}   # each stated confidence: [sum of y, count]
    for x, y in xy:
        g = groups.setdefault(x, [0.0, 0.0])
        g[0] += y
        g[1] += 1
    blocks: list[list[float]] = []   # [lowest x, sum of y, count]
    for x in sorted(groups):
        blocks.append([x, *groups[x]])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            _, s, n = blocks.pop()
            blocks[-1][1] += s
            blocks[-1][2] += n
    # Each block's share with one right and one wrong grab added (a Beta(1, 1) prior):
    # 103 right of 103 is not a certainty. Kept monotone after the shrinking.
    out: list[tuple[float, float, int]] = []
    for lo, k, n in blocks:
        p = (k + 1) / (n + 2)
        out.append((lo, max(p, out[-1][1]) if out else p, int(n)))
    return out


def ece(xy: list[tuple[float, bool]], bins: int = 10) -> float:
    """Expected calibration error: the grab-weighted gap between stated and right."""
    if not xy:
        return float("nan")
    c = np.array([x for x, _ in xy])
    r = np.array([y for _, y in xy], float)
    idx = np.clip((c * bins).astype(int), 0, bins - 1)
    return float(sum(abs(c[idx == b].mean() - r[idx == b].mean()) * np.sum(idx == b)
                     for b in range(bins) if np.any(idx == b)) / len(c))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tuning", help="bench_vision --json output with a tuning set")
    ap.add_argument("--heldout", help="... and one with a held-out set, to check the map on")
    ap.add_argument("--plot", default=str(RESULTS / "vision-calibration.png"))
    args = ap.parse_args()
    tune = pairs(args.tuning, "tuning")
    fit = isotonic(tune)
    print(f"isotonic fit on {len(tune)} tuning grabs (lowest stated confidence, share right, "
          "grabs):")
    for lo, p, n in fit:
        print(f"  {lo:.3f}  {p:.3f}  {n}")
    print("as CALIBRATION (steps at or above ASK_BELOW kept at or above it, below kept below):")
    print("CALIBRATION = (" + ", ".join(f"({lo:.3f}, {p:.3f})" for lo, p, _ in fit) + ")")
    print(f"\nin use: {CALIBRATION}")
    sets = {"tuning": tune}
    if args.heldout:
        sets["held-out"] = pairs(args.heldout, "heldout")
    for name, xy in sets.items():
        cal = [(calibrated(c), r) for c, r in xy]
        print(f"{name}: {len(xy)} grabs, expected calibration error {ece(xy):.3f} as stated, "
              f"{ece(cal):.3f} calibrated; asked as stated {sum(c < ASK_BELOW for c, _ in xy)}, "
              f"calibrated {sum(c < ASK_BELOW for c, _ in cal)}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, len(sets), figsize=(5.5 * len(sets), 5), squeeze=False)
    edges = np.linspace(0, 1, 11)
    for axis, (name, xy) in zip(ax[0], sets.items(), strict=True):
        for label, pts in (("as stated", xy), ("calibrated", [(calibrated(c), r) for c, r in xy])):
            c = np.array([x for x, _ in pts])
            r = np.array([y for _, y in pts], float)
            idx = np.clip(np.digitize(c, edges) - 1, 0, 9)
            xs = [c[idx == b].mean() for b in range(10) if np.any(idx == b)]
            ys = [r[idx == b].mean() for b in range(10) if np.any(idx == b)]
            axis.plot(xs, ys, "o-", label=f"{label} (ECE {ece(pts):.3f})")
        axis.plot([0, 1], [0, 1], "k:", label="perfectly calibrated")
        axis.axvline(ASK_BELOW, color="red", ls="--", label=f"ask below {ASK_BELOW:g}")
        axis.set_title(f"{name}: {len(xy)} grabs")
        axis.set_xlabel("confidence")
        axis.set_ylabel("share of seats right")
        axis.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=90)
    print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

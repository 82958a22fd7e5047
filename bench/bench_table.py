"""Benchmark the whole table end to end: every verdict against the camera world's truth.

Plays `--rounds` cards per set at simulated tables (`controller/sim/table_e2e.py`):
the real table service, the virtual pad board behind a pty read by the real
serial driver, the camera world drawn from the simulated players' own plans
and analysed by the real vision pipeline, and the display's paint reports, on
one fake clock. Each table (a seed) plays `--cards` cards; its players are
`--players`, or 2 to 6 in turn. Two sets of seeds, reported separately every
time: "tuning" (what may be tuned on) and "held-out" (never looked at while
tuning), labelled as in `controller/sim/world_scenes.py`.

Per set and overall it prints:

- right: the true first taker won (or nobody did and the card was boxed);
- wrong: a card given to another seat (or to nobody) outside the tie band;
- near-ties (the true gap between two hands on the answer inside the tie band),
  how many were called too close, asked (the table said who) and guessed;
- too close on a clear gap (cautious, not wrong); rounds where the camera was
  unsure and the table was asked "who took it?"; the cards whose taker the
  camera named itself, and how many of those were right; cards the camera
  held back (it read a figure put back as something else on its pad);
- rounds per second and CPU seconds per round (drawing, vision, the rest).

Usage: python bench/bench_table.py [--rounds 40] [--cards 10] [--seed 0]
       [--sets tuning,heldout] [--players N] [--fps 30] [--size 320x240]
       [--jobs 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from controller.progress import Progress
from controller.sim.table_e2e import VERDICTS, play_table
from controller.sim.world_scenes import heldout_seeds, tuning_seeds

PLAYERS = (3, 4, 5, 6, 2)


def _one_table(job: tuple[str, int, int, float, tuple[int, int] | None]) -> dict[str, Any]:
    seed, cards, players, fps, size = job
    return play_table(seed, cards, players=players, fps=fps, size=size).to_json()


def _pin(queue: Any) -> None:
    """Pool initializer: each worker on a core of its own, OpenCV single-threaded."""
    import cv2

    core = queue.get()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    cv2.setNumThreads(1)


def _jobs(name: str, rounds: int, cards: int, start: int, players: int, fps: float,
          size: tuple[int, int] | None) -> list[tuple[str, int, int, float,
                                                       tuple[int, int] | None]]:
    tables = math.ceil(rounds / cards)
    seeds = (tuning_seeds if name == "tuning" else heldout_seeds)(tables, start)
    out = []
    left = rounds
    for seed in seeds:
        n = min(cards, left)
        left -= n
        i = int(seed.split(":")[1])
        out.append((f"table-{seed}", n, players or PLAYERS[i % len(PLAYERS)], fps, size))
    return out


def _run(jobs_list: list[tuple[str, int, int, float, tuple[int, int] | None]], jobs: int,
         bar: Progress, done0: int) -> list[dict[str, Any]]:
    if jobs > 1:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        queue = ctx.Queue()
        for k in range(jobs):
            queue.put(cores[k % len(cores)] if cores else k)
        with ctx.Pool(jobs, _pin, (queue,)) as pool:
            results = []
            for r in pool.imap_unordered(_one_table, jobs_list):
                results.append(r)
                bar.update(done0 + sum(len(x["records"]) for x in results))
            return sorted(results, key=lambda r: r["seed"])
    results = []
    for job in jobs_list:
        results.append(_one_table(job))
        bar.update(done0 + sum(len(x["records"]) for x in results))
    return results


def tally(tables: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over tables, and the near-ties and wrong verdicts by name."""
    counts: dict[str, Any] = {}
    for t in tables:
        for k, v in t["counts"].items():
            counts[k] = counts.get(k, 0) + v
    counts["cpu_s"] = round(sum(t["cpu_s"] for t in tables), 2)
    counts["render_s"] = round(sum(t["render_s"] for t in tables), 2)
    counts["camera_s"] = round(sum(t["camera_s"] for t in tables), 2)
    counts["frames"] = sum(t["frames"] for t in tables)
    counts["wrong_rounds"] = [f"{t['seed']} match {r['match']} card {r['index']}: "
                              f"{r['winner']} given, {r['truth']['taker']} took it"
                              for t in tables for r in t["records"] if r["verdict"] == "wrong"]
    return counts


def _print(name: str, c: dict[str, Any], wall_s: float | None = None) -> None:
    n = max(c.get("rounds", 0), 1)
    print(f"\n{name}: {c.get('rounds', 0)} rounds at {c.get('tables', 0)} tables")
    print(f"  right {c['right']}  wrong (outside the tie band) {c['wrong']}")
    print(f"  near-ties {c['near_ties']} (of {c['races']} races): called too close "
          f"{c['too_close']}, asked {c.get('near_tie_asked', 0)}, guessed "
          f"{c['near_tie_guessed']}")
    print(f"  too close on a clear gap {c['too_close_clear']}  asked 'who took it?' "
          f"{c['asked']}  camera held the next card back {c['held_back']}  "
          f"calibration failed {c['calibration_failed']}")
    print(f"  the camera named the taker itself on {c.get('camera_named', 0)} cards, "
          f"{c.get('camera_named_right', 0)} right")
    rest = c["cpu_s"] - c["render_s"] - c["camera_s"]
    print(f"  CPU per round {c['cpu_s'] / n:.2f} s (drawing {c['render_s'] / n:.2f}, vision "
          f"{c['camera_s'] / n:.2f}, service + pads {rest / n:.2f}); "
          f"{c['frames'] / n:.0f} frames a round")
    if wall_s:
        print(f"  {c['rounds'] / wall_s:.2f} rounds/s wall")
    for w in c["wrong_rounds"][:10]:
        print(f"  wrong: {w}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40, help="cards per set")
    ap.add_argument("--cards", type=int, default=10, help="cards per table (seed)")
    ap.add_argument("--seed", type=int, default=0, help="the first table's number")
    ap.add_argument("--sets", default="tuning,heldout", help="tuning, heldout or both")
    ap.add_argument("--players", type=int, default=0, help="2-6; 0: 3, 4, 5, 6, 2 in turn")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--size", default="320x240",
                    help="camera picture WxH, or 'world' for the camera world's own")
    ap.add_argument("--jobs", type=int, default=1, help="tables side by side")
    ap.add_argument("--json", help="also write the figures (and every round) as JSON here")
    args = ap.parse_args()
    size = None if args.size == "world" else tuple(int(v) for v in args.size.split("x"))
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in sets:
        if s not in ("tuning", "heldout"):
            ap.error(f"unknown set {s!r} (tuning, heldout)")
    work = {s: _jobs(s, args.rounds, args.cards, args.seed, args.players, args.fps,
                     size) for s in sets}  # type: ignore[arg-type]
    total = sum(j[1] for w in work.values() for j in w)
    print(f"{total} rounds: {args.cards} cards a table, {args.fps:g} fps, camera "
          f"{args.size}, {args.jobs} job(s)")
    bar = Progress(total, "rounds")
    t0 = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {}
    done = 0
    for s, jobs_list in work.items():
        results[s] = _run(jobs_list, args.jobs, bar, done)
        done += sum(len(t["records"]) for t in results[s])
    wall = time.perf_counter() - t0
    bar.close()
    every: list[dict[str, Any]] = []
    for s, tables in results.items():
        c = tally(tables)
        c["tables"] = len(tables)
        _print("held-out" if s == "heldout" else s, c)
        every += tables
    c = tally(every)
    c["tables"] = len(every)
    _print("overall", c, wall)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"args": vars(args), "wall_s": round(wall, 2), "verdicts": list(VERDICTS),
             "sets": {s: {"counts": tally(t), "tables": t} for s, t in results.items()}},
            indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Referee core figures: solver calls/s, simulated matches/s, event-store appends/s.

Run: .venv/bin/python bench/bench_core.py [--seconds S]
Prints one line per figure; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from controller.knapp.cards import Card, all_cards
from controller.knapp.cards import _solve as cached_solve
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import Grabbed
from controller.sim.driver import simulate
from controller.store import EventStore


def rate(fn: object, seconds: float) -> tuple[float, int]:
    """Call fn() repeatedly for about `seconds`; return calls per second."""
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        n += fn()  # type: ignore[operator]
    return n / (time.perf_counter() - start), n


def bench_solver(seconds: float) -> None:
    valid = []
    for c in all_cards():
        try:
            cached_solve.__wrapped__(c)
            valid.append(c)
        except ValueError:
            pass

    def uncached() -> int:
        for c in valid:
            cached_solve.__wrapped__(c)
        return len(valid)

    def parse_and_solve() -> int:
        for c in valid:
            cached_solve(Card.parse(str(c)))
        return len(valid)

    r, _ = rate(uncached, seconds)
    print(f"solver (uncached, full explanation)   {r:12,.0f} cards/s")
    r, _ = rate(parse_and_solve, seconds)
    print(f"parse + solve (cached)                {r:12,.0f} cards/s")


def bench_simulation(seconds: float) -> None:
    start = time.perf_counter()
    matches = 0
    while time.perf_counter() - start < seconds:
        simulate(4, 20, matches)
        matches += 20
    r = matches / (time.perf_counter() - start)
    print(f"simulated matches (4 players, memory) {r:12,.1f} matches/s")


def bench_store(seconds: float, durable: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "bench.db", durable=durable)
        mid, _ = store.new_match(("A", "B"), shuffled_deck(0))
        ev = Grabbed("A", "dog", 123_456_789, 100_000, "pads")

        def one() -> int:
            store.append(mid, ev)
            return 1

        r, n = rate(one, seconds)
        store.verify(mid)
        store.close()
    label = "durable (FULL)" if durable else "NORMAL"
    print(f"event-store appends, {label:<16} {r:12,.0f} appends/s  ({n} appended, chain verified)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure")
    args = parser.parse_args()
    bench_solver(args.seconds)
    bench_simulation(args.seconds * 2)
    bench_store(args.seconds, durable=True)
    bench_store(args.seconds, durable=False)


if __name__ == "__main__":
    main()

"""The review list and statistics over weeks of play: per-call time, replaying vs. summaries.

Builds a store of simulated matches (500 by default, about 19,000 events),
then times one `/api/matches` and one `/api/stats` answer two ways:

- replay: every stored match replayed on every call (`referee.history_replay`, the
  way it was done before);
- summaries: `referee.history.History`, which summarises each match once per
  head hash and keeps the summaries in the store: cold (first call after the
  store was filled), warm (every later call), after a restart (a new
  `History` reading the kept summaries), and after one new event on one match.

Run: .venv/bin/python bench/bench_store.py [--matches N] [--seed S] [--repeat R]
Prints one line per figure (the median of R calls); nothing here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from controller.knapp.match import Phase
from controller.referee.history import History, summarise
from controller.referee.history_replay import match_list, stats_view
from controller.sim.driver import simulate
from controller.store import EventStore


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def line(name: str, list_s: float, stats_s: float | None, note: str = "") -> None:
    stats = f"{stats_s * 1e3:9.1f} ms" if stats_s is not None else " " * 12
    print(f"{name:<22} /api/matches {list_s * 1e3:9.1f} ms   /api/stats {stats}  {note}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    r = args.repeat
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "knapp.db"
        with EventStore(db, durable=False) as store:
            simulate(4, args.matches, args.seed, store=store)
        store = EventStore(db)
        infos = store.matches()
        print(f"store: {len(infos)} matches, {sum(i.events for i in infos)} events")
        live_id = infos[0].id
        live = store.open_match(live_id)
        live_summary = summarise(live)
        line("replay (before)", timed(lambda: match_list(store, live_id, live), r),
             timed(lambda: stats_view(store), r))
        history = History(store)
        line("summaries, cold", timed(lambda: history.match_list(live_id, live_summary), 1),
             timed(history.stats, 1), "(the first call replays each match once)")
        line("summaries, warm", timed(lambda: history.match_list(live_id, live_summary), r),
             timed(history.stats, r))
        restarted = History(store)
        line("summaries, restart", timed(lambda: restarted.match_list(live_id, live_summary), 1),
             None, "(summaries read from the store)")
        # One new event on one stored match (a correction): only that match is replayed.
        other = next(i.id for i in infos[1:] if store.open_match(i.id).phase is Phase.ENDED)
        m = store.open_match(other)
        m.award(0, next(s for s in m.seats if s != m.rounds[0].winner), "bench: a correction")
        line("summaries, one changed",
             timed(lambda: restarted.match_list(live_id, live_summary), 1),
             timed(restarted.stats, 1))
        store.close()


if __name__ == "__main__":
    main()

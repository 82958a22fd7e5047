"""Companion games: engine steps/s, search-player move times and search iterations/s.

Run: .venv/bin/python bench/bench_games.py [--steps N] [--search-moves M] [--games a,b]
     [--no-time-budget] [--repeat K] [--cpu-time]

1. Random playouts with the raw engine (legal_actions, a seeded random choice,
   apply), thousands of steps per game; every playout must end without an
   exception. RLCard's pure-Python engines reach about 1,000-29,000 steps/s;
   the target for the card games is above 20,000.
2. The search player's move time (p50/p95/max) at positions from seeded games
   in which the other seats play at random; the target is p95 within 1 s.
3. From the same moves, search iterations per second: the iterations each
   search player counts (`last_iterations`, or `nodes` for alpha-beta) over
   the time its moves took. With --no-time-budget every move runs to its
   iteration cap, so two runs search the same positions and compare directly.

On a busy machine --repeat K runs each measurement K times and keeps the
fastest run, the one least disturbed by other processes, and --cpu-time
times with this process's CPU time instead of the wall clock.

Prints markdown tables; a progress bar goes to stderr on a terminal. Nothing
here is asserted by tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from controller.games import GAME_IDS, get_game
from controller.games.base import Bot, Game, RandomBot
from controller.progress import Progress
from controller.rng import Rng

CARD_GAMES = {"manni", "pukk", "rommy", "knuff"}
Clock = Callable[[], float]


def available(names: list[str]) -> list[Game]:
    games = []
    for name in names:
        try:
            games.append(get_game(name))
        except ModuleNotFoundError as exc:
            print(f"skipping {name}: {exc}", file=sys.stderr)
    return games


def bots_of(game: Game) -> dict[str, Any]:
    return dict(getattr(sys.modules[type(game).__module__], "BOTS", {}))


def random_playouts(game: Game, steps: int, progress: Progress, done0: int,
                    clock: Clock = time.perf_counter) -> dict[str, Any]:
    """Play seeded random games until `steps` steps; time only the engine calls."""
    options = game.resolve_options({})
    total = 0
    playouts = 0
    finished = 0
    elapsed = 0.0
    seed = 0
    while total < steps:
        rng = Rng(seed).fork("bench")
        state = game.new_state(game.default_seats, options, Rng(seed).fork("game"))
        n = 0
        t0 = clock()
        while not state.is_terminal() and total + n < steps * 2:
            actors = state.actors()
            seat = min(actors) if len(actors) == 1 else rng.choice(sorted(actors))
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            n += 1
        elapsed += clock() - t0
        finished += state.is_terminal()
        total += n
        playouts += 1
        seed += 1
        progress.update(done0 + min(total, steps))
    return {"steps": total, "seconds": elapsed, "rate": total / elapsed if elapsed else 0.0,
            "playouts": playouts, "finished": finished}


# What one search iteration is, per game's search player.
ITERATION = {
    "manni": "a sampled world, every action played out in it",
    "pukk": "a sampled world, one descent and playout",
    "rommy": "a sampled world, one descent and playout",
    "knuff": "a sampled world, one descent and playout",
    "kobbla": "an alpha-beta node",
}


def reset_iterations(bot: Bot) -> None:
    """Zero the bot's counters: a move it makes without searching leaves them as they were."""
    for name in ("last_iterations", "nodes"):
        if hasattr(bot, name):
            setattr(bot, name, 0)


def search_iterations(bot: Bot) -> int:
    """The iterations (or alpha-beta nodes) of the bot's last move."""
    count = getattr(bot, "last_iterations", None)
    return int(count if count is not None else getattr(bot, "nodes", 0))


def search_times(game: Game, moves: int, progress: Progress, done0: int,
                 no_budget: bool = False,
                 clock: Clock = time.perf_counter) -> tuple[list[float], list[int]] | None:
    """Time the search player's `choose` at seat 0 in games where the others play at
    random; return the move times and each move's search iterations."""
    factory = bots_of(game).get("search")
    if factory is None:
        return None
    options = game.resolve_options({})
    times: list[float] = []
    iterations: list[int] = []
    seed = 0
    while len(times) < moves:
        state = game.new_state(game.default_seats, options, Rng(seed).fork("game"))
        players: dict[int, Bot] = {0: factory(0, Rng(seed).fork("search"))}
        if no_budget and hasattr(players[0], "time_budget_s"):
            players[0].time_budget_s = 1e9
        for s in range(1, game.default_seats):
            players[s] = RandomBot(s, Rng(seed).fork(f"random{s}"))
        pick = Rng(seed).fork("order")
        steps = 0
        while not state.is_terminal() and len(times) < moves and steps < 20_000:
            actors = sorted(state.actors())
            seat = actors[0] if len(actors) == 1 else pick.choice(actors)
            if seat == 0 and len(state.legal_actions(0)) > 1:
                reset_iterations(players[0])
                t0 = clock()
                action = players[0].choose(state)
                times.append(clock() - t0)
                iterations.append(search_iterations(players[0]))
                progress.update(done0 + len(times))
            else:
                action = players[seat].choose(state)
            state.apply(seat, action)
            steps += 1
        seed += 1
    return times, iterations


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    return statistics.quantiles(ordered, n=100, method="inclusive")[int(q) - 1]


def measure_playouts(games: list[Game], steps: int, repeat: int,
                     clock: Clock) -> list[tuple[Game, Any]]:
    """Each game's random playouts, the fastest of `repeat` runs."""
    progress = Progress(len(games) * steps * repeat, "random playouts")
    rows = []
    for i, game in enumerate(games):
        runs = [random_playouts(game, steps, progress, (i * repeat + k) * steps, clock)
                for k in range(repeat)]
        rows.append((game, max(runs, key=lambda r: r["rate"])))
    progress.close()
    return rows


def print_playouts(rows: list[tuple[Game, Any]]) -> None:
    print("## Random playouts (raw engine)\n")
    print("| game | steps | playouts (finished) | steps/playout | steps/s | target |")
    print("|---|---:|---:|---:|---:|---|")
    for game, r in rows:
        target = "> 20,000" if game.id in CARD_GAMES else "-"
        mean = r["steps"] / max(r["playouts"], 1)
        print(f"| {game.id} | {r['steps']:,} | {r['playouts']:,} ({r['finished']:,}) "
              f"| {mean:,.0f} | {r['rate']:,.0f} | {target} |")


def measure_search(games: list[Game], moves: int, repeat: int, no_budget: bool,
                   clock: Clock) -> list[tuple[Game, list[float], list[int]]]:
    """Each search player's moves, from the run of `repeat` whose moves took least time."""
    searchers = [g for g in games if "search" in bots_of(g)]
    progress = Progress(len(searchers) * moves * repeat, "search moves")
    timed = []
    for i, game in enumerate(searchers):
        runs = [search_times(game, moves, progress, (i * repeat + k) * moves, no_budget, clock)
                for k in range(repeat)]
        done = [r for r in runs if r and r[0]]
        if done:
            timed.append((game, *min(done, key=lambda r: sum(r[0]))))
    progress.close()
    return timed


def print_search(timed: list[tuple[Game, list[float], list[int]]], no_budget: bool) -> None:
    print("\n## Search player move time (seat 0, others random)\n")
    print("| game | moves | p50 ms | p95 ms | max ms | p95 within 1 s |")
    print("|---|---:|---:|---:|---:|---|")
    for game, times, _iterations in timed:
        p50, p95 = percentile(times, 50), percentile(times, 95)
        print(f"| {game.id} | {len(times)} | {p50 * 1000:,.0f} | {p95 * 1000:,.0f} "
              f"| {max(times) * 1000:,.0f} | {'yes' if p95 <= 1.0 else 'NO'} |")
    budget = "no time budget" if no_budget else "bots' own time budgets"
    print(f"\n## Search iterations per second (the same moves, {budget})\n")
    print("| game | moves | iterations | seconds | iterations/s | one iteration |")
    print("|---|---:|---:|---:|---:|---|")
    for game, times, iterations in timed:
        total, seconds = sum(iterations), sum(times)
        print(f"| {game.id} | {len(times)} | {total:,} | {seconds:,.2f} "
              f"| {total / seconds if seconds else 0.0:,.0f} "
              f"| {ITERATION.get(game.id, 'as the bot counts them')} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50_000, help="random steps per game")
    parser.add_argument("--search-moves", type=int, default=30,
                        help="search moves timed per game (0: skip)")
    parser.add_argument("--games", default=",".join(GAME_IDS), help="comma-separated game ids")
    parser.add_argument("--no-time-budget", action="store_true",
                        help="let every search move run to its iteration cap (reproducible)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each measurement this often and keep the fastest run")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with this process's CPU time instead of wall time")
    args = parser.parse_args(argv)
    # Other processes on a busy machine disturb this process's CPU time far
    # less than the wall clock.
    clock: Clock = time.process_time if args.cpu_time else time.perf_counter
    games = available([g.strip() for g in args.games.split(",") if g.strip()])
    repeat = max(args.repeat, 1)
    print_playouts(measure_playouts(games, args.steps, repeat, clock))
    if args.search_moves > 0:
        print_search(measure_search(games, args.search_moves, repeat, args.no_time_budget,
                                    clock), args.no_time_budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The strength table: do the computer players beat the weaker ones?

Run: .venv/bin/python bench/strength.py [--seconds 60] [--games a,b] [--png FILE]
        [--search-budget S] [--option GAME:KEY=VALUE ...] [--pairings search,rule]

For each game with computer players, two pairings:

- search vs rule: the search player in one seat, the rule-based player in the
  others;
- rule vs random: the rule-based player in one seat, random players in the others.

Seeded games are played until the time per pairing runs out (the game in
progress is finished). The focal seat rotates over the seats from game to game
so no seat advantage is counted. The focal seat scores 1 for a win, 1/k for
a first place shared by k seats (listed as ties) and 0 otherwise, so every
game hands out exactly 1 and "par", the score rate of a player no better than
the others, is 1 / seats. Score rates come with 95% Wilson confidence
intervals (for shared places an approximation). Prints a markdown table and,
when matplotlib is installed and --png is given, a bar chart.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from typing import Any

from controller.games import GAME_IDS, get_game
from controller.games.base import Bot, Game, RandomBot
from controller.games.search import SearchBot
from controller.progress import Progress
from controller.rng import Rng

PAIRINGS = (("search", "rule"), ("rule", "random"))
MAX_STEPS = 50_000  # a game longer than this is abandoned (counted, not scored)


@dataclass
class Result:
    game: str
    focal: str
    others: str
    seats: int
    games: int = 0
    wins: float = 0.0
    ties: int = 0
    abandoned: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bots_of(game: Game) -> dict[str, Any]:
    table: dict[str, Any] = dict(getattr(sys.modules[type(game).__module__], "BOTS", {}))
    table.setdefault("random", RandomBot)
    return table


def make_bot(game: Game, kind: str, seat: int, rng: Rng, search_budget: float | None,
             search_depth: int | None = None) -> Bot:
    bot: Bot = bots_of(game)[kind](seat, rng)
    if search_budget is not None and isinstance(bot, SearchBot):
        bot.time_budget_s = search_budget
    if search_depth is not None and hasattr(bot, "max_depth"):   # Kobbla's alpha-beta
        bot.max_depth = search_depth
    return bot


def play_one(game: Game, options: dict[str, Any], focal_kind: str, other_kind: str,
             focal_seat: int, seed: int, search_budget: float | None,
             search_depth: int | None = None) -> tuple[float, int] | None:
    """One seeded game; returns (score, tied) for the focal seat, None if abandoned."""
    seats = game.default_seats
    state = game.new_state(seats, options, Rng(seed).fork("game"))
    players = {s: make_bot(game, focal_kind if s == focal_seat else other_kind, s,
                           Rng(seed).fork(f"bot{s}"), search_budget, search_depth)
               for s in range(seats)}
    order = Rng(seed).fork("order")
    for _ in range(MAX_STEPS):
        if state.is_terminal():
            winners = state.winners()
            if focal_seat not in winners:
                return 0.0, 0
            return 1.0 / len(winners), int(len(winners) > 1)
        actors = sorted(state.actors())
        seat = actors[0] if len(actors) == 1 else order.choice(actors)
        state.apply(seat, players[seat].choose(state))
    return None


def run_pairing(game: Game, options: dict[str, Any], focal: str, others: str, seconds: float,
                search_budget: float | None, progress: Progress, done0: float,
                first_seed: int = 0, count: int | None = None,
                search_depth: int | None = None) -> Result:
    result = Result(game.id, focal, others, game.default_seats)
    start = time.perf_counter()
    seed = first_seed

    def more() -> bool:
        if count is not None:
            return seed - first_seed < count
        return time.perf_counter() - start < seconds or result.games == 0

    while more():
        outcome = play_one(game, options, focal, others, seed % game.default_seats, seed,
                           search_budget, search_depth)
        seed += 1
        if outcome is None:
            result.abandoned += 1
        else:
            result.games += 1
            result.wins += outcome[0]
            result.ties += outcome[1]
        done = (seed - first_seed) / count * seconds if count else time.perf_counter() - start
        progress.update(int(done0 + min(done, seconds)))
        if result.abandoned > 3 and result.games == 0:
            break
    result.seconds = time.perf_counter() - start
    return result


def parse_options(items: list[str]) -> dict[str, dict[str, Any]]:
    """GAME:KEY=VALUE items, typed by each option's default."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        head, sep, text = item.partition("=")
        game_id, colon, key = head.partition(":")
        if not sep or not colon:
            raise SystemExit(f"--option {item!r}: expected GAME:KEY=VALUE")
        opt = get_game(game_id).options_schema.get(key)
        if opt is None:
            raise SystemExit(f"--option {item!r}: {game_id} has no option {key!r}")
        value: Any = text
        if isinstance(opt.default, bool):
            value = text.lower() in ("1", "true", "yes", "on")
        elif isinstance(opt.default, int):
            value = int(text)
        out.setdefault(game_id, {})[key] = value
    return out


def chart(results: list[Result], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no chart written to {path}", file=sys.stderr)
        return
    labels = [f"{r.game}\n{r.focal} vs {r.others}" for r in results]
    rates = [r.rate for r in results]
    lows, highs = zip(*(wilson(r.wins, r.games) for r in results), strict=True)
    # max(0, ...): at a rate of 0 or 1 the rounded bound can sit a hair inside it.
    err = [[max(0.0, r - lo) for r, lo in zip(rates, lows, strict=True)],
           [max(0.0, hi - r) for r, hi in zip(rates, highs, strict=True)]]
    fig, ax = plt.subplots(figsize=(max(6, len(results) * 1.1), 4))
    colours = ["tab:blue" if r.focal == "search" else "tab:orange" for r in results]
    ax.bar(range(len(results)), rates, yerr=err, capsize=4, color=colours)
    ax.scatter(range(len(results)), [1 / r.seats for r in results], marker="_", s=400,
               color="crimson", label="par (1 / seats)", zorder=3)
    ax.set_xticks(range(len(results)), labels, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("score rate of the focal seat (95% Wilson CI)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart written to {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="time per pairing")
    parser.add_argument("--games", default=",".join(GAME_IDS), help="comma-separated game ids")
    parser.add_argument("--search-budget", type=float, default=None,
                        help="override the search players' time per move (seconds)")
    parser.add_argument("--option", action="append", default=[], metavar="GAME:KEY=VALUE",
                        help="a variant option for one game, e.g. rommy:target=200")
    parser.add_argument("--pairings", default=",".join(f for f, _ in PAIRINGS),
                        help="comma-separated focal kinds to play, e.g. search")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seed of the first game (a fresh sample away from tuning runs)")
    parser.add_argument("--count", type=int, default=None,
                        help="play exactly this many games per pairing instead of --seconds")
    parser.add_argument("--search-depth", type=int, default=None,
                        help="override a depth-limited search player's depth (Kobbla)")
    parser.add_argument("--png", default=None, help="write a bar chart (needs matplotlib)")
    args = parser.parse_args(argv)
    chosen = parse_options(args.option)
    games: list[Game] = []
    for name in (g.strip() for g in args.games.split(",") if g.strip()):
        try:
            game = get_game(name)
        except ModuleNotFoundError as exc:
            print(f"skipping {name}: {exc}", file=sys.stderr)
            continue
        if not game.has_bots:
            print(f"skipping {name}: no computer players", file=sys.stderr)
            continue
        games.append(game)
    focals = {f.strip() for f in args.pairings.split(",")}
    pairings = [(g, f, o) for g in games for f, o in PAIRINGS if f in focals
                and f in bots_of(g) and o in bots_of(g)]
    progress = Progress(int(len(pairings) * args.seconds), "strength")
    results = []
    for i, (game, focal, others) in enumerate(pairings):
        options = game.resolve_options(chosen.get(game.id))
        results.append(run_pairing(game, options, focal, others, args.seconds,
                                   args.search_budget, progress, i * args.seconds,
                                   args.first_seed, args.count, args.search_depth))
    progress.close()
    budget = "default" if args.search_budget is None else f"{args.search_budget:g} s"
    print(f"## Strength table ({args.seconds:g} s per pairing, search budget {budget})\n")
    print("| game | focal seat | other seats | games | score | ties | score rate | 95% CI "
          "| par | better than par |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---|")
    for r in results:
        lo, hi = wilson(r.wins, r.games)
        par = 1 / r.seats
        verdict = "yes" if lo > par else ("no" if hi < par else "not sure")
        extra = f" ({r.abandoned} abandoned)" if r.abandoned else ""
        print(f"| {r.game} | {r.focal} | {r.others} | {r.games}{extra} | {r.wins:g} | {r.ties} "
              f"| {r.rate:.2f} | {lo:.2f}-{hi:.2f} | {par:.2f} | {verdict} |")
    if args.png:
        chart(results, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Computer players for rooms: the levels each game offers and one bot per move.

The levels follow Board Game Arena's zombie levels: random, then the rule
player (greedy), then search. Every game can be played at random (Koob too,
for demonstrations), so `random` is always offered.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from controller.games.base import Bot, Game, RandomBot, Seat
from controller.rng import Rng

BotFactory = Callable[[Seat, Rng], Bot]
LEVELS = ("random", "rule", "search")


def levels(game: Game) -> dict[str, BotFactory]:
    """The computer players `game` offers, weakest first."""
    # Each rules file keeps its players in BOTS (controller/games/*.py); the
    # CLI finds them the same way.
    module = sys.modules[type(game).__module__]
    table: dict[str, BotFactory] = dict(getattr(module, "BOTS", {}))
    table.setdefault("random", RandomBot)
    return {level: table[level] for level in LEVELS if level in table}


def default_level(game: Game) -> str:
    """The level that fills a seat when nobody chose one: the rule player where there is one."""
    offered = levels(game)
    return "rule" if "rule" in offered else "random"


def make_bot(game: Game, level: str, seat: Seat, rng: Rng) -> Bot:
    """A fresh bot of `level` for `seat`."""
    return levels(game)[level](seat, rng)

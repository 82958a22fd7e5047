"""Companion games: one rules file per game over one API (`controller.games.base`).

The registry maps game ids to `Game` objects. Modules are imported on first
use so `import controller` stays light.
"""

from __future__ import annotations

import importlib

from controller.errors import IllegalAction
from controller.games.base import Action, Bot, Game, GameEvent, GameState, Option, Session

__all__ = [
    "GAME_IDS",
    "Action",
    "Bot",
    "Game",
    "GameEvent",
    "GameState",
    "Option",
    "Session",
    "all_games",
    "get_game",
]

# Game id -> module under controller.games that defines `GAME`.
GAME_IDS: dict[str, str] = {
    "manni": "manni",
    "pukk": "pukk",
    "rommy": "rommy",
    "knuff": "knuff",
    "kobbla": "kobbla",
    "koob": "koob",
}


def get_game(game_id: str) -> Game:
    """Return the registered game `game_id`."""
    module = GAME_IDS.get(game_id)
    if module is None:
        raise IllegalAction("registry", f"unknown game {game_id!r} "
                            f"(known: {', '.join(GAME_IDS)})")
    game: Game = importlib.import_module(f"controller.games.{module}").GAME
    return game


def all_games() -> list[Game]:
    """Every registered game, in registry order."""
    return [get_game(g) for g in GAME_IDS]

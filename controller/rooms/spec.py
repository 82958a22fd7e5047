"""What a room is made of: the game, its options, and who sits where.

`RoomSpec.parse` checks a table's choices (from the Other games page or a
stored `created` record) and names the first thing that is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.errors import IllegalAction
from controller.games import get_game
from controller.games.base import Game
from controller.rooms.bots import default_level, levels
from controller.rooms.errors import RoomError
from controller.settings import SEAT_NAME_MAX

SEAT_KINDS = ("person", "bot")
# Bounds for the table's timing choices: a computer never waits longer than this
# before it moves, and a seat is handed to the computer after at least this long.
MAX_BOT_DELAY_S = 10.0
MIN_ZOMBIE_AFTER_S = 5.0
MAX_ZOMBIE_AFTER_S = 3600.0


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who sits at a seat when the room starts: a person (to join) or a computer at a level."""

    kind: str
    level: str | None = None
    name: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": self.kind, "level": self.level, "name": self.name}


@dataclass(frozen=True, slots=True)
class RoomSpec:
    """A room's game, options, seat plan and timing.

    Args:
        game: the game id.
        seats: how many seats.
        options: the game's options, resolved (defaults filled in).
        plan: one `SeatPlan` per seat.
        hot_seat: the person seats share one device, with a privacy screen between turns.
        zombie_after_s: a person away this long while the game waits for them is
            replaced by the computer (they can take the seat back).
        bot_delay_s: how long a computer waits before it moves, so people can follow.
        zombie_level: the computer that plays for an absent person.
    """

    game: str
    seats: int
    options: dict[str, Any]
    plan: tuple[SeatPlan, ...]
    hot_seat: bool = False
    zombie_after_s: float = 60.0
    bot_delay_s: float = 0.8
    zombie_level: str = "rule"

    def to_json(self) -> dict[str, Any]:
        """JSON form (what the `created` record stores, with the seed beside it)."""
        return {"game": self.game, "seats": self.seats, "options": dict(self.options),
                "plan": [p.to_json() for p in self.plan], "hot_seat": self.hot_seat,
                "zombie_after_s": self.zombie_after_s, "bot_delay_s": self.bot_delay_s,
                "zombie_level": self.zombie_level}

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> RoomSpec:
        """Check a table's choices; raise `RoomError` naming what is wrong."""
        if not isinstance(data, Mapping):
            raise RoomError("a room is an object with 'game', 'seats' and 'plan'")
        try:
            game = get_game(_text(data.get("game"), "game"))
        except IllegalAction as exc:
            raise RoomError(str(exc)) from exc
        seats = data.get("seats", game.default_seats)
        if not isinstance(seats, int) or isinstance(seats, bool):
            raise RoomError(f"seats must be a whole number, got {seats!r}")
        try:
            game.check_seats(seats)
            options = game.resolve_options(_mapping(data.get("options", {}), "options"))
        except IllegalAction as exc:
            raise RoomError(str(exc)) from exc
        offered = levels(game)
        plan = _plan(data.get("plan"), seats, offered)
        zombie_level = data.get("zombie_level") or default_level(game)
        if zombie_level not in offered:
            raise RoomError(f"zombie_level: {game.name} has no {zombie_level!r} computer player "
                            f"(offered: {', '.join(offered)})")
        hot_seat = data.get("hot_seat", False)
        if not isinstance(hot_seat, bool):
            raise RoomError(f"hot_seat must be true or false, got {hot_seat!r}")
        people = sum(p.kind == "person" for p in plan)
        if hot_seat and people < 1:
            raise RoomError("hot_seat needs at least one person seat")
        return cls(game.id, seats, options, plan, hot_seat,
                   _seconds(data.get("zombie_after_s", 60.0), "zombie_after_s",
                            MIN_ZOMBIE_AFTER_S, MAX_ZOMBIE_AFTER_S),
                   _seconds(data.get("bot_delay_s", 0.8), "bot_delay_s", 0.0, MAX_BOT_DELAY_S),
                   zombie_level)

    def game_obj(self) -> Game:
        """The registered game."""
        return get_game(self.game)


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise RoomError(f"{key} must be a non-empty string, got {value!r}")
    return value


def _mapping(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise RoomError(f"{key} must be an object, got {value!r}")
    return dict(value)


def _seconds(value: Any, key: str, lo: float, hi: float) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not lo <= value <= hi:
        raise RoomError(f"{key} must be a number of seconds from {lo:g} to {hi:g}, got {value!r}")
    return float(value)


def check_name(value: Any, key: str = "name") -> str:
    """A person's name for a seat: 0 to SEAT_NAME_MAX printable characters."""
    if not isinstance(value, str):
        raise RoomError(f"{key} must be a string, got {value!r}")
    name = " ".join(value.split())
    if len(name) > SEAT_NAME_MAX or not name.isprintable():
        raise RoomError(f"{key} needs at most {SEAT_NAME_MAX} printable characters")
    return name


def _plan(raw: Any, seats: int, offered: Mapping[str, object]) -> tuple[SeatPlan, ...]:
    if raw is None:
        # The first seat is a person, the others computers at the default level.
        first = "rule" if "rule" in offered else "random"
        return (SeatPlan("person"), *(SeatPlan("bot", first) for _ in range(seats - 1)))
    if not isinstance(raw, list) or len(raw) != seats:
        raise RoomError(f"plan must list {seats} seats, got {raw!r}"[:200])
    plan: list[SeatPlan] = []
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise RoomError(f"plan[{i}] must be an object with a 'kind', got {item!r}"[:200])
        kind = item.get("kind")
        if kind not in SEAT_KINDS:
            raise RoomError(f"plan[{i}].kind must be 'person' or 'bot', got {kind!r}")
        level = item.get("level")
        if kind == "bot" and level not in offered:
            raise RoomError(f"plan[{i}].level: no {level!r} computer player "
                            f"(offered: {', '.join(offered)})")
        name = check_name(item.get("name", ""), f"plan[{i}].name")
        plan.append(SeatPlan(kind, level if kind == "bot" else None, name))
    return tuple(plan)

"""One API for every companion game.

A game is a `Game` (metadata, options, `new_state`) and a `GameState` (the
rules). States are mutable inside (cheap `apply`, a structural `clone` for
search, never a JSON round trip); the
`Session` wrapper owns the seed, the action log, the event log with its
visibility tags, and undo, so each game file only has to get its rules right.

Hidden information leaves a state only through `observation(seat)` and events
whose `visible_to` names the seat; the session's logs, replays and undo
snapshots are filtered through these (boardgame.io #399/#1159/#227 are the
leaks this avoids).

Chance comes from the project's `Rng`, held by the state, so a game replays
identically from its seed and action log on any Python.
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from controller.errors import IllegalAction
from controller.rng import Rng

Seat = int
ArgValue = int | str


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """A move: a kind and a few small arguments, with a canonical text form.

    >>> str(Action("play", ("QH",)))
    'play:QH'
    >>> Action.parse("jump:3,4,5,4") == Action("jump", (3, 4, 5, 4))
    True
    """

    kind: str
    args: tuple[ArgValue, ...] = ()

    def __str__(self) -> str:
        if not self.args:
            return self.kind
        return f"{self.kind}:{','.join(str(a) for a in self.args)}"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the canonical text form; integer-looking arguments become ints."""
        text = text.strip()
        if not text:
            raise IllegalAction("syntax", "an action needs a kind, got empty text")
        kind, _, rest = text.partition(":")
        args: list[ArgValue] = []
        if rest:
            for part in rest.split(","):
                part = part.strip()
                args.append(int(part) if _is_int(part) else part)
        return cls(kind.strip(), tuple(args))

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": self.kind, "args": list(self.args)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        """Parse the JSON form."""
        if not isinstance(data, Mapping) or not isinstance(data.get("kind"), str):
            raise IllegalAction("syntax", f"an action is an object with a 'kind', got {data!r}")
        args = data.get("args", [])
        if not isinstance(args, list) or not all(
            isinstance(a, (int, str)) and not isinstance(a, bool) for a in args
        ):
            raise IllegalAction("syntax", f"action args must be a list of ints/strings: {args!r}")
        return cls(data["kind"], tuple(args))


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit() and text not in ("-", "")


@dataclass(frozen=True, slots=True)
class GameEvent:
    """Something that happened, for logs and animation.

    Args:
        kind: what happened ("played", "dealt", "scored", ...).
        data: JSON-able details.
        visible_to: the seats that may see it; None means everyone.
        chance: True when it came from the random generator (deal, shuffle).
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    visible_to: frozenset[Seat] | None = None
    chance: bool = False

    def visible(self, seat: Seat | None) -> bool:
        """May `seat` (None: the public table screen) see this event?"""
        return self.visible_to is None or (seat is not None and seat in self.visible_to)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "kind": self.kind, "data": dict(self.data),
            "visible_to": None if self.visible_to is None else sorted(self.visible_to),
            "chance": self.chance,
        }


@dataclass(frozen=True, slots=True)
class Option:
    """One variant option of a game.

    Args:
        default: the value used when the table does not choose.
        choices: allowed values (None: any value of the default's type).
        help: one line for `knapp games list` and the rules doc.
    """

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None

    def check(self, name: str, value: Any) -> Any:
        """Return `value` if allowed, else raise `IllegalAction`."""
        # Compare types too: 1 == True in Python, but a flag is not a count.
        if self.choices is not None and not any(
                value == c and type(value) is type(c) for c in self.choices):
            raise IllegalAction("options", f"option {name!r} must be one of "
                                f"{list(self.choices)}, got {value!r}")
        if self.choices is None and type(value) is not type(self.default):
            raise IllegalAction("options", f"option {name!r} must be "
                                f"{type(self.default).__name__}, got {value!r}")
        return value


class GameState(ABC):
    """The rules of one game in one position. Subclasses implement the abstract methods.

    `apply` must reject an illegal action with `IllegalAction` naming the rule
    and leave the state unchanged.
    """

    game_id: ClassVar[str] = ""

    num_seats: int
    options: dict[str, Any]
    rng: Rng
    # The events of the first deal, which `Game.new_state` makes before any
    # Session exists; a Session logs them so its event log covers the whole game.
    opening_events: Sequence[GameEvent] = ()

    @abstractmethod
    def actors(self) -> frozenset[Seat]:
        """Every seat that may act now (more than one for out-of-turn reactions)."""

    @abstractmethod
    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action `seat` may take now (empty when it may not act)."""

    @abstractmethod
    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        """Apply `seat`'s action; return the events; raise `IllegalAction` if not allowed."""

    @abstractmethod
    def observation(self, seat: Seat | None) -> dict[str, Any]:
        """What `seat` may see (None: the public table screen), as JSON-able data."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-seat result (points, chips or 1/0 for win/loss), final when terminal."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The full state (hidden information included) as JSON-able data."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        """Rebuild a state from `to_json` output."""

    def clone(self) -> GameState:
        """An independent copy that plays on exactly like a `from_json(to_json())` copy.

        Search bots clone on every step, so this copies the attributes
        structurally (`copy_value`) instead of going through JSON. Games with
        large states override it with a hand-written copy;
        tests/games/test_clone.py compares every game's clone with a JSON round
        trip and checks that the two share nothing mutable.
        """
        new = object.__new__(type(self))
        if hasattr(self, "__dict__"):
            new.__dict__.update({k: copy_value(v) for k, v in self.__dict__.items()})
        for name in _slot_names(type(self)):
            if hasattr(self, name):
                object.__setattr__(new, name, copy_value(getattr(self, name)))
        # The first deal's events belong to the session that logged them, and a
        # JSON round trip does not carry them either.
        new.opening_events = ()
        return new

    def determinize(self, seat: Seat, rng: Rng) -> GameState:
        """A copy with every card hidden from `seat` re-dealt at random, consistently
        with everything `seat` has seen. Perfect-information games return a clone."""
        _ = seat, rng
        return self.clone()

    def winners(self) -> list[Seat]:
        """Seats with the best result, once terminal."""
        if not self.is_terminal():
            return []
        r = self.returns()
        best = max(r)
        return [s for s, v in enumerate(r) if v == best]

    #: The rule a seat number out of range breaks (Koob's seats are "teams").
    seat_rule: ClassVar[str] = "seats"

    def check_actor(self, seat: Seat, action: Action | None = None) -> None:
        """Raise unless `seat` is a seat, the game is not over and `seat` may act now;
        with `action`, also unless it is among the seat's legal actions.

        Every game's `apply` calls this first (games that explain an illegal
        action better check legality themselves). The wording comes from
        `no_seat_message`, `game_over_message` and `turn_message`.
        """
        if not 0 <= seat < self.num_seats:
            raise IllegalAction(self.seat_rule, self.no_seat_message(seat))
        if self.is_terminal():
            raise IllegalAction("game-over", self.game_over_message())
        if seat not in self.actors():
            raise IllegalAction("turn-order", self.turn_message(seat))
        if action is not None and action not in self.legal_actions(seat):
            raise IllegalAction("legal-actions", f"{action} is not a legal action for seat "
                                f"{seat} now")

    def no_seat_message(self, seat: Seat) -> str:
        """Why `seat` is refused when it is not a seat of this game."""
        return f"there is no seat {seat}"

    def game_over_message(self) -> str:
        """Why every action is refused once the game is over."""
        return "the game is over"

    def turn_message(self, seat: Seat) -> str:
        """Why `seat` is refused when it may not act now."""
        return f"seat {seat} may not act now (waiting for {sorted(self.actors())})"


class Game(ABC):
    """A registered game: metadata, variant options, and the initial state."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    default_seats: ClassVar[int]
    options_schema: ClassVar[dict[str, Option]] = {}
    has_bots: ClassVar[bool] = True
    summary: ClassVar[str] = ""

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and validate a table's chosen options."""
        chosen = dict(options or {})
        unknown = set(chosen) - set(self.options_schema)
        if unknown:
            raise IllegalAction("options", f"unknown option(s) for {self.id}: "
                                f"{sorted(unknown)} (known: {sorted(self.options_schema)})")
        return {name: opt.check(name, chosen.get(name, opt.default))
                for name, opt in self.options_schema.items()}

    def check_seats(self, seats: int) -> None:
        """Raise unless the game can be played by `seats` seats."""
        if not self.min_seats <= seats <= self.max_seats:
            raise IllegalAction("seats", f"{self.name} takes {self.min_seats} to "
                                f"{self.max_seats} seats, got {seats}")

    @abstractmethod
    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> GameState:
        """The initial state (after the first deal); `options` are already resolved."""

    @abstractmethod
    def state_from_json(self, data: dict[str, Any]) -> GameState:
        """Rebuild a state of this game from JSON."""


@dataclass
class _Snapshot:
    state: dict[str, Any]
    seat: Seat
    log_len: int
    events_len: int


class Session:
    """A game being played: seed, options, the action log, events and undo.

    Args:
        game: the registered game.
        seats: how many seats.
        seed: the chance seed; the same seed and actions replay the same game.
        options: the table's variant choices.
    """

    def __init__(self, game: Game, seats: int, seed: int | str = 0,
                 options: Mapping[str, Any] | None = None) -> None:
        game.check_seats(seats)
        self.game = game
        self.seats = seats
        self.seed = seed
        self.options = game.resolve_options(options)
        self.state = game.new_state(seats, self.options, Rng(seed).fork(f"game:{game.id}"))
        self.log: list[tuple[Seat, Action]] = []
        self.events: list[GameEvent] = [
            GameEvent("started", {"game": game.id, "seats": seats, "options": self.options}),
            *self.state.opening_events,
        ]
        self._undo: _Snapshot | None = None

    def apply(self, seat: Seat, action: Action | str) -> list[GameEvent]:
        """Apply one action; the state is unchanged when it raises `IllegalAction`."""
        act = Action.parse(action) if isinstance(action, str) else action
        sole_before = self.state.actors() == {seat}
        # Snapshot only where this action could start a new undo run (to_json is
        # the costly part of a step).
        starts_run = sole_before and (self._undo is None or self._undo.seat != seat)
        before = self.state.to_json() if starts_run else None
        events = self.state.apply(seat, act)
        self.log.append((seat, act))
        self.events.extend(events)
        # Board Game Arena's undo policy: never across another player's action,
        # revealed hidden information or a random event; only while the same
        # seat was and still is the sole actor (its turn has not passed, and no
        # other seat could have reacted out of turn in between).
        revealing = any(e.chance or e.visible_to is not None for e in events)
        if revealing or not sole_before or self.state.actors() != {seat}:
            self._undo = None
        elif before is not None:
            self._undo = _Snapshot(before, seat, len(self.log) - 1, len(self.events) - len(events))
        return events

    def can_undo(self, seat: Seat) -> bool:
        """May `seat` take back its last action(s) now?"""
        return self._undo is not None and self._undo.seat == seat

    def undo(self, seat: Seat) -> None:
        """Take back `seat`'s actions of this turn, within Board Game Arena's policy."""
        if not self.can_undo(seat):
            raise IllegalAction("undo", "nothing to undo: undo never crosses another "
                                "player's action, revealed hidden information or a random event")
        snap = self._undo
        assert snap is not None
        self.state = self.game.state_from_json(snap.state)
        del self.log[snap.log_len:]
        del self.events[snap.events_len:]
        self.events.append(GameEvent("undone", {"seat": seat}))
        self._undo = None

    def events_for(self, seat: Seat | None) -> list[GameEvent]:
        """The event log as `seat` (None: the table screen) may see it."""
        return [e for e in self.events if e.visible(seat)]

    def to_json(self) -> dict[str, Any]:
        """The replayable record: game, seats, seed, options and actions."""
        return {
            "game": self.game.id, "seats": self.seats, "seed": self.seed,
            "options": self.options,
            "actions": [{"seat": s, "action": str(a)} for s, a in self.log],
        }

    @classmethod
    def replay(cls, game: Game, record: Mapping[str, Any]) -> Session:
        """Rebuild a session by replaying its record."""
        session = cls(game, int(record["seats"]), record["seed"], record.get("options"))
        for entry in record["actions"]:
            session.apply(int(entry["seat"]), Action.parse(entry["action"]))
        return session


class Bot(ABC):
    """A computer player. Bots get their own generator (never the global one)."""

    name: ClassVar[str] = ""

    def __init__(self, seat: Seat, rng: Rng) -> None:
        self.seat = seat
        self.rng = rng

    @abstractmethod
    def choose(self, state: GameState) -> Action:
        """Pick an action for `self.seat`. Bots that search must use only
        `state.observation(self.seat)` or `state.determinize(self.seat, rng)`."""


class RandomBot(Bot):
    """Picks uniformly among the legal actions."""

    name = "random"

    def choose(self, state: GameState) -> Action:
        """Pick a uniformly random legal action."""
        actions = state.legal_actions(self.seat)
        if not actions:
            raise IllegalAction("turn-order", f"seat {self.seat} has no legal action")
        return self.rng.choice(actions)


def action_key(action: Action) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    """A sort key for actions that never compares an int with a str (ints first)."""
    return action.kind, tuple((0, a, "") if isinstance(a, int) else (1, 0, a)
                              for a in action.args)


def canonical(actions: Sequence[Action]) -> list[Action]:
    """Actions in canonical (sorted) order, so that bots and tests are deterministic."""
    return sorted(actions, key=action_key)


# Values a clone may share: nothing can change them in place.
_IMMUTABLE: frozenset[type] = frozenset({int, float, bool, str, bytes, type(None), frozenset,
                                         Action})


def copy_value(value: Any) -> Any:
    """A copy of state data that shares nothing mutable with `value`.

    Lists, dicts, sets and tuples are copied element by element, generators
    with `copy_rng`, immutable values are shared, and anything else goes
    through `copy.deepcopy`.
    """
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is list:
        return [copy_value(v) for v in value]
    if kind is dict:
        return {k: copy_value(v) for k, v in value.items()}
    if kind is tuple:
        return tuple(copy_value(v) for v in value)
    if kind is set:
        return {copy_value(v) for v in value}
    if kind is Rng:
        return copy_rng(value)
    return copy.deepcopy(value)


def copy_rng(rng: Rng) -> Rng:
    """An independent generator that continues `rng`'s stream exactly."""
    # Rng has no copy method, and a to_json/from_json pair hex-encodes its key
    # on every clone; _from_key is the constructor its own fork and from_json use.
    return Rng._from_key(rng._key, rng._counter, rng._buf)


@functools.cache
def _slot_names(klass: type) -> tuple[str, ...]:
    """The attributes `klass` and its bases keep in __slots__ (made once per class)."""
    names: list[str] = []
    for base in klass.__mro__:
        slots = base.__dict__.get("__slots__", ())
        names.extend(n for n in ((slots,) if isinstance(slots, str) else slots)
                     if n not in ("__dict__", "__weakref__"))
    return tuple(names)

"""One room: a game session, who sits where, and its log, rebuilt from its records.

Every change is a record: a command first checks what it is asked (changing
nothing), returns the record to write, and only `apply` (the same code for a
live change and for a replay) changes the room. The manager writes each
record to the store before it applies it, so what a room is after a crash is
exactly what its log says.

The room's log is append-only and numbered (`LogEntry.n`): a take-back is a
new entry, never an edit, so a device that asks for "everything after n"
after a reconnect gets it, in order. Each entry keeps its game event's
`visible_to`; only `entries_for(seat)` reads them out.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.errors import IllegalAction
from controller.games.base import Action, GameEvent, GameState, Seat, Session
from controller.rooms.credentials import new_join_code, same_hash, token_hash
from controller.rooms.errors import BadCredential, RoomError, SeatTaken, StaleAction
from controller.rooms.spec import RoomSpec, SeatPlan, check_name
from controller.rooms.words import describe

ACTION_ID_RE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
MAX_ACTION_TEXT = 200


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a room's log: a game event or a seat change, with who may see it."""

    n: int
    kind: str
    data: Mapping[str, Any]
    visible_to: frozenset[Seat] | None
    text: str

    def visible(self, seat: Seat | None) -> bool:
        """May `seat` (None: the table and spectators) see this line?"""
        return self.visible_to is None or (seat is not None and seat in self.visible_to)

    def to_json(self) -> dict[str, Any]:
        """What a screen gets (who else may see it is not its business)."""
        return {"n": self.n, "kind": self.kind, "data": dict(self.data), "text": self.text,
                "private": self.visible_to is not None}


@dataclass(slots=True)
class SeatState:
    """A seat: its plan, its name, who holds it and whether a computer plays it now."""

    index: Seat
    plan: SeatPlan
    name: str
    holder: str | None = None  # the hash of the holder's credential
    computer: str | None = None  # the level of the computer playing it now
    # Presence, kept by the manager (not part of the log: after a restart every
    # holder counts as away from the moment the room was resumed).
    connections: int = 0
    away_since_ns: int | None = None

    @property
    def kind(self) -> str:
        """bot (a planned computer seat), person (held) or open (waiting for a person)."""
        if self.plan.kind == "bot":
            return "bot"
        return "person" if self.holder is not None else "open"

    def to_json(self) -> dict[str, Any]:
        """The public facts about the seat."""
        return {"seat": self.index, "name": self.name, "kind": self.kind,
                "computer": self.computer, "connected": self.connections > 0}


@dataclass(frozen=True, slots=True)
class JoinCode:
    """A one-time code that lets one device take `seat` (or take it over from its holder)."""

    seat: Seat
    transfer: bool


@dataclass(frozen=True, slots=True)
class Duplicate:
    """An action id the room has already applied: the answer is the same 'done'."""

    action_id: str


@dataclass
class Room:
    """A room rebuilt from its records.

    Args:
        room_id: the room's id.
        spec: game, options, seat plan and timing.
        seed: the chance seed (from OS entropy); it never leaves the server.
    """

    room_id: str
    spec: RoomSpec
    seed: int = field(repr=False)
    session: Session = field(init=False, repr=False)
    seats: list[SeatState] = field(init=False)
    log: list[LogEntry] = field(init=False, default_factory=list)
    hosts: set[str] = field(init=False, default_factory=set)
    action_ids: dict[str, Seat] = field(init=False, default_factory=dict)
    version: int = field(init=False, default=0)
    step: int = field(init=False, default=0)
    finished: bool = field(init=False, default=False)
    closed: str | None = field(init=False, default=None)
    changed_ns: int = field(init=False, default=0)
    lock: threading.RLock = field(init=False, default_factory=threading.RLock, repr=False)
    # One-time join codes, by the hash of the code; kept in memory only (a
    # restarted table screen shows fresh codes).
    codes: dict[str, JoinCode] = field(init=False, default_factory=dict, repr=False)
    table_codes: dict[Seat, str] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        game = self.spec.game_obj()
        self.session = Session(game, self.spec.seats, seed=self.seed, options=self.spec.options)
        self.seats = [SeatState(i, p, p.name or _default_name(i, p), computer=p.level)
                      for i, p in enumerate(self.spec.plan)]
        for event in self.session.events:
            self._log_game_event(event)
        self._refresh_codes()

    # -- reads ------------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The game state (hidden information included: never send it anywhere)."""
        return self.session.state

    @property
    def names(self) -> list[str]:
        """Seat names, in seat order."""
        return [s.name for s in self.seats]

    @property
    def over(self) -> bool:
        """True once the game is over or the room was closed."""
        return self.finished or self.closed is not None

    def entries_for(self, seat: Seat | None, after: int = -1) -> list[LogEntry]:
        """The log lines `seat` may see, after line number `after`."""
        start = max(0, after + 1)
        return [e for e in self.log[start:] if e.visible(seat)]

    def seats_of(self, credential: str) -> list[Seat]:
        """The seats a credential holds (several for a hot-seat device), or raise."""
        seats = [s.index for s in self.seats if s.holder is not None
                 and same_hash(credential, s.holder)]
        if not seats:
            raise BadCredential("this device holds no seat in this room (the credential is "
                                "unknown, or the seat moved to another device)")
        return seats

    def is_host(self, token: str) -> bool:
        """Is `token` one of this room's table-screen tokens?"""
        return any(same_hash(token, h) for h in self.hosts)

    def computer_turns(self) -> list[Seat]:
        """Seats on turn that a computer plays now."""
        if self.over:
            return []
        return [s for s in sorted(self.state.actors()) if self.seats[s].computer is not None]

    # -- commands: check, and return the record to write (nothing changes here) ----------

    def record_action(self, seat: Seat, text: Any, action_id: Any, step: Any, *,
                      by: str) -> dict[str, Any] | Duplicate:
        """Check one action; return its record, or `Duplicate` if `action_id` was applied."""
        if not isinstance(action_id, str) or not ACTION_ID_RE.fullmatch(action_id):
            raise RoomError("an action needs an id of 1-64 letters, digits or . _ : -")
        if action_id in self.action_ids:
            if self.action_ids[action_id] != seat:
                raise RoomError(f"action id {action_id!r} was already used by another seat")
            return Duplicate(action_id)
        self._check_open()
        if not isinstance(step, int) or isinstance(step, bool):
            raise RoomError(f"an action names the step it was chosen at, got {step!r}")
        if step != self.step:
            raise StaleAction(f"the game has moved on since you chose (you saw step {step}, "
                              f"it is now step {self.step}); choose again")
        if by == "person" and self.seats[seat].computer is not None:
            raise RoomError("a computer is playing this seat: take it back first")
        action = _parse_action(text)
        if action not in self.state.legal_actions(seat):
            # The rule's own message: apply it to a copy, which raises and says why.
            trial = self.state.clone()
            try:
                trial.apply(seat, action)
            except IllegalAction as exc:
                raise RoomError(f"not allowed: {exc}") from exc
            raise RoomError(f"not allowed: {action} is not a legal action for this seat now")
        return {"kind": "action", "seat": seat, "action": str(action), "id": action_id, "by": by}

    def record_undo(self, seat: Seat, action_id: Any) -> dict[str, Any] | Duplicate:
        """Check a take-back by `seat`; return its record."""
        if not isinstance(action_id, str) or not ACTION_ID_RE.fullmatch(action_id):
            raise RoomError("an undo needs an id of 1-64 letters, digits or . _ : -")
        if action_id in self.action_ids:
            return Duplicate(action_id)
        self._check_open()
        if not self.session.can_undo(seat):
            raise RoomError("nothing to undo: undo never crosses another player's action, "
                            "revealed hidden information or a random event")
        return {"kind": "undo", "seat": seat, "id": action_id}

    def record_join(self, code: Any, name: Any, credential: str) -> dict[str, Any]:
        """Check a join code; return the `joined` record for a device with `credential`."""
        self._check_open()
        if not isinstance(code, str) or len(code) > 64:
            raise BadCredential("malformed join code")
        join = self.codes.get(token_hash(code))
        if join is None:
            raise BadCredential("this join code is unknown or was already used: scan the "
                                "seat's current QR code")
        seat = self.seats[join.seat]
        if seat.holder is not None and not join.transfer:
            raise SeatTaken(f"seat {join.seat + 1} is already taken")
        clean = check_name(name) or seat.name
        return {"kind": "joined", "seats": [join.seat], "names": [clean],
                "credential": token_hash(credential), "code": token_hash(code)}

    def record_hot_seat(self, credential: str) -> dict[str, Any]:
        """The `joined` record that puts every open person seat on one device."""
        self._check_open()
        seats = [s.index for s in self.seats if s.kind == "open"]
        if not seats:
            raise SeatTaken("no person seat is open")
        return {"kind": "joined", "seats": seats, "names": [self.seats[s].name for s in seats],
                "credential": token_hash(credential), "code": None}

    def record_computer(self, seat: Seat, level: str, why: str) -> dict[str, Any]:
        """A computer plays `seat` for now (its person away, or the table asked)."""
        self._check_open()
        st = self._seat(seat)
        if st.plan.kind == "bot":
            raise SeatTaken(f"seat {seat + 1} is a computer seat already")
        if st.computer is not None:
            raise RoomError(f"a computer already plays seat {seat + 1}")
        return {"kind": "computer", "seat": seat, "level": level, "why": why}

    def record_reclaim(self, seat: Seat) -> dict[str, Any]:
        """The holder takes the seat back from the computer."""
        self._check_open()
        if self._seat(seat).computer is None or self.seats[seat].plan.kind == "bot":
            raise RoomError(f"no computer plays seat {seat + 1} for you")
        return {"kind": "reclaimed", "seat": seat}

    def record_release(self, seat: Seat, by: str, computer: str | None) -> dict[str, Any]:
        """The seat's holder leaves (or the table frees it); `computer` plays on if given."""
        self._check_open()
        st = self._seat(seat)
        if st.holder is None:
            raise RoomError(f"seat {seat + 1} has no holder")
        return {"kind": "released", "seat": seat, "by": by, "computer": computer}

    def _seat(self, seat: Any) -> SeatState:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.seats):
            raise RoomError(f"there is no seat {seat!r} (seats 0 to {len(self.seats) - 1})")
        return self.seats[seat]

    def _check_open(self) -> None:
        if self.closed is not None:
            raise RoomError(f"the room is closed ({self.closed})")
        if self.finished:
            raise RoomError("the game is over")

    # -- the one place a room changes ----------------------------------------------------

    def apply(self, record: Mapping[str, Any]) -> None:
        """Apply one record (live, or while replaying the log)."""
        handler = _HANDLERS.get(str(record.get("kind")))
        if handler is None:
            raise RoomError(f"unknown room record {record.get('kind')!r}")
        handler(self, record)
        self.version += 1
        self._refresh_codes()

    def _on_host(self, rec: Mapping[str, Any]) -> None:
        self.hosts.add(rec["credential"])

    def _on_joined(self, rec: Mapping[str, Any]) -> None:
        if rec.get("code") is not None:
            self.codes.pop(rec["code"], None)
        for seat, name in zip(rec["seats"], rec["names"], strict=True):
            st = self.seats[seat]
            st.holder, st.computer, st.name = rec["credential"], None, name
            st.away_since_ns = None
            self.table_codes.pop(seat, None)
        self._log_room("joined", {"seats": list(rec["seats"]), "name": ", ".join(rec["names"])})

    def _on_released(self, rec: Mapping[str, Any]) -> None:
        st = self.seats[rec["seat"]]
        self._log_room("released", {"seat": st.index, "by": rec["by"]})
        st.holder, st.computer, st.connections = None, rec.get("computer"), 0
        if st.computer is not None:
            self._log_room("computer", {"seat": st.index, "level": st.computer})
        # A transfer code of the old holder must not outlive the release.
        self.codes = {h: c for h, c in self.codes.items() if c.seat != st.index}

    def _on_computer(self, rec: Mapping[str, Any]) -> None:
        self.seats[rec["seat"]].computer = rec["level"]
        self._log_room("computer", {"seat": rec["seat"], "level": rec["level"]})

    def _on_reclaimed(self, rec: Mapping[str, Any]) -> None:
        st = self.seats[rec["seat"]]
        st.computer = None
        self._log_room("reclaimed", {"seat": st.index})

    def _on_action(self, rec: Mapping[str, Any]) -> None:
        events = self.session.apply(int(rec["seat"]), Action.parse(rec["action"]))
        self.action_ids[rec["id"]] = int(rec["seat"])
        self.step += 1
        for event in events:
            self._log_game_event(event)

    def _on_undo(self, rec: Mapping[str, Any]) -> None:
        before = len(self.session.log)
        self.session.undo(int(rec["seat"]))
        self.action_ids[rec["id"]] = int(rec["seat"])
        self.step += 1
        self._log_room("undone", {"seat": rec["seat"], "moves": before - len(self.session.log)})

    def _on_finished(self, rec: Mapping[str, Any]) -> None:
        self.finished = True
        self._log_room("finished", {"returns": rec["returns"], "winners": rec["winners"]})

    def _on_closed(self, rec: Mapping[str, Any]) -> None:
        self.closed = str(rec.get("reason") or "closed")
        self._log_room("closed", {"reason": self.closed})

    # -- the log and the codes -----------------------------------------------------------

    def _log_game_event(self, event: GameEvent) -> None:
        self.log.append(LogEntry(len(self.log), event.kind, dict(event.data), event.visible_to,
                                 describe(event.kind, event.data, self.names)))

    def _log_room(self, kind: str, data: dict[str, Any]) -> None:
        self.log.append(LogEntry(len(self.log), kind, data, None,
                                 describe(kind, data, self.names)))

    def _refresh_codes(self) -> None:
        """Give every seat waiting for a person a table join code (none once the game is over)."""
        if self.over:
            self.codes.clear()
            self.table_codes.clear()
            return
        for st in self.seats:
            if st.kind == "open" and st.index not in self.table_codes:
                self.table_codes[st.index] = self.issue_code(st.index, transfer=False)

    def issue_code(self, seat: Seat, *, transfer: bool) -> str:
        """A fresh one-time join code for `seat` (a transfer code moves a held seat)."""
        code = new_join_code()
        self.codes[token_hash(code)] = JoinCode(seat, transfer)
        return code


_HANDLERS = {
    "host": Room._on_host, "joined": Room._on_joined, "released": Room._on_released,
    "computer": Room._on_computer, "reclaimed": Room._on_reclaimed, "action": Room._on_action,
    "undo": Room._on_undo, "finished": Room._on_finished, "closed": Room._on_closed,
}


def _default_name(seat: Seat, plan: SeatPlan) -> str:
    if plan.kind == "bot":
        return f"Computer {seat + 1} ({plan.level})"
    return f"Seat {seat + 1}"


def _parse_action(text: Any) -> Action:
    if not isinstance(text, str) or not text.strip():
        raise RoomError("an action is its canonical text, e.g. 'play:QH'")
    if len(text) > MAX_ACTION_TEXT:
        raise RoomError(f"an action text has at most {MAX_ACTION_TEXT} characters")
    try:
        return Action.parse(text)
    except IllegalAction as exc:
        raise RoomError(f"malformed action {text[:40]!r}: {exc}") from exc

"""The rooms of a table: create, resume, seat changes, actions, and the computer players.

Every command takes the room's lock, checks (the room changes nothing while
it checks), writes the record to the store, applies it, and tells the
room's subscribers. Computer players think on a copy of the state outside
the lock, so a slow search never holds up a person's tap; their move is
dropped if the game moved on meanwhile.

Time comes from the injected clock: a computer waits `bot_delay_s` after
the last change before it moves, and a person away for `zombie_after_s`
while the game waits for them is replaced by the computer.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import Any

from controller.clock import NS_PER_S, Clock
from controller.errors import IllegalAction, KnappError
from controller.games.base import Seat
from controller.rng import Rng
from controller.rooms.bots import make_bot
from controller.rooms.credentials import check_token_text, new_token, token_hash
from controller.rooms.errors import BadCredential, NoSuchRoom, RoomError, RoomStoreError
from controller.rooms.persist import RoomStore
from controller.rooms.room import Duplicate, Room
from controller.rooms.spec import RoomSpec
from controller.store import EventStore

MAX_LIVE_ROOMS = 32
MAX_KEPT_OVER = 16
IDLE_S = 30 * 60  # a room untouched this long, with no device on it, may be closed
# With no delay (tests, benches), one tick plays this many computer moves per
# room before the screens get a look in.
BURST = 25
BURST_NS = 200_000_000
TICK_S = 0.05

Callback = Callable[[], None]


class RoomManager:
    """Every room of one table.

    Args:
        store: the rooms' log.
        clock: the table's clock.
        seeds: where a new room's chance seed comes from (OS entropy; tests inject).
    """

    def __init__(self, store: RoomStore, *, clock: Clock,
                 seeds: Callable[[], int] | None = None) -> None:
        self.store = store
        self.clock = clock
        self._seeds = seeds or (lambda: secrets.randbits(128))
        self._rooms: dict[str, Room] = {}
        self._subs: dict[str, list[Callback]] = {}
        self._lock = threading.Lock()
        self.messages: list[str] = []

    @classmethod
    def beside(cls, event_store: EventStore, *, clock: Clock) -> RoomManager:
        """A manager whose rooms live in the table's database file; unfinished rooms resume."""
        manager = cls(RoomStore.beside(event_store), clock=clock)
        manager.resume()
        return manager

    # -- loading -------------------------------------------------------------------------

    def resume(self) -> list[str]:
        """Replay every unfinished stored room; return their ids."""
        resumed = []
        for info in self.store.rooms():
            if info.finished or info.id in self._rooms:
                continue
            try:
                room = self._replay(info.id)
            except (RoomStoreError, KnappError) as exc:
                self.messages.append(f"room {info.id} cannot be resumed: {exc}")
                continue
            now = self.clock.now_ns()
            room.changed_ns = now
            for st in room.seats:
                if st.holder is not None:
                    st.away_since_ns = now  # everyone gets the full grace after a restart
            with self._lock:
                self._rooms[info.id] = room
            self._finish_if_over(room)
            resumed.append(info.id)
        return resumed

    def _replay(self, room_id: str, until_step: int | None = None) -> Room:
        """Rebuild a room from its log (up to game step `until_step`, for replays)."""
        records = self.store.load(room_id)
        try:
            first = records[0]
            if first.get("kind") != "created":
                raise RoomStoreError(f"room {room_id}: the first record is not 'created'")
            room = Room(room_id, RoomSpec.parse(first["spec"]), int(first["seed"]))
            for rec in records[1:]:
                if until_step is not None and room.step >= until_step and rec.get("kind") in (
                        "action", "undo"):
                    break
                room.apply(rec)
        except (IndexError, KeyError, TypeError, ValueError, IllegalAction) as exc:
            raise RoomStoreError(f"room {room_id}: the log does not replay: {exc}") from exc
        return room

    def room(self, room_id: str) -> Room:
        """A room in memory, or a finished one replayed from the store (and kept a while)."""
        with self._lock:
            room = self._rooms.get(room_id)
        if room is not None:
            return room
        if not isinstance(room_id, str) or not self.store.has_room(room_id):
            raise NoSuchRoom(f"no room {room_id!r}")
        room = self._replay(room_id)
        with self._lock:
            room = self._rooms.setdefault(room_id, room)
        self._evict()
        return room

    def replay_to(self, room_id: str, step: int) -> Room:
        """A copy of a stored room as it was at game step `step`."""
        return self._replay(room_id, until_step=step)

    def live_rooms(self) -> list[Room]:
        """Rooms being played now, oldest first."""
        with self._lock:
            return [r for r in self._rooms.values() if not r.over]

    def _evict(self) -> None:
        """Keep at most MAX_KEPT_OVER finished rooms in memory (the store has them all)."""
        with self._lock:
            over = [rid for rid, r in self._rooms.items() if r.over]
            for rid in over[:max(0, len(over) - MAX_KEPT_OVER)]:
                del self._rooms[rid]

    def listing(self) -> list[dict[str, Any]]:
        """Every room (live first, then finished ones from the store), public facts only."""
        live = {r.room_id: r for r in self.live_rooms()}
        out = []
        for info in self.store.rooms():
            room = live.get(info.id)
            entry: dict[str, Any] = {"room": info.id, "game": info.game,
                                     "created_utc": info.created_utc,
                                     "finished": info.finished or (room is not None
                                                                   and room.over)}
            if room is not None:
                entry["seats"] = [s.to_json() for s in room.seats]
                entry["closed"] = room.closed
            out.append(entry)
        return out

    # -- writing -------------------------------------------------------------------------

    def _write(self, room: Room, record: dict[str, Any]) -> None:
        """Store a record, then apply it (the caller holds the room's lock)."""
        self.store.append(room.room_id, record, finished=record["kind"] in ("finished", "closed"))
        room.apply(record)
        room.changed_ns = self.clock.now_ns()

    def _finish_if_over(self, room: Room) -> None:
        with room.lock:
            if room.state.is_terminal() and not room.over:
                self._write(room, {"kind": "finished", "returns": room.state.returns(),
                                   "winners": room.state.winners()})
        self._notify(room.room_id)

    def _notify(self, room_id: str) -> None:
        with self._lock:
            subs = list(self._subs.get(room_id, ()))
        for callback in subs:
            callback()

    def subscribe(self, room_id: str, callback: Callback) -> Callable[[], None]:
        """Call `callback` after every change of `room_id`; returns the unsubscribe function."""
        with self._lock:
            self._subs.setdefault(room_id, []).append(callback)

        def unsubscribe() -> None:
            with self._lock:
                subs = self._subs.get(room_id, [])
                if callback in subs:
                    subs.remove(callback)

        return unsubscribe

    # -- commands ------------------------------------------------------------------------

    def create(self, data: Mapping[str, Any]) -> tuple[Room, str]:
        """Start a room from a table's choices; return it with its table-screen token."""
        spec = RoomSpec.parse(data)
        if len(self.live_rooms()) >= MAX_LIVE_ROOMS:
            self._close_idle()
        if len(self.live_rooms()) >= MAX_LIVE_ROOMS:
            raise RoomError(f"{MAX_LIVE_ROOMS} rooms are running already: finish or close "
                            "one first")
        room_id = secrets.token_hex(5)
        room = Room(room_id, spec, self._seeds())
        host = new_token()
        self.store.create(room_id, spec.game, {"kind": "created", "spec": spec.to_json(),
                                               "seed": room.seed})
        with room.lock:
            self._write(room, {"kind": "host", "credential": token_hash(host)})
        with self._lock:
            self._rooms[room_id] = room
        self._evict()
        return room, host

    def _close_idle(self) -> None:
        """Close rooms nobody has looked at or played in for IDLE_S (so rooms started and
        forgotten, or started by a stranger, cannot fill the table's room for good)."""
        now = self.clock.now_ns()
        for room in self.live_rooms():
            with room.lock:
                idle = now - room.changed_ns >= IDLE_S * NS_PER_S and not any(
                    st.connections for st in room.seats)
                if idle and not room.over:
                    self._write(room, {"kind": "closed", "reason": "idle"})
            if idle:
                self._notify(room.room_id)

    def _live(self, room_id: str) -> Room:
        # A finished room refuses every change itself (Room._check_open).
        return self.room(room_id)

    def _held(self, room: Room, credential: Any, seat: Any) -> Seat:
        token = check_token_text(credential)
        seats = room.seats_of(token)
        if seat not in seats:
            raise BadCredential(f"this device does not hold seat {seat!r}")
        held: Seat = seat
        return held

    def add_host(self, room_id: str) -> str:
        """Another table-screen token (the web asks for the table PIN first)."""
        room = self._live(room_id)
        host = new_token()
        with room.lock:
            self._write(room, {"kind": "host", "credential": token_hash(host)})
        return host

    def check_host(self, room_id: str, token: Any) -> Room:
        """The room, if `token` is one of its table-screen tokens."""
        room = self.room(room_id)
        if not room.is_host(check_token_text(token, "table token")):
            raise BadCredential("this is not the table screen of this room")
        return room

    def join(self, room_id: str, code: Any, name: Any = "") -> tuple[list[Seat], str]:
        """Take a seat with a one-time join code; return the seats and the new credential."""
        room = self._live(room_id)
        credential = new_token()  # made now, at join time, and stored only as a hash
        with room.lock:
            record = room.record_join(code, name, credential)
            self._write(room, record)
        self._notify(room_id)
        return list(record["seats"]), credential

    def join_hot_seat(self, room_id: str, host: Any) -> tuple[list[Seat], str]:
        """Put every open person seat on the table screen's device (hot-seat play)."""
        room = self.check_host(room_id, host)
        credential = new_token()
        with room.lock:
            record = room.record_hot_seat(credential)
            self._write(room, record)
        self._notify(room_id)
        return list(record["seats"]), credential

    def act(self, room_id: str, credential: Any, seat: Any, action: Any, *, action_id: Any,
            step: Any) -> bool:
        """A person's action; True if applied now, False if `action_id` was applied before."""
        room = self._live(room_id)
        with room.lock:
            held = self._held(room, credential, seat)
            record = room.record_action(held, action, action_id, step, by="person")
            if isinstance(record, Duplicate):
                return False
            self._write(room, record)
        self._finish_if_over(room)
        return True

    def undo(self, room_id: str, credential: Any, seat: Any, action_id: Any) -> bool:
        """A take-back within the undo policy; False if `action_id` was applied before."""
        room = self._live(room_id)
        with room.lock:
            held = self._held(room, credential, seat)
            record = room.record_undo(held, action_id)
            if isinstance(record, Duplicate):
                return False
            self._write(room, record)
        self._notify(room_id)
        return True

    def reclaim(self, room_id: str, credential: Any, seat: Any) -> None:
        """The holder takes their seat back from the computer."""
        room = self._live(room_id)
        with room.lock:
            self._write(room, room.record_reclaim(self._held(room, credential, seat)))
        self._notify(room_id)

    def leave(self, room_id: str, credential: Any, seat: Any) -> None:
        """The holder leaves; a computer plays on and the seat is open to join again."""
        room = self._live(room_id)
        with room.lock:
            held = self._held(room, credential, seat)
            self._write(room, room.record_release(held, "holder", room.spec.zombie_level))
        self._notify(room_id)

    def release(self, room_id: str, seat: Any) -> None:
        """Free a held seat from the table screen (the web asks for the table PIN first)."""
        room = self._live(room_id)
        with room.lock:
            self._write(room, room.record_release(seat, "table", room.spec.zombie_level))
        self._notify(room_id)

    def computer_plays(self, room_id: str, host: Any, seat: Any) -> None:
        """The table screen lets a computer play a seat nobody has joined yet."""
        room = self.check_host(room_id, host)
        with room.lock:
            self._write(room, room.record_computer(seat, room.spec.zombie_level, "table"))
        self._notify(room_id)

    def transfer_code(self, room_id: str, credential: Any, seat: Any) -> str:
        """A one-time code with which another device takes over the holder's seat."""
        room = self._live(room_id)
        with room.lock:
            return room.issue_code(self._held(room, credential, seat), transfer=True)

    def close(self, room_id: str, host: Any, reason: str = "closed at the table") -> None:
        """End a room before its game is over."""
        room = self.check_host(room_id, host)
        with room.lock:
            if room.over:
                raise RoomError("the room is over already")
            self._write(room, {"kind": "closed", "reason": reason[:200]})
        self._notify(room_id)

    # -- presence ------------------------------------------------------------------------

    def connected(self, room: Room, seats: list[Seat]) -> None:
        """A device holding `seats` connected."""
        with room.lock:
            for s in seats:
                room.seats[s].connections += 1
                room.seats[s].away_since_ns = None
            room.version += 1  # every screen shows who is here
        self._notify(room.room_id)

    def disconnected(self, room: Room, seats: list[Seat]) -> None:
        """A device holding `seats` went away (closed, slept, lost Wi-Fi)."""
        now = self.clock.now_ns()
        with room.lock:
            for s in seats:
                st = room.seats[s]
                st.connections = max(0, st.connections - 1)
                if st.connections == 0 and st.holder is not None:
                    st.away_since_ns = now
            room.version += 1
        self._notify(room.room_id)

    # -- the computer players and the away timer ---------------------------------------------

    def tick(self) -> bool:
        """Play due computer moves and hand long-absent seats to the computer; True if any."""
        moved = False
        for room in self.live_rooms():
            moved |= self._takeovers(room)
            started = self.clock.now_ns()
            for _ in range(BURST):
                if not self._computer_move(room):
                    break
                moved = True
                # Paced computers move one at a time; unpaced ones until the burst's
                # time is up, so a room of search players never holds up the others long.
                if room.spec.bot_delay_s > 0 or self.clock.now_ns() - started > BURST_NS:
                    break
        return moved

    def _takeovers(self, room: Room) -> bool:
        now = self.clock.now_ns()
        limit = round(room.spec.zombie_after_s * NS_PER_S)
        changed = False
        with room.lock:
            actors = room.state.actors() if not room.over else frozenset()
            for st in room.seats:
                if (st.holder is not None and st.computer is None and st.connections == 0
                        and st.away_since_ns is not None and st.index in actors
                        and now - st.away_since_ns >= limit):
                    self._write(room, room.record_computer(st.index, room.spec.zombie_level,
                                                           "away"))
                    changed = True
        if changed:
            self._notify(room.room_id)
        return changed

    def _computer_move(self, room: Room) -> bool:
        with room.lock:
            turns = room.computer_turns()
            due = room.changed_ns + round(room.spec.bot_delay_s * NS_PER_S)
            if not turns or self.clock.now_ns() < due:
                return False
            seat, step = turns[0], room.step
            level = room.seats[seat].computer
            assert level is not None
            state = room.state.clone()
        rng = Rng(room.seed).fork(f"room-bot:{seat}:{step}")
        game = room.spec.game_obj()
        try:
            action = make_bot(game, level, seat, rng).choose(state)
        except KnappError as exc:  # a computer player's bug must not stall the room
            self.messages.append(f"room {room.room_id}: the {level} player failed: {exc}")
            action = make_bot(game, "random", seat, rng).choose(state)
        with room.lock:
            if room.step != step or seat not in room.computer_turns():
                return False
            record = room.record_action(seat, str(action), f"c{step}.{seat}", step,
                                        by="computer")
            assert not isinstance(record, Duplicate)
            self._write(room, record)
        self._finish_if_over(room)
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Tick (in a worker thread, so a computer's search never blocks a screen) until `stop`."""
        while not stop.is_set():
            try:
                await asyncio.to_thread(self.tick)
            except KnappError as exc:  # one bad room must not stop the others
                self.messages.append(str(exc))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TICK_S)

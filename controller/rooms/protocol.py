"""The one protocol between a room and a device, without any I/O (the web carries it).

A device's first message binds its connection: `hello` with a seat
credential (a phone, or a hot-seat device holding several seats), with a
table token (the table screen), or with neither (a spectator). From then on
the server sends it only its own `view`, whenever the room changes; the
device sends canonical action texts with an id of its own and the step it
chose at:

    -> {"type": "hello", "credential": "...", "after": 41}
    <- {"type": "view", "seat": 2, "step": 17, "legal": ["play:QH", ...], "log": [...]}
    -> {"type": "act", "seat": 2, "action": "play:QH", "id": "a1b2", "step": 17}
    <- {"type": "ack", "id": "a1b2", "duplicate": false}   (then the new view)

An id the room has applied is acknowledged again without acting twice, so a
device that lost its connection resends its pending action safely; an
action chosen at an older step is refused as stale; an illegal one gets the
rule's message. Nothing that is refused changes anything.

Hot-seat: between turns of different seats the device gets the public view
with a `handover` naming who is next, and the next seat's private view only
after it answers `reveal` (the privacy screen's tap).
"""

from __future__ import annotations

import json
from typing import Any

from controller.errors import KnappError
from controller.games.base import Seat
from controller.rooms.credentials import check_token_text
from controller.rooms.errors import BadCredential, RoomError, StaleAction
from controller.rooms.manager import RoomManager
from controller.rooms.room import Room
from controller.rooms.views import join_url, qr_svg, table_joins, view

MAX_MESSAGE_BYTES = 4096

Message = dict[str, Any]


class Client:
    """One device's connection to one room.

    Args:
        manager: the table's rooms.
        room_id: the room this connection is for.
        base_url: the address phones reach this server at (for join links).
    """

    def __init__(self, manager: RoomManager, room_id: str, *, base_url: str) -> None:
        self.manager = manager
        self.room: Room = manager.room(room_id)
        self.base_url = base_url
        self.role: str | None = None  # seat, table or spectator, once bound
        self.credential: str | None = None
        self.seats: list[Seat] = []
        self.shown: Seat | None = None  # the seat whose private view the device shows
        self.after = -1
        self._sent_version = -1
        self._sent_focus: Seat | None = None
        self.closed = False

    # -- upstream ------------------------------------------------------------------------

    def receive(self, text: str) -> list[Message]:
        """Handle one message from the device; return the replies (views included)."""
        if len(text.encode()) > MAX_MESSAGE_BYTES:
            return [{"type": "error", "error": f"message too large ({len(text.encode())} bytes;"
                                               f" at most {MAX_MESSAGE_BYTES})"}]
        try:
            msg = json.loads(text)
        except json.JSONDecodeError as exc:
            return [{"type": "error", "error": f"not JSON: {exc}"}]
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            return [{"type": "error", "error": "a message is an object with a 'type'"}]
        kind = msg["type"]
        if self.role is None and kind != "hello":
            return [{"type": "error", "error": "say hello first"}]
        handler = _HANDLERS.get(kind)
        if handler is None:
            return [{"type": "error", "error": f"unknown message type {kind[:40]!r}"}]
        try:
            return handler(self, msg)
        except StaleAction as exc:
            return [{"type": "refused", "id": msg.get("id"), "reason": str(exc), "stale": True},
                    *self.updates(force=True)]
        except BadCredential as exc:
            return self._unbound(str(exc))
        except (RoomError, KnappError) as exc:
            reply = {"type": "refused", "id": msg.get("id"), "reason": str(exc), "stale": False}
            if kind not in ("act", "undo"):
                reply = {"type": "error", "error": str(exc)}
            return [reply]

    def _hello(self, msg: Message) -> list[Message]:
        if self.role is not None:
            return [{"type": "error", "error": "this connection said hello already"}]
        after = msg.get("after", -1)
        self.after = after if isinstance(after, int) and not isinstance(after, bool) else -1
        if msg.get("credential") is not None:
            self.credential = check_token_text(msg["credential"])
            with self.room.lock:
                self.seats = self.room.seats_of(self.credential)
            self.role = "seat"
            self.manager.connected(self.room, self.seats)
        elif msg.get("host") is not None:
            self.manager.check_host(self.room.room_id, msg["host"])
            self.role = "table"
        else:
            self.role = "spectator"
        if len(self.seats) == 1:
            self.shown = self.seats[0]
        welcome = {"type": "welcome", "role": self.role, "seats": self.seats,
                   "room": self.room.room_id}
        return [welcome, *self.updates(force=True)]

    def _act(self, msg: Message) -> list[Message]:
        seat = self._acting_seat(msg)
        done = self.manager.act(self.room.room_id, self.credential, seat, msg.get("action"),
                                action_id=msg.get("id"), step=msg.get("step"))
        return [{"type": "ack", "id": msg.get("id"), "duplicate": not done}, *self.updates()]

    def _undo(self, msg: Message) -> list[Message]:
        seat = self._acting_seat(msg)
        done = self.manager.undo(self.room.room_id, self.credential, seat, msg.get("id"))
        return [{"type": "ack", "id": msg.get("id"), "duplicate": not done}, *self.updates()]

    def _acting_seat(self, msg: Message) -> Seat:
        if self.role != "seat":
            raise RoomError("only a seat's device can act")
        seat = msg.get("seat", self.shown)
        if seat != self.shown:
            raise RoomError("act only for the seat this device shows (tap the privacy screen "
                            "first)")
        assert isinstance(seat, int)
        return seat

    def _reveal(self, msg: Message) -> list[Message]:
        seat = msg.get("seat")
        if self.role != "seat" or seat not in self.seats:
            raise RoomError("this device holds no such seat")
        if seat != self._focus():
            raise RoomError("that seat is not the one to play on this device now")
        self.shown = seat
        self.after = -1  # the new holder of the device gets their own log from the start
        return self.updates(force=True)

    def _seat_command(self, msg: Message) -> list[Message]:
        if self.role != "seat" or msg.get("seat") not in self.seats:
            raise RoomError("this device holds no such seat")
        seat, rid = msg["seat"], self.room.room_id
        if msg["type"] == "reclaim":
            self.manager.reclaim(rid, self.credential, seat)
            return self.updates()
        if msg["type"] == "leave":
            self.manager.leave(rid, self.credential, seat)
            return self._unbound("you left the seat")
        code = self.manager.transfer_code(rid, self.credential, seat)
        url = join_url(self.base_url, rid, code)
        return [{"type": "transfer", "seat": seat, "url": url, "qr": qr_svg(url)}]

    def _ping(self, _msg: Message) -> list[Message]:
        return [{"type": "pong"}]

    # -- downstream ----------------------------------------------------------------------

    def updates(self, *, force: bool = False) -> list[Message]:
        """The device's new view if the room changed since the last one sent (or `force`)."""
        if self.closed or self.role is None:
            return []
        with self.room.lock:
            if self.role == "seat":
                try:
                    self.seats = self.room.seats_of(self.credential or "")
                except BadCredential:
                    return self._unbound("your seat moved to another device or was freed at "
                                         "the table")
            focus = self._focus()
            if not force and self.room.version == self._sent_version and focus == self._sent_focus:
                return []
            handover = None
            if self.role == "seat" and focus is not None and focus != self.shown:
                if _private(self.room, focus):
                    # Hot-seat: another seat's turn. Hide everything private until it taps.
                    self.shown = None
                    handover = {"seat": focus, "name": self.room.seats[focus].name}
                else:
                    # Nothing to hide (Koob, Kobbla): no privacy screen between turns.
                    self.shown = focus
            msg, last = view(self.room, self.shown, self.after,
                             now_ns=self.manager.clock.now_ns())
            msg["role"], msg["my_seats"] = self.role, self.seats
            if handover is not None:
                msg["handover"] = handover
            if self.role == "table":
                msg["joins"] = table_joins(self.room, self.base_url)
            self.after = last
            self._sent_version, self._sent_focus = self.room.version, focus
        return [msg]

    def _focus(self) -> Seat | None:
        """The seat this device should show: its seat, or for a hot-seat device the one on turn."""
        if self.role != "seat" or not self.seats:
            return None
        if len(self.seats) == 1:
            return self.seats[0]
        on_turn = [s for s in self.seats if s in self.room.state.actors()] \
            if not self.room.over else []
        if self.shown in on_turn or (not on_turn and self.shown is not None):
            return self.shown
        return on_turn[0] if on_turn else self.seats[0]

    def _unbound(self, reason: str) -> list[Message]:
        # The seats are no longer this device's: leave their presence to their new holder.
        self.seats = []
        self.close()
        return [{"type": "unbound", "reason": reason}]

    def close(self) -> None:
        """The connection ended: the device's seats count as away from now."""
        if self.closed:
            return
        self.closed = True
        if self.role == "seat" and self.seats:
            self.manager.disconnected(self.room, self.seats)


_HANDLERS = {
    "hello": Client._hello, "act": Client._act, "undo": Client._undo, "reveal": Client._reveal,
    "reclaim": Client._seat_command, "leave": Client._seat_command,
    "transfer": Client._seat_command, "ping": Client._ping,
}


def _private(room: Room, seat: Seat) -> bool:
    """True when `seat` sees something the public does not (a hand, its own log lines)."""
    own = {k: v for k, v in room.state.observation(seat).items() if k != "seat"}
    public = {k: v for k, v in room.state.observation(None).items() if k != "seat"}
    if own != public:
        return True
    return any(e.visible_to is not None for e in room.entries_for(seat, -1))

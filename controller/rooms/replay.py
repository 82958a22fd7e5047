"""Finished rooms as replays: the public view at any step, or a seat's own.

A replay is the room's log replayed up to a step, then shown through the
same `views.view` as a live screen: the public replay is `observation(None)`
and the public lines; a seat's own replay (with its credential) shows its own
hand and nobody else's.
"""

from __future__ import annotations

from typing import Any

from controller.rooms.credentials import check_token_text
from controller.rooms.errors import BadCredential, RoomError
from controller.rooms.manager import RoomManager
from controller.rooms.views import view


def replay_view(manager: RoomManager, room_id: str, step: int | None,
                credential: str | None, seat: int | None = None) -> dict[str, Any]:
    """The view of finished room `room_id` at `step` (default: the end).

    Args:
        manager: the table's rooms.
        room_id: the room.
        step: the game step (0: the deal, `steps`: the end).
        credential: a seat credential for that seat's own replay; None for the public one.
        seat: which of the credential's seats (a hot-seat device holds several).
    """
    room = manager.room(room_id)
    if not room.over:
        raise RoomError("a replay is for a finished room; this one is still being played")
    shown = None
    if credential is not None:
        seats = room.seats_of(check_token_text(credential))
        shown = seats[0] if seat is None else seat
        if shown not in seats:
            raise BadCredential(f"this credential does not hold seat {seat}")
    total = room.step
    at = total if step is None else step
    if not 0 <= at <= total:
        raise RoomError(f"step must be from 0 to {total}, got {step}")
    past = manager.replay_to(room_id, at)
    msg, _ = view(past, shown, -1, now_ns=manager.clock.now_ns())
    msg.update({"type": "replay", "at": at, "steps": total, "legal": [], "can_undo": False})
    return msg

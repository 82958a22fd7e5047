"""What each screen is sent: a seat's own view, the public view, the table's join codes.

A seat's view is built only from `observation(seat)`, `legal_actions(seat)`
and the log lines visible to that seat; the public view (the table screen and
spectators) only from `observation(None)` and the public lines. Nothing here
reads the full state, the seed or another seat's actions, so nothing can leak
by being redacted on the way out (boardgame.io #399, #1159, #227).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import segno

from controller.clock import NS_PER_S
from controller.games.base import Seat, canonical
from controller.rooms.room import Room

# A device that connects afresh gets at most this many past log lines.
LOG_LIMIT = 150


def view(room: Room, seat: Seat | None, after: int, *, now_ns: int) -> tuple[dict[str, Any], int]:
    """The view of `seat` (None: public) with the log lines after `after`; and the last line."""
    entries = room.entries_for(seat, after)
    truncated = len(entries) > LOG_LIMIT
    entries = entries[-LOG_LIMIT:]
    last = room.log[-1].n if room.log else -1
    state = room.state
    over = room.over
    actors = [] if over else sorted(state.actors())
    legal: list[str] = []
    if seat is not None and not over and room.seats[seat].computer is None:
        legal = [str(a) for a in canonical(state.legal_actions(seat))]
    msg: dict[str, Any] = {
        "type": "view", "room": room.room_id, "game": room.spec.game,
        "game_name": room.spec.game_obj().name, "version": room.version, "step": room.step,
        "seat": seat, "seats": [s.to_json() for s in room.seats], "actors": actors,
        "observation": state.observation(seat), "legal": legal,
        "can_undo": seat is not None and not over and room.session.can_undo(seat),
        "over": over, "finished": room.finished, "closed": room.closed,
        "hot_seat": room.spec.hot_seat, "timers": _timers(room, actors, now_ns),
        "log": [e.to_json() for e in entries], "log_after": after, "log_truncated": truncated,
    }
    if room.finished:
        msg["result"] = {"returns": state.returns(), "winners": state.winners()}
    return msg, last


def _timers(room: Room, actors: list[Seat], now_ns: int) -> list[dict[str, Any]]:
    """How long until the computer takes over each absent seat the game waits for."""
    out = []
    for st in room.seats:
        if st.index in actors and st.computer is None and st.away_since_ns is not None:
            left = room.spec.zombie_after_s - (now_ns - st.away_since_ns) / NS_PER_S
            out.append({"seat": st.index, "kind": "takeover", "in_s": round(max(0.0, left), 1)})
    return out


def join_url(base: str, room_id: str, code: str) -> str:
    """The link a seat's QR code carries; the code rides in the fragment, so no server log
    or Referer header ever holds it."""
    return f"{base.rstrip('/')}/rooms/{room_id}/join#{code}"


@lru_cache(maxsize=256)
def qr_svg(text: str) -> str:
    """A QR code for `text` as inline SVG, drawn by segno."""
    return str(segno.make(text, error="m").svg_inline(scale=5, border=2, dark="#000",
                                                       light="#fff"))


def table_joins(room: Room, base: str) -> list[dict[str, Any]]:
    """The open seats' join links and QR codes, for the table screen only."""
    out = []
    for seat, code in sorted(room.table_codes.items()):
        url = join_url(base, room.room_id, code)
        out.append({"seat": seat, "name": room.seats[seat].name, "url": url, "qr": qr_svg(url)})
    return out

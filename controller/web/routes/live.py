"""The live connection: `/ws` pushes the table's state on every change (push only).

A browser that reconnects simply gets the current state. Upstream it sends only
clock-sync pings and, from the table screen alone, paint reports. The table
screen's state carries the open card's answer (for its verdict line) and the
generated PIN until first used; every other screen gets the public state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from controller.errors import KnappError
from controller.referee.service import TableService
from controller.referee.views import public_state
from controller.web.auth import PinGuard
from controller.web.deps import access_of, service_of

router = APIRouter()

# A paint report this long after the service showed the card is not a paint of
# that card (a display takes one or two frames; the page reports only when it
# heard of the card within 250 ms, too). The referee itself accepts up to 1 s.
PAINT_WITHIN_NS = 250_000_000
MAX_VIEWERS = 200  # WebSockets besides the table screen's; each costs a file descriptor
MAX_MESSAGE = 1024  # pings and paint reports are under 200 bytes


class StateCache:
    """One serialisation of the state per change and per kind of screen, shared by all."""

    def __init__(self, service: TableService, pin: PinGuard) -> None:
        self.service = service
        self.pin = pin
        self._key: tuple[int, bool] | None = None
        self._text: dict[bool, str] = {}

    def state(self, *, table: bool) -> dict[str, Any]:
        """The state for the table screen (`table`) or for everyone else."""
        snap = self.service.snapshot()
        if table:
            snap["pin_hint"] = self.pin.hint
            return snap
        return public_state(snap)

    def message(self, *, table: bool = False) -> str:
        """The current state as a `state` message."""
        key = (self.service.version, self.pin.shown)
        if self._key != key:
            self._text = {}
            self._key = key
        if table not in self._text:
            self._text[table] = json.dumps({"type": "state", "state": self.state(table=table)})
        return self._text[table]


@router.websocket("/ws")
async def live(ws: WebSocket) -> None:
    """Push the state on every change; answer pings and the table screen's paint reports."""
    service = service_of(ws)
    cache: StateCache = ws.app.state.state_cache
    table = access_of(ws).table
    viewers: set[WebSocket] = ws.app.state.viewers
    if not table and len(viewers) >= MAX_VIEWERS:
        await ws.close(code=1013, reason="too many screens are watching; try again later")
        return
    await ws.accept()
    if not table:
        viewers.add(ws)
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def notify() -> None:
        loop.call_soon_threadsafe(wake.set)

    unsubscribe = service.subscribe(notify)

    async def pump() -> None:
        while True:
            await wake.wait()
            wake.clear()
            await ws.send_text(cache.message(table=table))

    pusher = asyncio.create_task(pump())
    try:
        await ws.send_text(cache.message(table=table))
        while True:
            reply = handle_message(service, await ws.receive_text(), table=table)
            if reply is not None:
                await ws.send_text(json.dumps(reply))
    except WebSocketDisconnect:
        pass
    finally:
        viewers.discard(ws)
        unsubscribe()
        pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pusher


def handle_message(service: TableService, text: str, *, table: bool) -> dict[str, Any] | None:
    """Answer one WebSocket message: clock-sync pings and paint reports.

    Args:
        table: the message comes from the table screen (only it may report paints).
    """
    try:
        if len(text) > MAX_MESSAGE:
            raise ValueError(f"a message is at most {MAX_MESSAGE} characters")
        msg = json.loads(text)
        if not isinstance(msg, dict):
            raise ValueError("a message is a JSON object")
        kind = msg.get("type")
        if kind == "ping":
            c = msg.get("c")
            if not isinstance(c, int | float) or isinstance(c, bool) or not math.isfinite(c):
                raise ValueError("ping needs a number c")
            return {"type": "pong", "c": c, "s": service.now_ns()}
        if kind == "painted":
            if not table:
                raise ValueError("only the table screen reports paint times")
            values = [msg.get("round"), msg.get("t_ns"), msg.get("uncertainty_ns")]
            ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
            if len(ints) != 3 or ints[2] < 0:
                raise ValueError("painted needs integer round, t_ns and uncertainty_ns >= 0")
            _check_paint(service, ints[0], ints[1])
            service.painted(ints[0], ints[1], ints[2])
            return None
        raise ValueError(f"unknown message type {str(kind)[:40]!r}")
    except (ValueError, KnappError) as exc:
        return {"type": "error", "error": str(exc)}


def _check_paint(service: TableService, round_index: int, t_ns: int) -> None:
    """Refuse a paint report that is not about the open card, or far from its show time."""
    state = service.snapshot()
    rnd = state["round"]
    if not state["open"] or rnd is None or rnd["index"] != round_index:
        raise ValueError(f"round {round_index} is not the open card")
    if rnd["reveal_measure"] == "shown" and t_ns - rnd["reveal_ns"] > PAINT_WITHIN_NS:
        raise ValueError(f"a paint time more than {PAINT_WITHIN_NS // 1_000_000} ms after "
                         "the card was shown is not a paint of this card")

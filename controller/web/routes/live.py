"""The live connection: `/ws` pushes the table's state on every change (push only).

A browser that reconnects simply gets the current state. Upstream it sends only
clock-sync pings and the table screen's paint reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from controller.errors import KnappError
from controller.referee.service import TableService
from controller.web.auth import PinGuard
from controller.web.deps import service_of

router = APIRouter()


class StateCache:
    """One serialisation of the state per change, shared by every viewer."""

    def __init__(self, service: TableService, pin: PinGuard) -> None:
        self.service = service
        self.pin = pin
        self._key: tuple[int, bool] | None = None
        self._text = ""

    def message(self) -> str:
        """The current state as a `state` message."""
        key = (self.service.version, self.pin.shown)
        if self._key != key:
            snap = self.service.snapshot()
            snap["pin_hint"] = self.pin.hint
            self._text = json.dumps({"type": "state", "state": snap})
            self._key = key
        return self._text


@router.websocket("/ws")
async def live(ws: WebSocket) -> None:
    """Push the state on every change; answer pings and paint reports."""
    service = service_of(ws)
    cache: StateCache = ws.app.state.state_cache
    await ws.accept()
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def notify() -> None:
        loop.call_soon_threadsafe(wake.set)

    unsubscribe = service.subscribe(notify)

    async def pump() -> None:
        while True:
            await wake.wait()
            wake.clear()
            await ws.send_text(cache.message())

    pusher = asyncio.create_task(pump())
    try:
        await ws.send_text(cache.message())
        while True:
            reply = handle_message(service, await ws.receive_text())
            if reply is not None:
                await ws.send_text(json.dumps(reply))
    except WebSocketDisconnect:
        pass
    finally:
        unsubscribe()
        pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pusher


def handle_message(service: TableService, text: str) -> dict[str, Any] | None:
    """Answer one WebSocket message: clock-sync pings and paint reports."""
    try:
        msg = json.loads(text)
        if not isinstance(msg, dict):
            raise ValueError("a message is a JSON object")
        kind = msg.get("type")
        if kind == "ping":
            return {"type": "pong", "c": msg.get("c"), "s": service.now_ns()}
        if kind == "painted":
            values = [msg.get("round"), msg.get("t_ns"), msg.get("uncertainty_ns")]
            ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
            if len(ints) != 3 or ints[2] < 0:
                raise ValueError("painted needs integer round, t_ns and uncertainty_ns >= 0")
            service.painted(ints[0], ints[1], ints[2])
            return None
        raise ValueError(f"unknown message type {kind!r}")
    except (ValueError, KnappError) as exc:
        return {"type": "error", "error": str(exc)}

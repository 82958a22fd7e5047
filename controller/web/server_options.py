"""How `knapp serve` runs uvicorn: timeouts and limits so idle connections cannot starve the table.

A café network is shared: one guest's phone (or script) can open a thousand
TCP connections and send nothing. uvicorn closes a keep-alive connection after
`timeout_keep_alive`, but a connection that never sends its first request
stays open for ever, each holding a file descriptor; at the process's limit
(1024 by default) the table page and the WebSocket handshake hang. So:

- every connection must send its whole request head within `idle_timeout_s`
  (`HeadTimeoutH11`), else it is closed;
- `limit_concurrency` stays below the file-descriptor limit, so the database,
  the camera and the evidence files always have descriptors left (beyond it
  uvicorn answers 503 instead of running out);
- the systemd unit raises the limit (`LimitNOFILE`).
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.kiosk import KioskConfig

RESERVED_FDS = 128  # database, evidence files, camera, pads, logs, the event loop
WS_MAX_BYTES = 64 * 1024  # a WebSocket message (pings and paint reports are tiny)
HEAD_MAX_BYTES = 16 * 1024  # request line and headers


class HeadTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that does not send its request head in time.

    The timer runs from the connection (or the end of the previous response)
    until the request head is in; a WebSocket upgrade or a request being
    served stops it.
    """

    head_timeout_s: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the head timer with the connection."""
        self._head_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm_head()

    def data_received(self, data: bytes) -> None:
        """Start the timer for a new request on a kept-alive connection; stop it once in."""
        if self._head_timer is None and self._waiting_for_head():
            self._arm_head()
        super().data_received(data)
        if not self._waiting_for_head():
            self._disarm_head()

    def handle_websocket_upgrade(self, event: Any) -> None:
        """A WebSocket lives on (its pings keep it honest): no head timer."""
        self._disarm_head()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the timer with the connection."""
        self._disarm_head()
        super().connection_lost(exc)

    def _waiting_for_head(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm_head(self) -> None:
        self._disarm_head()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timeout)

    def _disarm_head(self) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self._waiting_for_head() and not self.transport.is_closing():
            self.transport.close()


def fd_limit() -> int:
    """The process's soft limit on open file descriptors."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def uvicorn_options(kiosk: KioskConfig) -> dict[str, Any]:
    """The uvicorn.Config keywords for the table service (beyond app, host and port)."""
    protocol = type("TableH11", (HeadTimeoutH11,), {"head_timeout_s": kiosk.idle_timeout_s})
    return {
        "http": protocol,
        "timeout_keep_alive": 5,
        "limit_concurrency": max(16, fd_limit() - RESERVED_FDS),
        "ws_max_size": WS_MAX_BYTES,
        "h11_max_incomplete_event_size": HEAD_MAX_BYTES,
        # No proxy in front of the table: a forwarded-for header must not make a
        # phone look like the Pi's own screen (loopback).
        "proxy_headers": False,
        "server_header": False,
    }

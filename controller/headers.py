"""An ASGI middleware that adds fixed headers to every HTTP response.

Shared by the table's web app and the café's fleet dashboard, which may not
import each other (each keeps its own header list). Pure ASGI rather than
Starlette's `BaseHTTPMiddleware`, so streamed responses (server-sent events,
evidence downloads) pass through untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class SecurityHeaders:
    """Add `headers` to every HTTP response."""

    def __init__(self, app: ASGIApp, headers: Sequence[tuple[bytes, bytes]]) -> None:
        self.app = app
        self.headers = list(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, with_headers)

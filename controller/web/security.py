"""The web app's guards around every route: allowed hosts, same-origin, headers, error bodies.

- **Host**: a request must name this table (localhost, the Pi's host name, an
  IP address, or `[kiosk] allowed_hosts`), so a page on another site cannot
  point a DNS name at the Pi and read the table's state (DNS rebinding).
- **Origin**: a browser's WebSocket or change request from another site's page
  is refused.
- **Headers**: a Content-Security-Policy without inline scripts or styles, no
  framing, no MIME sniffing, no Referer.
- **422 bodies** name the field and the reason but never echo the input.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from controller.web.models import field_name, rule_text

MAX_BODY_BYTES = 16 * 1024  # the largest legitimate body (a setup) is under 500 bytes

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def split_host(value: str) -> str:
    """The host name of a `Host` header value (`[::1]:8000` -> `::1`), lower-case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        return value.partition(":")[0]
    return value


def default_hosts(extra: Iterable[str] = ()) -> frozenset[str]:
    """localhost, this machine's host name (and its `.local` mDNS name), and `extra`."""
    name = socket.gethostname().lower()
    names = {"localhost", name, f"{name}.local", *(h.lower() for h in extra)}
    return frozenset(n for n in names if n and n not in ("0.0.0.0", "::"))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class HostGuard:
    """Refuse requests for a host that is not this table, and cross-site browser requests.

    An IP address is always allowed: DNS rebinding needs a name the attacker
    controls, and phones open the Pi by its address. Written here rather than
    with Starlette's TrustedHostMiddleware because that one cannot allow "any
    IP address", and it does not check a WebSocket's Origin.

    Args:
        app: the app inside.
        hosts: the host names allowed besides IP addresses.
    """

    SAFE = frozenset({"GET", "HEAD", "OPTIONS"})

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    def _host_ok(self, host: str) -> bool:
        return host in self.hosts or _is_ip(host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host_header = headers.get("host", "")
        reason = None
        if not self._host_ok(split_host(host_header)):
            reason = "this table does not answer to that host name"
        else:
            origin = headers.get("origin")
            cross = origin is not None and (origin == "null"
                                            or urlsplit(origin).netloc.lower()
                                            != host_header.strip().lower())
            if cross and (scope["type"] == "websocket" or scope["method"] not in self.SAFE):
                reason = "cross-site requests are refused"
        if reason is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": reason})
        else:
            await PlainTextResponse(reason, status_code=400 if "host" in reason else 403)(
                scope, receive, send)


def _safe(text: object, limit: int = 120) -> str:
    """`text` cut short and with anything unprintable escaped (never the raw input)."""
    s = str(text)
    s = s.encode("ascii", "backslashreplace").decode("ascii")
    return s if len(s) <= limit else s[: limit - 1] + "…"


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """A 422 naming each bad field and why, without the input (it may be huge or not text)."""
    assert isinstance(exc, RequestValidationError)
    detail: list[dict[str, Any]] = []
    for err in exc.errors()[:10]:
        loc = [p if isinstance(p, int) else _safe(p, 40) for p in err.get("loc", ())][:6]
        # `error` is the sentence a page shows beside the field ("seats: at least 2 players").
        detail.append({"loc": loc, "msg": _safe(err.get("msg", "")),
                       "type": _safe(err.get("type", ""), 40),
                       "field": field_name(loc), "error": _safe(rule_text(err), 200)})
    return JSONResponse({"error": "; ".join(f"{d['field']}: {d['error']}" for d in detail),
                         "detail": detail}, status_code=422)

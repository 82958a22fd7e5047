"""The web app factory: pages, the JSON API and the live WebSocket, over one table service.

Pages are Jinja2 templates over one base layout (head, navigation); their
scripts are plain ES modules under `static/` (no build step on the Pi). The
routes live in one module per concern under `routes/`. Every change goes out
over `/ws` as a full snapshot (push only). Changes to the table need staff (a
session cookie from the table PIN) or, for its own buttons, the table screen
(`auth.py`); every request passes the host, origin, size and header guards of
`security.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from controller.errors import (
    IllegalEvent,
    KnappError,
    NoSuchMatch,
    StoreError,
    StoreUnavailable,
)
from controller.headers import SecurityHeaders
from controller.referee.service import TableService
from controller.web import security
from controller.web.auth import PinError, PinGuard, PinThrottled, Sessions, TableScreen
from controller.web.routes import (
    games,
    live,
    review,
    rooms,
    rules,
    session,
    setup,
    stats,
    table,
)


def _status(exc: KnappError) -> int:
    if isinstance(exc, PinThrottled):
        return 429
    if isinstance(exc, PinError):
        return 403
    if isinstance(exc, IllegalEvent):
        return 409
    if isinstance(exc, NoSuchMatch):
        return 404
    if isinstance(exc, StoreUnavailable):
        return 503  # the disk refuses writes for now; the table says so and retries
    if isinstance(exc, StoreError):
        # A log that fails its hash chain or does not replay is the table's
        # fault, never the asker's: not a 404 that would read as "no such match".
        return 500
    return 400


async def _knapp_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, KnappError)
    status = _status(exc)
    text = {500: f"the event log failed its check: {exc}",
            503: f"the table cannot record anything right now: {exc}"}.get(status, str(exc))
    headers = ({"Retry-After": str(exc.retry_after_s)} if isinstance(exc, PinThrottled)
               else None)
    return JSONResponse({"error": text}, status_code=status, headers=headers)


def create_app(service: TableService, pin: PinGuard, *, autorun: bool = True,
               hosts: Iterable[str] = ()) -> FastAPI:
    """Build the web app around a table service.

    Args:
        service: the table.
        pin: the table PIN guard (its data directory also keeps the session key and
            the table screen's credential).
        autorun: run the service's tick loop with the app (off in tests that tick by hand).
        hosts: host names to answer to besides localhost, this machine's name, IP
            addresses and `[kiosk] allowed_hosts` (e.g. the `--host` given).
    """

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = asyncio.create_task(service.run(stop)) if autorun else None
        try:
            yield
        finally:
            stop.set()
            if task is not None:
                await task

    # No public docs: the OpenAPI description is at /api/openapi.json for staff
    # (Swagger UI would load scripts from a CDN, against the CSP and offline tables).
    app = FastAPI(title="Knapp table referee", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url=None, max_body_size=security.MAX_BODY_BYTES)
    package = resources.files("controller.web")
    app.state.service = service
    app.state.pin = pin
    app.state.sessions = Sessions(pin)
    app.state.table_screen = TableScreen(pin.data_dir)
    app.state.viewers = set()
    app.state.templates = Jinja2Templates(directory=str(package / "templates"))
    app.state.state_cache = live.StateCache(service, pin)
    app.mount("/static", StaticFiles(directory=str(package / "static")), name="static")
    app.add_exception_handler(KnappError, _knapp_error)
    app.add_exception_handler(RequestValidationError, security.validation_error)
    for module in (table, review, setup, stats, games, rooms, rules, session, live):
        app.include_router(module.router)
    # The last one added runs first: the host and origin check, then the headers.
    app.add_middleware(SecurityHeaders, headers=security.HEADERS)
    app.add_middleware(security.HostGuard,
                       hosts=security.default_hosts([*service.kiosk.allowed_hosts, *hosts]))
    return app

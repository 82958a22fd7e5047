"""The web app factory: pages, the JSON API and the live WebSocket, over one table service.

Pages are Jinja2 templates over one base layout (head, navigation); their
scripts are plain ES modules under `static/` (no build step on the Pi). The
routes live in one module per concern under `routes/`. Every change goes out
over `/ws` as a full snapshot (push only). Changes to the table (setup,
corrections, control) need the table PIN in the `X-Table-Pin` header.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from controller.errors import IllegalEvent, KnappError, NoSuchMatch, StoreError
from controller.referee.service import TableService
from controller.web.auth import PinError, PinGuard
from controller.web.routes import games, live, review, setup, stats, table


def _status(exc: KnappError) -> int:
    if isinstance(exc, PinError):
        return 403
    if isinstance(exc, IllegalEvent):
        return 409
    if isinstance(exc, NoSuchMatch):
        return 404
    if isinstance(exc, StoreError):
        # A log that fails its hash chain or does not replay is the table's
        # fault, never the asker's: not a 404 that would read as "no such match".
        return 500
    return 400


async def _knapp_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, KnappError)
    status = _status(exc)
    text = str(exc) if status != 500 else f"the event log failed its check: {exc}"
    return JSONResponse({"error": text}, status_code=status)


def create_app(service: TableService, pin: PinGuard, *, autorun: bool = True) -> FastAPI:
    """Build the web app around a table service.

    Args:
        service: the table.
        pin: the table PIN guard.
        autorun: run the service's tick loop with the app (off in tests that tick by hand).
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

    app = FastAPI(title="Knapp table referee", lifespan=lifespan, docs_url="/api/docs",
                  redoc_url=None)
    package = resources.files("controller.web")
    app.state.service = service
    app.state.pin = pin
    app.state.templates = Jinja2Templates(directory=str(package / "templates"))
    app.state.state_cache = live.StateCache(service, pin)
    app.mount("/static", StaticFiles(directory=str(package / "static")), name="static")
    app.add_exception_handler(KnappError, _knapp_error)
    for module in (table, review, setup, stats, games, live):
        app.include_router(module.router)
    return app

"""FastAPI app factory: pages, the JSON API and the live WebSocket.

Plain HTML/CSS/JS served by the app (no build step on the Pi). Every change
goes out over `/ws` as a full snapshot (push only); a browser that reconnects
simply gets the current snapshot. Changes to the table (setup, corrections,
control) need the table PIN in the `X-Table-Pin` header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, Header, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from controller.app import PinError, PinGuard, TableService, match_view, stats_view
from controller.errors import IllegalEvent, KnappError, MalformedCard, StoreError
from controller.knapp.cards import Card
from controller.knapp.render import card_svg

PAGES = ("table", "review", "setup", "stats", "games")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SimGrab(_Body):
    """A simulated grab: seat and figure."""

    seat: str = Field(min_length=1, max_length=24)
    figure: Literal["ship", "viking", "child", "chest", "dog"]


class Answer(_Body):
    """The table says who took a figure."""

    seat: str = Field(min_length=1, max_length=24)
    figure: Literal["ship", "viking", "child", "chest", "dog"]


class Control(_Body):
    """pause, resume, abandon or rematch."""

    action: Literal["pause", "resume", "abandon", "rematch"]
    reason: str = Field(default="", max_length=200)


class Correction(_Body):
    """A referee correction."""

    kind: Literal["undo", "award", "void"]
    reason: str = Field(min_length=1, max_length=200)
    round: int | None = Field(default=None, ge=0, le=10_000)
    seat: str | None = Field(default=None, min_length=1, max_length=24)


class Setup(_Body):
    """New players, target and variant; applied with a rematch."""

    seats: list[str] = Field(min_length=2, max_length=8)
    target: int = Field(ge=0, le=60)
    variant: Literal["standard", "unruly"]


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
    static = resources.files("controller.web") / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.exception_handler(KnappError)
    async def knapp_error(_request: Request, exc: KnappError) -> JSONResponse:
        status = 403 if isinstance(exc, PinError) else 409 if isinstance(exc, IllegalEvent) \
            else 404 if isinstance(exc, StoreError) else 400
        return JSONResponse({"error": str(exc)}, status_code=status)

    def page(name: str) -> HTMLResponse:
        return HTMLResponse((static / f"{name}.html").read_text(encoding="utf-8"))

    @app.get("/", response_class=HTMLResponse)
    async def table_page() -> HTMLResponse:
        return page("table")

    for name in PAGES[1:]:
        app.add_api_route(f"/{name}", lambda n=name: page(n), response_class=HTMLResponse,
                          methods=["GET"], name=f"page_{name}")

    def need_pin(value: str | None) -> None:
        pin.check(value)

    @app.get("/api/state")
    async def state() -> dict[str, Any]:
        snap = service.snapshot()
        snap["pin_hint"] = pin.pin if not pin.shown else None
        return snap

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        snap = service.snapshot()
        return {"ok": True, "match_id": snap["match_id"], "phase": snap["phase"],
                "health": snap["health"], "version": snap["version"]}

    @app.get("/api/cards/{text:path}")
    async def card_image(text: str, cb: bool = False) -> Response:
        # A card's text holds a '/', so the whole rest of the path is the card.
        if not text.endswith(".svg"):
            raise HTTPException(404, "card pictures are at /api/cards/CARD.svg")
        try:
            card = Card.parse(text.removesuffix(".svg"))
        except MalformedCard as exc:
            raise HTTPException(400, str(exc)) from exc
        return Response(card_svg(card, colour_blind=cb), media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})

    @app.post("/api/sim/grab")
    async def sim_grab(body: SimGrab) -> dict[str, Any]:
        service.sim_grab(body.seat, body.figure)
        return {"ok": True}

    @app.post("/api/answer")
    async def answer(body: Answer,
                     x_table_pin: str | None = Header(default=None)) -> dict[str, Any]:
        need_pin(x_table_pin)
        service.answer(body.figure, body.seat)
        return {"ok": True}

    @app.post("/api/control")
    async def control(body: Control,
                      x_table_pin: str | None = Header(default=None)) -> dict[str, Any]:
        need_pin(x_table_pin)
        service.control(body.action, body.reason)
        return {"ok": True, "match_id": service.match_id}

    @app.post("/api/setup")
    async def setup(body: Setup, x_table_pin: str | None = Header(default=None)) -> dict[str, Any]:
        need_pin(x_table_pin)
        service.setup(body.seats, body.target, body.variant)
        return {"ok": True, "match_id": service.match_id}

    @app.post("/api/pin")
    async def check_pin(x_table_pin: str | None = Header(default=None)) -> dict[str, Any]:
        need_pin(x_table_pin)
        return {"ok": True}

    @app.get("/api/matches")
    async def matches() -> list[dict[str, Any]]:
        return service.match_list()

    @app.get("/api/matches/{match_id}")
    async def match(match_id: str) -> dict[str, Any]:
        if not service.store.has_match(match_id):
            raise HTTPException(404, f"no match {match_id!r}")
        m = service.match if match_id == service.match_id else service.store.open_match(match_id)
        return match_view(match_id, m)

    @app.post("/api/matches/{match_id}/corrections")
    async def correction(match_id: str, body: Correction,
                         x_table_pin: str | None = Header(default=None)) -> dict[str, Any]:
        need_pin(x_table_pin)
        if not service.store.has_match(match_id):
            raise HTTPException(404, f"no match {match_id!r}")
        service.correct(match_id, body.kind, body.reason, body.round, body.seat)
        return {"ok": True}

    @app.get("/api/calibration")
    async def calibration() -> dict[str, Any]:
        info = service.calibration()
        info["preview_url"] = "/api/calibration/preview.png" if info.get("preview") else None
        info.pop("preview", None)
        return info

    @app.get("/api/calibration/preview.png")
    async def calibration_preview() -> Response:
        preview = service.calibration().get("preview")
        if not preview:
            raise HTTPException(404, "no calibration preview; run `knapp calibrate`")
        return FileResponse(preview, media_type="image/png")

    @app.get("/api/stats")
    async def stats() -> dict[str, Any]:
        return stats_view(service.store)

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return service.games()

    cache: dict[str, Any] = {"key": None, "text": ""}

    def state_message() -> str:
        # One serialisation per change, shared by every viewer.
        key = (service.version, pin.shown)
        if cache["key"] != key:
            snap = service.snapshot()
            snap["pin_hint"] = pin.pin if not pin.shown else None
            cache["text"] = json.dumps({"type": "state", "state": snap})
            cache["key"] = key
        text: str = cache["text"]
        return text

    @app.websocket("/ws")
    async def live(ws: WebSocket) -> None:
        await ws.accept()
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()

        def notify() -> None:
            loop.call_soon_threadsafe(wake.set)

        unsubscribe = service.subscribe(notify)

        async def send_state() -> None:
            await ws.send_text(state_message())

        async def pump() -> None:
            while True:
                await wake.wait()
                wake.clear()
                await send_state()

        pusher = asyncio.create_task(pump())
        try:
            await send_state()
            while True:
                msg = await ws.receive_text()
                reply = handle_message(service, msg)
                if reply is not None:
                    await ws.send_text(json.dumps(reply))
        except WebSocketDisconnect:
            pass
        finally:
            unsubscribe()
            pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pusher

    return app


def handle_message(service: TableService, text: str) -> dict[str, Any] | None:
    """Answer one WebSocket message: clock-sync pings and paint reports."""
    try:
        msg = json.loads(text)
        if not isinstance(msg, dict):
            raise ValueError("a message is a JSON object")
        kind = msg.get("type")
        if kind == "ping":
            return {"type": "pong", "c": msg.get("c"), "s": service.clock.now_ns()}
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

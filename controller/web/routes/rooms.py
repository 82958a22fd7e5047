"""Game rooms on the web: their pages, their JSON API and one WebSocket per device.

The rooms themselves live in `controller.rooms`; this module only carries
them: it parses requests, maps the rooms' errors to status codes, and pumps
`controller.rooms.protocol.Client` messages over the WebSocket. Freeing a
seat held by someone else, or a new table-screen token, needs staff (the
table PIN), as every other change to the table does.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import socket
import threading
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from controller.errors import KnappError
from controller.rooms.bots import levels
from controller.rooms.errors import (
    BadCredential,
    NoSuchRoom,
    RoomError,
    RoomStoreError,
    SeatTaken,
    StaleAction,
)
from controller.rooms.manager import RoomManager
from controller.rooms.protocol import Client
from controller.rooms.replay import replay_view
from controller.web.deps import NeedsPin, page

T = TypeVar("T")
_LOCK = threading.Lock()
MAX_SOCKETS = 200  # room WebSockets at once; each costs a file descriptor


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    manager = rooms_of_app(app)
    stop = asyncio.Event()
    autorun = getattr(app.state, "rooms_autorun", True)
    task = asyncio.create_task(manager.run(stop)) if autorun else None
    try:
        yield
    finally:
        stop.set()
        if task is not None:
            await task


router = APIRouter(lifespan=_lifespan)


def rooms_of_app(app: Any) -> RoomManager:
    """The app's rooms, made beside the table's store on first use."""
    with _LOCK:
        manager: RoomManager | None = getattr(app.state, "rooms", None)
        if manager is None:
            service = app.state.service
            manager = RoomManager.beside(service.store, clock=service.clock)
            app.state.rooms = manager
        return manager


def _sockets(app: Any) -> set[WebSocket]:
    """The app's open room WebSockets (bounded by MAX_SOCKETS)."""
    with _LOCK:
        sockets: set[WebSocket] | None = getattr(app.state, "room_sockets", None)
        if sockets is None:
            sockets = set()
            app.state.room_sockets = sockets
        return sockets


def rooms_of(conn: HTTPConnection) -> RoomManager:
    """The rooms of the app serving `conn`."""
    return rooms_of_app(conn.app)


def _status(exc: KnappError) -> int:
    if isinstance(exc, NoSuchRoom):
        return 404
    if isinstance(exc, BadCredential):
        return 403
    if isinstance(exc, SeatTaken | StaleAction):
        return 409
    if isinstance(exc, RoomStoreError):
        return 500
    return 400


def _call(fn: Callable[[], T]) -> T | JSONResponse:
    """Run a room command; its error becomes a clear 4xx (or 500 for a broken log)."""
    try:
        return fn()
    except (RoomError, RoomStoreError) as exc:
        return JSONResponse({"error": str(exc)}, status_code=_status(exc))


def _lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            addr: str = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") else addr


@functools.lru_cache(maxsize=8)
def _listens_on(addr: str, port: int) -> bool:
    """Does this server answer at `addr`? (`make run` listens on loopback only.)"""
    try:
        with socket.create_connection((addr, port), timeout=0.2):
            return True
    except OSError:
        return False


def base_url(conn: HTTPConnection) -> str:
    """The address a phone reaches this server at: the asker's, unless that is localhost
    and the server also listens on this machine's network address."""
    scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
    host = conn.headers.get("host") or conn.url.netloc
    name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not name:
        name, port = host, ""
    if name in ("localhost", "127.0.0.1", "[::1]"):
        lan = _lan_address()
        number = int(port) if port.isdigit() else (443 if scheme == "https" else 80)
        if lan is not None and _listens_on(lan, number):
            host = f"{lan}:{port}" if port else lan
    return f"{scheme}://{host}"


# -- pages ----------------------------------------------------------------------------------


@router.get("/rooms/{room_id}", response_class=HTMLResponse)
@router.get("/rooms/{room_id}/join", response_class=HTMLResponse)
@router.get("/rooms/{room_id}/table", response_class=HTMLResponse)
@router.get("/rooms/{room_id}/view", response_class=HTMLResponse)
def room_page(request: Request, room_id: str) -> Any:
    """A room's page: a seat's phone, the table screen or a spectator (the script reads which
    from the path)."""
    missing = _call(lambda: rooms_of(request).room(room_id))
    return missing if isinstance(missing, JSONResponse) else page(request, "room", "/games")


@router.get("/rooms/{room_id}/replay", response_class=HTMLResponse)
def replay_page(request: Request, room_id: str) -> Any:
    """A finished room, step by step."""
    missing = _call(lambda: rooms_of(request).room(room_id))
    return missing if isinstance(missing, JSONResponse) else page(request, "room_replay",
                                                                  "/games")


# -- the JSON API ---------------------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Join(_Body):
    """A one-time join code from a seat's QR code, and the person's name."""

    code: str = Field(min_length=1, max_length=64)
    name: str = Field(default="", max_length=64)


class HostToken(_Body):
    """The table screen's token of a room."""

    host: str = Field(min_length=1, max_length=64)


class SeatChoice(_Body):
    """A seat, with the table screen's token where one is needed."""

    seat: int = Field(ge=0, le=64)
    host: str = Field(default="", max_length=64)


@router.get("/api/rooms/games")
def catalogue() -> list[dict[str, Any]]:
    """Every game a room can play: seats, options with their help, computer levels."""
    from controller.games import all_games

    return [{"id": g.id, "name": g.name, "summary": g.summary,
             "seats": {"min": g.min_seats, "max": g.max_seats, "default": g.default_seats},
             "levels": list(levels(g)),
             "options": {n: {"default": o.default, "help": o.help,
                             "choices": None if o.choices is None else list(o.choices)}
                         for n, o in g.options_schema.items()}}
            for g in all_games()]


@router.get("/api/rooms")
def listing(request: Request) -> list[dict[str, Any]]:
    """Rooms, running and finished (public facts only)."""
    return rooms_of(request).listing()


@router.post("/api/rooms")
async def create(request: Request) -> Any:
    """Start a room; the answer carries the table screen's token (shown to nobody else)."""
    try:
        data = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return JSONResponse({"error": f"the body is not JSON: {exc}"}, status_code=400)
    manager = rooms_of(request)

    def make() -> dict[str, Any]:
        room, host = manager.create(data)
        return {"room": room.room_id, "host": host, "table": f"/rooms/{room.room_id}/table"}

    return _call(make)


@router.post("/api/rooms/{room_id}/join")
def join(request: Request, room_id: str, body: Join) -> Any:
    """Take a seat with its one-time code; the credential is made now and shown only here."""
    manager = rooms_of(request)

    def take() -> dict[str, Any]:
        seats, credential = manager.join(room_id, body.code, body.name)
        return {"room": room_id, "seats": seats, "credential": credential}

    return _call(take)


@router.post("/api/rooms/{room_id}/hot-seat")
def hot_seat(request: Request, room_id: str, body: HostToken) -> Any:
    """Put every open person seat on the table screen's device."""
    manager = rooms_of(request)

    def take() -> dict[str, Any]:
        seats, credential = manager.join_hot_seat(room_id, body.host)
        return {"room": room_id, "seats": seats, "credential": credential}

    return _call(take)


@router.post("/api/rooms/{room_id}/host", dependencies=[NeedsPin])
def new_host(request: Request, room_id: str) -> Any:
    """Another table-screen token for a room (staff: the table PIN)."""
    manager = rooms_of(request)
    return _call(lambda: {"room": room_id, "host": manager.add_host(room_id)})


@router.post("/api/rooms/{room_id}/release", dependencies=[NeedsPin])
def release(request: Request, room_id: str, body: SeatChoice) -> Any:
    """Free a held seat so another device can take it (staff: the table PIN)."""
    manager = rooms_of(request)

    def free() -> dict[str, Any]:
        manager.release(room_id, body.seat)
        return {"ok": True}

    return _call(free)


@router.post("/api/rooms/{room_id}/computer")
def computer(request: Request, room_id: str, body: SeatChoice) -> Any:
    """The table screen lets a computer play a seat nobody has joined."""
    manager = rooms_of(request)

    def fill() -> dict[str, Any]:
        manager.computer_plays(room_id, body.host, body.seat)
        return {"ok": True}

    return _call(fill)


@router.post("/api/rooms/{room_id}/close")
def close(request: Request, room_id: str, body: HostToken) -> Any:
    """End a room before its game is over (its table screen)."""
    manager = rooms_of(request)

    def end() -> dict[str, Any]:
        manager.close(room_id, body.host)
        return {"ok": True}

    return _call(end)


@router.get("/api/rooms/{room_id}/replay")
def replay(request: Request, room_id: str, step: int | None = None, seat: int | None = None,
           x_seat_credential: Annotated[str | None, Header()] = None) -> Any:
    """A finished room at `step`: the public view, or a seat's own with its credential."""
    manager = rooms_of(request)
    return _call(lambda: replay_view(manager, room_id, step, x_seat_credential, seat))


# -- the WebSocket --------------------------------------------------------------------------


@router.websocket("/rooms/{room_id}/ws")
async def room_socket(ws: WebSocket, room_id: str) -> None:
    """One device's connection: its own views down, its actions up."""
    manager = rooms_of(ws)
    sockets = _sockets(ws.app)
    if len(sockets) >= MAX_SOCKETS:
        await ws.close(code=1013, reason="too many connections; try again later")
        return
    try:
        client = Client(manager, room_id, base_url=base_url(ws))
    except (RoomError, RoomStoreError):
        await ws.close(code=4404, reason="no such room")
        return
    await ws.accept()
    sockets.add(ws)
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def notify() -> None:  # called from whichever thread changed the room
        loop.call_soon_threadsafe(wake.set)

    unsubscribe = manager.subscribe(room_id, notify)

    async def pump() -> None:
        while not client.closed:
            await wake.wait()
            wake.clear()
            for msg in client.updates():
                await ws.send_text(json.dumps(msg))

    pusher = asyncio.create_task(pump())
    try:
        while not client.closed:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            replies = (client.receive(text) if text is not None else
                       [{"type": "error", "error": "messages are JSON text, not binary"}])
            for msg in replies:
                await ws.send_text(json.dumps(msg))
        if client.closed:
            await ws.close(code=1000)
    except WebSocketDisconnect:
        pass
    finally:
        sockets.discard(ws)
        unsubscribe()
        client.close()
        pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pusher

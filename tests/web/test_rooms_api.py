"""Game rooms through the web app in-process (Starlette's TestClient): the JSON API,
the pages, and the WebSocket protocol, with bad input of every kind refused clearly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from controller.clock import FakeClock
from controller.referee.service import TableService
from controller.rooms.manager import RoomManager
from controller.web.app import create_app
from controller.web.auth import PinGuard
from tests.rooms.helpers import make_manager
from tests.web.conftest import make_service

PIN = "24681357"


@pytest.fixture
def app_parts(tmp_path: Path) -> Iterator[tuple[TestClient, RoomManager, TableService]]:
    service = make_service(tmp_path)
    assert isinstance(service.clock, FakeClock)
    pin = PinGuard(tmp_path, PIN, clock=service.clock)
    app = create_app(service, pin, autorun=False)
    manager = make_manager(service.store.path, service.clock)
    app.state.rooms = manager
    app.state.rooms_autorun = False  # the test plays the computers with tick()
    with TestClient(app) as client:
        yield client, manager, service
    service.store.close()


def new_room(client: TestClient, **extra: Any) -> dict[str, Any]:
    body = {"game": "kobbla", "bot_delay_s": 0,
            "plan": [{"kind": "person"}, {"kind": "bot", "level": "rule"}], **extra}
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def join(client: TestClient, manager: RoomManager, room: str, seat: int = 0) -> str:
    code = manager.room(room).table_codes[seat]
    r = client.post(f"/api/rooms/{room}/join", json={"code": code, "name": "Ada"})
    assert r.status_code == 200, r.text
    cred: str = r.json()["credential"]
    return cred


def test_the_catalogue_has_every_game_with_options_and_levels(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, _, _ = app_parts
    games = {g["id"]: g for g in client.get("/api/rooms/games").json()}
    assert set(games) == {"manni", "pukk", "rommy", "knuff", "kobbla", "koob"}
    assert games["koob"]["levels"] == ["random"]
    assert games["manni"]["levels"] == ["random", "rule", "search"]
    assert games["pukk"]["options"]["honours"]["help"]


def test_pages_render_and_an_unknown_room_is_404(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, _, _ = app_parts
    room = new_room(client)["room"]
    for path in ("", "/join", "/table", "/view", "/replay"):
        r = client.get(f"/rooms/{room}{path}")
        assert r.status_code == 200, path
        assert "<script" in r.text and "/static/room" in r.text
    assert "room_lobby.js" in client.get("/games").text
    assert client.get("/rooms/nope").status_code == 404
    assert client.get("/rooms/nope/table").status_code == 404


@pytest.mark.parametrize(("body", "status", "message"), [
    ({"game": "chess"}, 400, "unknown game"),
    ({"game": "kobbla", "seats": 3}, 400, "takes 2 to 2 seats"),
    ({"game": "kobbla", "plan": "everyone"}, 400, "plan must list 2 seats"),
])
def test_a_bad_room_is_a_clear_400(app_parts: tuple[TestClient, RoomManager, TableService],
                                   body: dict[str, Any], status: int, message: str) -> None:
    client, manager, _ = app_parts
    r = client.post("/api/rooms", json=body)
    assert r.status_code == status and message in r.json()["error"]
    assert manager.store.rooms() == []


def test_bad_bodies_are_refused(app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, manager, _ = app_parts
    room = new_room(client)["room"]
    r = client.post("/api/rooms", content=b"{not json",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/rooms", content=b"x" * (1024 * 1024),
                    headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 413)
    r = client.post(f"/api/rooms/{room}/join", json={"code": "x" * 10, "name": "Eve"})
    assert r.status_code == 403 and "unknown or was already used" in r.json()["error"]
    r = client.post(f"/api/rooms/{room}/join", json={"code": "", "extra": 1})
    assert r.status_code == 422
    assert manager.room(room).seats[0].holder is None


def test_a_taken_seat_is_409_and_a_used_code_403(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, manager, _ = app_parts
    room = new_room(client, plan=[{"kind": "person"}, {"kind": "person"}])["room"]
    code = manager.room(room).table_codes[0]
    assert client.post(f"/api/rooms/{room}/join", json={"code": code}).status_code == 200
    assert client.post(f"/api/rooms/{room}/join", json={"code": code}).status_code == 403
    # A transfer code for a seat that was then freed and retaken is no way in either.
    assert client.post("/api/rooms/nope/join", json={"code": code}).status_code == 404


def test_freeing_a_seat_and_a_new_table_token_need_the_table_pin(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, manager, _ = app_parts
    room = new_room(client)["room"]
    join(client, manager, room)
    r = client.post(f"/api/rooms/{room}/release", json={"seat": 0})
    assert r.status_code == 403 and manager.room(room).seats[0].holder is not None
    r = client.post(f"/api/rooms/{room}/release", json={"seat": 0},
                    headers={"X-Table-Pin": "11112222"})
    assert r.status_code == 403 and manager.room(room).seats[0].holder is not None
    r = client.post(f"/api/rooms/{room}/release", json={"seat": 0}, headers={"X-Table-Pin": PIN})
    assert r.status_code == 200 and manager.room(room).seats[0].holder is None
    assert client.post(f"/api/rooms/{room}/host").status_code == 403
    r = client.post(f"/api/rooms/{room}/host", headers={"X-Table-Pin": PIN})
    assert r.status_code == 200 and manager.room(room).is_host(r.json()["host"])


def test_a_whole_game_over_the_websocket(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, manager, _ = app_parts
    made = new_room(client)
    room = made["room"]
    with client.websocket_connect(f"/rooms/{room}/ws") as table:
        table.send_text(json.dumps({"type": "hello", "host": made["host"]}))
        assert table.receive_json()["role"] == "table"
        first = table.receive_json()
        assert first["joins"][0]["url"].startswith("http") and "<svg" in first["joins"][0]["qr"]
    cred = join(client, manager, room)
    with client.websocket_connect(f"/rooms/{room}/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "credential": cred}))
        assert ws.receive_json() == {"type": "welcome", "role": "seat", "seats": [0],
                                     "room": room}
        view = ws.receive_json()
        for i in range(500):
            if manager.room(room).over:
                break
            manager.tick()
            if view["legal"]:
                ws.send_text(json.dumps({"type": "act", "seat": 0, "action": view["legal"][0],
                                         "id": f"w{i}", "step": view["step"]}))
                assert ws.receive_json()["type"] == "ack"
            view = ws.receive_json()
            while view["step"] != manager.room(room).step:
                view = ws.receive_json()
        assert manager.room(room).finished
    r = client.get(f"/api/rooms/{room}/replay", params={"step": 3})
    assert r.status_code == 200 and r.json()["at"] == 3 and r.json()["seat"] is None
    r = client.get(f"/api/rooms/{room}/replay", headers={"X-Seat-Credential": cred})
    assert r.json()["seat"] == 0 and r.json()["at"] == r.json()["steps"]
    r = client.get(f"/api/rooms/{room}/replay", headers={"X-Seat-Credential": "Z" * 32})
    assert r.status_code == 403
    assert client.get(f"/api/rooms/{room}/replay", params={"step": 10**6}).status_code == 400
    listing = client.get("/api/rooms").json()
    assert listing[0]["room"] == room and listing[0]["finished"]


def test_bad_messages_over_the_websocket_change_nothing(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, manager, _ = app_parts
    room = new_room(client)["room"]
    cred = join(client, manager, room)
    records = len(manager.store.records(room))
    with client.websocket_connect(f"/rooms/{room}/ws") as ws:
        ws.send_text(json.dumps({"type": "act", "action": "place:a1"}))
        assert ws.receive_json() == {"type": "error", "error": "say hello first"}
        ws.send_text("x" * (1024 * 1024))
        assert "too large" in ws.receive_json()["error"]
        ws.send_text("{nope")
        assert "not JSON" in ws.receive_json()["error"]
        ws.send_bytes(b"\x00\x01")
        assert "not binary" in ws.receive_json()["error"]
        ws.send_text(json.dumps({"type": "hello", "credential": cred}))
        ws.receive_json()
        view = ws.receive_json()
        ws.send_text(json.dumps({"type": "act", "seat": 0, "action": "place:z9", "id": "b1",
                                 "step": view["step"]}))
        refused = ws.receive_json()
        assert refused["type"] == "refused" and "(rule: " in refused["reason"]
        ws.send_text(json.dumps({"type": "act", "seat": 0, "action": view["legal"][0],
                                 "id": "b2", "step": view["step"] - 1}))
        stale = ws.receive_json()
        assert stale["type"] == "refused" and stale["stale"] is True
        assert ws.receive_json()["step"] == view["step"]  # the current view comes with it
        ws.send_text(json.dumps({"type": "act", "seat": 1, "action": "place:a1", "id": "b3",
                                 "step": view["step"]}))
        assert ws.receive_json()["type"] == "refused"
        ws.send_text(json.dumps({"type": "launch"}))
        assert "unknown message type" in ws.receive_json()["error"]
    # Nothing was recorded or played (connecting only counted the phone as present).
    assert manager.room(room).step == 0 and manager.room(room).session.log == []
    assert len(manager.store.records(room)) == records


def test_a_forged_credential_is_unbound(
        app_parts: tuple[TestClient, RoomManager, TableService]) -> None:
    client, _, _ = app_parts
    room = new_room(client)["room"]
    with client.websocket_connect(f"/rooms/{room}/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "credential": "F" * 32}))
        assert ws.receive_json()["type"] == "unbound"
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/rooms/nope/ws"):
        pass
    assert closed.value.code == 4404


def test_room_sockets_are_bounded(app_parts: tuple[TestClient, RoomManager, TableService],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    client, _, _ = app_parts
    room = new_room(client)["room"]
    monkeypatch.setattr("controller.web.routes.rooms.MAX_SOCKETS", 1)
    with client.websocket_connect(f"/rooms/{room}/ws") as first:
        first.send_text(json.dumps({"type": "hello"}))
        assert first.receive_json()["type"] == "welcome"
        with pytest.raises(WebSocketDisconnect) as refused, \
                client.websocket_connect(f"/rooms/{room}/ws"):
            pass
        assert refused.value.code == 1013
    with client.websocket_connect(f"/rooms/{room}/ws") as again:  # the first one has gone
        again.send_text(json.dumps({"type": "hello"}))
        assert again.receive_json()["type"] == "welcome"

"""`kill -9` of the real service mid-game: every room comes back with the same seats,
the same credentials and the same turn."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from tests.web.server import Server

pytestmark = pytest.mark.slow


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
        return data


def hello(stack: ExitStack, srv: Server, room: str,
          **who: str) -> tuple[ClientConnection, dict[str, Any], dict[str, Any]]:
    ws = stack.enter_context(connect(srv.url.replace("http", "ws") + f"/rooms/{room}/ws",
                                     origin=srv.url))  # type: ignore[arg-type]
    ws.send(json.dumps({"type": "hello", **who}))
    welcome = json.loads(ws.recv(timeout=30))
    return ws, welcome, view_of(ws)


def settle(sockets: list[ClientConnection], views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Both phones' views once they show the same step and the game waits for a person (or
    is over): reading on, never waiting for a quiet spell."""
    views = list(views)
    while True:
        steps = [v["step"] for v in views]
        if len(set(steps)) == 1 and (any(v["legal"] for v in views) or views[0]["over"]):
            return views
        behind = steps.index(min(steps))  # the computer is to move: any phone will hear it
        views[behind] = view_of(sockets[behind])


def view_of(ws: ClientConnection) -> dict[str, Any]:
    while True:
        msg = json.loads(ws.recv(timeout=30))
        if msg["type"] == "view":
            return msg


def test_kill_9_mid_game_resumes_seats_credentials_and_turn(tmp_path: Path) -> None:
    data = tmp_path / "data"
    srv = Server(data).start()
    stack = ExitStack()
    try:
        made = post(srv.url + "/api/rooms", {
            "game": "pukk", "seats": 3, "bot_delay_s": 0,
            "plan": [{"kind": "person", "name": "Ada"}, {"kind": "person", "name": "Ben"},
                     {"kind": "bot", "level": "rule"}]})
        room = made["room"]
        table, _, first = hello(stack, srv, room, host=made["host"])
        codes = [j["url"].split("#", 1)[1] for j in first["joins"]]
        table.close()
        creds = [post(srv.url + f"/api/rooms/{room}/join", {"code": c, "name": n})["credential"]
                 for c, n in zip(codes, ("Ada", "Ben"), strict=True)]
        phones = [hello(stack, srv, room, credential=c) for c in creds]
        views = [p[2] for p in phones]
        for i in range(6):
            views = settle([p[0] for p in phones], views)
            on_turn = [s for s in (0, 1) if views[s]["legal"]]
            if not on_turn:
                break  # the game is over
            seat = on_turn[0]
            ws = phones[seat][0]
            ws.send(json.dumps({"type": "act", "seat": seat, "id": f"k{i}",
                                "action": views[seat]["legal"][0], "step": views[seat]["step"]}))
            # A view pushed before the action was taken (a computer's move, a
            # presence change) may still be on its way: the ack follows it.
            reply = json.loads(ws.recv(timeout=30))
            while reply["type"] == "view":
                reply = json.loads(ws.recv(timeout=30))
            assert reply["type"] == "ack", reply
            views[seat] = view_of(ws)
        # Let the computer finish its moves: then the game waits for a person (or is over).
        views = settle([p[0] for p in phones], views)
        for ws, _, _ in phones:
            ws.close()
        srv.kill(signal.SIGKILL)

        srv = Server(data).start()  # the same data directory, a new process
        for seat, cred in enumerate(creds):
            ws, welcome, view = hello(stack, srv, room, credential=cred)
            assert welcome["role"] == "seat" and welcome["seats"] == [seat]
            assert view["seats"][seat]["name"] == ("Ada", "Ben")[seat]
            # The same turn: the same step, the same hand, the same legal moves.
            for key in ("step", "observation", "legal", "actors"):
                assert view[key] == views[seat][key], key
            ws.close()
        table, welcome, _ = hello(stack, srv, room, host=made["host"])
        assert welcome["role"] == "table"
        table.close()
        # The used join codes died with the old process; a forged credential is refused.
        r = urllib.request.Request(srv.url + f"/api/rooms/{room}/join",
                                   data=json.dumps({"code": codes[0]}).encode(),
                                   headers={"Content-Type": "application/json"}, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(r, timeout=10)
        assert refused.value.code == 403
        refused.value.close()
    finally:
        stack.close()
        srv.kill()

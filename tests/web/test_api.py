"""The web app in process: pages, JSON API, PIN, validation and the live WebSocket."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from controller.knapp.match import Phase
from controller.referee.service import TableService
from tests.web.conftest import PIN, run_until

GOOD = {"X-Table-Pin": PIN}


@pytest.mark.parametrize("path", ["/", "/review", "/setup", "/stats", "/games"])
def test_pages_are_served(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.text.startswith("<!doctype html>")
    assert "/static/common.css" in r.text


def test_static_and_card_images(client: TestClient) -> None:
    assert client.get("/static/table.js").status_code == 200
    r = client.get("/api/cards/ship:yellow/red+green.svg".replace("/red", "%2Fred"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in r.text
    bad = client.get("/api/cards/boat:red%2Fblue+white.svg")
    assert bad.status_code == 400 and "unknown figure 'boat'" in bad.json()["detail"]


def test_state_is_public_and_has_no_pin(client: TestClient, service: TableService) -> None:
    s = client.get("/api/state").json()
    assert s["seats"] == ["Ada", "Ben", "Cleo"] and s["phase"] == "ready"
    assert "pin_hint" not in s  # only the table screen's own state has it
    assert PIN not in json.dumps(s)


def test_changes_need_the_pin(client: TestClient, service: TableService) -> None:
    for headers in ({}, {"X-Table-Pin": "0000"}):
        r = client.post("/api/control", json={"action": "pause"}, headers=headers)
        assert r.status_code == 403
    assert not service.paused
    r = client.post("/api/control", json={"action": "pause"}, headers=GOOD)
    assert r.status_code == 200 and service.paused


def test_wrong_pins_make_this_client_wait(client: TestClient, service: TableService) -> None:
    for _ in range(4):
        assert client.post("/api/pin", headers={"X-Table-Pin": "1"}).status_code == 403
    r = client.post("/api/pin", headers=GOOD)
    assert r.status_code == 429 and "too many wrong PINs" in r.json()["error"]
    assert r.headers["Retry-After"] == "1"
    service.clock.advance(1)  # type: ignore[attr-defined]
    assert client.post("/api/pin", headers=GOOD).status_code == 200


@pytest.mark.parametrize(("path", "body", "fragment"), [
    ("/api/sim/grab", {"seat": "Ada"}, "figure"),
    ("/api/sim/grab", {"seat": "Ada", "figure": "cat"}, "figure"),
    ("/api/sim/grab", {"seat": "Ada", "figure": "dog", "extra": 1}, "extra"),
    ("/api/control", {"action": "explode"}, "action"),
    ("/api/setup", {"seats": ["A"], "target": 5, "variant": "standard"}, "seats"),
    ("/api/setup", {"seats": ["A", "B"], "target": 99, "variant": "standard"}, "target"),
])
def test_malformed_requests_get_422_and_change_nothing(client: TestClient, service: TableService,
                                                       path: str, body: dict[str, object],
                                                       fragment: str) -> None:
    before = service.match.to_json()
    r = client.post(path, json=body, headers=GOOD)
    assert r.status_code == 422 and fragment in json.dumps(r.json())
    assert service.match.to_json() == before


def test_illegal_moves_get_409_with_the_reason(client: TestClient, service: TableService) -> None:
    r = client.post("/api/sim/grab", json={"seat": "Ada", "figure": "dog"})
    assert r.status_code == 409 and "no card is open" in r.json()["error"]
    r = client.post("/api/sim/grab", json={"seat": "Zed", "figure": "dog"})
    assert r.status_code == 409 and "unknown seat" in r.json()["error"]
    r = client.post(f"/api/matches/{service.match_id}/corrections",
                    json={"kind": "undo", "reason": "x"}, headers=GOOD)
    assert r.status_code == 409 and "no verdict to take back" in r.json()["error"]
    assert client.get("/api/matches/nope").status_code == 404


def test_a_round_through_the_api_and_the_review(client: TestClient, service: TableService) -> None:
    run_until(service, lambda s: s.match.phase is Phase.OPEN)
    service.clock.advance(0.9)  # type: ignore[attr-defined]
    answer = service.match.current.answer.value  # type: ignore[union-attr]
    assert client.post("/api/sim/grab", json={"seat": "Cleo", "figure": answer}).status_code == 200
    run_until(service, lambda s: s.match.phase is Phase.CLEARING)
    review = client.get(f"/api/matches/{service.match_id}").json()
    rnd = review["rounds"][0]
    assert rnd["winner"] == "Cleo" and rnd["claims"][0]["reaction_ms"] == pytest.approx(900)
    kinds = [e["kind"] for e in review["timeline"]]
    assert kinds[:4] == ["started", "revealed", "grabbed", "settled"]
    r = client.post(f"/api/matches/{service.match_id}/corrections",
                    json={"kind": "award", "round": 0, "seat": "Ada", "reason": "video"},
                    headers=GOOD)
    assert r.status_code == 200
    assert client.get("/api/state").json()["scores"] == {"Ada": 1, "Ben": 0, "Cleo": 0}
    listing = client.get("/api/matches").json()
    assert listing[0]["match_id"] == service.match_id and listing[0]["live"]
    stats = client.get("/api/stats").json()["players"]
    assert stats["Cleo"]["true_colour"]["n"] + stats["Cleo"]["wrong_colour"]["n"] == 1


def test_websocket_pushes_state_and_answers_pings(client: TestClient,
                                                 service: TableService) -> None:
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["state"]["phase"] == "ready"
        run_until(service, lambda s: s.match.phase is Phase.OPEN)
        pushed = ws.receive_json()
        while pushed["state"]["phase"] != "open":
            pushed = ws.receive_json()
        assert pushed["state"]["round"]["index"] == 0
        ws.send_text(json.dumps({"type": "ping", "c": 12.5}))
        pong = ws.receive_json()
        while pong["type"] != "pong":
            pong = ws.receive_json()
        assert pong["c"] == 12.5 and pong["s"] == service.clock.now_ns()
        ws.send_text("not json")
        err = ws.receive_json()
        while err["type"] != "error":
            err = ws.receive_json()
        assert "Expecting value" in err["error"]
        reveal = service.match.current.reveal_ns  # type: ignore[union-attr]
        ws.send_text(json.dumps({"type": "painted", "round": 0, "t_ns": reveal + 16_000_000,
                                 "uncertainty_ns": 9_000_000}))
        err = ws.receive_json()
        while err["type"] != "error":
            err = ws.receive_json()
        # Not the table screen (tests/web/test_security.py has the table screen's paints).
        assert "only the table screen" in err["error"]
        assert service.match.current.reveal_ns == reveal  # type: ignore[union-attr]


def test_games_listed_as_ready(client: TestClient) -> None:
    games = client.get("/api/games").json()
    assert [g["id"] for g in games] == ["manni", "pukk", "rommy", "knuff", "kobbla", "koob"]
    # Every one of them is playable in a room now.
    assert {g["status"] for g in games} == {"ready"}


def test_calibration_status_and_preview(tmp_path: object) -> None:
    from pathlib import Path

    from fastapi.testclient import TestClient

    from controller.clock import FakeClock
    from controller.config import parse_config
    from controller.referee.service import TableService
    from controller.store import EventStore
    from controller.web.app import create_app
    from controller.web.auth import PinGuard

    root = Path(str(tmp_path))
    cal = root / "table.calibration.json"
    cfg = parse_config({"kiosk": {"data_dir": str(root), "allowed_hosts": ["testserver"]},
                        "camera": {"calibration": str(cal)}})
    svc = TableService(cfg, store=EventStore(root / "k.db"), clock=FakeClock(1))
    app = create_app(svc, PinGuard(root, "482913", clock=svc.clock), autorun=False)
    with TestClient(app) as c, TestClient(app) as phone:
        assert c.post("/api/session", json={"pin": "482913"}).status_code == 200
        info = c.get("/api/calibration").json()
        assert info["configured"] and not info["exists"] and info["preview_url"] is None
        assert info["file"] == str(cal)  # staff see where it is
        assert c.get("/api/calibration/preview.png").status_code == 404
        cal.write_text("{}")
        png = b"\x89PNG\r\n\x1a\n" + b"0" * 100
        cal.with_suffix(".preview.png").write_bytes(png)
        info = c.get("/api/calibration").json()
        assert info["detail"] == "calibrated"
        r = c.get(info["preview_url"])
        assert r.status_code == 200 and r.content == png
        assert r.headers["cache-control"] == "no-store"
        # A phone learns the status, but neither the path nor the picture of the guests.
        seen = phone.get("/api/calibration").json()
        assert seen["detail"] == "calibrated" and seen["file"] is None
        assert seen["preview_url"] is None and str(root) not in json.dumps(seen)
        assert phone.get("/api/calibration/preview.png").status_code == 403


def test_health_is_ok_only_while_the_referee_loop_ticks(client: TestClient,
                                                        service: TableService) -> None:
    # autorun is off in this fixture: the loop has not stepped yet, so it is not alive.
    report = client.get("/api/health").json()
    assert report["ok"] is False
    assert set(report["health"]) == {"pads", "camera", "disk", "referee"}
    service.step()  # one pass of the referee loop, as `run` makes every 5 ms
    assert client.get("/api/health").json()["ok"] is True


def test_a_disk_that_refuses_writes_is_503_not_a_broken_log() -> None:
    from controller.errors import StoreError, StoreUnavailable
    from controller.web.app import _status

    assert _status(StoreUnavailable("disk full")) == 503
    assert _status(StoreError("record 3 was altered")) == 500

"""The café staff pages: staff login, slowed wrong passwords, the table app's Host guard."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.cli.fleet import cafe_app
from controller.clock import FakeClock
from controller.errors import ConfigError
from controller.fleet.cafe import CafeService
from controller.fleet.config import check_password, hash_password, parse_cafe
from controller.fleet.local import LocalMosquitto
from controller.fleet.web import SESSION_S, STAFF_COOKIE
from tests.fleet.helpers import STAFF_HASH, STAFF_PASSWORD, cafe_config

PAGES = ("/", "/leaderboard", "/league", "/games")
DATA = ("/api/status", "/api/leaderboard", "/fragment/tables")


class Wall:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def client_of(cafe: CafeService, clock: FakeClock | None = None,
              wall: Wall | None = None) -> TestClient:
    return TestClient(cafe_app(cafe, clock=clock or FakeClock(), wall=wall or Wall()),
                      base_url="http://localhost")


def login(client: TestClient, password: str) -> int:
    return client.post("/login", data={"password": password}, follow_redirects=False).status_code


def test_every_page_and_answer_needs_a_staff_login(cafe: CafeService) -> None:
    client = client_of(cafe)
    for path in PAGES:
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/login", path
    for path in DATA:
        assert client.get(path).status_code == 401, path
    assert client.get("/static/fleet.css").status_code == 200  # the look is no secret
    assert "Staff login" in client.get("/login").text
    assert login(client, STAFF_PASSWORD) == 303
    cookie = client.cookies.get(STAFF_COOKIE)
    assert cookie
    for path in (*PAGES, *DATA):
        assert client.get(path).status_code == 200, path
    assert client.post("/logout", follow_redirects=False).status_code == 303
    assert client.get("/api/status").status_code == 401
    # A forged or altered cookie is no session.
    client.cookies.set(STAFF_COOKIE, cookie[:-1] + ("0" if cookie[-1] != "0" else "1"))
    assert client.get("/api/status").status_code == 401


def test_a_session_ends_after_a_day_and_with_a_new_password(
        mq: LocalMosquitto, dsn: str, tmp_path: Path) -> None:
    wall = Wall()
    cafe = CafeService(cafe_config(mq, dsn, tmp_path / "cafe"))
    client = client_of(cafe, wall=wall)
    assert login(client, STAFF_PASSWORD) == 303
    wall.now += SESSION_S - 1
    assert client.get("/api/status").status_code == 200
    wall.now += 2
    assert client.get("/api/status").status_code == 401
    wall.now -= 2
    other = CafeService(cafe_config(mq, dsn, tmp_path / "other",
                                    staff_password=hash_password("another one!")))
    moved = client_of(other, wall=wall)
    moved.cookies.set(STAFF_COOKIE, client.cookies.get(STAFF_COOKIE) or "")
    assert moved.get("/api/status").status_code == 401


def test_wrong_passwords_are_slowed_down_per_client(cafe: CafeService) -> None:
    clock = FakeClock()
    client = client_of(cafe, clock=clock)
    for _ in range(3):  # typing slips cost nothing
        assert login(client, "not it") == 401
    assert login(client, "not it") == 401  # the fourth starts the wait
    r = client.post("/login", data={"password": STAFF_PASSWORD})
    assert r.status_code == 429 and r.headers["retry-after"] == "1"
    assert "Too many wrong passwords" in r.text
    clock.advance(1.0)
    assert login(client, STAFF_PASSWORD) == 303


def test_the_table_app_s_host_and_origin_guard_stands_in_front(cafe: CafeService) -> None:
    client = client_of(cafe)
    assert login(client, STAFF_PASSWORD) == 303
    r = client.get("/api/status", headers={"host": "evil.example"})
    assert r.status_code == 400 and "host name" in r.text  # DNS rebinding
    assert client.get("/api/status", headers={"host": "127.0.0.1:8080"}).status_code == 200
    r = client.post("/login", data={"password": STAFF_PASSWORD},
                    headers={"origin": "http://evil.example"}, follow_redirects=False)
    assert r.status_code == 403  # another site's page cannot log a staff browser in
    r = client.get("/", headers={"origin": "http://evil.example"})
    assert r.status_code == 200  # a plain read is no change
    headers = client.get("/").headers
    assert "form-action 'self'" in headers["content-security-policy"]


def test_a_cafe_file_keeps_only_the_password_s_hash(mq: LocalMosquitto, dsn: str,
                                                    tmp_path: Path) -> None:
    assert check_password(STAFF_HASH, STAFF_PASSWORD)
    assert not check_password(STAFF_HASH, STAFF_PASSWORD + "x")
    assert STAFF_PASSWORD not in STAFF_HASH
    broker = {"url": "mqtt://h", "password_file": "p"}
    with pytest.raises(ConfigError, match="never the password itself"):
        parse_cafe({"cafe": {"database": "x", "staff_password": STAFF_PASSWORD},
                    "broker": broker})
    with pytest.raises(ValueError, match="at least 8"):
        hash_password("short")
    # No password set: the login says how to set one, and nobody gets in.
    cafe = CafeService(cafe_config(mq, dsn, tmp_path / "cafe", staff_password=""))
    client = client_of(cafe)
    assert "knapp fleet password" in client.get("/login").text
    assert login(client, "anything at all") == 403
    assert client.get("/api/status").status_code == 401

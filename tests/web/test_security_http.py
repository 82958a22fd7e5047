"""Hosts, origins, headers and privacy: DNS rebinding, cross-site WebSockets and
changes, framing, inline scripts, the calibration picture and the API docs."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from controller.clock import FakeClock
from controller.config import parse_config
from controller.referee.service import TableService
from controller.store import EventStore
from controller.web.app import create_app
from controller.web.auth import PinGuard
from tests.web.roles import PHONE, Table, make_table

PAGES = ["/", "/review", "/setup", "/stats", "/games"]


@pytest.fixture
def t(tmp_path: Path) -> Iterator[Table]:
    table = make_table(tmp_path)
    yield table
    table.service.store.close()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "attacker.lan",
                                  "localhost.evil.example", ""])
def test_a_request_for_another_host_name_is_refused(t: Table, host: str) -> None:
    r = t.phone.get("/api/state", headers={"Host": host})
    assert r.status_code == 400 and "host" in r.text
    with pytest.raises(WebSocketDisconnect), \
            t.phone.websocket_connect("/ws", headers={"Host": host}) as ws:
        ws.receive_json()


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:8000", "192.168.1.20:8000",
                                  "[::1]:8000", "[fe80::1]", "LOCALHOST"])
def test_localhost_and_ip_addresses_are_answered(t: Table, host: str) -> None:
    assert t.phone.get("/api/state", headers={"Host": host}).status_code == 200


def test_allowed_hosts_from_the_configuration(tmp_path: Path) -> None:
    cfg = parse_config({"kiosk": {"data_dir": str(tmp_path), "allowed_hosts": ["table.cafe"]}})
    svc = TableService(cfg, store=EventStore(tmp_path / "k.db"), clock=FakeClock(1))
    c = TestClient(create_app(svc, PinGuard(tmp_path, "482913", clock=svc.clock),
                              autorun=False, hosts=["knapp-pi"]), base_url="http://table.cafe")
    assert c.get("/api/health").status_code == 200
    assert c.get("/api/health", headers={"Host": "knapp-pi:8000"}).status_code == 200
    assert c.get("/api/health", headers={"Host": "other.cafe"}).status_code == 400
    svc.store.close()


def test_a_websocket_from_another_sites_page_is_refused(t: Table) -> None:
    with pytest.raises(WebSocketDisconnect) as exc, t.phone.websocket_connect(
            "/ws", headers={"Origin": "http://evil.example"}) as ws:
        ws.receive_json()
    assert exc.value.code == 1008
    with t.phone.websocket_connect("/ws", headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"
    with t.phone.websocket_connect("/ws") as ws:  # no Origin: not a browser, no rebinding
        assert ws.receive_json()["type"] == "state"


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://testserver.evil"])
def test_a_change_from_another_sites_page_is_refused_even_for_staff(t: Table,
                                                                   origin: str) -> None:
    r = t.staff.post("/api/control", json={"action": "pause"}, headers={"Origin": origin})
    assert r.status_code == 403 and not t.service.paused
    r = t.staff.post("/api/control", json={"action": "pause"},
                     headers={"Origin": "http://testserver"})
    assert r.status_code == 200 and t.service.paused


@pytest.mark.parametrize("path", [*PAGES, "/api/state", "/static/table.js",
                                  "/api/cards/ship:yellow%2Fred+green.svg"])
def test_security_headers_on_every_answer(t: Table, path: str) -> None:
    r = t.phone.get(path)
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp and "style-src 'self'" in csp
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", PAGES)
def test_pages_have_no_inline_script_or_style(t: Table, path: str) -> None:
    html = t.phone.get(path).text
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert scripts and all('src="/static/' in s for s in scripts)
    assert all(not body.strip() for body in re.findall(r"<script\b[^>]*>(.*?)</script>", html,
                                                       re.S))  # nothing between the tags
    assert "<style" not in html and " style=" not in html and "onclick=" not in html
    for src in re.findall(r'src="(/static/[^"]+)"', html):
        js = t.phone.get(src).text
        assert "style=" not in js and "prompt(" not in js and "localStorage.setItem(\"knapp-pin" \
            not in js, src


def test_api_docs_are_not_public(t: Table) -> None:
    for path in ("/api/docs", "/docs", "/openapi.json", "/redoc"):
        assert t.phone.get(path).status_code == 404
    assert t.phone.get("/api/openapi.json").status_code == 403
    spec = t.staff.get("/api/openapi.json").json()
    assert "/api/setup" in spec["paths"]


def test_nothing_but_staff_sees_the_data_directory(t: Table) -> None:
    root = str(t.pin.data_dir)
    for path in ["/api/state", "/api/calibration", "/api/health", "/api/matches",
                 f"/api/matches/{t.service.match_id}", "/api/stats", "/api/session", *PAGES]:
        assert root not in t.phone.get(path).text, path


def test_the_table_screens_cookie_is_only_for_loopback_even_with_forwarding_headers(
        t: Table) -> None:
    r = t.client(PHONE).get("/", headers={"X-Forwarded-For": "127.0.0.1",
                                          "X-Real-IP": "127.0.0.1"})
    assert "knapp_table" not in r.headers.get("set-cookie", "")


def test_the_pi_unit_raises_the_file_limit_well_above_the_reserve() -> None:
    from controller.web.server_options import RESERVED_FDS

    root = Path(__file__).resolve().parents[2]
    unit = (root / "hardware/pi/knapp.service").read_text()
    limits = [int(line.split("=", 1)[1]) for line in unit.splitlines()
              if line.startswith("LimitNOFILE=")]
    assert limits and limits[0] >= 4096 > 16 * RESERVED_FDS
    # The template listens for phones, so it must not ship a PIN everyone knows.
    cfg = parse_config(tomllib.loads((root / "hardware/pi/table.toml").read_text()))
    assert cfg.kiosk.host == "0.0.0.0" and cfg.kiosk.pin == ""


@pytest.mark.parametrize(("kiosk", "key"), [
    ({"allowed_hosts": ["http://table.cafe"]}, "allowed_hosts[0]"),
    ({"allowed_hosts": ["table.cafe:8000"]}, "allowed_hosts[0]"),
    ({"allowed_hosts": [""]}, "allowed_hosts[0]"),
    ({"allowed_hosts": "table.cafe"}, "allowed_hosts"),
    ({"idle_timeout_s": 0}, "idle_timeout_s"),
])
def test_kiosk_security_settings_are_checked(kiosk: dict[str, object], key: str) -> None:
    from controller.errors import ConfigError

    with pytest.raises(ConfigError, match=re.escape(f"kiosk.{key}")):
        parse_config({"kiosk": kiosk})

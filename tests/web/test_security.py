"""Roles and the PIN: who may change the table, and what each screen sees.

The table screen (the Pi's own browser), staff (a session cookie from the
PIN) and everyone else (phones: read only). Every guarded route is checked
with its guard in place; removing any one guard fails a test here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.config import parse_config
from controller.errors import ConfigError
from controller.knapp.match import Phase
from controller.web.auth import PIN_DIGITS, PinGuard, Sessions, Throttle, client_key
from tests.web.conftest import run_until
from tests.web.roles import PI, PIN, STAFF, Table, make_table


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = make_table(tmp_path)
    yield table
    table.service.store.close()


def open_card(t: Table) -> None:
    run_until(t.service, lambda s: s.match.phase is Phase.OPEN)


# -- the PIN is never given away ------------------------------------------------------


def test_a_generated_pin_reaches_no_client_but_the_table_screen(tmp_path: Path) -> None:
    t = make_table(tmp_path, pin="", login=False)
    pin = t.pin.pin
    assert len(pin) == PIN_DIGITS and pin.isdigit()
    for path in ("/", "/setup", "/review", "/stats", "/games", "/api/state", "/api/session",
                 "/api/health", "/api/calibration", "/api/matches"):
        r = t.phone.get(path)
        assert r.status_code == 200 and pin not in r.text, path
    assert "pin_hint" not in t.phone.get("/api/state").json()
    with t.phone.websocket_connect("/ws") as ws:
        first = ws.receive_text()
        assert pin not in first and "pin_hint" not in json.loads(first)["state"]
    # The Pi's own screen shows it until it is first used.
    assert t.screen.get("/api/state").json()["pin_hint"] == pin
    with t.screen.websocket_connect("/ws") as ws:
        assert ws.receive_json()["state"]["pin_hint"] == pin
    t.service.store.close()


def test_the_pin_stops_being_shown_once_used_also_after_a_restart(tmp_path: Path) -> None:
    t = make_table(tmp_path, pin="", login=False)
    assert t.staff.post("/api/session", json={"pin": t.pin.pin}).status_code == 200
    assert t.screen.get("/api/state").json()["pin_hint"] is None
    again = PinGuard(tmp_path, "", clock=t.clock)
    assert again.pin == t.pin.pin and again.hint is None
    t.service.store.close()


def test_a_short_generated_pin_from_an_older_version_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "pin").write_text("1234\n")
    (tmp_path / "pin-used").touch()
    from controller.clock import FakeClock

    guard = PinGuard(tmp_path, "", clock=FakeClock(0))
    assert len(guard.pin) == PIN_DIGITS and guard.pin != "1234"
    assert guard.hint == guard.pin  # shown again: nobody knows the new one yet
    assert (tmp_path / "pin").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("bad", ["1234", "12345", "111111", "123456", "987654", "12a456",
                                 "١٢٣٤٥٦٧٨", "1" * 21])
def test_weak_or_malformed_configured_pins_are_refused(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"kiosk\.pin"):
        parse_config({"kiosk": {"pin": bad}})


def test_a_configured_pin_of_six_digits_or_more_is_taken() -> None:
    assert parse_config({"kiosk": {"pin": "482913"}}).kiosk.pin == "482913"


# -- wrong PINs are counted per client -------------------------------------------------


def test_a_strangers_wrong_pins_do_not_lock_staff_out(t: Table) -> None:
    for _ in range(50):
        assert t.phone.post("/api/session", json={"pin": "00000000"}).status_code in (403, 429)
    other = t.client(("192.168.1.8", 1))
    assert other.post("/api/session", json={"pin": PIN}).status_code == 200
    assert other.post("/api/control", json={"action": "pause"}).status_code == 200


def test_a_staff_session_outlasts_anyones_failures_even_behind_the_same_address(
        t: Table) -> None:
    neighbour = t.client(STAFF)  # the same café NAT address as the staff device
    for _ in range(50):
        neighbour.post("/api/session", json={"pin": "00000000"})
    assert neighbour.post("/api/session", json={"pin": PIN}).status_code == 429
    assert t.staff.post("/api/control", json={"action": "pause"}).status_code == 200
    assert t.service.paused


def test_waits_double_per_client_and_a_right_pin_does_not_skip_them(t: Table) -> None:
    waits = []
    for _ in range(Throttle.FREE):
        assert t.phone.post("/api/session", json={"pin": "11111111"}).status_code == 403
    for _ in range(4):
        assert t.phone.post("/api/session", json={"pin": "11111111"}).status_code == 403
        r = t.phone.post("/api/session", json={"pin": PIN})
        assert r.status_code == 429 and "staff" not in r.json()  # no oracle while waiting
        waits.append(int(r.headers["Retry-After"]))
        t.clock.advance(waits[-1])
    assert waits == [1, 2, 4, 8]
    assert t.phone.post("/api/session", json={"pin": PIN}).status_code == 200


def test_the_wait_is_capped_and_the_table_forgets_the_oldest_of_many_clients() -> None:
    from controller.clock import FakeClock

    throttle = Throttle(FakeClock(0))
    for _ in range(100):
        throttle.failed("a")
    assert throttle.wait_ns("a") == Throttle.MAX_WAIT_NS
    for i in range(Throttle.MAX_CLIENTS + 1):
        throttle.failed(f"c{i}")
    assert throttle.wait_ns("a") == 0 and len(throttle._clients) == Throttle.MAX_CLIENTS


def test_missing_pins_are_not_guesses(t: Table) -> None:
    for _ in range(30):
        assert t.phone.post("/api/control", json={"action": "pause"}).status_code == 403
    r = t.phone.post("/api/control", json={"action": "pause"}, headers={"X-Table-Pin": PIN})
    assert r.status_code == 200


def test_ipv6_clients_are_counted_per_64_network() -> None:
    assert client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9")
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.168.1.5") == "192.168.1.5"


@pytest.mark.parametrize("value", ["🎲".encode(), "é".encode("latin-1"), b"\xff\xfe"])
def test_a_non_ascii_pin_header_is_a_wrong_pin_not_a_crash(t: Table, value: bytes) -> None:
    r = t.phone.post("/api/control", json={"action": "pause"}, headers={"X-Table-Pin": value})
    assert r.status_code == 403 and r.json()["error"] == "wrong PIN"


# -- staff sessions -------------------------------------------------------------------


def test_login_sets_an_httponly_strict_cookie_without_the_pin(t: Table) -> None:
    r = t.client(("10.1.1.1", 5)).post("/api/session", json={"pin": PIN})
    cookie = r.headers["set-cookie"]
    assert "knapp_staff=" in cookie and PIN not in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert r.json() == {"table": False, "staff": True}


def test_logout_ends_the_session_on_that_device(t: Table) -> None:
    assert t.staff.get("/api/session").json()["staff"] is True
    assert t.staff.delete("/api/session").status_code == 200
    assert t.staff.get("/api/session").json()["staff"] is False
    assert t.staff.post("/api/control", json={"action": "pause"}).status_code == 403


def test_sessions_expire_and_die_with_a_new_pin(tmp_path: Path) -> None:
    from controller.clock import FakeClock

    now = [1_800_000_000.0]
    guard = PinGuard(tmp_path, PIN, clock=FakeClock(0))
    sessions = Sessions(guard, wall=lambda: now[0])
    token = sessions.issue()
    assert sessions.valid(token)
    assert not sessions.valid(token[:-1] + ("0" if token[-1] != "0" else "1"))
    assert not Sessions(PinGuard(tmp_path, "99887766", clock=FakeClock(0)),
                        wall=lambda: now[0]).valid(token)
    now[0] += 31 * 24 * 3600
    assert not sessions.valid(token)


# -- every guarded route refuses a phone --------------------------------------------------

GUARDED: list[tuple[str, str, dict[str, Any] | None, bool]] = [
    # method, path ({m} = live match id), body, may the table screen do it?
    ("POST", "/api/answer", {"seat": "Ada", "figure": "dog"}, True),
    ("POST", "/api/control", {"action": "pause"}, True),
    ("POST", "/api/control", {"action": "abandon", "reason": "x"}, False),
    ("POST", "/api/setup", {"seats": ["Ann", "Bo"], "target": 3, "variant": "standard"}, False),
    ("POST", "/api/matches/{m}/corrections", {"kind": "void", "round": 0, "reason": "x"}, False),
    ("POST", "/api/matches/{m}/evidence/m-0-dog/hold", {"keep": True}, False),
    ("POST", "/api/pin", None, False),
    ("GET", "/api/calibration/preview.png", None, False),
    ("GET", "/api/openapi.json", None, False),
]


@pytest.mark.parametrize(("method", "path", "body", "table_may"), GUARDED,
                         ids=[f"{g[0]} {g[1]} {g[2] or ''}" for g in GUARDED])
def test_every_guarded_route_refuses_a_phone_and_admits_staff(
        t: Table, method: str, path: str, body: dict[str, Any] | None, table_may: bool) -> None:
    url = path.format(m=t.service.match_id)
    before = t.state()
    for headers in ({}, {"X-Table-Pin": "00000000"}):
        r = t.phone.request(method, url, json=body, headers=headers)
        assert r.status_code == 403, (r.status_code, r.text)
        assert t.state() == before
    # The table screen may use its own buttons, nothing else.
    r = t.screen.request(method, url, json=body)
    assert (r.status_code != 403) is table_may, (r.status_code, r.text)
    # Staff pass the guard (the route may still refuse the move itself, e.g. 404 or 409).
    assert t.staff.request(method, url, json=body).status_code != 403


# -- what each screen sees of an open card ------------------------------------------------


def test_phones_never_see_the_answer_of_an_open_card(t: Table) -> None:
    with t.phone.websocket_connect("/ws") as ws:
        open_card(t)
        msg = ws.receive_json()
        while msg["state"]["phase"] != "open":
            msg = ws.receive_json()
    answer = t.service.match.current.answer.value  # type: ignore[union-attr]
    for state in (msg["state"], t.phone.get("/api/state").json(),
                  t.staff.get("/api/state").json()):
        rnd = state["round"]
        assert rnd["card"] and rnd["answer"] is None and rnd["answer_title"] is None
        assert rnd["explanation"] is None and rnd["true_colour"] is None
    t.clock.advance(0.9)
    t.service.sim_grab("Ada", answer)
    t.service.tick()
    review = t.phone.get(f"/api/matches/{t.service.match_id}").json()
    assert review["rounds"][0]["answer"] is None and review["rounds"][0]["explanation"] is None
    assert review["rounds"][0]["claims"][0]["correct"] is None
    assert [e.get("answer") for e in review["timeline"] if e["kind"] == "revealed"] == [None]
    # The table screen has it at once (its verdict line names the figure).
    assert t.screen.get("/api/state").json()["round"]["answer"] == answer
    # Once the card is settled, everyone sees it.
    provisional = t.phone.get("/api/state").json()
    assert provisional["open"] and provisional["last_verdict"] is None
    assert [(c["seat"], c["figure"], c["correct"]) for c in provisional["round"]["claims"]] \
        == [("Ada", answer, None)]
    assert t.screen.get("/api/state").json()["last_verdict"]["provisional"] is True
    run_until(t.service, lambda s: s.match.phase is not Phase.OPEN)
    settled = t.phone.get("/api/state").json()
    assert settled["round"]["answer"] == answer and settled["round"]["explanation"]
    assert settled["last_verdict"]["answer"] == answer
    review = t.phone.get(f"/api/matches/{t.service.match_id}").json()
    assert review["rounds"][0]["answer"] == answer
    assert [e["answer"] for e in review["timeline"] if e["kind"] == "revealed"] == [answer]


# -- the table screen's credential and paint reports ---------------------------------------


def test_only_a_browser_on_the_pi_gets_the_table_screen_credential(t: Table) -> None:
    assert "knapp_table" not in t.phone.get("/").headers.get("set-cookie", "")
    assert t.phone.get("/api/session").json() == {"table": False, "staff": False}
    assert t.screen.get("/api/session").json() == {"table": True, "staff": False}
    cookie = t.client(PI).get("/").headers["set-cookie"]
    assert "knapp_table=" in cookie and "HttpOnly" in cookie
    # The credential survives a restart of the service (it is kept in the data directory).
    from controller.web.auth import TableScreen
    assert TableScreen(t.pin.data_dir).valid(t.screen.cookies["knapp_table"])


def _paint(client: Any, t: Table, offset_ms: float) -> dict[str, Any]:
    rnd = t.service.match.current
    assert rnd is not None
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_text(json.dumps({"type": "painted", "round": rnd.index,
                                 "t_ns": rnd.reveal_ns + int(offset_ms * 1e6),
                                 "uncertainty_ns": 9_000_000}))
        ws.send_text(json.dumps({"type": "ping", "c": 1}))
        replies = [ws.receive_json()]
        while replies[-1]["type"] != "pong":
            replies.append(ws.receive_json())
    errors = [m for m in replies if m["type"] == "error"]
    return errors[0] if errors else {}


def test_a_phone_cannot_move_the_reveal_time(t: Table) -> None:
    open_card(t)
    t.clock.advance(0.02)
    reveal = t.service.match.current.reveal_ns  # type: ignore[union-attr]
    err = _paint(t.phone, t, 990)
    assert "only the table screen" in err["error"]
    assert t.service.match.current.reveal_ns == reveal  # type: ignore[union-attr]
    assert t.service.match.current.reveal_measure.label == "shown"  # type: ignore[union-attr]


def test_the_table_screen_reports_paints_but_not_far_from_the_show_time(t: Table) -> None:
    open_card(t)
    t.clock.advance(1.0)
    reveal = t.service.match.current.reveal_ns  # type: ignore[union-attr]
    err = _paint(t.screen, t, 990)
    assert "not a paint of this card" in err["error"]
    assert t.service.match.current.reveal_ns == reveal  # type: ignore[union-attr]
    assert _paint(t.screen, t, 16) == {}
    rnd = t.service.match.current
    assert rnd is not None and rnd.reveal_measure.label == "paint"
    assert rnd.reveal_ns == reveal + 16_000_000


def test_the_table_screen_answers_and_rematches_without_a_pin(t: Table) -> None:
    open_card(t)
    rnd = t.service.match.current
    assert rnd is not None
    t.clock.advance(1.2)
    t.service.pads.lift(rnd.answer)  # type: ignore[attr-defined]
    t.service.tick()
    assert t.phone.post("/api/answer", json={"seat": "Cleo", "figure": rnd.answer.value}
                        ).status_code == 403
    assert t.screen.post("/api/answer", json={"seat": "Cleo", "figure": rnd.answer.value}
                         ).status_code == 200
    assert rnd.claims[0].seat == "Cleo"
    first = t.service.match_id
    assert t.screen.post("/api/control", json={"action": "rematch"}).status_code == 200
    assert t.service.match_id != first


def test_too_many_watching_screens_are_turned_away_but_not_the_table(
        t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.websockets import WebSocketDisconnect

    from controller.web.routes import live

    monkeypatch.setattr(live, "MAX_VIEWERS", 1)
    with t.phone.websocket_connect("/ws") as first:
        first.receive_json()
        with pytest.raises(WebSocketDisconnect) as exc, \
                t.client(("192.168.1.99", 2)).websocket_connect("/ws") as second:
            second.receive_json()
        assert exc.value.code == 1013
        with t.screen.websocket_connect("/ws") as table:
            assert table.receive_json()["type"] == "state"


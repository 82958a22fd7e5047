"""Bad input never breaks the table: strict bodies, text without lone surrogates or
control characters, a body size limit, 422s that never echo the input, and a
Hypothesis fuzz of every POST route (never a 500, never a change on a 4xx)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.knapp.match import Phase
from tests.web.conftest import run_until
from tests.web.roles import PIN, Table, make_table

SETUP = {"seats": ["Ada", "Ben"], "target": 3, "variant": "standard"}


@pytest.fixture
def t(tmp_path: Path) -> Iterator[Table]:
    table = make_table(tmp_path)
    yield table
    table.service.store.close()


def post_raw(t: Table, path: str, text: str) -> Any:
    return t.staff.post(path, content=text.encode("utf-8", "surrogatepass"),
                        headers={"Content-Type": "application/json"})


def test_a_lone_surrogate_in_a_seat_name_is_refused_and_the_table_plays_on(t: Table) -> None:
    before = t.state()
    r = post_raw(t, "/api/setup", '{"seats": ["Ada", "Ben\\ud800"], "target": 3, '
                                  '"variant": "standard"}')
    assert r.status_code == 422 and "lone surrogate" in r.text and "seats" in r.text
    assert t.state() == before and t.service.match.abandoned is None
    assert t.phone.get("/api/state").status_code == 200
    assert t.staff.post("/api/control", json={"action": "rematch"}).status_code == 200


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/setup", {**SETUP, "seats": ["Ada", "B\x07en"]}, "seats"),
    ("/api/setup", {**SETUP, "seats": ["Ada", "\u202eneB"]}, "seats"),
    ("/api/control", {"action": "pause", "reason": "\x00"}, "reason"),
    ("/api/answer", {"seat": "Ada\n", "figure": "dog"}, "seat"),
])
def test_control_characters_are_refused_by_name(t: Table, path: str, body: dict[str, Any],
                                                field: str) -> None:
    before = t.state()
    r = t.staff.post(path, json=body)
    assert r.status_code == 422 and "control character" in r.text and field in r.text
    assert t.state() == before


@pytest.mark.parametrize("raw", [
    '{"seats": ["Ada", "Ben"], "target": NaN, "variant": "standard"}',
    '{"seats": ["Ada", "Ben"], "target": 1e400, "variant": "standard"}',
    '{"seats": ["Ada", "Ben"], "target": -Infinity, "variant": "standard"}',
    '{"seats": ["Ada", "Ben"], "target": true, "variant": "standard"}',
    '{"seats": ["Ada", "Ben"], "target": "3", "variant": "standard"}',
    '{"seats": ["Ada", "Ben"], "target": 3.0, "variant": "standard"}',
    '{"seats": ["Ada", 7], "target": 3, "variant": "standard"}',
])
def test_numbers_are_strict(t: Table, raw: str) -> None:
    before = t.state()
    r = post_raw(t, "/api/setup", raw)
    assert r.status_code == 422 and ("target" in r.text or "seats" in r.text)
    assert t.state() == before


def test_a_lone_surrogate_in_a_reason_is_a_422(t: Table) -> None:
    r = post_raw(t, f"/api/matches/{t.service.match_id}/corrections",
                 '{"kind": "void", "round": 0, "reason": "\\udfff"}')
    assert r.status_code == 422 and "reason" in r.text


def test_keep_must_be_a_boolean(t: Table) -> None:
    r = t.staff.post(f"/api/matches/{t.service.match_id}/evidence/m-0-dog/hold",
                     json={"keep": 1})
    assert r.status_code == 422 and "keep" in r.text


def test_a_large_body_is_refused_before_it_is_read(t: Table) -> None:
    before = t.state()
    big = json.dumps({**SETUP, "seats": ["A" * 10_000_000, "B"]})
    r = t.staff.post("/api/setup", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 1000
    assert t.state() == before


def test_a_422_never_echoes_the_input(t: Table) -> None:
    name = "Z" * 15_000
    r = t.staff.post("/api/setup", json={**SETUP, "seats": [name, "B"]})
    assert r.status_code == 422 and len(r.content) < 2000 and "ZZZZZZZZ" not in r.text
    assert r.json()["detail"][0]["loc"] == ["body", "seats", 0]


def test_odd_path_parameters_are_not_found_not_a_crash(t: Table) -> None:
    for mid in ("%ED%A0%80", "%00", "x" * 300, "%F0%9F%8E%B2"):
        assert t.phone.get(f"/api/matches/{mid}").status_code == 404
        r = t.staff.post(f"/api/matches/{mid}/corrections", json={"kind": "undo", "reason": "x"})
        assert r.status_code == 404
    r = t.staff.post(f"/api/matches/{t.service.match_id}/evidence/%ED%A0%80/hold",
                     json={"keep": True})
    assert r.status_code == 404


def test_websocket_messages_of_any_shape_get_an_error_not_a_drop(t: Table) -> None:
    with t.screen.websocket_connect("/ws") as ws:
        ws.receive_json()
        for text in ("[]", '{"type": "ping", "c": NaN}', '{"type": "ping", "c": 1e400}',
                     '{"type": "painted", "round": true, "t_ns": 1, "uncertainty_ns": 1}',
                     '{"type": "\\ud800"}', "x" * 5000):
            ws.send_text(text)
            reply = ws.receive_json()
            while reply["type"] == "state":
                reply = ws.receive_json()
            assert reply["type"] == "error", text
        ws.send_text('{"type": "ping", "c": 2}')
        reply = ws.receive_json()
        while reply["type"] != "pong":
            reply = ws.receive_json()


# -- the fuzz ----------------------------------------------------------------------------

ROUTES = ["/api/sim/grab", "/api/answer", "/api/control", "/api/setup",
          "/api/matches/{m}/corrections", "/api/matches/{m}/evidence/{ref}/hold", "/api/pin",
          "/api/session"]
KEYS = ["seat", "figure", "action", "reason", "kind", "round", "seats", "target", "variant",
        "keep", "pin"]
WORDS = ["Ada", "Ben", "Cleo", "dog", "ship", "pause", "resume", "rematch", "abandon", "undo",
         "award", "void", "standard", "unruly", PIN, ""]

text = st.one_of(st.sampled_from(WORDS), st.text(max_size=30),
                 st.text(st.characters(codec=None, categories=["Cs", "Cc", "Cf", "Lo"]),
                         max_size=5))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                    st.floats(allow_nan=True, allow_infinity=True), text)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=9), st.dictionaries(st.one_of(st.sampled_from(KEYS), text),
                                                 inner, max_size=5)), max_leaves=12)
bodies = st.one_of(st.dictionaries(st.sampled_from(KEYS), values, max_size=5), values)


@pytest.fixture(scope="module")
def fuzz_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    table = make_table(tmp_path_factory.mktemp("fuzz"), bots=2)
    run_until(table.service, lambda s: s.match.phase is Phase.OPEN)
    yield table
    table.service.store.close()


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(route=st.sampled_from(ROUTES), body=bodies, raw=st.booleans(),
       pin=st.sampled_from([None, PIN, "0", "é"]), staff=st.booleans(),
       garbage=st.binary(max_size=40))
def test_fuzz_every_post_route_never_500_never_changed_by_a_4xx(
        fuzz_table: Table, route: str, body: Any, raw: bool, pin: str | None, staff: bool,
        garbage: bytes) -> None:
    t = fuzz_table
    t.pin.throttle.succeeded("192.168.1.50")  # the fuzzing phone is never made to wait
    url = route.format(m=t.service.match_id, ref="m-0-dog")
    content = garbage if raw else json.dumps(body).encode()
    headers: dict[str, Any] = {"Content-Type": "application/json"}
    if pin is not None:
        headers["X-Table-Pin"] = pin.encode("utf-8")
    client = t.staff if staff else t.phone
    before = t.state()
    r = client.post(url, content=content, headers=headers)
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code >= 400:
        assert t.state() == before, (route, body, r.status_code)
        assert len(r.content) < 4000
    t.phone.cookies.clear()  # a phone that guessed the PIN stays a phone for the next try
    t.service.tick()

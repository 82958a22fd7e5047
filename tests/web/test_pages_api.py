"""The review, setup and statistics pages in process: validation errors in words, the
site's icon, and scripts that ask nothing through the browser's own dialogs."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from fastapi.testclient import TestClient

from controller.web.models import error_sentence
from tests.web.conftest import PIN

STATIC = resources.files("controller.web") / "static"


def staff(client: TestClient) -> TestClient:
    assert client.post("/api/session", json={"pin": PIN}).status_code == 200
    return client


@pytest.mark.parametrize(("body", "sentence"), [
    ({"seats": ["Ada"], "target": 5, "variant": "standard"}, "seats: at least 2 players"),
    ({"seats": ["Ada", "Ben"], "target": 99, "variant": "standard"},
     "target: at most 60 cards"),
    ({"seats": ["Ada", "Ben"], "target": -1, "variant": "standard"},
     "target: at least 0 cards"),
    ({"seats": [f"P{i}" for i in range(9)], "target": 5, "variant": "standard"},
     "seats: at most 8 players"),
    ({"seats": ["Ada", ""], "target": 5, "variant": "standard"},
     "seats, player 2: must not be empty"),
    ({"seats": ["Ada", "B" * 25], "target": 5, "variant": "standard"},
     "seats, player 2: at most 24 characters"),
    ({"seats": ["Ada", "Ben"], "target": 5, "variant": "wild"},
     "variant: must be standard or unruly"),
    ({"seats": ["Ada", "Ben"], "target": "5", "variant": "standard"},
     "target: must be a whole number"),
    ({"seats": ["Ada", "Ben"], "variant": "standard"}, "target: is required"),
])
def test_a_bad_setup_is_answered_with_a_sentence_naming_the_field_and_rule(
        client: TestClient, body: dict[str, object], sentence: str) -> None:
    r = staff(client).post("/api/setup", json=body)
    assert r.status_code == 422
    data = r.json()
    assert data["error"] == sentence
    # Each item says which field (for the page to show it beside the input) and the rule.
    item = data["detail"][0]
    assert f"{item['field']}: {item['error']}" == sentence
    field = sentence.partition(":")[0].partition(",")[0]
    assert item["loc"][:2] == ["body", field]


def test_two_bad_fields_are_both_named(client: TestClient) -> None:
    r = staff(client).post("/api/setup",
                           json={"seats": ["Ada"], "target": 99, "variant": "standard"})
    assert r.json()["error"] == "seats: at least 2 players; target: at most 60 cards"


def test_a_control_character_keeps_its_own_reason(client: TestClient) -> None:
    r = staff(client).post("/api/setup",
                           json={"seats": ["Ada", "B\x07n"], "target": 5, "variant": "standard"})
    assert r.json()["error"] == "seats, player 2: character 1 is a control character (U+0007)"


def test_a_wrong_correction_body_names_its_field(client: TestClient) -> None:
    r = staff(client).post("/api/matches/x/corrections", json={"kind": "award", "reason": ""})
    assert r.status_code == 422
    assert r.json()["error"] == "reason: must not be empty"


def test_error_sentence_without_a_body_prefix() -> None:
    assert error_sentence({"type": "missing", "loc": ("pin",), "msg": "Field required"}) == (
        "pin: is required")


def test_the_icon_is_served_and_linked(client: TestClient) -> None:
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon"
    assert r.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    svg = client.get("/static/favicon.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    for path in ("/", "/review", "/setup", "/stats", "/games"):
        page = client.get(path).text
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page


@pytest.mark.parametrize("script", ["review.js", "setup.js", "stats.js"])
def test_the_scripts_use_no_browser_dialogs(script: str) -> None:
    # prompt(), alert() and confirm() block the page, cannot be styled for a phone and
    # a PIN typed into prompt() is shown in plain text: the pages ask in the page.
    text = (STATIC / script).read_text()
    assert not re.search(r"\b(prompt|alert|confirm)\s*\(", text), script

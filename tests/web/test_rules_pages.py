"""The rules pages in-process: each game's docs/rules text rendered inside the site
template, a room's options listed, raw HTML never passed through, and nothing but the
six game ids ever read from disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.clock import FakeClock
from controller.games import GAME_IDS
from controller.rooms.manager import RoomManager
from controller.web.app import create_app
from controller.web.auth import PinGuard
from controller.web.routes import rules
from tests.rooms.helpers import make_manager
from tests.web.conftest import make_service

PIN = "24681357"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, RoomManager]]:
    service = make_service(tmp_path)
    assert isinstance(service.clock, FakeClock)
    app = create_app(service, PinGuard(tmp_path, PIN, clock=service.clock), autorun=False)
    manager = make_manager(service.store.path, service.clock)
    app.state.rooms = manager
    app.state.rooms_autorun = False
    with TestClient(app) as c:
        yield c, manager
    service.store.close()


def new_room(c: TestClient, game: str, options: dict[str, Any]) -> str:
    plan = [{"kind": "person"}, {"kind": "person"}]
    r = c.post("/api/rooms", json={"game": game, "plan": plan, "options": options,
                                   "bot_delay_s": 0})
    assert r.status_code == 200, r.text
    room: str = r.json()["room"]
    return room


def test_the_rule_texts_are_found_from_the_source_tree() -> None:
    # The editable install: controller/ beside docs/ (the Makefile's `pip install -e .`).
    for game in GAME_IDS:
        path = rules.rules_path(game)
        assert path is not None and path.is_file(), path


@pytest.mark.parametrize("game", list(GAME_IDS))
def test_each_game_has_its_rules_page(client: tuple[TestClient, RoomManager],
                                      game: str) -> None:
    c, _ = client
    r = c.get(f"/rules/{game}")
    assert r.status_code == 200
    html = r.text
    first = (rules.RULES_DIR / f"{game}.md").read_text(encoding="utf-8").splitlines()[0]
    # The Markdown, rendered: its title a heading (inline code in it becomes <code>).
    assert "<h1>" + first.lstrip("# ").split("`")[0] in html and "<li>" in html
    assert '<nav>' in html and 'href="/games"' in html  # inside the site's template
    assert 'id="options"' not in html  # not opened from a room: no options table


def test_a_rooms_options_are_listed(client: tuple[TestClient, RoomManager]) -> None:
    c, _ = client
    room = new_room(c, "kobbla", {"white_jump": "straight", "max_turns": 40})
    html = c.get(f"/rules/kobbla?room={room}").text
    assert 'id="options"' in html
    assert '<div class="opt" data-opt="white_jump"><dt><code>white_jump</code> <b>straight</b>' \
        '</dt>' in html
    assert '<div class="opt" data-opt="tail"><dt><code>tail</code> <b>straight</b> ' \
        '<span class="muted">(default)</span>' in html
    assert f'href="/rooms/{room}"' in html
    # The same, as JSON for the screens (public: the options are no secret).
    data = c.get(f"/api/rules/kobbla?room={room}").json()
    assert data["options"]["white_jump"] == "straight" and data["options"]["max_turns"] == 40


def test_a_room_of_another_game_or_no_room_shows_no_options(
        client: tuple[TestClient, RoomManager]) -> None:
    c, _ = client
    room = new_room(c, "koob", {})
    html = c.get(f"/rules/kobbla?room={room}").text
    assert 'id="options"' not in html and "plays koob, not kobbla" in html
    assert "no room &#39;nope&#39;" in c.get("/rules/kobbla?room=nope").text
    assert c.get("/api/rules/kobbla?room=nope").status_code == 404
    assert c.get(f"/api/rules/koob?room={room}").json()["options"]["placement"] == "anywhere"


def test_an_unknown_game_is_404_naming_the_games(client: tuple[TestClient, RoomManager]) -> None:
    c, _ = client
    r = c.get("/rules/chess")
    assert r.status_code == 404
    assert "no rules for 'chess'" in r.json()["error"] and "kobbla" in r.json()["error"]


@pytest.mark.parametrize("name", ["..%2F..%2Fpyproject", "..%2Farchitecture", "kobbla.md",
                                  "%2E%2E", "KOBBLA", "kobbla%00", "secret",
                                  "..%5C..%5Cpyproject"])
def test_no_other_file_is_ever_read(client: tuple[TestClient, RoomManager], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    c, _ = client
    # A rules directory with a file that is not a game's, beside and above it.
    docs = tmp_path / "docs" / "rules"
    docs.mkdir(parents=True)
    for f in ("secret.md", "../architecture.md", "../../pyproject.md"):
        (docs / f).write_text("# SECRET\n", encoding="utf-8")
    monkeypatch.setattr(rules, "RULES_DIR", docs)
    r = c.get(f"/rules/{name}")
    assert r.status_code == 404
    assert "SECRET" not in r.text
    assert c.get(f"/api/rules/{name}").status_code == 404


def test_raw_html_in_a_rule_text_is_escaped(client: tuple[TestClient, RoomManager],
                                           tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    c, _ = client
    docs = tmp_path / "rules"
    docs.mkdir()
    (docs / "koob.md").write_text(
        "# Koob\n\n<script>alert(1)</script>\n\nText <img src=x onerror=alert(2)> and "
        "[a link](javascript:alert(3)).\n", encoding="utf-8")
    monkeypatch.setattr(rules, "RULES_DIR", docs)
    html = c.get("/rules/koob").text
    assert "<h1>Koob</h1>" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert 'href="javascript:' not in html


def test_a_missing_rule_text_is_a_clear_404(client: tuple[TestClient, RoomManager],
                                           tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    c, _ = client
    monkeypatch.setattr(rules, "RULES_DIR", tmp_path / "nowhere")
    r = c.get("/rules/manni")
    assert r.status_code == 404 and "manni.md is not installed" in r.json()["error"]

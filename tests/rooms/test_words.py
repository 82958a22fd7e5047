"""The log in words (controller/rooms/words.py): every game's events read as sentences.

Whole games of all six are played by computers in real rooms; every line of the
room's log must have a sentence of its own (not the generic "kind (field value)"
fallback), must name only cards its own event carries (so a private draw stays on
its seat's screen), and kinds shared by two games or by a game and the room must
read right for each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.games import GAME_IDS, get_game
from controller.rooms.manager import RoomManager
from controller.rooms.room import LogEntry
from controller.rooms.words import describe, fallback
from tests.rooms.helpers import SHORT, card_tokens, make_manager

NAMES = ["Ada", "Bo", "Cy", "Di", "Eva"]


def bot_game(manager: RoomManager, game_id: str) -> list[LogEntry]:
    """The log of one whole game of `game_id` played by computers at every seat."""
    game = get_game(game_id)
    level = "rule" if game.has_bots else "random"
    room, _ = manager.create({"game": game_id, "seats": game.default_seats,
                              "plan": [{"kind": "bot", "level": level}] * game.default_seats,
                              "options": SHORT[game_id], "bot_delay_s": 0})
    for _ in range(20_000):
        if room.over:
            break
        manager.tick()
    assert room.over, f"{game_id} did not finish"
    return list(room.log)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[LogEntry]]:
    manager = make_manager(Path(tmp_path_factory.mktemp("words")) / "knapp.db")
    return {g: bot_game(manager, g) for g in GAME_IDS}


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_every_line_of_a_whole_game_has_a_sentence_of_its_own(
        logs: dict[str, list[LogEntry]], game_id: str) -> None:
    coded = {e.kind: e.text for e in logs[game_id]
             if e.text == fallback(e.kind, e.data, [str(x) for x in range(8)])
             or e.text == fallback(e.kind, e.data, NAMES)}
    assert not coded, f"{game_id} lines still read like codes: {coded}"
    # A sentence names nobody it cannot name (a seat number out of range, a missing field).
    assert not [e.text for e in logs[game_id] if "someone" in e.text or "None" in e.text]


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_the_first_line_names_the_game_as_people_know_it(
        logs: dict[str, list[LogEntry]], game_id: str) -> None:
    game = get_game(game_id)
    first = next(e for e in logs[game_id] if e.kind == "started")
    assert first.text == (f"A game of {game.name} starts with {game.default_seats} seats.")
    if game.name.lower() != game_id:
        assert game_id not in first.text


def test_a_start_of_an_unknown_game_keeps_its_id() -> None:
    assert describe("started", {"game": "chess", "seats": 2}, NAMES) == (
        "A game of chess starts with 2 seats.")


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_a_line_names_only_the_cards_its_own_event_carries(
        logs: dict[str, list[LogEntry]], game_id: str) -> None:
    """A public line built from a public event cannot carry a card from a private one."""
    for e in logs[game_id]:
        assert card_tokens(e.text.replace(".", " ").replace(",", " ").replace(":", " ")
                           .replace("(", " ").replace(")", " ").split()) <= card_tokens(
            dict(e.data)), (e.kind, e.text)


def test_knuff_draws_say_how_many_in_public_and_which_only_to_the_drawer(
        logs: dict[str, list[LogEntry]]) -> None:
    log = logs["knuff"]
    counts = [e for e in log if e.kind == "drew-count"]
    draws = [e for e in log if e.kind == "drew"]
    assert counts and draws
    assert all(e.visible_to is None for e in counts)
    assert all(e.visible_to == frozenset({e.data["seat"]}) for e in draws)
    assert not card_tokens([w.strip(".()") for e in counts for w in e.text.split()])
    text = describe("drew-count", {"seat": 1, "count": 1, "stock": 35}, NAMES)
    assert text == "Bo draws 1 card (35 left to draw)."
    assert describe("drew-count", {"seat": 0, "count": 3, "stock": 2}, NAMES) == (
        "Ada draws 3 cards (2 left to draw).")
    assert describe("drew", {"seat": 1, "cards": ["6H"]}, NAMES) == "Bo draws 6H."


def test_a_parknuff_answer_is_sealed_in_public() -> None:
    """The window's public line says only that a seat answered; its own line says how."""
    assert describe("answered", {"seat": 2}, NAMES) == "Cy has answered the Fare for HELKNUFF."
    assert describe("answered", {"seat": 2, "claim": True}, NAMES) == (
        "Cy claims the parknuff (sealed).")
    assert describe("answered", {"seat": 2, "claim": False}, NAMES) == (
        "Cy lets the parknuff go (sealed).")


@pytest.mark.parametrize(("kind", "data", "want"), [
    ("knuff", {"seat": 1, "skipped": 2}, "KNUFF! Bo knuffs: Cy is skipped."),
    ("asked", {"seat": 0, "asked": 1}, "Ada asks Bo whether they want to begin."),
    ("begins", {"seat": 0, "asked": 1, "answer": "no"}, "Bo says no: Ada begins."),
    ("played", {"seat": 1, "cards": ["KS", "KC"], "how": "pair", "left": 2},
     "Bo plays the pair KS KC (2 cards left)."),
    ("deal", {"round": 2, "starter": 3, "counts": [4, 4, 4, 4], "stock": 36},
     "Deal 2: 4 cards each dealt, 36 left to draw; Di asks who begins."),
    ("KNUFF", {"seat": 0, "times": 1, "hand_minimum": 5},
     "Ada is KNUFF (×1) and must hold 5 cards from now on."),
    ("left", {"seat": 2, "cards": 4}, "Cy sits out; their 4 cards wait face down."),
    ("letters", {"winner": 1, "letters": ["K", "", "KN"], "knuffs": [0, 0, 0]},
     "Letters after the deal: Ada K, Bo –, Cy KN."),
    ("passed", {"seat": 3, "drew": 0}, "Di passes."),
    ("passed", {"seat": 3, "drew": 2}, "Di passes after drawing 2 cards."),
])
def test_knuff_lines_in_words(kind: str, data: dict[str, Any], want: str) -> None:
    assert describe(kind, data, NAMES) == want


@pytest.mark.parametrize(("kind", "data", "want"), [
    # The room's seat change and KNUFF's own.
    ("joined", {"seats": [1], "name": "Bo"}, "Bo takes seat 2."),
    ("joined", {"seat": 4, "letters": "KN", "knuffs": 0, "dealt": 5, "cards": 5},
     "Eva joins the game and is dealt 5 cards (letters KN)."),
    # The room closing and 500's closing deal.
    ("closed", {"reason": "idle"}, "The room is closed (idle)."),
    ("closed", {"seat": 0}, "Ada goes out and closes the deal."),
    # Declining the Manni and passing in Púkk's betting.
    ("pass", {"seat": 1}, "Bo does not take the Manni."),
    ("pass", {"seat": 1, "pukk": 5}, "Bo passes (Púkk 5)."),
    ("deal", {"deal": 3, "dealer": 2, "contract": "grand", "manni": 12},
     "Deal 3: Cy deals; grand (no trump)."),
    ("dealt", {"deal": 0, "dealer": 1, "up": "6C", "stock": 33},
     "Deal 1: Bo deals and turns up 6C (33 in the stock)."),
])
def test_shared_kinds_read_right_for_each_game(kind: str, data: dict[str, Any],
                                               want: str) -> None:
    assert describe(kind, data, NAMES) == want


def test_an_unknown_kind_still_gets_the_generic_sentence() -> None:
    assert describe("mystery_move", {"seat": 0, "count": 2}, NAMES) == (
        "Ada: mystery move (count 2).")
    assert describe("mystery_move", {"seat": 0}, NAMES) == fallback(
        "mystery_move", {"seat": 0}, NAMES)

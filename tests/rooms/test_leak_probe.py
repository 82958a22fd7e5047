"""The leak probe: no message to seat i (or to the table screen and spectators) ever
names a card that only seat j can see, checked against the server's full state at
every step of a whole game of every game.

Every seat is a person with a device of its own (the protocol `Client` the web
carries), plus the table screen and a spectator. At each step one seat on turn
chooses (the game's rule player on the server, standing in for a person's
tap) and sends the action through its own device; then every device's new
messages are checked. A card a device has legitimately seen before (its own
earlier hand, a card shown) is not counted again, so a reshuffle cannot raise
a false alarm; the first time a hidden card reaches a device is always caught.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.games import GAME_IDS, get_game
from controller.rng import Rng
from controller.rooms.bots import default_level, make_bot
from controller.rooms.errors import RoomError
from controller.rooms.manager import RoomManager
from controller.rooms.protocol import Client
from controller.rooms.room import Room
from tests.rooms.helpers import SHORT, card_tokens, device, hidden_from, make_manager, mentions

HIDDEN_INFORMATION = ("manni", "pukk", "rommy", "knuff")


Hello = dict[int | str, list[dict[str, Any]]]


def seated_room(manager: RoomManager, game_id: str) -> tuple[Room, dict[int, Client], Client,
                                                            Client, Hello]:
    """A room of `game_id` with a person and a device at every seat, the table screen and a
    spectator; and what each device got for its hello."""
    game = get_game(game_id)
    seats = game.default_seats
    room, host = manager.create({"game": game_id, "seats": seats, "options": SHORT[game_id],
                                 "plan": [{"kind": "person"}] * seats, "bot_delay_s": 0})
    creds = [manager.join(room.room_id, room.table_codes[s], f"P{s}")[1] for s in range(seats)]
    phones, hello = {}, {}
    for s in range(seats):
        phones[s], hello[s] = device(manager, room, credential=creds[s])
    table, hello["table"] = device(manager, room, host=host)
    spectator, hello["spectator"] = device(manager, room)
    return room, phones, table, spectator, hello


def check(room: Room, viewer: int | None, messages: list[dict[str, Any]],
          seen: set[str]) -> int:
    """Assert no message names a card hidden from `viewer`; return how many hidden cards
    there were to find."""
    hidden = hidden_from(room, viewer)
    for msg in messages:
        text = json.dumps(msg)
        assert str(room.seed) not in text, "the seed left the server"
        for j, cards in hidden.items():
            for card in cards - seen:
                assert not mentions(text, card), (
                    f"seat {j}'s hidden {card} reached {viewer}: {text[:300]}")
        seen |= card_tokens(msg)
        for entry in msg.get("log", []):
            seen |= {w.strip(".,():") for w in entry["text"].split()}
    return sum(len(c - seen) for c in hidden.values())


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_no_seat_ever_gets_another_seats_hidden_cards(tmp_path: Path, game_id: str) -> None:
    manager = make_manager(tmp_path / "knapp.db")
    room, phones, table, spectator, hello = seated_room(manager, game_id)
    game = room.spec.game_obj()
    level = default_level(game)
    seen: dict[int | None, set[str]] = {s: set() for s in phones}
    seen[None] = set()
    seen_spectator: set[str] = set()
    # Each device's first view carries the log from the deal on.
    for s in phones:
        check(room, s, hello[s], seen[s])
    check(room, None, hello["table"], seen[None])
    check(room, None, hello["spectator"], seen_spectator)
    pick = Rng(f"probe:{game_id}")
    probed = 0
    for step in range(3000):
        if room.over:
            break
        seat = pick.choice(sorted(room.state.actors()))
        action = make_bot(game, level, seat, Rng(step)).choose(room.state.clone())
        out = phones[seat].receive(json.dumps({"type": "act", "seat": seat, "id": f"x{step}",
                                               "action": str(action), "step": room.step}))
        assert out[0]["type"] == "ack", out
        for s, phone in phones.items():
            msgs = out if s == seat else phone.updates()
            probed += check(room, s, msgs, seen[s])
        check(room, None, table.updates(), seen[None])
        check(room, None, spectator.updates(), seen_spectator)
    assert room.finished
    if game_id in HIDDEN_INFORMATION:
        assert probed > 0, "the probe never had a hidden card to look for"


def test_the_probe_catches_a_leak(tmp_path: Path) -> None:
    """The check itself bites: a seat's own view handed to another seat is caught."""
    manager = make_manager(tmp_path / "knapp.db")
    room, phones, _, _, _ = seated_room(manager, "manni")
    own = phones[1].updates(force=True)
    with pytest.raises(AssertionError, match="hidden"):
        check(room, 0, own, set())


@pytest.mark.parametrize("game_id", HIDDEN_INFORMATION)
def test_replays_show_a_seat_its_own_hand_and_nobody_elses(tmp_path: Path, game_id: str) -> None:
    manager = make_manager(tmp_path / "knapp.db")
    game = get_game(game_id)
    room, _ = manager.create({"game": game_id, "seats": game.default_seats, "bot_delay_s": 0,
                              "options": SHORT[game_id],
                              "plan": [{"kind": "person"}] + [{"kind": "bot", "level": "rule"}]
                              * (game.default_seats - 1)})
    _, cred = manager.join(room.room_id, room.table_codes[0], "Ada")
    for step in range(3000):
        if room.over:
            break
        manager.tick()
        if 0 in room.state.actors():
            manager.act(room.room_id, cred, 0, str(room.state.legal_actions(0)[0]),
                        action_id=f"r{step}", step=room.step)
    assert room.finished
    from controller.rooms.replay import replay_view

    with pytest.raises(RoomError, match="finished room"):
        live, _ = manager.create({"game": game_id, "seats": game.default_seats})
        replay_view(manager, live.room_id, 0, None)
    for step in range(room.step + 1):
        past = manager.replay_to(room.room_id, step)
        for seat, credential in ((None, None), (0, cred)):
            shown = replay_view(manager, room.room_id, step, credential)
            assert shown["seat"] == seat and shown["at"] == step
            text = json.dumps(shown)
            for cards in hidden_from(past, seat).values():
                assert not [c for c in cards if mentions(text, c)], (step, seat)
        if step == 1:
            mine = replay_view(manager, room.room_id, step, cred)["observation"]["hand"]
            assert mine == past.state.observation(0)["hand"]

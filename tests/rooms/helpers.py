"""Shared pieces of the rooms tests: a manager on a fake clock, devices, and the leak check."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.clock import FakeClock
from controller.rooms.manager import RoomManager
from controller.rooms.persist import RoomStore
from controller.rooms.protocol import Client
from controller.rooms.room import Room

BASE = "http://table.test:8000"
# The text of a card in every card game here (controller/games/cards.py): 2H..AC, a
# second deck's copy with a prime, jokers JK1..JK4.
CARD = re.compile(r"(10|[2-9AJQK])[HSDC]'?|JK\d")

# Options that make each game one short, whole game (a deal or two), so a test
# can play it to its end; every game's rules are the same as with the defaults.
SHORT: dict[str, dict[str, Any]] = {
    "manni": {"target": 1},
    "pukk": {"deals": 1},
    "rommy": {"target": 100, "max_deals": 2},
    "knuff": {"end": "rounds", "rounds": 1},
    "kobbla": {"max_turns": 40},
    "koob": {},
}


def make_manager(path: Path | str, clock: FakeClock | None = None,
                 seed: int = 271828182845904523536028747135) -> RoomManager:
    # A long seed, so a test can look for it in what the devices were sent.
    seeds = iter(range(seed, seed + 10_000))
    return RoomManager(RoomStore(path), clock=clock or FakeClock(1_000_000_000),
                       seeds=lambda: next(seeds))


def device(manager: RoomManager, room: Room, **hello: Any) -> tuple[Client, list[dict[str, Any]]]:
    """A connected device and the messages it got for its hello."""
    client = Client(manager, room.room_id, base_url=BASE)
    replies = client.receive(json.dumps({"type": "hello", **hello}))
    return client, replies


def last_view(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    views = [m for m in messages if m["type"] == "view"]
    return views[-1] if views else None


def strings(value: Any) -> Iterator[str]:
    """Every string leaf of a JSON value (dict values, list items)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def card_tokens(value: Any) -> set[str]:
    """The card texts among a JSON value's strings."""
    return {s for s in strings(value) if CARD.fullmatch(s)}


def hidden_from(room: Room, seat: int | None) -> dict[int, set[str]]:
    """Per other seat j: the cards seat j sees that `seat` (None: the table) may not, now,
    from the server's full state.

    What `seat` may see is its observation, the public one, and every event the
    rules show it (the server's log filtered by each event's `visible_to`): a card
    the rules reveal in an event (Púkk's exemption card when a player goes out) is
    public from then on even where the observation does not repeat it.
    """
    state = room.state
    mine = card_tokens(state.observation(seat)) | card_tokens(state.observation(None))
    for entry in room.log:  # filtered here, not by the code under test
        if entry.visible_to is None or (seat is not None and seat in entry.visible_to):
            mine |= card_tokens(entry.data)
    out = {}
    for j in range(room.spec.seats):
        if j != seat:
            out[j] = card_tokens(state.observation(j)) - mine
    return out


def mentions(text: str, card: str) -> bool:
    """Does `text` name `card` as a whole token (not as part of another card's text)?"""
    return re.search(rf"(?<![\w']){re.escape(card)}(?![\w'])", text) is not None

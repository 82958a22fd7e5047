"""Hot-seat: one device passes around; between two people's turns it shows a privacy
screen and gets the next person's private view only after they tap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.rooms.errors import SeatTaken
from tests.rooms.helpers import card_tokens, device, hidden_from, last_view, make_manager, mentions


def test_the_device_shows_nothing_private_until_the_next_person_taps(tmp_path: Path) -> None:
    manager = make_manager(tmp_path / "knapp.db")
    room, host = manager.create({"game": "rommy", "seats": 3, "hot_seat": True, "bot_delay_s": 0,
                                 "plan": [{"kind": "person", "name": "Ada"},
                                          {"kind": "person", "name": "Bea"},
                                          {"kind": "bot", "level": "rule"}]})
    seats, cred = manager.join_hot_seat(room.room_id, host)
    assert seats == [0, 1] and room.table_codes == {}
    with pytest.raises(SeatTaken):
        manager.join_hot_seat(room.room_id, host)
    tablet, replies = device(manager, room, credential=cred)
    handovers = 0
    for step in range(400):
        if room.over or handovers >= 6:
            break
        manager.tick()
        msgs = replies + tablet.updates()
        replies = []
        view = last_view(msgs)
        if view is None:
            continue
        if "handover" in view:
            handovers += 1
            # The privacy screen: the public view only, with none of anyone's hand.
            assert view["seat"] is None and view["legal"] == []
            hidden = set().union(*hidden_from(room, None).values())
            text = json.dumps(view)
            assert hidden and not any(mentions(text, c) for c in hidden)
            nxt = view["handover"]["seat"]
            # Acting before the tap is refused.
            out = tablet.receive(json.dumps({"type": "act", "seat": nxt, "id": f"early{step}",
                                             "action": "draw", "step": view["step"]}))
            assert out[0]["type"] == "refused" and "privacy screen" in out[0]["reason"]
            replies = tablet.receive(json.dumps({"type": "reveal", "seat": nxt}))
            shown = last_view(replies)
            assert shown is not None and shown["seat"] == nxt
            assert card_tokens(shown["observation"]["hand"]) == card_tokens(
                room.state.observation(nxt)["hand"])
            continue
        if view["seat"] is not None and view["legal"]:
            replies = tablet.receive(json.dumps({"type": "act", "seat": view["seat"],
                                                 "id": f"h{step}", "action": view["legal"][0],
                                                 "step": view["step"]}))
            assert replies[0]["type"] == "ack", replies
    assert handovers >= 2


@pytest.mark.parametrize("game", ["koob", "kobbla"])
def test_a_game_with_nothing_hidden_passes_the_device_without_a_privacy_screen(
        tmp_path: Path, game: str) -> None:
    manager = make_manager(tmp_path / "knapp.db")
    room, host = manager.create({"game": game, "hot_seat": True, "bot_delay_s": 0,
                                 "plan": [{"kind": "person", "name": "Ada"},
                                          {"kind": "person", "name": "Bea"}]})
    _seats, cred = manager.join_hot_seat(room.room_id, host)
    tablet, replies = device(manager, room, credential=cred)
    shown = set()
    for step in range(60):
        view = last_view(replies + tablet.updates())
        replies = []
        if room.over:
            break
        if view is None:
            continue
        assert "handover" not in view
        # The device shows the seat on turn straight away, ready to act for it.
        assert view["seat"] in view["actors"] and view["legal"]
        shown.add(view["seat"])
        replies = tablet.receive(json.dumps({"type": "act", "seat": view["seat"],
                                             "id": f"h{step}", "action": view["legal"][0],
                                             "step": view["step"]}))
        assert replies[0]["type"] == "ack", replies
    assert shown == {0, 1}

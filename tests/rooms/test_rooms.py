"""Rooms: seats, join codes, credentials, actions, undo, computer players, take-overs.

Everything runs on a fake clock through the room manager and the device
protocol (`controller.rooms.protocol.Client`), the same objects the web
carries over its WebSocket.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.clock import FakeClock
from controller.games import GAME_IDS, get_game
from controller.rooms.credentials import token_hash
from controller.rooms.errors import BadCredential, NoSuchRoom, RoomError, SeatTaken, StaleAction
from controller.rooms.manager import RoomManager
from controller.rooms.room import Room
from tests.rooms.helpers import SHORT, device, last_view, make_manager


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_000_000_000)


@pytest.fixture
def manager(tmp_path: Path, clock: FakeClock) -> RoomManager:
    return make_manager(tmp_path / "knapp.db", clock)


def kobbla(manager: RoomManager, **extra: object) -> tuple[Room, str]:
    return manager.create({"game": "kobbla", "seats": 2, "bot_delay_s": 0,
                           "plan": [{"kind": "person", "name": "Ada"},
                                    {"kind": "bot", "level": "rule"}], **extra})


def code_of(room: Room, seat: int) -> str:
    return room.table_codes[seat]


# -- the room and its seats -----------------------------------------------------------------


@pytest.mark.parametrize(("spec", "message"), [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": "manni", "seats": 5}, "takes 3 to 3 seats"),
    ({"game": "kobbla", "plan": [{"kind": "person"}, {"kind": "bot", "level": "genius"}]},
     "plan[1].level: no 'genius' computer player"),
    ({"game": "kobbla", "plan": [{"kind": "person"}]}, "plan must list 2 seats"),
    ({"game": "kobbla", "options": {"max_turns": "many"}}, "option 'max_turns' must be int"),
    ({"game": "kobbla", "bot_delay_s": 99}, "bot_delay_s must be a number of seconds"),
    ({"game": "kobbla", "plan": [{"kind": "alien"}, {"kind": "person"}]}, "plan[0].kind"),
    ({"game": "kobbla", "plan": [{"kind": "person", "name": "x" * 40}, {"kind": "person"}]},
     "at most 24"),
])
def test_a_bad_room_is_refused_naming_what_is_wrong(manager: RoomManager, spec: dict[str, object],
                                                    message: str) -> None:
    with pytest.raises(RoomError, match=message.replace("[", r"\[").replace("]", r"\]")):
        manager.create(spec)
    assert manager.store.rooms() == []


def test_the_credential_is_made_at_join_and_kept_only_as_a_hash(manager: RoomManager) -> None:
    room, host = kobbla(manager)
    before = [r.body for r in manager.store.records(room.room_id)]
    assert not any('"joined"' in b for b in before)  # no seat credential exists yet
    seats, credential = manager.join(room.room_id, code_of(room, 0), "Ada")
    assert seats == [0]
    bodies = "\n".join(r.body for r in manager.store.records(room.room_id))
    assert credential not in bodies and host not in bodies
    assert token_hash(credential) in bodies and token_hash(host) in bodies
    assert room.seats[0].holder == token_hash(credential)


def test_a_join_code_works_once_and_a_taken_seat_cannot_be_taken(manager: RoomManager) -> None:
    room, _ = manager.create({"game": "kobbla", "plan": [{"kind": "person"}, {"kind": "person"}]})
    code = code_of(room, 0)
    manager.join(room.room_id, code, "Ada")
    with pytest.raises(BadCredential, match="unknown or was already used"):
        manager.join(room.room_id, code, "Eve")
    assert 0 not in room.table_codes and 1 in room.table_codes
    with pytest.raises(BadCredential):
        manager.join(room.room_id, "forged-code-0000000", "Eve")
    assert room.seats[0].name == "Ada" and room.seats[1].kind == "open"


def test_a_computer_seat_takes_no_join_code(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    assert list(room.table_codes) == [0]


def test_a_forged_credential_changes_nothing(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    manager.join(room.room_id, code_of(room, 0), "Ada")
    action = str(room.state.legal_actions(0)[0])
    for forged in ("A" * 32, token_hash("x")[:40], "not a token!"):
        with pytest.raises(BadCredential):
            manager.act(room.room_id, forged, 0, action, action_id="a1", step=0)
    assert room.step == 0 and room.session.log == []


# -- actions --------------------------------------------------------------------------------


def test_an_illegal_action_gets_the_rules_message_and_changes_nothing(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    version = room.version
    with pytest.raises(RoomError, match=r"not allowed: .*\(rule: "):
        manager.act(room.room_id, cred, 0, "place:z9", action_id="a1", step=0)
    with pytest.raises(RoomError, match=r"malformed action|canonical text"):
        manager.act(room.room_id, cred, 0, "", action_id="a2", step=0)
    with pytest.raises(RoomError, match="at most 200"):
        manager.act(room.room_id, cred, 0, "place:" + "a" * 300, action_id="a3", step=0)
    assert room.version == version and room.step == 0
    assert "a1" not in room.action_ids


def test_a_stale_action_is_refused_with_the_reason(manager: RoomManager) -> None:
    room, _ = manager.create({"game": "koob", "plan": [{"kind": "person"}, {"kind": "person"}]})
    _, ada = manager.join(room.room_id, code_of(room, 0), "Ada")
    _, ben = manager.join(room.room_id, code_of(room, 1), "Ben")
    # Koob's toss: both teams may enter at once, so one entry makes the other's step old.
    assert room.state.actors() == {0, 1}
    manager.act(room.room_id, ada, 0, str(room.state.legal_actions(0)[0]), action_id="a", step=0)
    legal = room.state.legal_actions(1)
    with pytest.raises(StaleAction, match="you saw step 0, it is now step 1"):
        manager.act(room.room_id, ben, 1, str(legal[0]), action_id="b", step=0)
    assert room.step == 1


def test_an_action_id_is_applied_once(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    action = str(room.state.legal_actions(0)[0])
    assert manager.act(room.room_id, cred, 0, action, action_id="once", step=0) is True
    # The same id again (a resend after a reconnect): acknowledged, not applied again,
    # even though it names a step that is now old.
    assert manager.act(room.room_id, cred, 0, action, action_id="once", step=0) is False
    assert room.step == 1 and len(room.session.log) == 1


def test_a_resent_action_after_a_reconnect_is_applied_once(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    phone, replies = device(manager, room, credential=cred)
    view = last_view(replies)
    assert view is not None
    act = {"type": "act", "seat": 0, "action": view["legal"][0], "id": "p1", "step": view["step"]}
    first = phone.receive(json.dumps(act))
    assert first[0] == {"type": "ack", "id": "p1", "duplicate": False}
    phone.close()  # the Wi-Fi drops before the phone heard the ack ...
    again, replies = device(manager, room, credential=cred, after=view["log"][-1]["n"])
    second = again.receive(json.dumps(act))  # ... and it resends its pending action
    assert second[0] == {"type": "ack", "id": "p1", "duplicate": True}
    assert room.step == 1
    # Only the lines after the ones it had came back on reconnect, in order.
    view2 = last_view(replies)
    assert view2 is not None
    ns = [e["n"] for e in view2["log"]]
    assert ns == sorted(ns) and ns[0] == view["log"][-1]["n"] + 1


def test_undo_within_the_policy_is_shown_to_everyone(manager: RoomManager) -> None:
    room, _ = manager.create({"game": "koob", "plan": [{"kind": "person"}, {"kind": "person"}]})
    _, ada = manager.join(room.room_id, code_of(room, 0), "Ada")
    _, ben = manager.join(room.room_id, code_of(room, 1), "Ben")
    table, _ = device(manager, room)
    rid = room.room_id
    manager.act(rid, ada, 0, "toss:king", action_id="t0", step=0)
    manager.act(rid, ben, 1, "toss:0", action_id="t1", step=1)
    # Ben's team won the toss and enters a baton of its turn: it may take that back.
    manager.act(rid, ben, 1, str(room.state.legal_actions(1)[0]), action_id="b1", step=2)
    assert room.state.actors() == {1} and room.session.can_undo(1)
    with pytest.raises(RoomError, match="nothing to undo"):
        manager.undo(rid, ada, 0, "u-ada")
    log_before = len(room.session.log)
    assert manager.undo(rid, ben, 1, "u1") is True
    assert manager.undo(rid, ben, 1, "u1") is False  # the same take-back, resent
    assert len(room.session.log) < log_before
    view = last_view(table.updates())
    assert view is not None and view["log"][-1]["kind"] == "undone"
    assert "Ben takes back" in view["log"][-1]["text"] and not view["log"][-1]["private"]


# -- computer players, leaving, take-overs -------------------------------------------------


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_computers_fill_the_seats_and_a_person_plays_to_the_end(manager: RoomManager,
                                                                game_id: str) -> None:
    game = get_game(game_id)
    level = "rule" if game.has_bots else "random"
    plan = [{"kind": "person", "name": "Ada"}] + [{"kind": "bot", "level": level}] * (
        game.default_seats - 1)
    room, _ = manager.create({"game": game_id, "seats": game.default_seats, "plan": plan,
                              "options": SHORT[game_id], "bot_delay_s": 0})
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    phone, replies = device(manager, room, credential=cred)
    view = last_view(replies)
    for i in range(5000):
        if room.over:
            break
        manager.tick()
        view = last_view(phone.updates()) or view
        assert view is not None
        if view["legal"]:
            out = phone.receive(json.dumps({"type": "act", "seat": 0, "action": view["legal"][0],
                                            "id": f"a{i}", "step": view["step"]}))
            assert out[0]["type"] == "ack", out
            view = last_view(out) or view
    assert room.finished and room.state.is_terminal()
    final = last_view(phone.updates(force=True))
    assert final is not None and final["result"]["winners"] == room.state.winners()
    assert manager.store.rooms()[0].finished


def test_a_person_away_on_turn_is_replaced_and_takes_the_seat_back(manager: RoomManager,
                                                                   clock: FakeClock) -> None:
    room, _ = kobbla(manager, zombie_after_s=30)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    phone, _ = device(manager, room, credential=cred)
    phone.close()  # the phone sleeps on Ada's turn
    clock.advance(29)
    manager.tick()
    assert room.seats[0].computer is None and room.step == 0
    clock.advance(1)
    manager.tick()  # 30 s away: a computer plays for Ada
    assert room.seats[0].computer == "rule" and room.step >= 1
    back, replies = device(manager, room, credential=cred)
    view = last_view(replies)
    assert view is not None and view["legal"] == [] and view["seats"][0]["computer"] == "rule"
    with pytest.raises(RoomError, match="take it back first"):
        manager.act(room.room_id, cred, 0, "x", action_id="z", step=room.step)
    back.receive(json.dumps({"type": "reclaim", "seat": 0}))
    assert room.seats[0].computer is None
    assert any(e.kind == "reclaimed" for e in room.log)


def test_an_away_person_off_turn_is_not_replaced(manager: RoomManager, clock: FakeClock) -> None:
    room, _ = manager.create({"game": "kobbla", "zombie_after_s": 5, "bot_delay_s": 0,
                              "plan": [{"kind": "bot", "level": "random"}, {"kind": "person"}]})
    _, cred = manager.join(room.room_id, code_of(room, 1), "Ben")
    phone, _ = device(manager, room, credential=cred)
    phone.close()
    assert room.state.actors() == {0}
    clock.advance(100)
    room.changed_ns = clock.now_ns() + 10**12  # hold the computer back
    manager.tick()
    assert room.seats[1].computer is None


def test_leaving_lets_a_computer_play_on_and_opens_the_seat(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    phone, _ = device(manager, room, credential=cred)
    out = phone.receive(json.dumps({"type": "leave", "seat": 0}))
    assert out[-1]["type"] == "unbound"
    assert room.seats[0].holder is None and room.seats[0].computer == "rule"
    assert 0 in room.table_codes  # someone else may join instead of the computer
    with pytest.raises(BadCredential):
        manager.act(room.room_id, cred, 0, "x", action_id="q", step=room.step)
    manager.join(room.room_id, code_of(room, 0), "Bea")
    assert room.seats[0].computer is None and room.seats[0].name == "Bea"


def test_a_seat_moves_to_another_device_only_by_its_holder(manager: RoomManager) -> None:
    room, _ = kobbla(manager)
    _, old = manager.join(room.room_id, code_of(room, 0), "Ada")
    phone, _ = device(manager, room, credential=old)
    out = phone.receive(json.dumps({"type": "transfer", "seat": 0}))
    assert out[0]["type"] == "transfer" and "<svg" in out[0]["qr"]
    code = out[0]["url"].split("#", 1)[1]
    _, new = manager.join(room.room_id, code, "Ada")
    assert room.seats_of(new) == [0]
    assert phone.updates(force=True)[-1]["type"] == "unbound"
    with pytest.raises(BadCredential):
        room.seats_of(old)
    with pytest.raises(BadCredential):  # a transfer code works once
        manager.join(room.room_id, code, "Eve")


def test_the_table_frees_a_seat_and_a_stranger_cannot(manager: RoomManager) -> None:
    room, host = kobbla(manager)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    with pytest.raises(BadCredential):
        manager.computer_plays(room.room_id, "B" * 32, 0)
    manager.release(room.room_id, 0)  # the web asks for the table PIN first
    assert room.seats[0].holder is None and 0 in room.table_codes
    with pytest.raises(BadCredential):
        room.seats_of(cred)
    with pytest.raises(SeatTaken):
        manager.computer_plays(room.room_id, host, 1)  # seat 1 is a computer seat already


def test_unknown_rooms(manager: RoomManager) -> None:
    with pytest.raises(NoSuchRoom):
        manager.room("nope")
    with pytest.raises(NoSuchRoom):
        manager.join("nope", "code", "x")


def test_the_number_of_live_rooms_is_bounded(manager: RoomManager,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("controller.rooms.manager.MAX_LIVE_ROOMS", 2)
    kobbla(manager)
    kobbla(manager)
    with pytest.raises(RoomError, match="2 rooms are running already"):
        kobbla(manager)
    assert len(manager.store.rooms()) == 2


def test_a_computer_move_thought_out_on_an_old_step_is_dropped(
        manager: RoomManager, monkeypatch: pytest.MonkeyPatch) -> None:
    """The computer thinks outside the room's lock; if a person acted meanwhile (Koob's
    toss: both teams may enter), its move is dropped instead of applied on a new step."""
    room, _ = manager.create({"game": "koob", "bot_delay_s": 0,
                              "plan": [{"kind": "person"}, {"kind": "bot", "level": "random"}]})
    _, ada = manager.join(room.room_id, code_of(room, 0), "Ada")
    real = __import__("controller.rooms.bots", fromlist=["make_bot"]).make_bot

    def slow_bot(game, level, seat, rng):  # type: ignore[no-untyped-def]
        bot = real(game, level, seat, rng)
        choose = bot.choose

        def think(state):  # type: ignore[no-untyped-def]
            # While the computer thinks, Ada enters her toss.
            manager.act(room.room_id, ada, 0, "toss:king", action_id="ada", step=room.step)
            return choose(state)

        bot.choose = think
        return bot

    monkeypatch.setattr("controller.rooms.manager.make_bot", slow_bot)
    assert manager._computer_move(room) is False
    assert [(s, str(a)) for s, a in room.session.log] == [(0, "toss:king")]


def test_rooms_left_idle_make_way_for_new_ones(manager: RoomManager, clock: FakeClock,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("controller.rooms.manager.MAX_LIVE_ROOMS", 2)
    forgotten, _ = kobbla(manager)
    watched, _ = kobbla(manager)
    _watcher, _ = device(manager, watched)  # a spectator counts for nothing ...
    _, cred = manager.join(watched.room_id, code_of(watched, 0), "Ada")
    _phone, _ = device(manager, watched, credential=cred)  # ... a seat's device does
    clock.advance(29 * 60)
    with pytest.raises(RoomError, match="running already"):
        kobbla(manager)
    clock.advance(2 * 60)
    kobbla(manager)
    assert forgotten.closed == "idle" and watched.closed is None


def test_every_screen_hears_who_is_here(manager: RoomManager) -> None:
    room, host = kobbla(manager)
    _, cred = manager.join(room.room_id, code_of(room, 0), "Ada")
    table, _ = device(manager, room, host=host)
    phone, _ = device(manager, room, credential=cred)
    view = last_view(table.updates())
    assert view is not None and view["seats"][0]["connected"] is True
    phone.close()
    view = last_view(table.updates())
    assert view is not None and view["seats"][0]["connected"] is False

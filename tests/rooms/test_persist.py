"""Rooms are event-sourced in the table's SQLite file: a restart resumes every room with
the same seats, credentials and turn; a tampered log is refused, never half-believed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from controller.clock import FakeClock
from controller.rooms.errors import RoomStoreError
from controller.rooms.persist import RoomStore
from controller.store import EventStore
from tests.rooms.helpers import device, last_view, make_manager


def play(manager, room, cred, moves: int, tag: str = "m") -> None:  # type: ignore[no-untyped-def]
    for i in range(moves):
        manager.tick()
        if 0 in room.state.actors():
            manager.act(room.room_id, cred, 0, str(room.state.legal_actions(0)[0]),
                        action_id=f"{tag}{i}", step=room.step)


def test_a_restart_resumes_every_room_with_its_seats_credentials_and_turn(tmp_path: Path) -> None:
    db = tmp_path / "knapp.db"
    clock = FakeClock(5_000_000_000)
    first = make_manager(db, clock)
    room, host = first.create({"game": "rommy", "seats": 3, "bot_delay_s": 0,
                               "plan": [{"kind": "person", "name": "Ada"},
                                        {"kind": "bot", "level": "random"},
                                        {"kind": "bot", "level": "rule"}]})
    other, _ = first.create({"game": "kobbla", "plan": [{"kind": "person"}, {"kind": "person"}]})
    _, cred = first.join(room.room_id, room.table_codes[0], "Ada")
    play(first, room, cred, 12)
    before = (room.step, room.state.observation(0), room.state.observation(None),
              [s.to_json() | {"connected": False} for s in room.seats], room.names)
    old_code = other.table_codes[1]

    second = make_manager(db, clock)  # a new process over the same file
    assert sorted(second.resume()) == sorted([room.room_id, other.room_id])
    again = second.room(room.room_id)
    assert (again.step, again.state.observation(0), again.state.observation(None),
            [s.to_json() for s in again.seats], again.names) == before
    assert again.seed == room.seed and again.state.to_json() == room.state.to_json()
    assert again.seats_of(cred) == [0] and again.is_host(host)
    # The table's join codes are made afresh; the old one is gone with the old process.
    assert second.room(other.room_id).table_codes[1] != old_code
    _phone, replies = device(second, again, credential=cred)
    view = last_view(replies)
    assert view is not None and view["seat"] == 0 and view["step"] == again.step
    assert before[0] > 0
    play(second, again, cred, 3, tag="after-restart")
    assert again.step > before[0]


def test_a_room_shares_the_table_database_and_its_chain(tmp_path: Path) -> None:
    events = EventStore(tmp_path / "knapp.db")
    rooms = RoomStore.beside(events)
    assert rooms.path == events.path
    manager = make_manager(events.path)
    room, _ = manager.create({"game": "kobbla"})
    head = rooms.verify(room.room_id)
    assert head == manager.store.records(room.room_id)[-1].hash
    events.close()


def test_a_tampered_log_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "knapp.db"
    manager = make_manager(db)
    room, _ = manager.create({"game": "kobbla", "bot_delay_s": 0,
                              "plan": [{"kind": "bot", "level": "rule"}] * 2})
    for _ in range(5):
        manager.tick()
    with sqlite3.connect(db) as con:
        body = con.execute("SELECT body FROM room_events WHERE room_id=? AND kind='action' "
                           "ORDER BY seq LIMIT 1", (room.room_id,)).fetchone()[0]
        data = json.loads(body)
        data["seat"] = 1 - data["seat"]
        con.execute("UPDATE room_events SET body=? WHERE room_id=? AND body=?",
                    (json.dumps(data), room.room_id, body))
    fresh = make_manager(db)
    assert fresh.resume() == []
    assert "was altered" in fresh.messages[0]
    with pytest.raises(RoomStoreError, match="was altered"):
        fresh.room(room.room_id)


def test_a_finished_room_is_not_resumed_but_can_be_read(tmp_path: Path) -> None:
    db = tmp_path / "knapp.db"
    manager = make_manager(db)
    room, _ = manager.create({"game": "koob", "bot_delay_s": 0,
                              "plan": [{"kind": "bot", "level": "random"}] * 2})
    while not room.over:
        manager.tick()
    fresh = make_manager(db)
    assert fresh.resume() == []
    assert fresh.room(room.room_id).finished
    assert fresh.live_rooms() == []

"""The table's outbox: its logs read in commit order, confirmations, health, and what is due."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.clock import FakeClock
from controller.evidence.signing import TableKey
from controller.fleet.outbox import Outbox
from controller.fleet.sender import Sender
from controller.fleet.wire import check_link
from controller.rooms.persist import RoomStore
from controller.sim.driver import simulate
from controller.store import EventStore

OK = {"level": "ok", "message": ""}

KEY = TableKey(Ed25519PrivateKey.from_private_bytes(bytes(32)))  # a fixed test key


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    s = EventStore(tmp_path / "knapp.db", durable=False)
    yield s
    s.close()


def test_an_empty_table_has_an_empty_outbox(store: EventStore) -> None:
    box = Outbox(store.path, table_id="t1")
    assert box.read("events", 0, 10) == []
    assert box.read("room_events", 0, 10) == []  # no room table in the file yet
    assert box.confirmed() == {"events": 0, "room_events": 0, "health": 0, "reveals": 0}
    box.close()


def test_matches_and_rooms_are_read_in_commit_order_from_both_writers(store: EventStore) -> None:
    rooms = RoomStore(store.path, durable=False)
    box = Outbox(store.path, table_id="t1")
    assert box.changed()  # the first look
    assert not box.changed()  # nothing written since
    simulate(2, 1, 3, store=store)
    rooms.create("r1", "koob", {"kind": "created", "spec": {}, "seed": 1})
    rooms.append("r1", {"kind": "action", "n": 1})
    simulate(2, 1, 4, store=store)
    rooms.append("r1", {"kind": "action", "n": 2})
    assert box.changed()
    events = box.read("events", 0, 10_000)
    assert [r.pos for r in events] == sorted(r.pos for r in events)
    assert len(events) == sum(m.events for m in store.matches())
    # Per stream, in chain order.
    by_stream: dict[str, list[int]] = {}
    for row in events:
        by_stream.setdefault(row.stream, []).append(row.seq)
    assert all(seqs == list(range(len(seqs))) for seqs in by_stream.values())
    assert [r.kind for r in box.read("room_events", 0, 100)] == ["created", "action", "action"]
    # Paging: after a position, only what came later.
    half = events[len(events) // 2].pos
    assert [r.pos for r in box.read("events", half, 10_000)] == [r.pos for r in events
                                                               if r.pos > half]
    assert box.count_after("events", half) == len([r for r in events if r.pos > half])
    rooms.close()
    box.close()


def test_the_outbox_never_writes_the_table_s_file(store: EventStore) -> None:
    box = Outbox(store.path, table_id="t1")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        box._log_db.execute("DELETE FROM events")
    box.close()


def test_health_changes_are_a_chained_stream_written_only_on_change(store: EventStore) -> None:
    box = Outbox(store.path, table_id="t1")
    assert box.record_health({"pads": OK}, 100.0)
    assert not box.record_health({"pads": OK}, 101.0)  # the same: nothing new
    assert box.record_health({"pads": {"level": "down", "message": "disconnected"}}, 102.0)
    rows = box.read("health", 0, 10)
    assert [r.seq for r in rows] == [0, 1]
    assert box.last_health() == {"pads": {"level": "down", "message": "disconnected"}}
    sender = Sender(box, signer=KEY, clock=FakeClock(), wall=lambda: 5.0)
    recs = [r for r in sender.due() if r.stream == "health"]
    assert check_link(recs[0], None) is None and check_link(recs[1], recs[0].hash) is None
    box.close()


def test_what_the_cafe_confirmed_survives_a_restart_and_an_epoch_names_the_file(
        store: EventStore, tmp_path: Path) -> None:
    simulate(2, 1, 3, store=store)
    box = Outbox(store.path, table_id="t1")
    epoch = box.epoch
    last = box.last_pos("events")
    box.confirm({"events": last, "room_events": 5, "elsewhere": 3})  # 5: no such row
    box.close()
    box = Outbox(store.path, table_id="t1")
    assert box.epoch == epoch and box.confirmed()["events"] == last
    assert box.confirmed()["room_events"] == 0
    box.close()
    # The table's database replaced (a new card): the confirmation is not about this file.
    store.close()
    Path(store.path).unlink()
    fresh = EventStore(store.path, durable=False)
    simulate(2, 1, 9, store=fresh)
    said: list[str] = []
    box = Outbox(store.path, table_id="t1", log=said.append)
    assert box.epoch != epoch and box.confirmed()["events"] == 0
    assert "new outbox" in said[0]
    box.close()
    box = Outbox(store.path, table_id="t9", log=said.append)  # renamed table
    assert "table id changed" in said[-1]
    box.close()
    fresh.close()


def test_the_sender_keeps_a_window_and_moves_on_only_when_the_cafe_confirms(
        store: EventStore) -> None:
    simulate(2, 3, 5, store=store)
    box = Outbox(store.path, table_id="t1")
    clock = FakeClock()
    sender = Sender(box, signer=KEY, clock=clock, wall=lambda: 1000.0, window=10, resend_after_s=30)
    first = sender.due()
    assert len(first) == 10 and sender.in_flight == 10
    assert [r.after for r in first[1:]] == [r.pos for r in first[:-1]]
    assert first[0].after == 0
    assert sender.due() == []  # the window is full
    assert not sender.confirmed("another-epoch", {"events": first[-1].pos})
    assert sender.confirmed(box.epoch, {"events": first[4].pos})
    more = sender.due()
    assert len(more) == 5 and more[0].after == first[-1].pos
    assert sender.backlog() == sum(m.events for m in store.matches()) - 5
    box.close()


def test_what_is_not_confirmed_is_published_again_with_a_growing_wait(store: EventStore) -> None:
    simulate(2, 1, 5, store=store)
    box = Outbox(store.path, table_id="t1")
    clock = FakeClock()
    sender = Sender(box, signer=KEY, clock=clock, wall=lambda: 0.0, window=5, resend_after_s=30)
    first = sender.due()
    clock.advance(29)
    assert sender.due() == []
    clock.advance(1)
    again = sender.due()
    assert [r.pos for r in again] == [r.pos for r in first] and sender.resends == 1
    clock.advance(30)  # the wait doubled: not yet
    assert sender.due() == []
    clock.advance(30)
    assert len(sender.due()) == 5 and sender.resends == 2
    clock.advance(1000)
    assert sender.due(cafe_online=False) == []  # nobody to confirm: no point in resending
    assert sender.confirmed(box.epoch, {"events": first[-1].pos})
    nxt = sender.due()
    assert nxt[0].after == first[-1].pos
    clock.advance(30)  # a confirmation resets the wait
    assert [r.pos for r in sender.due()] == [r.pos for r in nxt]
    sender.restart()  # a reconnect: again from the confirmed position
    assert [r.pos for r in sender.due()] == [r.pos for r in nxt]
    box.close()

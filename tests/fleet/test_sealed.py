"""Hidden information stays at the table while its match or room runs, and the chain still holds.

A subscriber with the café's own broker account sees every record a table
publishes; while a match runs it sees no deck order and no shuffle seed,
while a room runs no seed and no move. Once they are over, the full records
come, with the hashes the sealed ones had, and the café keeps them.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from controller.clock import FakeClock
from controller.fleet.cafe import CafeService
from controller.fleet.ingest import Ingestor
from controller.fleet.local import LocalMosquitto
from controller.fleet.outbox import Outbox
from controller.fleet.seal import seal
from controller.fleet.sender import Sender
from controller.fleet.summaries import match_summary
from controller.fleet.wire import RECORDS_SUBSCRIPTION, WireRecord
from controller.rooms.manager import RoomManager
from controller.rooms.persist import RoomStore
from controller.sim.driver import simulate
from controller.store import EventStore, canonical_json, chain_hash
from tests.fleet.helpers import PASSWORDS, Table, holds_all, sealed_held, wait_for
from tests.fleet.test_broker import Raw
from tests.fleet.test_trust import TABLE_KEY


def one_match_events() -> list[object]:
    scratch = EventStore(":memory:", durable=False)
    simulate(3, 1, 21, store=scratch, seats=("Ada", "Ben", "Cleo"))
    return list(scratch.events(scratch.matches()[0].id))


def bodies_of(got: list[tuple[str, bytes]]) -> list[dict[str, object]]:
    return [json.loads(payload) for _topic, payload in got]


def test_a_subscriber_of_the_cafe_sees_no_deck_seed_or_move_of_a_running_game(
        mq: LocalMosquitto, cafe: CafeService, tmp_path: Path) -> None:
    spy = Raw(mq, "cafe", PASSWORDS["cafe"])
    assert spy.done.wait(10) and spy.connected.is_set()
    spy.client.subscribe(RECORDS_SUBSCRIPTION, qos=1)
    table = Table(mq, "t1", tmp_path / "t1").start()
    events = one_match_events()
    try:
        mid = table.store.create_match(first=events[0])  # type: ignore[arg-type]
        for ev in events[1:12]:
            table.store.append(mid, ev)  # type: ignore[arg-type]
        clock = FakeClock(10**9)
        manager = RoomManager(RoomStore(table.db_path, durable=False), clock=clock)
        room, _ = manager.create({"game": "kobbla", "seats": 2, "bot_delay_s": 1,
                                  "plan": [{"kind": "bot", "level": "rule"}] * 2,
                                  "options": {"max_turns": 40}})
        for _ in range(6):  # a computer moves once its second is up
            clock.advance(1.0)
            manager.tick()
        assert not room.over and room.step > 0
        table.link.wake()
        wait_for(cafe, lambda: holds_all(cafe, table), "the running game's records")
        assert sealed_held(cafe) == {("t1", f"match/{mid}"), ("t1", f"room/{room.room_id}")}

        deck = canonical_json(list(events[0].deck))  # type: ignore[attr-defined]
        seen = bodies_of(spy.got)
        assert seen, "the subscriber saw nothing"
        for msg in seen:
            text = json.dumps(msg)
            assert deck not in msg["body"] and str(room.seed) not in text  # type: ignore[operator]
            body = json.loads(msg["body"])  # type: ignore[arg-type]
            assert "deck" not in body and "seed" not in body
            if body["kind"] == "action":
                assert "action" not in body and msg["sealed"] is True
        started = next(m for m in seen if json.loads(m["body"])["kind"] == "started")  # type: ignore[arg-type]
        assert started["sealed"] is True and json.loads(started["body"])["deck_size"] == len(
            events[0].deck)  # type: ignore[attr-defined]
        # Nor does the café's database hold them, and its summary is still the referee's.
        held_bodies = cafe.read(lambda db: [b for (b,) in db.conn.execute(
            "SELECT body FROM fleet_records")])
        assert not any(deck in b or str(room.seed) in b for b in held_bodies)
        match = next(m for m in cafe.read(lambda db: db.matches()) if m["match"] == mid)
        own = table.store.open_match(mid)
        assert match["sealed"] and match["scores"] == own.scores()
        assert match["rounds"] == len(own.rounds)

        # The match and the room end: the full records follow, with the sealed hashes.
        spy.got.clear()
        for ev in events[12:]:
            table.store.append(mid, ev)  # type: ignore[arg-type]
        for _ in range(5000):
            if room.over:
                break
            clock.advance(1.0)
            manager.tick()
        assert room.over
        manager.store.close()
        table.link.wake()
        wait_for(cafe, lambda: holds_all(cafe, table) and not sealed_held(cafe),
                 "the full records after the end")
        full = cafe.read(lambda db: db.conn.execute(
            "SELECT stream, seq, body, prev, hash FROM fleet_records WHERE stream=%s AND seq=0",
            (f"match/{mid}",)).fetchone())
        assert deck in full[2] and chain_hash(full[3], full[2]) == full[4]
        assert any(m["source"] == "reveals" and deck in m["body"] for m in bodies_of(spy.got))
        rooms = cafe.read(lambda db: db.rooms())
        assert rooms[0]["over"] and rooms[0]["winners"] and not rooms[0]["sealed"]
    finally:
        spy.client.loop_stop()
        table.close()


def test_a_full_copy_that_is_not_the_sealed_record_is_refused(dsn: str, tmp_path: Path) -> None:
    store = EventStore(tmp_path / "knapp.db", durable=False)
    events = one_match_events()
    mid = store.create_match(first=events[0])  # type: ignore[arg-type]
    for ev in events[1:5]:
        store.append(mid, ev)  # type: ignore[arg-type]
    box = Outbox(store.path, table_id="t1")
    recs = Sender(box, signer=TABLE_KEY, clock=FakeClock(), wall=time.time,
                  window=1000).due()
    db = Ingestor.connect(dsn, wall=time.time)
    try:
        assert recs[0].sealed and db.ingest(recs, {}).accepted == len(recs)
        full_body = store.events(mid)[0].to_json()
        # Another deck under the sealed record's hash: the hash does not hold.
        other = dict(full_body, deck=list(reversed(full_body["deck"])))
        fake = dataclasses.replace(recs[0], body=canonical_json(other), sealed=False,
                                   source="reveals", pos=1, after=0).signed_by(TABLE_KEY)
        result = db.ingest([fake], {})
        assert result.refused and "differs from" not in result.refused[0].reason
        assert "not the record that was sealed" in result.refused[0].reason
        # A wrong seal (its seed shown) is no sealed record.
        leaky = dataclasses.replace(recs[0], body=seal(recs[0].stream, "started",
                                                       canonical_json(full_body)) or "",
                                    sealed=False).signed_by(TABLE_KEY)
        assert db.ingest([leaky], {}).refused
        assert match_summary([recs[0].body, *(r.body for r in recs[1:])])["sealed"]
        assert WireRecord.decode(recs[0].encode(), "t1") == recs[0]
    finally:
        db.close()
        box.close()
        store.close()


def test_the_table_remembers_what_went_out_sealed_across_a_restart(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "knapp.db", durable=False)
    events = one_match_events()
    mid = store.create_match(first=events[0])  # type: ignore[arg-type]
    for ev in events[1:5]:
        store.append(mid, ev)  # type: ignore[arg-type]
    box = Outbox(store.path, table_id="t1")
    first = Sender(box, signer=TABLE_KEY, clock=FakeClock(), wall=lambda: 1.0).due()
    assert first[0].kind == "started" and first[0].sealed
    assert all(not r.sealed for r in first[1:])  # nothing else of a match hides anything
    box.close()
    # The table restarts (its sealed streams are in fleet.db), then the match ends.
    for ev in events[5:]:
        store.append(mid, ev)  # type: ignore[arg-type]
    box = Outbox(store.path, table_id="t1")
    assert box.sealed_streams() == {("events", f"match/{mid}")}
    sender = Sender(box, signer=TABLE_KEY, clock=FakeClock(), wall=lambda: 1.0)
    sender.confirmed(box.epoch, {"events": first[-1].pos})
    rest = sender.due()
    assert rest and all(r.source == "events" for r in rest)
    assert box.sealed_streams() == set()
    full = sender.due()  # the next turn publishes the queued full copy
    assert [(r.source, r.seq, r.sealed) for r in full] == [("reveals", 0, False)]
    assert full[0].hash == first[0].hash and json.loads(full[0].body)["deck"] == list(
        events[0].deck)  # type: ignore[attr-defined]
    box.close()
    store.close()

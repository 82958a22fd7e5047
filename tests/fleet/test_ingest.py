"""Ingesting into the café's PostgreSQL: once, verified, in order, through a server restart."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.clock import FakeClock
from controller.evidence.signing import TableKey
from controller.fleet.ingest import Ingestor
from controller.fleet.local import LocalPostgres
from controller.fleet.outbox import Outbox
from controller.fleet.sender import Sender
from controller.fleet.summaries import match_summary
from controller.fleet.wire import Acks, WireRecord
from controller.sim.driver import simulate
from controller.store import EventStore, chain_hash

KEY = TableKey(Ed25519PrivateKey.from_private_bytes(bytes(32)))  # a fixed test key


@pytest.fixture
def db(dsn: str) -> Iterator[Ingestor]:
    ingestor = Ingestor.connect(dsn, wall=time.time)
    yield ingestor
    ingestor.close()


def table_records(tmp_path: Path, matches: int = 2, table: str = "t1") -> list[WireRecord]:
    store = EventStore(tmp_path / table / "knapp.db", durable=False)
    simulate(3, matches, 11, store=store)
    box = Outbox(store.path, table_id=table)
    box.record_health({"pads": {"level": "ok", "message": ""}}, 1.0)
    recs = Sender(box, signer=KEY, clock=FakeClock(), wall=time.time, window=100_000).due()
    box.close()
    store.close()
    return recs


def stored(db: Ingestor) -> list[tuple[str, str, int, str]]:
    return db.conn.execute("SELECT table_id, stream, seq, hash FROM fleet_records "
                           "ORDER BY table_id, stream, seq").fetchall()


def test_a_batch_is_stored_once_and_a_duplicate_changes_nothing(db: Ingestor,
                                                                tmp_path: Path) -> None:
    recs = table_records(tmp_path)
    acks: dict[tuple[str, str], Acks] = {}
    first = db.ingest(recs, acks)
    assert first.accepted == len(recs) and not first.refused
    before = stored(db)
    assert len(before) == len(recs)
    again = db.ingest(recs[3:] + recs[:3], acks)  # QoS 1 delivers twice, in any order
    assert again.accepted == 0 and again.duplicates == len(recs) and not again.refused
    assert stored(db) == before
    assert acks[("t1", recs[0].epoch)].upto["events"] == max(r.pos for r in recs
                                                             if r.source == "events")
    assert db.load_acks()[("t1", recs[0].epoch)].upto == acks[("t1", recs[0].epoch)].upto


def test_summaries_are_the_referee_s_own(db: Ingestor, tmp_path: Path) -> None:
    recs = table_records(tmp_path)
    db.ingest(recs, {})
    store = EventStore(tmp_path / "t1" / "knapp.db", durable=False)
    for m in db.matches():
        own = store.open_match(m["match"])
        assert m["scores"] == own.scores() and m["winners"] == list(own.winners)
        assert m["phase"] == "ended" and m["table"] == "t1"
    assert len(db.matches()) == len(store.matches())
    store.close()
    assert match_summary(['{"kind":"revealed"}'])["phase"] == "broken"


def test_an_altered_record_is_refused_and_reported_never_ingested(db: Ingestor,
                                                                  tmp_path: Path) -> None:
    recs = table_records(tmp_path, matches=1)
    victim = next(r for r in recs if r.kind == "grabbed")
    # Signed with the table's own key: the chain check alone must catch it.
    forged = dataclasses.replace(victim, body=victim.body.replace('"seat":"', '"seat":"X')
                                 ).signed_by(KEY)
    result = db.ingest([r if r is not victim else forged for r in recs], {})
    assert [f.reason for f in result.refused] and "altered" in result.refused[0].reason
    held = {(s, q) for _, s, q, _ in stored(db)}
    assert (victim.stream, victim.seq) not in held
    # Everything after it in that match waits for the true record; nothing forged counts.
    assert db.table_facts()["t1"]["waiting"] > 0
    assert db.refusals()[0]["reason"].startswith(f"{victim.stream} record {victim.seq}")
    # The true one arrives (the table sends it again): the rest of the match follows.
    db.ingest([victim], {})
    assert db.table_facts()["t1"]["waiting"] == 0
    assert len(stored(db)) == len(recs)


def test_a_different_copy_of_a_counted_record_is_refused(db: Ingestor, tmp_path: Path) -> None:
    recs = table_records(tmp_path, matches=1)
    db.ingest(recs, {})
    last = max((r for r in recs if r.stream.startswith("match/")), key=lambda r: r.seq)
    body = last.body.replace("}", ',"x":1}', 1) if '"x"' not in last.body else last.body
    fork = dataclasses.replace(last, body=body, hash=chain_hash(last.prev, body)).signed_by(KEY)
    result = db.ingest([fork], {})
    assert result.refused and "differs from the one already counted" in result.refused[0].reason
    assert db.conn.execute("SELECT hash FROM fleet_records WHERE stream=%s AND seq=%s",
                           (last.stream, last.seq)).fetchone()[0] == last.hash
    # Refused twice, reported once.
    db.ingest([fork], {})
    assert db.table_facts()["t1"]["refused"] == 1


def test_a_reordered_delivery_waits_for_its_predecessor(db: Ingestor, tmp_path: Path) -> None:
    recs = [r for r in table_records(tmp_path, matches=1) if r.source == "events"]
    acks: dict[tuple[str, str], Acks] = {}
    late, early = recs[:3], recs[3:6]
    result = db.ingest(early, acks)
    assert result.accepted == 0 and result.waiting == 3
    key = ("t1", recs[0].epoch)
    assert acks[key].upto["events"] == 0  # held, but not confirmed past the gap
    result = db.ingest(late, acks)
    assert result.accepted == 6 and db.table_facts()["t1"]["waiting"] == 0
    assert acks[key].upto["events"] == early[-1].pos
    assert [q for _, _, q, _ in stored(db)] == list(range(6))


def test_a_postgresql_restart_loses_nothing_and_counts_nothing_twice(
        pg_server: LocalPostgres, dsn: str, tmp_path: Path) -> None:
    recs = table_records(tmp_path, matches=2)
    db = Ingestor.connect(dsn, wall=time.time)
    acks: dict[tuple[str, str], Acks] = {}
    db.ingest(recs[:40], acks)
    before = {k: a.copy() for k, a in acks.items()}
    pg_server.restart()
    with pytest.raises(psycopg.OperationalError):
        db.ingest(recs[40:], acks)  # the server went away under the batch
    assert {k: a.upto for k, a in acks.items()} == {k: a.upto for k, a in before.items()}
    db.close()
    db = Ingestor.connect(dsn, wall=time.time)
    db.ingest(recs[30:], acks)  # the batch again, and some already held
    rows = stored(db)
    assert len(rows) == len(set(rows)) == len(recs)
    db.close()


def test_a_database_of_a_newer_version_is_refused(db: Ingestor, dsn: str) -> None:
    db.conn.execute("UPDATE fleet_meta SET value='99' WHERE key='schema'")
    with pytest.raises(psycopg.Error, match="schema 99"):
        Ingestor.connect(dsn, wall=time.time)


def test_an_altered_record_ahead_of_its_turn_is_refused_at_once(db: Ingestor,
                                                               tmp_path: Path) -> None:
    recs = [r for r in table_records(tmp_path, matches=1) if r.source == "events"]
    ahead = recs[5]
    forged = dataclasses.replace(ahead, body=ahead.body[:-1] + ',"x":1}').signed_by(KEY)
    result = db.ingest([forged], {})
    assert result.refused and "altered" in result.refused[0].reason and result.waiting == 0
    assert db.table_facts()["t1"]["waiting"] == 0

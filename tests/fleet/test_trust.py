"""A table's records count only when signed by that table's key: a broker password is not enough."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.clock import FakeClock
from controller.evidence.signing import TableKey, fingerprint
from controller.fleet.cafe import CafeService
from controller.fleet.ingest import Ingestor
from controller.fleet.local import LocalMosquitto
from controller.fleet.outbox import Outbox
from controller.fleet.sender import Sender
from controller.fleet.web import status_data
from controller.fleet.wire import WireRecord, key_fingerprint
from controller.sim.driver import simulate
from controller.store import EventStore
from tests.fleet.helpers import Table, cafe_config, held, holds_all, table_records, wait_for

TABLE_KEY = TableKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
OTHER_KEY = TableKey(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))))


def signed_records(folder: Path, key: TableKey, seed: int = 11,
                   table: str = "t1") -> list[WireRecord]:
    store = EventStore(folder / "knapp.db", durable=False)
    simulate(3, 1, seed, store=store)
    box = Outbox(store.path, table_id=table)
    recs = Sender(box, signer=key, clock=FakeClock(), wall=time.time, window=100_000).due()
    box.close()
    store.close()
    return recs


@pytest.fixture
def db(dsn: str) -> Iterator[Ingestor]:
    ingestor = Ingestor.connect(dsn, wall=time.time)
    yield ingestor
    ingestor.close()


def test_the_fleet_prints_a_key_s_fingerprint_as_knapp_verify_does() -> None:
    assert key_fingerprint(TABLE_KEY.public_raw) == fingerprint(TABLE_KEY.public_raw) \
        == TABLE_KEY.fingerprint


def test_a_table_s_key_is_pinned_at_first_contact_and_another_key_is_refused(
        db: Ingestor, tmp_path: Path) -> None:
    own = signed_records(tmp_path / "own", TABLE_KEY)
    assert db.ingest(own, {}).accepted == len(own)
    assert db.pinned_keys() == {"t1": TABLE_KEY.fingerprint}
    # Someone with t1's broker password but not its key writes a whole new match as t1.
    forged = signed_records(tmp_path / "forged", OTHER_KEY, seed=12)
    result = db.ingest(forged, {})
    assert result.accepted == 0 and len(result.refused) == len(forged)
    assert all(f"not by the key {TABLE_KEY.fingerprint} pinned for table t1" in r.reason
               for r in result.refused)
    assert {s for (_t, s) in db.counts()} == {r.stream for r in own}
    assert db.pinned_keys() == {"t1": TABLE_KEY.fingerprint}  # a refusal never re-pins


def test_an_unsigned_or_altered_record_is_refused(db: Ingestor, tmp_path: Path) -> None:
    recs = signed_records(tmp_path, TABLE_KEY)
    unsigned = dataclasses.replace(recs[0], sig="", key="")
    result = db.ingest([unsigned], {})
    assert result.refused and "not signed by a table key" in result.refused[0].reason
    # The right key named, the outbox position changed after signing: the signature fails.
    moved = dataclasses.replace(recs[0], pos=recs[0].pos + 1000)
    result = db.ingest([moved], {})
    assert result.refused and "signature does not hold" in result.refused[0].reason
    assert db.counts() == {}


def test_a_key_in_the_cafe_file_wins_over_first_contact(dsn: str, tmp_path: Path) -> None:
    recs = signed_records(tmp_path, TABLE_KEY)
    wrong = Ingestor.connect(dsn, wall=time.time, keys={"t1": OTHER_KEY.fingerprint})
    try:
        result = wrong.ingest(recs, {})
        assert result.accepted == 0
        assert f"the café file pins {OTHER_KEY.fingerprint} for table t1" in \
            result.refused[0].reason
    finally:
        wrong.close()
    strict = Ingestor.connect(dsn, wall=time.time, keys={"t2": OTHER_KEY.fingerprint},
                              trust="configured")
    try:
        result = strict.ingest(recs, {})
        assert result.accepted == 0 and "trusts configured keys only" in result.refused[0].reason
    finally:
        strict.close()
    right = Ingestor.connect(dsn, wall=time.time, keys={"t1": TABLE_KEY.fingerprint},
                             trust="configured")
    try:
        assert right.ingest(recs, {}).accepted == len(recs)
    finally:
        right.close()


def test_a_broker_password_alone_cannot_write_a_table_s_history(
        mq: LocalMosquitto, dsn: str, tmp_path: Path) -> None:
    cafe = CafeService(cafe_config(mq, dsn, tmp_path / "cafe")).start()
    real = Table(mq, "t1", tmp_path / "real").start()
    try:
        real.play(1)
        wait_for(cafe, lambda: holds_all(cafe, real), "the real t1's records")
    finally:
        real.close()
    before = held(cafe)
    # The same account and password, through the broker's ACL, but another table's key.
    impostor = Table(mq, "t1", tmp_path / "impostor").start()
    try:
        impostor.play(1, seed=50)
        wait_for(cafe, lambda: cafe.totals["refused"] >= len(table_records(impostor.db_path,
                                                                            "t1")),
                 "the impostor's records refused")
        assert held(cafe) == before
        t1 = next(t for t in status_data(cafe)["tables"] if t["table"] == "t1")
        assert t1["key"] == real.key.fingerprint and t1["refused"] > 0  # on the staff page
        refusals = cafe.read(lambda db: db.refusals(500))
        assert refusals and all("pinned for table t1 at first contact" in r["reason"]
                                for r in refusals)
        # Nothing refused was confirmed: the impostor's outbox is not the café's to move.
        assert impostor.link.sender.confirmed_pos["events"] == 0
    finally:
        impostor.close()
        cafe.stop()

"""The SQLite event store: append, replay, hash chain, tampering, bad files."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from controller.errors import StoreError
from controller.knapp.cards import solve
from controller.knapp.deck import shuffled_deck
from controller.knapp.match import Match
from controller.store import EventStore, genesis_hash, verify_records

S = 1_000_000_000


def played(store: EventStore) -> tuple[str, Match]:
    mid, m = store.new_match(("Ada", "Ben"), shuffled_deck(1), seed=1)
    t = S
    for who in ("Ada", "Ben", "Ada"):
        card = m.next_card
        assert card is not None
        m.reveal(card, t)
        m.grab(who, solve(card).answer, t + S, 100_000, "pads")
        m.advance(t + 2 * S)
        m.figures_home(t + 3 * S)
        t += 5 * S
    return mid, m


def test_store_replays_the_match(tmp_path: Path) -> None:
    db = tmp_path / "data" / "knapp.db"
    with EventStore(db) as store:
        mid, m = played(store)
        expected = m.to_json()
    with EventStore(db) as store:
        again = store.open_match(mid)
        assert again.to_json() == expected
        assert [i.id for i in store.matches()] == [mid]
        assert store.matches()[0].events == len(m.events)


def test_new_events_after_reopening_are_appended(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with EventStore(db) as store:
        mid, _ = played(store)
    with EventStore(db) as store:
        m = store.open_match(mid)
        m.undo("referee: wrong seat")
        n = len(m.events)
    with EventStore(db) as store:
        assert len(store.events(mid)) == n
        assert store.open_match(mid).rounds[-1].outcome.value == "undone"  # type: ignore[union-attr]


def test_hash_chain_links_every_record(tmp_path: Path) -> None:
    with EventStore(tmp_path / "k.db") as store:
        mid, _ = played(store)
        records = store.records(mid)
        assert records[0].prev == genesis_hash(mid)
        for a, b in itertools.pairwise(records):
            assert b.prev == a.hash
        assert store.verify(mid) == records[-1].hash


@pytest.mark.parametrize(("sql", "message"), [
    ("UPDATE events SET body = replace(body, 'Ben', 'Ada') WHERE seq = 6", "record 6 was altered"),
    ("DELETE FROM events WHERE seq = 4", "record 4 is missing"),
    ("UPDATE events SET prev = hash WHERE seq = 9", "record 9 does not follow"),
])
def test_tampering_is_found(tmp_path: Path, sql: str, message: str) -> None:
    db = tmp_path / "k.db"
    with EventStore(db) as store:
        mid, _ = played(store)
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    with EventStore(db) as store:
        with pytest.raises(StoreError, match=message):
            store.verify(mid)
        with pytest.raises(StoreError, match=message):
            store.open_match(mid)


def test_verify_records_on_an_exported_copy(tmp_path: Path) -> None:
    with EventStore(tmp_path / "k.db") as store:
        mid, _ = played(store)
        records = store.records(mid)
    assert verify_records(mid, records) == records[-1].hash
    with pytest.raises(StoreError):
        verify_records("another-id", records)


def test_not_a_database(tmp_path: Path) -> None:
    bad = tmp_path / "garbage.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable event store"):
        EventStore(bad)


def test_unknown_match_and_duplicate_ids(tmp_path: Path) -> None:
    with EventStore(tmp_path / "k.db") as store:
        store.create_match("m1")
        with pytest.raises(StoreError, match="already exists"):
            store.create_match("m1")
        with pytest.raises(StoreError, match="no match 'nope'"):
            store.verify("nope")
        with pytest.raises(StoreError, match="has no events"):
            store.open_match("m1")


def test_rejected_events_are_not_stored(tmp_path: Path) -> None:
    with EventStore(tmp_path / "k.db") as store:
        mid, m = store.new_match(("Ada", "Ben"), shuffled_deck(1))
        with pytest.raises(Exception, match="no card has been revealed"):
            m.grab("Ada", "dog", S)
        assert len(store.records(mid)) == 1


@pytest.mark.parametrize(("durable", "synchronous"), [(True, 2), (False, 1)])
def test_wal_and_every_event_committed_on_its_own(tmp_path: Path, durable: bool,
                                                  synchronous: int) -> None:
    db = tmp_path / "k.db"
    store = EventStore(db, durable=durable)
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == synchronous  # 2 = FULL
    mid, m = store.new_match(("Ada", "Ben"), shuffled_deck(1))
    card = m.next_card
    assert card is not None
    m.reveal(card, S)
    # Another connection already sees both events: each was committed as it came.
    other = sqlite3.connect(db)
    assert other.execute("SELECT kind FROM events WHERE match_id=? ORDER BY seq",
                         (mid,)).fetchall() == [("started",), ("revealed",)]
    other.close()
    store.close()


def test_another_writer_on_the_file_is_waited_for(tmp_path: Path) -> None:
    with EventStore(tmp_path / "k.db") as store:
        # The rooms' store and `knapp export` open the same file: a short wait, not a failure.
        assert store._db.execute("PRAGMA busy_timeout").fetchone()[0] == 2000


def test_newest_means_last_created_whatever_the_wall_clock_said(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with EventStore(db) as store:
        first, _ = store.new_match(("Ada", "Ben"), shuffled_deck(1))
        second, _ = store.new_match(("Ada", "Ben"), shuffled_deck(2))
    # A Pi without a real-time clock boots with its wall clock behind the last match's.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE matches SET created_utc = '2020-01-01T00:00:00Z' WHERE id = ?",
                    (second,))
    with EventStore(db) as store:
        assert [m.id for m in store.matches()] == [second, first]


def test_what_the_table_remembers_survives_reopening(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with EventStore(db) as store:
        store.set_table_state("paused", "m1")
        store.set_table_state("setup", {"seats": ["Ole", "Per"]})
        store.set_table_state("gone", 1)
        store.set_table_state("gone", None)
    with EventStore(db) as store:
        assert store.table_state() == {"paused": "m1", "setup": {"seats": ["Ole", "Per"]}}

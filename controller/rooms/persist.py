"""Rooms in the SQLite store, event-sourced beside the matches, on the same hash chain.

A room's log is its `created` record (game, seats, options, the secret seed,
who sits where) followed by every seat change and every action, each in its
own durable transaction. `kill -9` at any instant leaves a log that replays
to the room as it was after its last committed record: same seats, same
credential hashes, same turn. Records chain exactly like the matches'
(`controller.store.chain_hash` over the canonical JSON), from a genesis of
their own, so `verify` finds an edited, removed or reordered record.

The rooms live in their own tables of the table's database file, written
through a second connection: the table service writes matches from its own
thread under its own lock, and one sqlite3 connection shared by two threads
without that lock would interleave their transactions. SQLite's file locking
orders the two connections (WAL mode, with a busy timeout).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.rooms.errors import NoSuchRoom, RoomStoreError
from controller.store import EventStore, canonical_json, chain_hash

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    created_utc TEXT NOT NULL,
    game TEXT NOT NULL,
    finished_utc TEXT
);
CREATE TABLE IF NOT EXISTS room_events (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (room_id, seq)
);
"""
BUSY_TIMEOUT_MS = 10_000


def room_genesis(room_id: str) -> str:
    """The 'previous hash' of a room's first record."""
    return hashlib.sha256(f"knapp-room:{room_id}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """One stored room record with its place in the chain."""

    room_id: str
    seq: int
    kind: str
    body: str
    prev: str
    hash: str

    def data(self) -> dict[str, Any]:
        """The record's content (its kind included)."""
        value = json.loads(self.body)
        if not isinstance(value, dict):
            raise RoomStoreError(f"room {self.room_id}: record {self.seq} is not an object")
        return value


@dataclass(frozen=True, slots=True)
class RoomInfo:
    """A stored room, for listings."""

    id: str
    created_utc: str
    game: str
    finished: bool
    records: int


def verify_room_records(room_id: str, records: list[RoomRecord]) -> str:
    """Check a room's chain; return its head hash or raise `RoomStoreError` at the first break."""
    prev = room_genesis(room_id)
    for expected, rec in enumerate(records):
        if rec.seq != expected:
            raise RoomStoreError(f"room {room_id}: record {expected} is missing")
        if rec.prev != prev:
            raise RoomStoreError(f"room {room_id}: record {rec.seq} does not follow record "
                                 f"{rec.seq - 1} (chain broken)")
        if chain_hash(prev, rec.body) != rec.hash:
            raise RoomStoreError(f"room {room_id}: record {rec.seq} was altered "
                                 "(its hash does not match its content)")
        prev = rec.hash
    return prev


class RoomStore:
    """Append-only, hash-chained log of rooms in one SQLite file.

    Args:
        path: the database file (the table's `knapp.db`), or ":memory:" for tests.
        durable: fsync every commit (`synchronous=FULL`).
    """

    def __init__(self, path: str | Path, *, durable: bool = True) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=BUSY_TIMEOUT_MS / 1000)
            self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise RoomStoreError(f"{self.path}: not a usable room store: {exc}") from exc

    @classmethod
    def beside(cls, store: EventStore) -> RoomStore:
        """The room store in the same database file as the table's match store."""
        return cls(store.path)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create(self, room_id: str, game: str, first: dict[str, Any]) -> RoomRecord:
        """Register a room with its first record, atomically."""
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        try:
            with self._tx() as db:
                db.execute("INSERT INTO rooms (id, created_utc, game) VALUES (?, ?, ?)",
                           (room_id, created, game))
                return self._insert(db, room_id, first)
        except sqlite3.IntegrityError as exc:
            raise RoomStoreError(f"room {room_id} already exists") from exc

    def append(self, room_id: str, record: dict[str, Any], *, finished: bool = False) -> RoomRecord:
        """Append one record in its own durable transaction; `finished` marks the room over."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM rooms WHERE id=?", (room_id,)).fetchone() is None:
                raise NoSuchRoom(f"no room {room_id!r}")
            rec = self._insert(db, room_id, record)
            if finished:
                db.execute("UPDATE rooms SET finished_utc=? WHERE id=? AND finished_utc IS NULL",
                           (datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), room_id))
        return rec

    def _insert(self, db: sqlite3.Connection, room_id: str, record: dict[str, Any]) -> RoomRecord:
        kind = record.get("kind")
        if not isinstance(kind, str) or not kind:
            raise RoomStoreError(f"room {room_id}: a record needs a kind, got {record!r}")
        body = canonical_json(record)
        last = db.execute("SELECT seq, hash FROM room_events WHERE room_id=? "
                          "ORDER BY seq DESC LIMIT 1", (room_id,)).fetchone()
        seq, prev = (0, room_genesis(room_id)) if last is None else (last[0] + 1, last[1])
        digest = chain_hash(prev, body)
        db.execute("INSERT INTO room_events (room_id, seq, kind, body, prev, hash) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (room_id, seq, kind, body, prev, digest))
        return RoomRecord(room_id, seq, kind, body, prev, digest)

    def records(self, room_id: str) -> list[RoomRecord]:
        """A room's records in order (not verified)."""
        with self._lock:
            rows = self._db.execute("SELECT seq, kind, body, prev, hash FROM room_events "
                                    "WHERE room_id=? ORDER BY seq", (room_id,)).fetchall()
        return [RoomRecord(room_id, *row) for row in rows]

    def has_room(self, room_id: str) -> bool:
        """True when the store holds `room_id`."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM rooms WHERE id=?", (room_id,)).fetchone()
        return row is not None

    def verify(self, room_id: str) -> str:
        """Check a room's chain; return its head hash."""
        if not self.has_room(room_id):
            raise NoSuchRoom(f"no room {room_id!r}")
        return verify_room_records(room_id, self.records(room_id))

    def load(self, room_id: str) -> list[dict[str, Any]]:
        """A room's verified records, decoded."""
        if not self.has_room(room_id):
            raise NoSuchRoom(f"no room {room_id!r}")
        records = self.records(room_id)
        verify_room_records(room_id, records)
        try:
            return [r.data() for r in records]
        except json.JSONDecodeError as exc:
            raise RoomStoreError(f"room {room_id}: undecodable record: {exc}") from exc

    def rooms(self) -> list[RoomInfo]:
        """Every stored room, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT r.id, r.created_utc, r.game, r.finished_utc IS NOT NULL, "
                "(SELECT COUNT(*) FROM room_events e WHERE e.room_id = r.id) "
                "FROM rooms r ORDER BY r.created_utc DESC, r.rowid DESC").fetchall()
        return [RoomInfo(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]

"""The event store: every match's events in SQLite, as a hash chain.

Standard-library `sqlite3` in WAL mode. With `durable=True` (the default)
`synchronous=FULL` makes each commit survive a power cut; each event is its own
transaction, so a process killed at any instant leaves a log that replays to the
state it had after its last committed event.

Each record carries the previous record's hash and its own,
``hash = sha256(prev_hash + "\\n" + body)``, where `body` is the event's
canonical JSON. `verify` recomputes the chain, so an edited, removed or
reordered record is found, and the last hash of a match summarises everything
before it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.errors import IllegalEvent, NoSuchMatch, StoreError
from controller.knapp.cards import Card
from controller.knapp.events import Event, MatchRules, event_from_json
from controller.knapp.match import Match

SCHEMA_VERSION = 1

# Fault injection for the kill-and-resume test: KNAPP_FAULT="kill-in-tx:N" or
# "kill-after-commit:N" makes this process SIGKILL itself during (before the
# commit) or right after its Nth append, like a power cut at that instant.
# KNAPP_FAULT="announce" writes "appended N" to stderr after each commit, so a
# test can kill the process from outside at whatever instant it has reached.
_FAULT_ENV = "KNAPP_FAULT"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    created_utc TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS events (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
);
"""


def canonical_json(data: Any) -> str:
    """The one JSON text of a value: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def genesis_hash(match_id: str) -> str:
    """The 'previous hash' of a match's first record."""
    return hashlib.sha256(f"knapp-match:{match_id}".encode()).hexdigest()


def chain_hash(prev: str, body: str) -> str:
    """The hash of a record whose predecessor hashed to `prev`."""
    return hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Record:
    """One stored event with its place in the chain."""

    match_id: str
    seq: int
    kind: str
    body: str
    prev: str
    hash: str

    def event(self) -> Event:
        """Decode the event."""
        return event_from_json(json.loads(self.body))


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """A stored match, for listings."""

    id: str
    created_utc: str
    label: str
    events: int
    head: str


def verify_records(match_id: str, records: Sequence[Record]) -> str:
    """Check a match's chain; return the head hash or raise `StoreError` at the first break."""
    prev = genesis_hash(match_id)
    for expected_seq, rec in enumerate(records):
        if rec.seq != expected_seq:
            raise StoreError(f"match {match_id}: record {expected_seq} is missing "
                             f"(found seq {rec.seq})")
        if rec.prev != prev:
            raise StoreError(f"match {match_id}: record {rec.seq} does not follow record "
                             f"{rec.seq - 1} (chain broken)")
        if chain_hash(prev, rec.body) != rec.hash:
            raise StoreError(f"match {match_id}: record {rec.seq} was altered "
                             "(its hash does not match its content)")
        prev = rec.hash
    return prev


def _parse_fault(text: str) -> tuple[str, int] | None:
    where, _, n = text.partition(":")
    if where in ("kill-in-tx", "kill-after-commit") and n.isdigit():
        return where, int(n)
    if where == "announce":
        return where, -1
    return None


class EventStore:
    """Append-only, hash-chained event log of matches in one SQLite file.

    Args:
        path: the database file (created with its directory when missing), or
            ":memory:" for tests.
        durable: fsync every commit (`synchronous=FULL`); off only for bulk simulation.
    """

    def __init__(self, path: str | Path, *, durable: bool = True) -> None:
        self.path = str(path)
        self._appends = 0
        self._fault = _parse_fault(os.environ.get(_FAULT_ENV, ""))
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._check_version()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable event store: {exc}") from exc

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                             (str(SCHEMA_VERSION),))
        elif int(row[0]) > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: written by a newer version (schema {row[0]})")

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- matches ------------------------------------------------------------------

    def create_match(self, match_id: str | None = None, label: str = "",
                     first: Event | None = None) -> str:
        """Register a new match (with its first event, atomically) and return its id."""
        mid = match_id or uuid.uuid4().hex[:12]
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        try:
            with self._tx() as db:
                db.execute("INSERT INTO matches (id, created_utc, label) VALUES (?, ?, ?)",
                           (mid, created, label))
                if first is not None:
                    self._insert(db, mid, first)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"match {mid} already exists") from exc
        if first is not None:
            self._fault_point("kill-after-commit")
        return mid

    def matches(self) -> list[MatchInfo]:
        """Every stored match, newest first."""
        rows = self._db.execute(
            "SELECT m.id, m.created_utc, m.label, COUNT(e.seq), "
            "(SELECT hash FROM events WHERE match_id=m.id ORDER BY seq DESC LIMIT 1) "
            "FROM matches m LEFT JOIN events e ON e.match_id = m.id "
            "GROUP BY m.id ORDER BY m.created_utc DESC, m.rowid DESC"
        ).fetchall()
        return [MatchInfo(r[0], r[1], r[2], r[3], r[4] or genesis_hash(r[0])) for r in rows]

    def has_match(self, match_id: str) -> bool:
        """True when `match_id` is stored."""
        return self._db.execute("SELECT 1 FROM matches WHERE id=?", (match_id,)).fetchone() \
            is not None

    # -- events -------------------------------------------------------------------

    def append(self, match_id: str, event: Event) -> Record:
        """Append one event in its own durable transaction; return its record."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM matches WHERE id=?", (match_id,)).fetchone() is None:
                raise NoSuchMatch(f"no match {match_id!r} in {self.path}")
            record = self._insert(db, match_id, event)
        self._fault_point("kill-after-commit")
        return record

    def _insert(self, db: sqlite3.Connection, match_id: str, event: Event) -> Record:
        body = canonical_json(event.to_json())
        last = db.execute("SELECT seq, hash FROM events WHERE match_id=? "
                          "ORDER BY seq DESC LIMIT 1", (match_id,)).fetchone()
        seq, prev = (0, genesis_hash(match_id)) if last is None else (last[0] + 1, last[1])
        digest = chain_hash(prev, body)
        db.execute("INSERT INTO events (match_id, seq, kind, body, prev, hash) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (match_id, seq, event.kind, body, prev, digest))
        self._appends += 1
        self._fault_point("kill-in-tx")
        return Record(match_id, seq, event.kind, body, prev, digest)

    def _fault_point(self, where: str) -> None:
        if self._fault is None:
            return
        if self._fault == (where, self._appends):
            os.kill(os.getpid(), signal.SIGKILL)
        elif self._fault[0] == "announce" and where == "kill-after-commit":
            os.write(2, f"appended {self._appends}\n".encode())

    def records(self, match_id: str) -> list[Record]:
        """The stored records of a match, in order (not verified)."""
        rows = self._db.execute("SELECT seq, kind, body, prev, hash FROM events "
                                "WHERE match_id=? ORDER BY seq", (match_id,)).fetchall()
        return [Record(match_id, *row) for row in rows]

    def verify(self, match_id: str) -> str:
        """Check the match's hash chain; return its head hash or raise `StoreError`."""
        if not self.has_match(match_id):
            raise NoSuchMatch(f"no match {match_id!r} in {self.path}")
        return verify_records(match_id, self.records(match_id))

    def events(self, match_id: str) -> list[Event]:
        """The verified events of a match."""
        records = self.records(match_id)
        verify_records(match_id, records)
        try:
            return [r.event() for r in records]
        except (IllegalEvent, json.JSONDecodeError) as exc:
            raise StoreError(f"match {match_id}: undecodable event: {exc}") from exc

    def sink(self, match_id: str) -> Any:
        """A callable that appends events of `match_id` (for `Match(sink=...)`)."""

        def _sink(event: Event) -> None:
            self.append(match_id, event)

        return _sink

    # -- matches as objects ---------------------------------------------------------

    def new_match(self, seats: Sequence[str], deck: Sequence[Card], *,
                  rules: MatchRules | None = None, first_turner: int = 0,
                  seed: int | None = None, match_id: str | None = None,
                  label: str = "") -> tuple[str, Match]:
        """Create a stored match; every later event on it is appended first.

        The match row and its `started` event are written in one transaction, so a
        crash never leaves a match without its start.
        """
        created: list[str] = []

        def first_sink(event: Event) -> None:
            created.append(self.create_match(match_id, label, first=event))

        match = Match.new(seats, deck, rules=rules, first_turner=first_turner, seed=seed,
                          sink=first_sink)
        mid = created[0]
        match.attach(self.sink(mid))
        return mid, match

    def open_match(self, match_id: str) -> Match:
        """Replay a stored match; new events on it are appended to the store."""
        events = self.events(match_id)
        if not events:
            raise StoreError(f"match {match_id} has no events")
        try:
            return Match.replay(events, sink=self.sink(match_id))
        except IllegalEvent as exc:
            raise StoreError(f"match {match_id}: the log does not replay: {exc}") from exc

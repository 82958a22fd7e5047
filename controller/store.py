"""The event store: every match's events in SQLite, as a hash chain.

Standard-library `sqlite3` in WAL mode. With `durable=True` (the default)
`synchronous=FULL` makes each commit survive a power cut; each event is its own
transaction, so a process killed at any instant leaves a log that replays to the
state it had after its last committed event.

Each record carries the previous record's hash and its own,
``hash = sha256(prev_hash + "\\n" + body)``, where `body` is the event's
canonical JSON. `verify` recomputes the chain, so an edited, removed or
reordered record is found, and the last hash of a match summarises everything
before it. Each match's row keeps its head hash and record count, updated in
the same transaction as the record, so listing matches costs the same however
long their logs are; `summary`/`cache_summaries` keep one derived summary per
match keyed by that head (a cache: a new record changes the head).

A write the disk refuses (full, I/O error, read-only) raises `StoreUnavailable`
and leaves nothing half-written; the caller decides what the table does.
A small key-value `table_state` keeps what the table itself must remember
across restarts (the setup from the page, pause).

One connection serves every thread (the referee loop, web handlers, the
evidence worker), so every use of it holds one lock: a read from one thread
never runs inside another thread's open transaction.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.errors import IllegalEvent, NoSuchMatch, StoreError, StoreUnavailable
from controller.knapp.cards import Card
from controller.knapp.events import Event, MatchRules, event_from_json
from controller.knapp.match import Match

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 2000

# Fault injection for the kill-and-resume and full-disk tests:
# KNAPP_FAULT="kill-in-tx:N" or "kill-after-commit:N" makes this process
# SIGKILL itself during (before the commit) or right after its Nth append, like
# a power cut at that instant. KNAPP_FAULT="announce" writes "appended N" to
# stderr after each commit, so a test can kill the process from outside at
# whatever instant it has reached. KNAPP_FAULT="disk-full:N" caps the database
# at its size after the Nth append (`PRAGMA max_page_count`), so later writes
# meet SQLite's own SQLITE_FULL, as on a full SD card.
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
CREATE TABLE IF NOT EXISTS summaries (
    match_id TEXT PRIMARY KEY REFERENCES matches(id),
    head TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS table_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

# Columns added to `matches` in schema 2: the boot the match was created in,
# and its head hash and record count (kept by every append).
_MATCH_COLUMNS = (("boot", "TEXT NOT NULL DEFAULT ''"), ("n_events", "INTEGER NOT NULL DEFAULT 0"),
                  ("head", "TEXT NOT NULL DEFAULT ''"))


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
    """A stored match, for listings: its record count and head hash."""

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
    if where in ("kill-in-tx", "kill-after-commit", "disk-full") and n.isdigit():
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
        self._lock = threading.RLock()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            # Another connection may write the same file (the rooms' store, `knapp
            # export`): wait for its short transaction rather than fail at once.
            self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable event store: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the event store: "
                             f"{exc.strerror or exc}") from exc

    def _migrate(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        version = int(row[0]) if row is not None else SCHEMA_VERSION
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: written by a newer version (schema {row[0]})")
        have = {r[1] for r in self._db.execute("PRAGMA table_info(matches)")}
        missing = [(name, decl) for name, decl in _MATCH_COLUMNS if name not in have]
        if not missing and row is not None and version == SCHEMA_VERSION:
            return
        with self._tx() as db:
            for name, decl in missing:
                db.execute(f"ALTER TABLE matches ADD COLUMN {name} {decl}")
            if missing:  # a schema-1 store: fill in each match's head and count once
                db.execute("UPDATE matches SET n_events = (SELECT COUNT(*) FROM events e "
                           "WHERE e.match_id = matches.id), head = COALESCE((SELECT hash "
                           "FROM events e WHERE e.match_id = matches.id ORDER BY seq DESC "
                           "LIMIT 1), '')")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a refused write becomes `StoreUnavailable`."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    # SQLite rolls back by itself after SQLITE_FULL or an I/O error.
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreUnavailable(f"{self.path}: cannot write the event log: {exc}") \
                    from exc

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- matches ------------------------------------------------------------------

    def create_match(self, match_id: str | None = None, label: str = "",
                     first: Event | None = None, *, boot: str = "") -> str:
        """Register a new match (with its first event, atomically) and return its id.

        Args:
            boot: the boot id of the machine now (see `controller.clock.read_boot_id`).
        """
        mid = match_id or uuid.uuid4().hex[:12]
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        try:
            with self._tx() as db:
                db.execute("INSERT INTO matches (id, created_utc, label, boot) "
                           "VALUES (?, ?, ?, ?)", (mid, created, label, boot))
                if first is not None:
                    self._insert(db, mid, first)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"match {mid} already exists") from exc
        if first is not None:
            self._after_commit()
        return mid

    def matches(self) -> list[MatchInfo]:
        """Every stored match, newest first (in the order they were created).

        Ordered by insertion, not by `created_utc`: a Pi without a real-time
        clock can boot with its wall clock behind the last match's.
        """
        rows = self._read("SELECT id, created_utc, label, n_events, head FROM matches "
                          "ORDER BY rowid DESC")
        return [MatchInfo(r[0], r[1], r[2], r[3], r[4] or genesis_hash(r[0])) for r in rows]

    def info(self, match_id: str) -> MatchInfo:
        """One stored match's listing: record count and head hash."""
        rows = self._read("SELECT id, created_utc, label, n_events, head FROM matches "
                          "WHERE id=?", (match_id,))
        if not rows:
            raise NoSuchMatch(f"no match {match_id!r} in {self.path}")
        r = rows[0]
        return MatchInfo(r[0], r[1], r[2], r[3], r[4] or genesis_hash(r[0]))

    def has_match(self, match_id: str) -> bool:
        """True when `match_id` is stored."""
        return bool(self._read("SELECT 1 FROM matches WHERE id=?", (match_id,)))

    def match_boot(self, match_id: str) -> str:
        """The boot id the match's last event was written in ('' when unknown)."""
        rows = self._read("SELECT body FROM events WHERE match_id=? AND kind='booted' "
                          "ORDER BY seq DESC LIMIT 1", (match_id,))
        if rows:
            return str(json.loads(rows[0][0]).get("boot", ""))
        rows = self._read("SELECT boot FROM matches WHERE id=?", (match_id,))
        return str(rows[0][0]) if rows else ""

    # -- events -------------------------------------------------------------------

    def append(self, match_id: str, event: Event) -> Record:
        """Append one event in its own durable transaction; return its record.

        Raises:
            NoSuchMatch: no such match.
            StoreUnavailable: the disk refused the write; nothing was stored.
        """
        with self._tx() as db:
            if db.execute("SELECT 1 FROM matches WHERE id=?", (match_id,)).fetchone() is None:
                raise NoSuchMatch(f"no match {match_id!r} in {self.path}")
            record = self._insert(db, match_id, event)
        self._after_commit()
        return record

    def _insert(self, db: sqlite3.Connection, match_id: str, event: Event) -> Record:
        body = canonical_json(event.to_json())
        seq, prev = db.execute("SELECT n_events, head FROM matches WHERE id=?",
                               (match_id,)).fetchone()
        prev = prev or genesis_hash(match_id)
        digest = chain_hash(prev, body)
        db.execute("INSERT INTO events (match_id, seq, kind, body, prev, hash) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (match_id, seq, event.kind, body, prev, digest))
        db.execute("UPDATE matches SET n_events = ?, head = ? WHERE id = ?",
                   (seq + 1, digest, match_id))
        self._appends += 1
        self._fault_point("kill-in-tx")
        return Record(match_id, seq, event.kind, body, prev, digest)

    def _after_commit(self) -> None:
        self._fault_point("kill-after-commit")
        if self._fault == ("disk-full", self._appends):
            with self._lock:
                pages = self._db.execute("PRAGMA page_count").fetchone()[0]
                self._db.execute(f"PRAGMA max_page_count={int(pages)}")

    def _fault_point(self, where: str) -> None:
        if self._fault is None:
            return
        if self._fault == (where, self._appends):
            os.kill(os.getpid(), signal.SIGKILL)
        elif self._fault[0] == "announce" and where == "kill-after-commit":
            os.write(2, f"appended {self._appends}\n".encode())

    def records(self, match_id: str) -> list[Record]:
        """The stored records of a match, in order (not verified)."""
        rows = self._read("SELECT seq, kind, body, prev, hash FROM events "
                          "WHERE match_id=? ORDER BY seq", (match_id,))
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

    # -- what the table remembers, and cached summaries ---------------------------

    def table_state(self) -> dict[str, Any]:
        """What the table keeps across restarts (setup, pause), as JSON values."""
        return {k: json.loads(v) for k, v in self._read("SELECT key, value FROM table_state")}

    def set_table_state(self, key: str, value: Any) -> None:
        """Remember `value` (JSON-ready; None forgets it) under `key`, durably."""
        with self._tx() as db:
            if value is None:
                db.execute("DELETE FROM table_state WHERE key=?", (key,))
            else:
                db.execute("INSERT OR REPLACE INTO table_state VALUES (?, ?)",
                           (key, canonical_json(value)))

    def summaries(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Cached summaries: match id -> (the head they were made at, the summary)."""
        return {mid: (head, json.loads(body))
                for mid, head, body in self._read("SELECT match_id, head, body FROM summaries")}

    def cache_summaries(self, items: Mapping[str, tuple[str, dict[str, Any]]]) -> None:
        """Keep summaries (match id -> (head, summary)) in one transaction."""
        if not items:
            return
        with self._tx() as db:
            db.executemany("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?)",
                           [(mid, head, canonical_json(s)) for mid, (head, s) in items.items()])

    # -- matches as objects ---------------------------------------------------------

    def new_match(self, seats: Sequence[str], deck: Sequence[Card], *,
                  rules: MatchRules | None = None, first_turner: int = 0,
                  seed: int | None = None, match_id: str | None = None,
                  label: str = "", boot: str = "") -> tuple[str, Match]:
        """Create a stored match; every later event on it is appended first.

        The match row and its `started` event are written in one transaction, so a
        crash never leaves a match without its start.
        """
        created: list[str] = []

        def first_sink(event: Event) -> None:
            created.append(self.create_match(match_id, label, first=event, boot=boot))

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

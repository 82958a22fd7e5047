"""The table's outbox: its own logs, read in commit order, and what the café has confirmed.

The table's logs already are a durable outbox: every match event
(`events`) and every room record (`room_events`) is its own committed
transaction in the table's SQLite file, and nothing is ever deleted from
them. So the fleet tails those tables (log tailing) instead of copying each
record into a second table: nothing in the store changes, a record is in
the outbox the instant it is committed, and the referee never waits on a
fleet write. A record's outbox position is its SQLite rowid: writers take
turns (one write transaction at a time), each insert gets the next rowid,
and no row is deleted, so a reader that has seen position N can never later
meet a new row below N.

What the fleet writes itself lives in its own file beside the table's
(`fleet.db`): the positions the café has confirmed, and the table's health
changes as a hash-chained stream of their own. It reads the table's file
through a read-only (`query_only`) connection, and its own writes never take
the table file's write lock.

`epoch` names this outbox: when the table's database is replaced (a new SD
card), the confirmed positions belong to another file, and the outbox starts
again under a new epoch so the café counts from zero for it.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.fleet.wire import SOURCES, health_genesis
from controller.store import canonical_json, chain_hash

BUSY_TIMEOUT_MS = 2000
STATE_FILE = "fleet.db"

_STATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS confirmed (
    source TEXT PRIMARY KEY,
    pos INTEGER NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sealed (
    source TEXT NOT NULL,
    stream TEXT NOT NULL,
    PRIMARY KEY (source, stream)
);
CREATE TABLE IF NOT EXISTS reveals (
    pos INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,
    src_pos INTEGER NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (source, src_pos)
);
CREATE TABLE IF NOT EXISTS health (
    pos INTEGER PRIMARY KEY AUTOINCREMENT,
    seq INTEGER NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL
);
"""

# Per source: the query for rows after a position (rowid order is commit order).
_READ = {
    "events": "SELECT rowid, 'match/' || match_id, seq, kind, body, prev, hash FROM events "
              "WHERE rowid > ? ORDER BY rowid LIMIT ?",
    "room_events": "SELECT rowid, 'room/' || room_id, seq, kind, body, prev, hash "
                   "FROM room_events WHERE rowid > ? ORDER BY rowid LIMIT ?",
    "health": "SELECT pos, 'health', seq, kind, body, prev, hash FROM health "
              "WHERE pos > ? ORDER BY pos LIMIT ?",
}
_ROW_AT = {
    "events": "SELECT rowid, 'match/' || match_id, seq, kind, body, prev, hash FROM events "
              "WHERE rowid = ?",
    "room_events": "SELECT rowid, 'room/' || room_id, seq, kind, body, prev, hash "
                   "FROM room_events WHERE rowid = ?",
}
_STREAM = {
    "events": "SELECT rowid, kind, body, hash FROM events WHERE match_id = ? ORDER BY seq",
    "room_events": "SELECT rowid, kind, body, hash FROM room_events WHERE room_id = ? "
                   "ORDER BY seq",
}
_HASH_AT = {
    "events": "SELECT hash FROM events WHERE rowid = ?",
    "room_events": "SELECT hash FROM room_events WHERE rowid = ?",
    "health": "SELECT hash FROM health WHERE pos = ?",
    "reveals": "SELECT hash FROM reveals WHERE pos = ?",
}

_TABLES = {"events": ("events", "rowid"), "room_events": ("room_events", "rowid"),
           "health": ("health", "pos"), "reveals": ("reveals", "pos")}
_IN_STATE = ("health", "reveals")  # sources kept in fleet.db, not in the table's file


@dataclass(frozen=True, slots=True)
class Row:
    """One outbox row: its position and its record."""

    source: str
    pos: int
    stream: str
    seq: int
    kind: str
    body: str
    prev: str
    hash: str


class Outbox:
    """Read the table's logs in commit order; keep confirmations and health changes.

    Args:
        db_path: the table's database (`knapp.db`).
        state_path: the fleet's own file (default: `fleet.db` beside it).
        table_id: the table's id (its health stream's genesis depends on it).
        log: where to say what happened (an epoch change).
    """

    def __init__(self, db_path: str | Path, state_path: str | Path | None = None, *,
                 table_id: str, log: Callable[[str], None] = lambda _m: None) -> None:
        self.table_id = table_id
        self._lock = threading.Lock()
        self._log_db = sqlite3.connect(str(db_path), isolation_level=None,
                                       check_same_thread=False)
        self._log_db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._log_db.execute("PRAGMA query_only=1")  # the table's log is read, never written
        state = Path(state_path) if state_path else Path(db_path).with_name(STATE_FILE)
        self._state = sqlite3.connect(str(state), isolation_level=None, check_same_thread=False)
        self._state.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._state.execute("PRAGMA journal_mode=WAL")
        self._state.execute("PRAGMA synchronous=FULL")
        self._state.executescript(_STATE_SCHEMA)
        self._seen_version: int | None = None
        self._sealed: set[tuple[str, str]] | None = None
        self.epoch = self._check_epoch(log)

    def close(self) -> None:
        """Close both files."""
        with self._lock:
            self._log_db.close()
            self._state.close()

    def _meta(self, key: str) -> str | None:
        row = self._state.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _check_epoch(self, log: Callable[[str], None]) -> str:
        """Keep the epoch while every confirmed position still holds the record confirmed."""
        epoch = self._meta("epoch")
        same_table = self._meta("table") == self.table_id
        replaced = [src for src, pos, digest in
                    self._state.execute("SELECT source, pos, hash FROM confirmed")
                    if self._hash_at(src, pos) != digest]
        if epoch is not None and same_table and not replaced:
            return epoch
        new = secrets.token_hex(8)
        if epoch is not None:
            why = (f"the table id changed to {self.table_id!r}" if not same_table else
                   f"the {', '.join(replaced)} log is not the one the café confirmed")
            log(f"fleet: {why}; publishing everything again under a new outbox ({new})")
        self._state.execute("BEGIN IMMEDIATE")
        self._state.execute("DELETE FROM confirmed")
        self._state.execute("DELETE FROM sealed")  # the new outbox publishes all from zero
        self._state.execute("DELETE FROM reveals")
        if not same_table:  # its health chain starts from the old id's genesis
            self._state.execute("DELETE FROM health")
        self._state.execute("INSERT OR REPLACE INTO meta VALUES ('epoch', ?)", (new,))
        self._state.execute("INSERT OR REPLACE INTO meta VALUES ('table', ?)", (self.table_id,))
        self._state.execute("COMMIT")
        return new

    def _hash_at(self, source: str, pos: int) -> str | None:
        db = self._state if source in _IN_STATE else self._log_db
        try:
            row = db.execute(_HASH_AT[source], (pos,)).fetchone()
        except sqlite3.OperationalError:  # no such table yet
            return None
        return None if row is None else str(row[0])

    # -- reading ----------------------------------------------------------------------

    def changed(self) -> bool:
        """True when the table's file was written since the last call (cheap to ask)."""
        with self._lock:
            version = int(self._log_db.execute("PRAGMA data_version").fetchone()[0])
        changed = version != self._seen_version
        self._seen_version = version
        return changed

    def read(self, source: str, after: int, limit: int) -> list[Row]:
        """Up to `limit` rows of `source` after position `after`, in commit order."""
        if source == "reveals":
            return self._read_reveals(after, limit)
        db = self._state if source in _IN_STATE else self._log_db
        with self._lock:
            try:
                rows = db.execute(_READ[source], (after, limit)).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):  # no room was ever played on this table
                    return []
                raise
        return [Row(source, *r) for r in rows]

    def _read_reveals(self, after: int, limit: int) -> list[Row]:
        """The full copies due of sealed records: the record as stored, at the reveal's place."""
        with self._lock:
            wanted = self._state.execute("SELECT pos, source, src_pos, hash FROM reveals "
                                         "WHERE pos > ? ORDER BY pos LIMIT ?",
                                         (after, limit)).fetchall()
            out = []
            for pos, source, src_pos, digest in wanted:
                row = self._log_db.execute(_ROW_AT[source], (src_pos,)).fetchone()
                if row is not None and row[6] == digest:  # never another file's record
                    out.append(Row("reveals", pos, *row[1:]))
        return out

    # -- sealed records ----------------------------------------------------------------

    def note_sealed(self, source: str, stream: str) -> None:
        """Remember that `stream` went out sealed: its full records are due once it is over."""
        if (source, stream) in self.sealed_streams():
            return  # known already: no write (and no fsync) for each sealed move of a room
        with self._lock:
            self._state.execute("INSERT OR IGNORE INTO sealed VALUES (?, ?)", (source, stream))
            assert self._sealed is not None
            self._sealed.add((source, stream))

    def sealed_streams(self) -> set[tuple[str, str]]:
        """(source, stream) of every stream published sealed and not revealed yet."""
        with self._lock:
            if self._sealed is None:  # read once; this object is the only writer after
                self._sealed = {(s, st) for s, st in
                                self._state.execute("SELECT source, stream FROM sealed")}
            return set(self._sealed)

    def stream_rows(self, source: str, stream: str) -> list[tuple[int, str, str, str]]:
        """(position, kind, body, hash) of every record of `stream`, in order."""
        ident = stream.partition("/")[2]
        with self._lock:
            return [(int(p), str(k), str(b), str(h))
                    for p, k, b, h in self._log_db.execute(_STREAM[source], (ident,))]

    def reveal(self, source: str, stream: str, positions: list[tuple[int, str]]) -> None:
        """Queue the full copies of `stream`'s records at `positions` ((pos, hash)); it is
        no longer sealed. One transaction, so a crash leaves it sealed or fully queued."""
        with self._lock:
            self._state.execute("BEGIN IMMEDIATE")
            try:
                self._state.executemany("INSERT OR IGNORE INTO reveals (source, src_pos, hash) "
                                        "VALUES (?, ?, ?)",
                                        [(source, p, h) for p, h in positions])
                self._state.execute("DELETE FROM sealed WHERE source=? AND stream=?",
                                    (source, stream))
            except BaseException:
                self._state.execute("ROLLBACK")
                raise
            self._state.execute("COMMIT")
            if self._sealed is not None:
                self._sealed.discard((source, stream))

    def count_after(self, source: str, after: int) -> int:
        """How many rows of `source` lie after position `after`."""
        table, col = _TABLES[source]
        db = self._state if source in _IN_STATE else self._log_db
        with self._lock:
            try:
                row = db.execute(f"SELECT COUNT(*) FROM {table} WHERE {col} > ?",
                                 (after,)).fetchone()
            except sqlite3.OperationalError:
                return 0
        return int(row[0])

    def last_pos(self, source: str) -> int:
        """The newest position of `source` (0 when empty)."""
        table, col = _TABLES[source]
        db = self._state if source in _IN_STATE else self._log_db
        with self._lock:
            try:
                row = db.execute(f"SELECT MAX({col}) FROM {table}").fetchone()
            except sqlite3.OperationalError:
                return 0
        return int(row[0] or 0)

    # -- what the café confirmed --------------------------------------------------------

    def confirmed(self) -> dict[str, int]:
        """The confirmed position per source."""
        with self._lock:
            got = dict(self._state.execute("SELECT source, pos FROM confirmed").fetchall())
        return {s: int(got.get(s, 0)) for s in SOURCES}

    def confirm(self, upto: Mapping[str, int]) -> None:
        """Remember the café's confirmation (positions only move forward)."""
        with self._lock:
            self._state.execute("BEGIN IMMEDIATE")
            try:
                for source, pos in upto.items():
                    if source not in SOURCES or pos <= 0:
                        continue
                    digest = self._hash_at(source, pos)
                    if digest is None:  # a position this file does not hold: not ours
                        continue
                    self._state.execute(
                        "INSERT INTO confirmed VALUES (?, ?, ?) ON CONFLICT(source) DO UPDATE "
                        "SET pos=excluded.pos, hash=excluded.hash WHERE excluded.pos > pos",
                        (source, pos, digest))
            except BaseException:
                self._state.execute("ROLLBACK")
                raise
            self._state.execute("COMMIT")

    # -- the table's health, as records ------------------------------------------------

    def last_health(self) -> dict[str, Any] | None:
        """The parts of the newest health record (None before the first)."""
        with self._lock:
            row = self._state.execute("SELECT body FROM health ORDER BY seq DESC "
                                      "LIMIT 1").fetchone()
        return None if row is None else dict(json.loads(row[0])["parts"])

    def record_health(self, parts: Mapping[str, Any], wall: float) -> bool:
        """Append a health record when `parts` differ from the last one; True if appended.

        Args:
            parts: per part (pads, camera, disk, referee), its level and sentence.
            wall: the table's wall clock now (seconds), kept for the staff page.
        """
        if self.last_health() == dict(parts):
            return False
        body = canonical_json({"kind": "health", "parts": dict(parts), "wall": round(wall, 3)})
        with self._lock:
            self._state.execute("BEGIN IMMEDIATE")
            try:
                last = self._state.execute("SELECT seq, hash FROM health ORDER BY seq DESC "
                                           "LIMIT 1").fetchone()
                seq, prev = (0, health_genesis(self.table_id)) if last is None else (
                    last[0] + 1, last[1])
                self._state.execute("INSERT INTO health (seq, kind, body, prev, hash) "
                                    "VALUES (?, 'health', ?, ?, ?)",
                                    (seq, body, prev, chain_hash(prev, body)))
            except BaseException:
                self._state.execute("ROLLBACK")
                raise
            self._state.execute("COMMIT")
        return True

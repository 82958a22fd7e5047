"""The café's database: records ingested once, verified before they count, and what they add up to.

One transaction per batch of messages: the records that follow their
chain, their streams' heads, the records that wait for a predecessor, the
refusals, how far each table's outbox is held, and the summaries of the
matches and rooms the batch touched. A PostgreSQL restart in the middle
rolls the whole batch back; the service keeps the messages (unacknowledged
at the broker) and runs the batch again, so nothing is lost and nothing is
counted twice. Records are keyed on (table, stream, seq): a duplicate is
compared with what is held and changes nothing; a record that differs from
what is held, or does not follow its predecessor's hash, is refused and
kept apart with the reason, never ingested.

Trust: every record must be signed by its table's key. The key is the one
the café file pins for the table (`[keys]`), or else the one the table
signed with when the café first heard from it (pinned then in
`fleet_keys`); a record signed by any other key, or not signed, is refused,
so a broker password alone cannot write a table's history. A sealed record
(`controller.fleet.seal`) is placed by its chain position; its full copy,
published once its stream is over, must have the same hash and seal to the
same body, and replaces it.

Why this module is long: the batch transaction is one unit (verify, store,
resolve waiting records, positions, summaries), and splitting its steps
across modules would hide that they share one transaction.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from controller.fleet.seal import hides, is_sealing_of
from controller.fleet.summaries import match_summary, room_summary
from controller.fleet.wire import Acks, WireRecord, check_link, key_fingerprint
from controller.store import chain_hash

log = logging.getLogger("knapp.fleet.cafe")

SCHEMA_VERSION = 2  # 2: records keep their signature and envelope; pinned keys; sealed
TRUST_MODES = ("first-contact", "configured")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS fleet_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS fleet_records (
    table_id text NOT NULL, stream text NOT NULL, seq integer NOT NULL,
    kind text NOT NULL, body text NOT NULL, prev text NOT NULL, hash text NOT NULL,
    sent double precision NOT NULL, received double precision NOT NULL,
    PRIMARY KEY (table_id, stream, seq));
CREATE TABLE IF NOT EXISTS fleet_streams (
    table_id text NOT NULL, stream text NOT NULL, n integer NOT NULL, head text NOT NULL,
    first_received double precision NOT NULL, last_received double precision NOT NULL,
    PRIMARY KEY (table_id, stream));
CREATE TABLE IF NOT EXISTS fleet_pending (
    table_id text NOT NULL, stream text NOT NULL, seq integer NOT NULL, hash text NOT NULL,
    payload text NOT NULL, received double precision NOT NULL,
    PRIMARY KEY (table_id, stream, seq, hash));
CREATE TABLE IF NOT EXISTS fleet_refused (
    id bigserial PRIMARY KEY, table_id text NOT NULL, stream text NOT NULL,
    seq integer NOT NULL, hash text NOT NULL, reason text NOT NULL, payload text NOT NULL,
    received double precision NOT NULL,
    UNIQUE (table_id, stream, seq, hash, reason));
CREATE TABLE IF NOT EXISTS fleet_outbox (
    table_id text NOT NULL, epoch text NOT NULL, source text NOT NULL, upto bigint NOT NULL,
    PRIMARY KEY (table_id, epoch, source));
CREATE TABLE IF NOT EXISTS fleet_matches (
    table_id text NOT NULL, match_id text NOT NULL, summary jsonb NOT NULL,
    records integer NOT NULL, started double precision NOT NULL,
    updated double precision NOT NULL, PRIMARY KEY (table_id, match_id));
CREATE TABLE IF NOT EXISTS fleet_rooms (
    table_id text NOT NULL, room_id text NOT NULL, summary jsonb NOT NULL,
    records integer NOT NULL, started double precision NOT NULL,
    updated double precision NOT NULL, PRIMARY KEY (table_id, room_id));
CREATE TABLE IF NOT EXISTS fleet_health (
    table_id text PRIMARY KEY, parts jsonb NOT NULL, wall double precision NOT NULL,
    seq integer NOT NULL, received double precision NOT NULL);
CREATE TABLE IF NOT EXISTS fleet_leagues (
    id serial PRIMARY KEY, name text NOT NULL, created double precision NOT NULL,
    plan jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS fleet_keys (
    table_id text PRIMARY KEY, public_key text NOT NULL, fingerprint text NOT NULL,
    pinned double precision NOT NULL);
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS sealed boolean NOT NULL DEFAULT false;
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS epoch text NOT NULL DEFAULT '';
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT '';
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS pos bigint NOT NULL DEFAULT 0;
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS after_pos bigint NOT NULL DEFAULT 0;
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS sig text NOT NULL DEFAULT '';
ALTER TABLE fleet_records ADD COLUMN IF NOT EXISTS key text NOT NULL DEFAULT '';
"""
_COLUMNS = ("table_id, stream, seq, kind, body, prev, hash, sent, received, sealed, epoch, "
            "source, pos, after_pos, sig, key")


@dataclass(slots=True)
class Refusal:
    """A record refused, and why."""

    table: str
    stream: str
    seq: int
    reason: str


@dataclass(slots=True)
class BatchResult:
    """What one batch did."""

    accepted: int = 0
    revealed: int = 0
    duplicates: int = 0
    waiting: int = 0
    refused: list[Refusal] = field(default_factory=list)
    acks: dict[tuple[str, str], Acks] = field(default_factory=dict)  # the positions that moved
    tables: set[str] = field(default_factory=set)


@dataclass(slots=True)
class RebuildReport:
    """What a rebuild found."""

    records: int = 0
    refused: int = 0
    streams: int = 0
    matches: int = 0
    rooms: int = 0
    sealed: int = 0


class Ingestor:
    """The café's PostgreSQL, behind one connection.

    Args:
        conn: an open connection (autocommit; each batch is its own transaction).
        wall: the café's wall clock (seconds), stamped on what it receives.
        keys: per table, the fingerprint of the key its records must be signed with
            (the café file's `[keys]`); a table not listed is pinned at first contact.
        trust: ``first-contact`` (pin an unlisted table's key when first heard) or
            ``configured`` (refuse a table not listed in `keys`).
    """

    def __init__(self, conn: psycopg.Connection[Any], *, wall: Callable[[], float],
                 keys: Mapping[str, str] | None = None, trust: str = "first-contact") -> None:
        if trust not in TRUST_MODES:
            raise ValueError(f"trust must be one of {TRUST_MODES}, got {trust!r}")
        self.conn = conn
        self.wall = wall
        self.keys = dict(keys or {})
        self.trust = trust

    @classmethod
    def connect(cls, conninfo: str, *, wall: Callable[[], float],
                keys: Mapping[str, str] | None = None, trust: str = "first-contact",
                timeout_s: float = 5.0) -> Ingestor:
        """Open the database and make sure the schema is there.

        Raises:
            psycopg.OperationalError: the server is unreachable or refuses us.
        """
        conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=max(1, int(timeout_s)),
                               application_name="knapp fleet serve")
        ingestor = cls(conn, wall=wall, keys=keys, trust=trust)
        try:
            ingestor.setup()
        except BaseException:
            conn.close()
            raise
        return ingestor

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def setup(self) -> None:
        """Create the tables (idempotent); refuse a database of a newer version."""
        with self.conn.transaction():
            # One café service at a time creates the schema.
            self.conn.execute("SELECT pg_advisory_xact_lock(7311)")
            self.conn.execute(_SCHEMA)
            row = self.conn.execute("SELECT value FROM fleet_meta WHERE key='schema'").fetchone()
            if row is not None and int(row[0]) > SCHEMA_VERSION:
                raise psycopg.errors.FeatureNotSupported(
                    f"the café database has schema {row[0]}; this version reads "
                    f"{SCHEMA_VERSION}")
            self.conn.execute("INSERT INTO fleet_meta VALUES ('schema', %s) ON CONFLICT (key) "
                              "DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))

    def load_acks(self) -> dict[tuple[str, str], Acks]:
        """Every table's held outbox positions, per (table, epoch)."""
        out: dict[tuple[str, str], Acks] = {}
        for table, epoch, source, upto in self.conn.execute(
                "SELECT table_id, epoch, source, upto FROM fleet_outbox"):
            out.setdefault((table, epoch), Acks(epoch)).upto[source] = int(upto)
        return out

    # -- the batch ------------------------------------------------------------------------

    def ingest(self, batch: Sequence[WireRecord], acks: dict[tuple[str, str], Acks]
               ) -> BatchResult:
        """Verify and store a batch in one transaction.

        `acks` (the live positions) is changed only when the transaction commits.

        Raises:
            psycopg.Error: the database failed; nothing of the batch was stored.
        """
        result = BatchResult()
        trial = {k: v.copy() for k, v in acks.items()}
        now = self.wall()
        with self.conn.transaction(), self.conn.cursor() as cur:
            heads = self._heads(cur, {(r.table, r.stream) for r in batch})
            waiting_streams = {(t, s) for t, s in cur.execute(
                "SELECT DISTINCT table_id, stream FROM fleet_pending")}
            touched: set[tuple[str, str]] = set()
            rows: list[list[Any]] = []
            pins: dict[str, str | None] = {}
            for rec in batch:
                result.tables.add(rec.table)
                distrust = self._distrust(cur, rec, pins, now)
                if distrust is not None:
                    # Not the table's own: its outbox positions are not the table's either.
                    self._refuse(cur, rec, distrust, now, result)
                    continue
                queue = [rec]
                while queue:
                    current = queue.pop()
                    verdict = self._one(cur, current, heads=heads, now=now, result=result,
                                        rows=rows)
                    if verdict == "revealed":
                        touched.add((current.table, current.stream))
                    elif verdict == "accepted":
                        touched.add((current.table, current.stream))
                        if (current.table, current.stream) in waiting_streams:
                            queue.extend(self._waiting_next(cur, current, now, result))
                    elif verdict == "waiting":
                        waiting_streams.add((current.table, current.stream))
                key = (rec.table, rec.epoch)
                trial.setdefault(key, Acks(rec.epoch)).add(rec.source, rec.pos, rec.after)
            if rows:
                cur.executemany(f"INSERT INTO fleet_records ({_COLUMNS}) VALUES "
                                f"({', '.join(['%s'] * 16)})", rows)
            self._save_heads(cur, heads, touched, now)
            moved = self._save_positions(cur, acks, trial)
            self._summarise(cur, touched, now)
        acks.update(trial)
        result.acks = {k: acks[k] for k in moved}
        for r in result.refused:
            log.warning("fleet: refused from table %s: %s", r.table, r.reason)
        return result

    def pinned_keys(self) -> dict[str, str]:
        """Per table, the fingerprint pinned at first contact."""
        return {t: fp for t, fp in self.conn.execute("SELECT table_id, fingerprint "
                                                      "FROM fleet_keys")}

    def _distrust(self, cur: psycopg.Cursor[Any], rec: WireRecord,
                  pins: dict[str, str | None], now: float) -> str | None:
        """Why `rec` is not its table's own (None: signed by the table's trusted key)."""
        where = f"{rec.stream} record {rec.seq}"
        raw = rec.public_key()
        if not raw or not rec.sig:
            return f"{where} is not signed by a table key"
        got = key_fingerprint(raw)
        want = self.keys.get(rec.table)
        if want is None:
            if rec.table not in pins:
                row = cur.execute("SELECT fingerprint FROM fleet_keys WHERE table_id=%s",
                                  (rec.table,)).fetchone()
                pins[rec.table] = None if row is None else str(row[0])
            want = pins[rec.table]
            if want is None:
                if self.trust == "configured":
                    return (f"{where}: table {rec.table} has no key in the café file's [keys], "
                            "and the café trusts configured keys only")
                if not rec.signature_holds(raw):
                    return f"{where}: its signature does not hold"
                cur.execute("INSERT INTO fleet_keys VALUES (%s, %s, %s, %s) "
                            "ON CONFLICT (table_id) DO NOTHING", (rec.table, rec.key, got, now))
                pins[rec.table] = got
                log.info("fleet: table %s's key pinned at first contact: %s", rec.table, got)
                return None
            if got != want:
                return (f"{where} is signed by key {got}, not by the key {want} pinned for "
                        f"table {rec.table} at first contact")
        elif got != want:
            return (f"{where} is signed by key {got}, but the café file pins {want} for "
                    f"table {rec.table}")
        if not rec.signature_holds(raw):
            return f"{where}: its signature does not hold (altered, or not the table's)"
        return None

    def _heads(self, cur: psycopg.Cursor[Any], keys: set[tuple[str, str]]
               ) -> dict[tuple[str, str], tuple[int, str]]:
        heads: dict[tuple[str, str], tuple[int, str]] = {}
        if not keys:
            return heads
        tables, streams = zip(*sorted(keys), strict=True)
        for t, s, n, head in cur.execute(
                "SELECT s.table_id, s.stream, s.n, s.head FROM fleet_streams s "
                "JOIN unnest(%s::text[], %s::text[]) AS k(t, st) "
                "ON s.table_id = k.t AND s.stream = k.st", (list(tables), list(streams))):
            heads[(t, s)] = (int(n), str(head))
        return heads

    def _one(self, cur: psycopg.Cursor[Any], rec: WireRecord, *,
             heads: dict[tuple[str, str], tuple[int, str]], now: float, result: BatchResult,
             rows: list[list[Any]]) -> str:
        """Place one record: accepted, revealed, duplicate, waiting or refused."""
        key = (rec.table, rec.stream)
        n, head = heads.get(key, (0, ""))
        if rec.seq < n:
            if not rec.sealed and hides(rec.stream, rec.kind):
                return self._reveal(cur, rec, now, result, rows)
            held = head if rec.seq == n - 1 else self._held_hash(cur, rec, rows)
            if held == rec.hash:
                result.duplicates += 1
                return "duplicate"
            return self._refuse(cur, rec, f"{rec.stream} record {rec.seq} differs from the one "
                                          "already counted (a forged or altered copy)", now,
                                result)
        if rec.seq > n:
            if not rec.sealed and chain_hash(rec.prev, rec.body) != rec.hash:
                return self._refuse(cur, rec, f"{rec.stream} record {rec.seq} was altered (its "
                                              "hash does not match its content)", now, result)
            # A full copy waiting beside its sealed one (same hash) takes its place.
            cur.execute("INSERT INTO fleet_pending VALUES (%s, %s, %s, %s, %s, %s) "
                        + ("ON CONFLICT DO NOTHING" if rec.sealed else
                           "ON CONFLICT (table_id, stream, seq, hash) DO UPDATE "
                           "SET payload = excluded.payload"),
                        (rec.table, rec.stream, rec.seq, rec.hash, rec.encode().decode(), now))
            result.waiting += 1
            return "waiting"
        why = check_link(rec, head or None)
        if why is not None:
            return self._refuse(cur, rec, why, now, result)
        rows.append([rec.table, rec.stream, rec.seq, rec.kind, rec.body, rec.prev, rec.hash,
                     rec.sent, now, rec.sealed, rec.epoch, rec.source, rec.pos, rec.after,
                     rec.sig, rec.key])
        heads[key] = (n + 1, rec.hash)
        result.accepted += 1
        return "accepted"

    def _reveal(self, cur: psycopg.Cursor[Any], rec: WireRecord, now: float,
                result: BatchResult, rows: list[list[Any]]) -> str:
        """A full copy of a record already held: it unseals a sealed one, or is a duplicate."""
        pending = next((r for r in reversed(rows) if r[0] == rec.table and r[1] == rec.stream
                        and r[2] == rec.seq), None)
        if pending is not None:
            held = (pending[6], pending[5], pending[4], pending[9])
        else:
            found = cur.execute("SELECT hash, prev, body, sealed FROM fleet_records WHERE "
                                "table_id=%s AND stream=%s AND seq=%s",
                                (rec.table, rec.stream, rec.seq)).fetchone()
            if found is None:  # cannot be: the stream's head counts it; refuse, never guess
                return self._refuse(cur, rec, f"{rec.stream} record {rec.seq} is counted but "
                                              "not held", now, result)
            held = (str(found[0]), str(found[1]), str(found[2]), bool(found[3]))
        digest, prev, body, sealed = held
        if digest != rec.hash:
            return self._refuse(cur, rec, f"{rec.stream} record {rec.seq} differs from the one "
                                          "already counted (a forged or altered copy)", now,
                                result)
        if not sealed:
            result.duplicates += 1
            return "duplicate"
        if prev != rec.prev or chain_hash(rec.prev, rec.body) != rec.hash \
                or not is_sealing_of(body, rec.body, rec.stream, rec.kind):
            return self._refuse(cur, rec, f"{rec.stream} record {rec.seq}: the full copy is not "
                                          "the record that was sealed", now, result)
        if pending is not None:
            pending[4], pending[9], pending[10:16] = rec.body, False, [
                rec.epoch, rec.source, rec.pos, rec.after, rec.sig, rec.key]
        else:
            cur.execute("UPDATE fleet_records SET body=%s, sealed=false, epoch=%s, source=%s, "
                        "pos=%s, after_pos=%s, sig=%s, key=%s "
                        "WHERE table_id=%s AND stream=%s AND seq=%s",
                        (rec.body, rec.epoch, rec.source, rec.pos, rec.after, rec.sig, rec.key,
                         rec.table, rec.stream, rec.seq))
        result.revealed += 1
        return "revealed"

    @staticmethod
    def _held_hash(cur: psycopg.Cursor[Any], rec: WireRecord,
                   rows: list[list[Any]]) -> str | None:
        for row in reversed(rows):  # accepted earlier in this batch, not inserted yet
            if row[0] == rec.table and row[1] == rec.stream and row[2] == rec.seq:
                return str(row[6])
        found = cur.execute("SELECT hash FROM fleet_records WHERE table_id=%s AND stream=%s "
                            "AND seq=%s", (rec.table, rec.stream, rec.seq)).fetchone()
        return None if found is None else str(found[0])

    def _refuse(self, cur: psycopg.Cursor[Any], rec: WireRecord, reason: str, now: float,
                result: BatchResult) -> str:
        cur.execute("INSERT INTO fleet_refused (table_id, stream, seq, hash, reason, payload, "
                    "received) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (rec.table, rec.stream, rec.seq, rec.hash, reason, rec.encode().decode(),
                     now))
        result.refused.append(Refusal(rec.table, rec.stream, rec.seq, reason))
        return "refused"

    def _waiting_next(self, cur: psycopg.Cursor[Any], rec: WireRecord, now: float,
                      result: BatchResult) -> list[WireRecord]:
        """Records that waited for `rec`: taken out of waiting, to be placed now."""
        found = cur.execute("DELETE FROM fleet_pending WHERE table_id=%s AND stream=%s AND "
                            "seq=%s RETURNING payload", (rec.table, rec.stream, rec.seq + 1)
                            ).fetchall()
        out = []
        for (payload,) in found:
            out.append(WireRecord.decode(payload.encode(), rec.table))
            result.waiting -= 1
        return out

    @staticmethod
    def _save_heads(cur: psycopg.Cursor[Any], heads: dict[tuple[str, str], tuple[int, str]],
                    touched: set[tuple[str, str]], now: float) -> None:
        if not touched:
            return
        cur.executemany(
            "INSERT INTO fleet_streams VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (table_id, stream) DO UPDATE SET n = excluded.n, head = excluded.head, "
            "last_received = excluded.last_received",
            [(t, s, *heads[(t, s)], now, now) for t, s in sorted(touched)])

    @staticmethod
    def _save_positions(cur: psycopg.Cursor[Any], before: dict[tuple[str, str], Acks],
                        trial: dict[tuple[str, str], Acks]) -> list[tuple[str, str]]:
        moved = []
        params = []
        for key, acks in trial.items():
            old = before.get(key)
            for source, upto in acks.upto.items():
                if old is None or old.upto.get(source, 0) != upto:
                    params.append((key[0], key[1], source, upto))
                    if key not in moved:
                        moved.append(key)
        if params:
            cur.executemany("INSERT INTO fleet_outbox VALUES (%s, %s, %s, %s) ON CONFLICT "
                            "(table_id, epoch, source) DO UPDATE SET upto = excluded.upto",
                            params)
        return moved

    def _summarise(self, cur: psycopg.Cursor[Any], touched: Iterable[tuple[str, str]],
                   now: float) -> None:
        """Replay every match and room the batch moved; keep the latest health."""
        for table, stream in sorted(touched):
            kind, _, ident = stream.partition("/")
            bodies = [b for (b,) in cur.execute(
                "SELECT body FROM fleet_records WHERE table_id=%s AND stream=%s ORDER BY seq",
                (table, stream))]
            first = cur.execute("SELECT received FROM fleet_records WHERE table_id=%s AND "
                                "stream=%s AND seq=0", (table, stream)).fetchone()
            started = float(first[0]) if first else now
            if kind == "match":
                cur.execute(
                    "INSERT INTO fleet_matches VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT "
                    "(table_id, match_id) DO UPDATE SET summary = excluded.summary, "
                    "records = excluded.records, updated = excluded.updated",
                    (table, ident, Jsonb(match_summary(bodies)), len(bodies), started, now))
            elif kind == "room":
                cur.execute(
                    "INSERT INTO fleet_rooms VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT "
                    "(table_id, room_id) DO UPDATE SET summary = excluded.summary, "
                    "records = excluded.records, updated = excluded.updated",
                    (table, ident, Jsonb(room_summary(ident, bodies)), len(bodies), started,
                     now))
            elif stream == "health" and bodies:
                last = json.loads(bodies[-1])
                cur.execute(
                    "INSERT INTO fleet_health VALUES (%s, %s, %s, %s, %s) ON CONFLICT "
                    "(table_id) DO UPDATE SET parts = excluded.parts, wall = excluded.wall, "
                    "seq = excluded.seq, received = excluded.received",
                    (table, Jsonb(last.get("parts", {})), float(last.get("wall", 0.0)),
                     len(bodies) - 1, now))

    # -- rebuilding the read models ------------------------------------------------------------

    def rebuild(self) -> RebuildReport:
        """Check every held record again and derive every read model from them, in one
        transaction (the service's batches wait for it).

        Each stream is checked from its first record: the table's signature (the pinned
        or configured key), the chain, the sealed form. The first record that fails, and
        everything after it in its stream, is moved to the refusals with the reason.
        Then the streams' heads, the match and room summaries (so the leaderboard and
        the league) and each table's latest health are made again from what is left.
        """
        report = RebuildReport()
        now = self.wall()
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute("LOCK TABLE fleet_records IN EXCLUSIVE MODE")
            cur.execute("DELETE FROM fleet_streams")
            cur.execute("DELETE FROM fleet_matches")
            cur.execute("DELETE FROM fleet_rooms")
            cur.execute("DELETE FROM fleet_health")
            records = cur.execute(f"SELECT {_COLUMNS} FROM fleet_records "
                                  "ORDER BY table_id, stream, seq").fetchall()
            pins: dict[str, str | None] = {}
            heads: dict[tuple[str, str], tuple[int, str]] = {}
            spans: dict[tuple[str, str], tuple[float, float]] = {}
            broken: dict[tuple[str, str], str] = {}
            for (table, stream, seq, kind, body, prev, digest, sent, received, sealed, epoch,
                 source, pos, after, sig, key) in records:
                where = (table, stream)
                rec = WireRecord(table, epoch, source or "events", int(pos), int(after), stream,
                                 int(seq), kind, body, prev, digest, float(sent), bool(sealed),
                                 key, sig)
                why = broken.get(where)
                if why is None:
                    n, head = heads.get(where, (0, ""))
                    why = (f"{stream} record {seq} follows no record {seq - 1}" if seq != n
                           else self._distrust(cur, rec, pins, now)
                           or check_link(rec, head or None))
                    if why is not None:
                        broken[where] = why
                if why is not None:
                    cur.execute("INSERT INTO fleet_refused (table_id, stream, seq, hash, reason, "
                                "payload, received) VALUES (%s, %s, %s, %s, %s, %s, %s) "
                                "ON CONFLICT DO NOTHING",
                                (table, stream, seq, digest, f"rebuild: {why}",
                                 rec.encode().decode(), now))
                    cur.execute("DELETE FROM fleet_records WHERE table_id=%s AND stream=%s "
                                "AND seq=%s", (table, stream, seq))
                    report.refused += 1
                    continue
                heads[where] = (int(seq) + 1, digest)
                first, _last = spans.get(where, (float(received), float(received)))
                spans[where] = (first, float(received))
                report.records += 1
            cur.executemany("INSERT INTO fleet_streams VALUES (%s, %s, %s, %s, %s, %s)",
                            [(t, st, n, h, *spans[(t, st)]) for (t, st), (n, h) in heads.items()])
            self._summarise(cur, sorted(heads), now)
            report.streams = len(heads)
            report.matches = sum(1 for _t, st in heads if st.startswith("match/"))
            report.rooms = sum(1 for _t, st in heads if st.startswith("room/"))
            sealed = cur.execute("SELECT count(*) FROM fleet_records WHERE sealed").fetchone()
            report.sealed = int(sealed[0]) if sealed else 0
        for why in broken.values():
            log.warning("fleet: rebuild refused %s", why)
        return report

    # -- reads for the pages ------------------------------------------------------------------

    def table_facts(self) -> dict[str, dict[str, Any]]:
        """Per table: records held, refusals, waiting records, latest health, latest match."""
        facts: dict[str, dict[str, Any]] = {}

        def of(t: str) -> dict[str, Any]:
            return facts.setdefault(t, {"records": 0, "refused": 0, "waiting": 0,
                                        "last_refusal": None, "health": None,
                                        "last_match": None, "last_record": None,
                                        "key": None})

        for t, n, last in self.conn.execute("SELECT table_id, sum(n), max(last_received) FROM "
                                            "fleet_streams GROUP BY table_id"):
            of(t).update(records=int(n), last_record=float(last))
        for t, n in self.conn.execute("SELECT table_id, count(*) FROM fleet_refused "
                                      "GROUP BY table_id"):
            of(t)["refused"] = int(n)
        for t, reason in self.conn.execute("SELECT DISTINCT ON (table_id) table_id, reason "
                                           "FROM fleet_refused ORDER BY table_id, id DESC"):
            of(t)["last_refusal"] = reason
        for t, fp in self.conn.execute("SELECT table_id, fingerprint FROM fleet_keys"):
            of(t)["key"] = fp
        for t, n in self.conn.execute("SELECT table_id, count(*) FROM fleet_pending "
                                      "GROUP BY table_id"):
            of(t)["waiting"] = int(n)
        for t, parts, wall, received in self.conn.execute(
                "SELECT table_id, parts, wall, received FROM fleet_health"):
            of(t)["health"] = {"parts": parts, "wall": wall, "received": received}
        for t, mid, summary, updated in self.conn.execute(
                "SELECT DISTINCT ON (table_id) table_id, match_id, summary, updated "
                "FROM fleet_matches ORDER BY table_id, started DESC, updated DESC"):
            of(t)["last_match"] = {"match": mid, **summary, "updated": updated}
        return facts

    def matches(self) -> list[dict[str, Any]]:
        """Every match's summary with its table, oldest first."""
        return [{"table": t, "match": mid, "started": started, **summary}
                for t, mid, summary, started in self.conn.execute(
                    "SELECT table_id, match_id, summary, started FROM fleet_matches "
                    "ORDER BY started, table_id, match_id")]

    def rooms(self) -> list[dict[str, Any]]:
        """Every game room's summary with its table, newest first."""
        return [{"table": t, "room": rid, "started": started, **summary}
                for t, rid, summary, started in self.conn.execute(
                    "SELECT table_id, room_id, summary, started FROM fleet_rooms "
                    "ORDER BY started DESC, table_id, room_id")]

    def counts(self) -> dict[tuple[str, str], int]:
        """Records held per (table, stream)."""
        return {(t, s): int(n) for t, s, n in self.conn.execute(
            "SELECT table_id, stream, n FROM fleet_streams")}

    def add_league(self, name: str, plan: dict[str, Any]) -> int:
        """Keep a league night's plan; return its id."""
        row = self.conn.execute("INSERT INTO fleet_leagues (name, created, plan) VALUES "
                                "(%s, %s, %s) RETURNING id",
                                (name, self.wall(), Jsonb(plan))).fetchone()
        assert row is not None
        return int(row[0])

    def league(self, league_id: int | None = None) -> dict[str, Any] | None:
        """A league night (the newest when `league_id` is None)."""
        if league_id is None:
            row = self.conn.execute("SELECT id, name, created, plan FROM fleet_leagues "
                                    "ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = self.conn.execute("SELECT id, name, created, plan FROM fleet_leagues "
                                    "WHERE id = %s", (league_id,)).fetchone()
        if row is None:
            return None
        return {"id": int(row[0]), "name": row[1], "created": float(row[2]), "plan": row[3]}

    def refusals(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest refusals (no payloads: the staff need the reason)."""
        return [{"table": t, "stream": s, "seq": q, "reason": r, "received": at}
                for t, s, q, r, at in self.conn.execute(
                    "SELECT table_id, stream, seq, reason, received FROM fleet_refused "
                    "ORDER BY id DESC LIMIT %s", (limit,))]


"""The café service: subscribe to every table, ingest into PostgreSQL, know each table's state.

paho's thread only queues what arrives; one worker thread takes the queue
in batches, ingests each batch in one transaction (`Ingestor.ingest`),
and only then acknowledges the batch's messages to the broker (manual
acks, a persistent session) and publishes, retained, how far it holds each
table's outbox (the tables' end-to-end confirmation). While PostgreSQL is
down the batch waits in memory, unacknowledged, and is tried again when
the server is back; the broker holds the rest for the café's session.

What the staff page shows live comes from here: the broker and the
database (`Part`s: level, sentence, since), and per table its online
status from the retained status messages (the Last Will says offline),
how far its clock is off, and what was refused. Everything else (records,
health, matches, rooms) is read from PostgreSQL.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg

from controller.fleet.config import CafeConfig
from controller.fleet.ingest import BatchResult, Ingestor
from controller.fleet.live import Part, TableLive
from controller.fleet.mqtt import connect, make_client, reason_text
from controller.fleet.wire import (
    CAFE_STATUS_TOPIC,
    PROTOCOL,
    RECORDS_SUBSCRIPTION,
    STATUS_SUBSCRIPTION,
    Acks,
    BadMessage,
    WireRecord,
    acks_topic,
    table_of,
)
from controller.store import canonical_json

log = logging.getLogger("knapp.fleet.cafe")

BATCH = 500
SESSION_EXPIRY_S = 7 * 24 * 3600  # the broker keeps the café's queue this long while it is away
DB_RETRY_S = (0.5, 1, 2, 5)


class CafeService:
    """Every table's records into PostgreSQL, and the café's live state.

    Args:
        config: the café file.
        wall: the café's wall clock (seconds).
    """

    def __init__(self, config: CafeConfig, *, wall: Callable[[], float] = time.time) -> None:
        self.config = config
        self.wall = wall
        self.broker = Part()
        self.database = Part()
        self.tables: dict[str, TableLive] = {t: TableLive(t) for t in config.tables}
        self.acks: dict[tuple[str, str], Acks] = {}
        self.totals = {"accepted": 0, "duplicates": 0, "refused": 0, "waiting": 0}
        self.changed = threading.Condition()
        self.version = 0
        self._queue: queue.Queue[tuple[int, int, str, bytes, float]] = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._ingestor: Ingestor | None = None
        self._reader: Ingestor | None = None
        self._reader_lock = threading.Lock()
        self._client = make_client(config.broker, "knapp-cafe", manual_ack=True,
                                   will=(CAFE_STATUS_TOPIC, self._status(False)))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._worker = threading.Thread(target=self._work, name="fleet-ingest", daemon=True)

    def _status(self, online: bool) -> bytes:
        return canonical_json({"v": PROTOCOL, "online": online,
                               "at": round(self.wall(), 3)}).encode()

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> CafeService:
        """Connect to the database and the broker in the background; returns at once."""
        self._bump(self.broker.set("down", f"connecting to {self.config.broker.url}",
                                   self.wall()))
        self._worker.start()
        connect(self._client, self.config.broker, session_expiry_s=SESSION_EXPIRY_S)
        return self

    def stop(self) -> None:
        """Stop taking messages, finish the batch in hand, say offline, disconnect."""
        self._stop.set()
        self._worker.join(10)
        if self.broker.level == "ok":
            info = self._client.publish(CAFE_STATUS_TOPIC, self._status(False), qos=1,
                                        retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(3)
        self._client.disconnect()
        self._client.loop_stop()
        for db in (self._ingestor, self._reader):
            if db is not None:
                db.close()

    def _bump(self, changed: bool = True) -> None:
        if not changed:
            return
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def wait_until(self, predicate: Callable[[CafeService], bool], timeout_s: float) -> bool:
        """Block until `predicate(self)` holds after a change (tests, the bench)."""
        deadline = time.monotonic() + timeout_s
        with self.changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(left)
        return True

    # -- paho's thread ---------------------------------------------------------------------

    def _on_connect(self, client: Any, _u: Any, flags: Any, reason_code: Any, _p: Any) -> None:
        now = self.wall()
        if reason_code.is_failure:
            text = f"the broker refused the café: {reason_text(reason_code)}"
            log.error("fleet: %s", text)
            self._bump(self.broker.set("down", text, now))
            return
        client.subscribe([(RECORDS_SUBSCRIPTION, 1), (STATUS_SUBSCRIPTION, 1)])
        client.publish(CAFE_STATUS_TOPIC, self._status(True), qos=1, retain=True)
        resumed = " (its queue kept)" if getattr(flags, "session_present", False) else ""
        log.info("fleet: café connected to %s%s", self.config.broker.url, resumed)
        self._bump(self.broker.set("ok", f"connected to {self.config.broker.url}{resumed}", now))

    def _on_disconnect(self, _c: Any, _u: Any, _f: Any, reason_code: Any, _p: Any) -> None:
        if self._stop.is_set():
            return
        text = f"lost the broker ({reason_text(reason_code)}); reconnecting"
        log.warning("fleet: %s", text)
        self._bump(self.broker.set("down", text, self.wall()))

    def _on_message(self, client: Any, _u: Any, msg: Any) -> None:
        now = self.wall()
        table = table_of(msg.topic)
        if table is None:
            client.ack(msg.mid, msg.qos)
            return
        if msg.topic.endswith("/status"):
            self._table_status(table, msg.payload, now)
            client.ack(msg.mid, msg.qos)
            return
        self._queue.put((msg.mid, msg.qos, table, bytes(msg.payload), now))

    def live(self, table: str) -> TableLive:
        """What the café knows live of `table` (made when first heard of)."""
        with self._lock:  # paho's thread adds tables as they appear
            return self.tables.setdefault(table, TableLive(table))

    def table_states(self) -> list[TableLive]:
        """Every table heard of or configured, by id."""
        with self._lock:
            return sorted(self.tables.values(), key=lambda t: t.table)

    def _table_status(self, table: str, payload: bytes, now: float) -> None:
        live = self.live(table)
        try:
            data = json.loads(payload) if payload else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("online"), bool):
            log.warning("fleet: table %s sent an unreadable status", table)
            return
        online = bool(data["online"])
        if online != live.online:
            log.info("fleet: table %s is %s%s", table, "online" if online else "offline",
                     "" if online else f" ({data.get('reason', '')})")
            live.since = now
            live.offsets.clear()
        live.online = online
        live.last_heard = now
        if online and isinstance(data.get("at"), int | float):
            live.offsets.append(float(data["at"]) - now)
        live.reason = str(data.get("reason", ""))
        live.name = str(data.get("name", "")) or live.name
        live.epoch = str(data.get("epoch", ""))
        live.software = str(data.get("software", ""))
        self._bump()

    # -- the worker --------------------------------------------------------------------------

    def _work(self) -> None:
        self._ensure_db()
        while not self._stop.is_set():
            try:
                first = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            items = [first]
            while len(items) < BATCH:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._handle(items)

    def _ensure_db(self) -> bool:
        """Connect to PostgreSQL if not connected; False (status set) when it is down."""
        if self._ingestor is not None and not self._ingestor.conn.closed:
            return True
        try:
            self._ingestor = Ingestor.connect(self.config.database, wall=self.wall,
                                              keys=dict(self.config.keys),
                                              trust=self.config.trust)
            self.acks = self._ingestor.load_acks()
        except psycopg.Error as exc:
            self._ingestor = None
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            text = f"database unavailable: {first}"
            if self.database.set("down", text, self.wall()):
                log.error("fleet: %s; records wait (unacknowledged) until it is back", text)
                self._bump()
            return False
        if self.database.set("ok", "connected", self.wall()):
            log.info("fleet: database connected")
            self._bump()
        return True

    def _handle(self, items: list[tuple[int, int, str, bytes, float]]) -> None:
        batch: list[WireRecord] = []
        for _mid, _qos, table, payload, received in items:
            try:
                rec = WireRecord.decode(payload, table)
            except BadMessage as exc:
                live = self.live(table)
                live.bad_messages += 1
                live.last_bad = str(exc)
                log.warning("fleet: table %s sent a message that is no record: %s", table, exc)
                continue
            live = self.live(table)
            live.offsets.append(rec.sent - received)
            live.last_heard = received
            batch.append(rec)
        result = self._ingest(batch)
        if result is None:
            return  # stopping: unacknowledged, the broker delivers them again next time
        for mid, qos, *_ in items:
            self._client.ack(mid, qos)
        self._done(result)

    def _ingest(self, batch: list[WireRecord]) -> BatchResult | None:
        """Ingest `batch`, waiting out a database that is down; None when stopping."""
        attempt = 0
        while True:
            if self._ensure_db():
                assert self._ingestor is not None
                try:
                    return self._ingestor.ingest(batch, self.acks)
                except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                    self._db_failed(exc)
                except psycopg.Error as exc:
                    # Not the connection: something in the batch the database will not
                    # take. Place the records one by one and set aside the one that fails.
                    return self._ingest_singly(batch, exc)
            if self._stop.is_set():
                return None
            self._stop.wait(DB_RETRY_S[min(attempt, len(DB_RETRY_S) - 1)])
            attempt += 1

    def _ingest_singly(self, batch: list[WireRecord], exc: psycopg.Error
                       ) -> BatchResult | None:
        total = BatchResult()
        if len(batch) == 1:
            rec = batch[0]
            live = self.live(rec.table)
            live.bad_messages += 1
            live.last_bad = f"{rec.stream} record {rec.seq}: the database refused it ({exc})"
            log.error("fleet: table %s: %s", rec.table, live.last_bad)
            return total
        for rec in batch:
            one = self._ingest([rec])
            if one is None:
                return None
            total.accepted += one.accepted
            total.revealed += one.revealed
            total.duplicates += one.duplicates
            total.waiting += one.waiting
            total.refused += one.refused
            total.acks.update(one.acks)
            total.tables |= one.tables
        return total

    def _db_failed(self, exc: psycopg.Error) -> None:
        if self._ingestor is not None:
            with contextlib.suppress(psycopg.Error):
                self._ingestor.close()
        self._ingestor = None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        text = f"database unavailable: {first}"
        if self.database.set("down", text, self.wall()):
            log.error("fleet: %s; the batch waits and is tried again", text)
            self._bump()

    def _done(self, result: BatchResult) -> None:
        for (table, _epoch), acks in result.acks.items():
            self._client.publish(acks_topic(table), canonical_json(acks.to_json()).encode(),
                                 qos=1, retain=True)
        self.totals["accepted"] += result.accepted
        self.totals["duplicates"] += result.duplicates
        self.totals["refused"] += len(result.refused)
        self.totals["waiting"] += result.waiting
        for table in result.tables:
            self.live(table).last_message = self.wall()
        self._bump()

    # -- reads for the pages ----------------------------------------------------------------

    def read(self, what: Callable[[Ingestor], Any]) -> Any:
        """Run a read on the pages' own connection; None while the database is down."""
        with self._reader_lock:
            for _ in range(2):  # a server restarted since the last read: one fresh try
                try:
                    if self._reader is None or self._reader.conn.closed:
                        self._reader = Ingestor(psycopg.connect(
                            self.config.database, autocommit=True, connect_timeout=3,
                            application_name="knapp fleet pages"), wall=self.wall)
                    return what(self._reader)
                except psycopg.Error as exc:
                    log.warning("fleet: the staff pages cannot read the database: %s",
                                str(exc).strip().splitlines()[0] if str(exc).strip() else exc)
                    if self._reader is not None:
                        self._reader.conn.close()
                    self._reader = None
        return None

"""The table side of the fleet: the outbox published to the café's broker, status and health.

`TableLink` runs in its own thread beside the table service; the referee
never calls it and never waits for it. It wakes when the service says its
state changed (or every `poll_s`, for the rooms' writes), asks SQLite
whether the table's file changed, and hands the broker what `Sender` says
is due. A broker that is down, at start or for hours, only leaves the
records in the outbox: they are published in order when it is back.

Status: on connecting, the table publishes a retained ``online`` message on
its status topic; its Last Will (published by the broker when the table
vanishes: power cut, crash, lost network) is a retained ``offline``, and a
clean stop publishes ``offline`` itself. Health: the parts' levels and
sentences (`TableService.snapshot()["health"]`), checked at most once per
`HEALTH_EVERY_S`, become a record of the table's own health stream whenever
they change.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from controller import __version__
from controller.clock import NS_PER_S, Clock, MonotonicClock
from controller.fleet.config import FleetConfig
from controller.fleet.mqtt import connect, make_client, reason_text
from controller.fleet.outbox import Outbox
from controller.fleet.sender import Sender
from controller.fleet.wire import (
    CAFE_STATUS_TOPIC,
    HEARTBEAT_S,
    PROTOCOL,
    RecordSigner,
    acks_topic,
    records_topic,
    status_topic,
)
from controller.store import canonical_json

log = logging.getLogger("knapp.fleet")

POLL_S = 0.1
HEALTH_EVERY_S = 1.0
STOP_TIMEOUT_S = 3.0

Health = Callable[[], Mapping[str, Any]]


class TableLink:
    """Publish one table's outbox, status and health to the café's broker.

    Args:
        fleet: the `[fleet]` section (must be enabled).
        db_path: the table's database file.
        signer: the table's key (`controller.evidence.signing.TableKey`): every record
            goes out signed with it.
        health: the table's parts' health now (None: this link reports none).
        name: the table's display name, for the staff page.
        clock: the table's clock (resend timers).
        wall: the table's wall clock in seconds (stamped on what it publishes).
        poll_s: how often it looks for records nobody told it about (the rooms').
    """

    def __init__(self, fleet: FleetConfig, db_path: str | Path, *, signer: RecordSigner,
                 health: Health | None = None,
                 name: str = "", clock: Clock | None = None,
                 wall: Callable[[], float] = time.time, poll_s: float = POLL_S) -> None:
        if fleet.broker is None:
            raise ValueError("the [fleet] section names no broker")
        self.fleet = fleet
        self.broker = fleet.broker
        self.table_id = fleet.table_id
        self.name = name
        self.clock = clock or MonotonicClock()
        self.wall = wall
        self.poll_s = poll_s
        self._health = health
        self.outbox = Outbox(db_path, table_id=self.table_id, log=log.warning)
        self.sender = Sender(self.outbox, signer=signer, clock=self.clock, wall=wall,
                             window=fleet.window,
                             resend_after_s=fleet.resend_after_s)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._restart = False
        self._acks: tuple[str, dict[str, int]] | None = None
        self._cafe_online = False
        self._next_health_ns = 0
        self._next_beat_ns = 0
        self.heartbeat_s = HEARTBEAT_S
        self._state_lock = threading.Lock()
        self.progress = threading.Condition()  # notified when the café confirms something
        self.last_error = ""
        self._client = make_client(self.broker, f"knapp-table-{self.table_id}",
                                   will=(status_topic(self.table_id),
                                         self._status_payload(False, "lost")))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_publish = self._on_publish
        self.published = 0  # records handed to the broker (again after a resend)
        self._at_broker: set[int] = set()  # message ids of records the broker has not acked
        self._thread = threading.Thread(target=self._run, name=f"fleet-{self.table_id}",
                                        daemon=True)

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> TableLink:
        """Connect in the background and start publishing; returns at once."""
        log.info("fleet: table %s publishes to %s", self.table_id, self.broker.url)
        connect(self._client, self.broker)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Look at the outbox now (the service calls this when its state changed)."""
        self._wake.set()

    def stop(self, drain_s: float = 2.0) -> None:
        """Publish what is due (up to `drain_s` for the café to confirm it), say offline,
        stop and close the outbox; whatever is still unconfirmed waits for the next start."""
        if self._connected.is_set() and self._thread.is_alive() and drain_s > 0:
            self.wake()
            self.wait_confirmed(lambda link: link.sender.backlog() == 0, drain_s)
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(STOP_TIMEOUT_S)
        if self._connected.is_set():
            info = self._client.publish(status_topic(self.table_id),
                                        self._status_payload(False, "stopped"), qos=1,
                                        retain=True)
            # The connection may go while we say goodbye; the Will says it instead.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(STOP_TIMEOUT_S)
            self._client.disconnect()
        self._client.loop_stop()
        self.outbox.close()

    # -- what the staff (and tests) may ask ------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while connected to the broker."""
        return self._connected.is_set()

    def status(self) -> dict[str, Any]:
        """The link as data: connected, café online, records not yet confirmed."""
        return {"table": self.table_id, "broker": self.broker.url, "connected": self.connected,
                "cafe_online": self._cafe_online, "in_flight": self.sender.in_flight,
                "resends": self.sender.resends, "error": self.last_error}

    # -- paho's thread ---------------------------------------------------------------------

    def _status_payload(self, online: bool, reason: str) -> bytes:
        return canonical_json({"v": PROTOCOL, "table": self.table_id, "online": online,
                               "reason": reason, "at": round(self.wall(), 3),
                               "name": self.name, "epoch": self.outbox.epoch,
                               "software": __version__}).encode()

    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason_code: Any,
                    _props: Any) -> None:
        if reason_code.is_failure:
            self.last_error = f"the broker refused the table: {reason_text(reason_code)}"
            log.error("fleet: %s (%s as %r)", self.last_error, self.broker.url,
                      self.broker.username)
            return
        self.last_error = ""
        self._next_beat_ns = 0  # say online at once
        client.subscribe([(acks_topic(self.table_id), 1), (CAFE_STATUS_TOPIC, 1)])
        with self._state_lock:
            self._restart = True
        self._connected.set()
        log.info("fleet: table %s connected to %s", self.table_id, self.broker.url)
        self._wake.set()

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, reason_code: Any,
                       _props: Any) -> None:
        if self._connected.is_set() and not self._stop.is_set():
            log.warning("fleet: table %s lost the broker (%s); records wait in the outbox",
                        self.table_id, reason_text(reason_code))
        self._connected.clear()

    @property
    def unacked_by_broker(self) -> int:
        """Records handed to the broker that it has not acknowledged yet."""
        return len(self._at_broker)

    def _on_publish(self, _client: Any, _userdata: Any, mid: int, reason_code: Any,
                    _props: Any) -> None:
        if reason_code.is_failure:
            self.last_error = f"the broker refused a message: {reason_text(reason_code)}"
            log.error("fleet: table %s: %s", self.table_id, self.last_error)
        with self.progress:
            self._at_broker.discard(mid)
            self.progress.notify_all()

    def _on_message(self, _client: Any, _userdata: Any, msg: Any) -> None:
        try:
            data = json.loads(msg.payload) if msg.payload else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            log.warning("fleet: unreadable message on %s", msg.topic)
            return
        if not isinstance(data, dict):
            return
        if msg.topic == CAFE_STATUS_TOPIC:
            self._cafe_online = data.get("online") is True
        elif isinstance(data.get("upto"), dict) and isinstance(data.get("epoch"), str):
            with self._state_lock:
                self._acks = (data["epoch"], {k: v for k, v in data["upto"].items()
                                              if isinstance(k, str) and isinstance(v, int)})
        self._wake.set()

    # -- the link's own thread ---------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.poll_s)
            self._wake.clear()
            try:
                self._turn()
            except Exception as exc:  # the link never takes the table down; it says why
                self.last_error = f"fleet link: {exc}"
                log.exception("fleet: table %s: %s", self.table_id, exc)
                self._stop.wait(1.0)

    def _turn(self) -> None:
        """One look: take a confirmation, note a health change, publish what is due."""
        with self._state_lock:
            acks, self._acks = self._acks, None
            restart, self._restart = self._restart, False
        if acks is not None and self.sender.confirmed(*acks):
            with self.progress:
                self.progress.notify_all()
        self._check_health()
        if restart:
            self.sender.restart()
        if not self._connected.is_set():
            return
        now = self.clock.now_ns()
        if now >= self._next_beat_ns:
            self._next_beat_ns = now + round(self.heartbeat_s * NS_PER_S)
            self._client.publish(status_topic(self.table_id),
                                 self._status_payload(True, "connected"), qos=1, retain=True)
        for rec in self.sender.due(cafe_online=self._cafe_online):
            info = self._client.publish(records_topic(self.table_id), rec.encode(), qos=1)
            with self.progress:
                self.published += 1
                if info.rc == 0 and not info.is_published():
                    self._at_broker.add(info.mid)

    def _check_health(self) -> None:
        if self._health is None:
            return
        now = self.clock.now_ns()
        if now < self._next_health_ns:
            return
        self._next_health_ns = now + round(HEALTH_EVERY_S * NS_PER_S)
        parts = {name: {"level": str(h.get("level", "")), "message": str(h.get("message", ""))}
                 for name, h in self._health().items() if isinstance(h, Mapping)}
        if self.outbox.record_health(parts, self.wall()):
            log.info("fleet: table %s health changed: %s", self.table_id,
                     ", ".join(f"{k} {v['level']}" for k, v in sorted(parts.items())))

    def wait_confirmed(self, predicate: Callable[[TableLink], bool], timeout_s: float) -> bool:
        """Block until `predicate(self)` holds after a confirmation or a PUBACK (tests)."""
        deadline = time.monotonic() + timeout_s
        with self.progress:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.progress.wait(left)
        return True

"""The café's broker as a café runs it: accounts, the ACL, and what a table may do."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from paho.mqtt.enums import CallbackAPIVersion

from controller.clock import FakeClock
from controller.evidence.signing import TableKey
from controller.fleet.cafe import CafeService
from controller.fleet.local import LocalMosquitto
from controller.fleet.outbox import Outbox
from controller.fleet.sender import Sender
from controller.fleet.wire import acks_topic, records_topic
from controller.sim.driver import simulate
from controller.store import EventStore
from tests.fleet.helpers import PASSWORDS, held, wait_for

KEY = TableKey(Ed25519PrivateKey.from_private_bytes(bytes(32)))  # a fixed test key


class Raw:
    """A plain paho client as some account, to try what the broker allows."""

    def __init__(self, mq: LocalMosquitto, user: str | None, password: str | None) -> None:
        self.connected = threading.Event()
        self.refused: Any = None
        self.got: list[tuple[str, bytes]] = []
        self.acked: dict[int, Any] = {}
        self.ack_event = threading.Condition()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if user is not None:
            c.username_pw_set(user, password)
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        c.on_publish = self._on_publish
        self.client = c
        self.done = threading.Event()
        c.connect("127.0.0.1", mq.port)
        c.loop_start()

    def _on_connect(self, _c: Any, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
        if rc.is_failure:
            self.refused = rc
        else:
            self.connected.set()
        self.done.set()

    def _on_message(self, _c: Any, _u: Any, m: Any) -> None:
        with self.ack_event:
            self.got.append((m.topic, bytes(m.payload)))
            self.ack_event.notify_all()

    def wait_message(self, timeout_s: float = 30) -> bool:
        """Wait (on the client's own notices) until a message has arrived."""
        with self.ack_event:
            return self.ack_event.wait_for(lambda: bool(self.got), timeout_s)

    def _on_publish(self, _c: Any, _u: Any, mid: int, rc: Any, _p: Any) -> None:
        with self.ack_event:
            self.acked[mid] = rc
            self.ack_event.notify_all()

    def publish(self, topic: str, payload: bytes) -> Any:
        """Publish at QoS 1 and return the broker's PUBACK reason."""
        info = self.client.publish(topic, payload, qos=1)
        with self.ack_event:
            assert self.ack_event.wait_for(lambda: info.mid in self.acked, 30)
            return self.acked[info.mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@contextmanager
def raw(mq: LocalMosquitto, user: str | None, password: str | None = None) -> Iterator[Raw]:
    r = Raw(mq, user, password if password is not None else PASSWORDS.get(user or "", ""))
    assert r.done.wait(30)
    try:
        yield r
    finally:
        r.close()


def records(tmp_path: Path, table: str) -> list[Any]:
    store = EventStore(tmp_path / table / "knapp.db", durable=False)
    simulate(2, 1, 5, store=store)
    box = Outbox(store.path, table_id=table)
    recs = Sender(box, signer=KEY, clock=FakeClock(), wall=time.time, window=10_000).due()
    box.close()
    store.close()
    return recs


@pytest.mark.parametrize(("user", "password"), [("t1", "wrong"), (None, None), ("t9", "x")])
def test_a_wrong_password_or_no_account_is_refused(mq: LocalMosquitto, user: str | None,
                                                   password: str | None) -> None:
    with raw(mq, user, password) as r:
        assert r.refused is not None and not r.connected.is_set()
        assert "authori" in str(r.refused).lower() or "password" in str(r.refused).lower()


def test_a_table_may_publish_only_under_its_own_id(mq: LocalMosquitto, cafe: CafeService,
                                                   tmp_path: Path) -> None:
    t2 = records(tmp_path, "t2")
    t1 = records(tmp_path, "t1")
    with raw(mq, "t1") as r:
        assert r.connected.is_set()
        # t1's account, t2's topic, a perfectly chained t2 record: the broker refuses it.
        reason = r.publish(records_topic("t2"), t2[0].encode())
        assert reason.is_failure and "authori" in str(reason).lower()
        # t1's own records, published after it on the same connection: once the café holds
        # them, it has seen everything t1 sent before.
        for rec in t1[:3]:
            assert not r.publish(records_topic("t1"), rec.encode()).is_failure
        wait_for(cafe, lambda: held(cafe).get(("t1", t1[0].stream)) == 3, "t1's records")
    assert not any(k[0] == "t2" for k in held(cafe))
    assert cafe.live("t1").bad_messages == 0
    # Nor may it confirm for the café, or write another table's status.
    with raw(mq, "t1") as r:
        assert r.publish(acks_topic("t1"), b'{"v":1}').is_failure
        assert r.publish("knapp/tables/t2/status", b'{"online":false}').is_failure


def test_a_record_claiming_another_table_under_its_own_topic_is_not_counted(
        mq: LocalMosquitto, cafe: CafeService, tmp_path: Path) -> None:
    t2 = records(tmp_path, "t2")
    with raw(mq, "t1") as r:
        assert not r.publish(records_topic("t1"), t2[0].encode()).is_failure
    wait_for(cafe, lambda: cafe.live("t1").bad_messages == 1, "the café to read it")
    assert "claims table 't2'" in cafe.live("t1").last_bad
    assert held(cafe) == {}


def test_a_table_reads_only_its_own_confirmations(mq: LocalMosquitto, cafe: CafeService,
                                                  tmp_path: Path) -> None:
    t2 = records(tmp_path, "t2")
    with raw(mq, "t1") as spy, raw(mq, "t2") as r:
        spy.client.subscribe([("knapp/#", 1)])
        for rec in t2[:2]:
            r.publish(records_topic("t2"), rec.encode())
        wait_for(cafe, lambda: held(cafe).get(("t2", t2[0].stream)) == 2, "t2's records")
        with raw(mq, "t2") as own:  # t2 itself gets its confirmation (retained)
            own.client.subscribe(acks_topic("t2"), 1)
            assert own.wait_message(), "t2's confirmation"
        spy_topics = {t for t, _ in spy.got}
    assert not any(t.startswith("knapp/tables/") for t in spy_topics)
    assert acks_topic("t2") not in spy_topics

"""A full disk or a failing tick never freezes the table silently.

The disk fills through SQLite's own path: the database is capped at its size
(`PRAGMA max_page_count`) and its free pages are filled, so the next write
that needs a page meets SQLITE_FULL, as on a full SD card. Freeing space is
raising the cap again.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sqlite3
from pathlib import Path

import pytest

from controller.cli.serve import _SystemdNotifier, feed_watchdog
from controller.clock import FakeClock
from controller.errors import StoreUnavailable
from controller.knapp.deck import shuffled_deck
from controller.knapp.match import Phase
from controller.pads.events import Item
from controller.pads.sim import SimPads
from controller.store import EventStore
from tests.web.conftest import make_service, run_until

S = 1_000_000_000


def fill_the_disk(store: EventStore) -> None:
    """Cap the database at its size and use up its free pages."""
    db = store._db
    db.execute("CREATE TABLE IF NOT EXISTS filler (x BLOB)")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 1}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        while True:
            db.execute("INSERT INTO filler VALUES (zeroblob(512))")


def free_space(store: EventStore) -> None:
    store._db.execute("PRAGMA max_page_count = 1000000")


def test_a_full_store_refuses_a_write_cleanly(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "k.db")
    mid, m = store.new_match(("Ada", "Ben"), shuffled_deck(1))
    fill_the_disk(store)
    with pytest.raises(StoreUnavailable, match="database or disk is full"):
        for i in range(200):  # until the log needs a page of its own
            m.reveal(m.next_card, (i + 1) * S)  # type: ignore[arg-type]
            m.void(i, "a round to fill the log")
            m.figures_home((i + 1) * S + 1)
    # Nothing half-written, nothing applied that is not stored.
    assert store.info(mid).events == len(m.events)
    store.verify(mid)
    free_space(store)
    m.reveal(m.next_card, 10_000 * S)  # type: ignore[arg-type]
    assert store.info(mid).events == len(m.events)


def test_a_full_disk_holds_the_table_with_a_banner_and_it_goes_on_when_space_returns(
        tmp_path: Path) -> None:
    svc = make_service(tmp_path, bots=3, target=50)
    run_until(svc, lambda s: len(s.match.rounds) >= 2, step_s=0.02)
    fill_the_disk(svc.store)
    run_until(svc, lambda s: s.guard.down, step_s=0.02)  # no exception out of tick
    mid = svc.match_id
    snap = svc.snapshot()
    assert snap["health"]["disk"]["level"] == "down"
    assert "database or disk is full" in snap["health"]["disk"]["message"]
    assert any("cannot save events" in m for m in snap["messages"])
    # Nothing is applied in memory that the store did not take.
    assert svc.store.info(mid).events == len(svc.match.events)
    rounds = len(svc.match.rounds)
    for _ in range(1500):  # half a minute with the disk full: no card, no crash, no flood
        svc.clock.advance(0.02)  # type: ignore[attr-defined]
        svc.tick()
    assert len(svc.match.rounds) == rounds and svc.snapshot()["countdown_ms"] is None
    assert sum("cannot save events" in m for m in svc.messages) == 1
    free_space(svc.store)
    run_until(svc, lambda s: not s.guard.down, step_s=0.02, limit_s=5)
    assert "events are saved again" in svc.messages
    assert svc.snapshot()["health"]["disk"]["level"] == "ok"
    run_until(svc, lambda s: len(s.match.rounds) > rounds + 2, step_s=0.02)
    svc.store.verify(mid)
    assert svc.store.open_match(mid).to_json() == svc.match.to_json()


def test_a_grab_the_disk_refused_is_judged_whole_when_it_takes_writes_again(
        tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    # The kernel remounts a failing SD card read-only: SQLite's own SQLITE_READONLY.
    svc.store._db.execute("PRAGMA query_only = 1")
    svc.clock.advance(0.7)  # type: ignore[attr-defined]
    svc.sim_grab("Cleo", rnd.answer)  # who (the camera's word) and the pad lift
    assert svc.guard.down and not rnd.claims
    assert "readonly" in svc.snapshot()["health"]["disk"]["message"]
    svc.clock.advance(3)  # type: ignore[attr-defined]
    svc.tick()
    assert not rnd.claims  # still refused, still waiting
    svc.store._db.execute("PRAGMA query_only = 0")
    run_until(svc, lambda s: s.match.phase is not Phase.OPEN, limit_s=5)
    [claim] = rnd.claims  # the pad's time, and the seat the camera had named
    assert claim.seat == "Cleo" and claim.reaction_ns == 700 * 1_000_000
    assert rnd.winner == "Cleo" and not svc.guard.down


class FaultyPads(SimPads):
    """Simulated pads whose bus fails `failures` times (a real driver bug would raise so)."""

    def __init__(self, failures: int, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.failures = failures
        self.stop: asyncio.Event | None = None

    def poll(self, timeout_s: float = 0.0) -> list[Item]:
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("bus fault")
        if self.stop is not None:
            self.stop.set()
        return super().poll(timeout_s)


def faulty_service(tmp_path: Path, failures: int) -> tuple[object, FaultyPads]:
    from controller.config import parse_config
    from controller.referee.service import TableService

    clock = FakeClock(S)
    pads = FaultyPads(failures, clock=clock)
    cfg = parse_config({"kiosk": {"data_dir": str(tmp_path)}})
    return TableService(cfg, store=EventStore(tmp_path / "k.db"), clock=clock, pads=pads), pads


def test_an_unexpected_error_is_logged_shown_and_the_loop_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    svc, _pads = faulty_service(tmp_path, failures=2)
    with caplog.at_level(logging.ERROR, logger="knapp.referee"):
        svc.step()  # type: ignore[attr-defined]
    assert "bus fault" in caplog.text and "Traceback" in caplog.text
    snap = svc.snapshot()  # type: ignore[attr-defined]
    assert snap["health"]["referee"]["level"] == "degraded"
    assert "RuntimeError: bus fault" in snap["health"]["referee"]["message"]
    assert any("referee error" in m for m in snap["messages"])
    assert not svc.alive()  # type: ignore[attr-defined]  # no tick has finished yet
    svc.step()  # type: ignore[attr-defined]
    svc.step()  # type: ignore[attr-defined]  # the bus works again
    assert svc.alive()  # type: ignore[attr-defined]
    assert svc.snapshot()["health"]["referee"]["level"] == "ok"  # type: ignore[attr-defined]


def test_the_asyncio_loop_survives_an_unexpected_error(tmp_path: Path) -> None:
    svc, pads = faulty_service(tmp_path, failures=3)
    stop = asyncio.Event()
    pads.stop = stop  # the first poll that works ends the run
    asyncio.run(svc.run(stop))  # type: ignore[attr-defined]  # raised RuntimeError before
    assert pads.failures == 0 and svc.heartbeat.failures == 3  # type: ignore[attr-defined]


@pytest.fixture
def notify_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> socket.socket:
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


def received(sock: socket.socket) -> list[str]:
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except BlockingIOError:
            return out


def test_the_watchdog_is_fed_only_while_ticks_finish(tmp_path: Path,
                                                      notify_socket: socket.socket) -> None:
    svc, pads = faulty_service(tmp_path, failures=0)
    notifier = _SystemdNotifier()
    svc.step()  # type: ignore[attr-defined]
    assert feed_watchdog(notifier, svc, 10.0)
    assert received(notify_socket) == ["WATCHDOG=1"]
    # The loop stops making progress: a tick that hangs, or one that keeps failing.
    svc.clock.advance(11)  # type: ignore[attr-defined]
    assert not feed_watchdog(notifier, svc, 10.0)
    pads.failures = 5
    svc.step()  # type: ignore[attr-defined]
    assert not feed_watchdog(notifier, svc, 10.0)
    sent = received(notify_socket)
    assert "WATCHDOG=1" not in sent
    assert sent[-1] == "STATUS=referee loop stalled: RuntimeError: bus fault"

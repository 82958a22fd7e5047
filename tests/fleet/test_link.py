"""A table's link through broker faults: down at start, killed with its queue, a bad clock."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from controller.fleet.cafe import CafeService
from controller.fleet.local import LocalMosquitto
from controller.fleet.views import table_view
from tests.fleet.helpers import PASSWORDS, Table, cafe_config, holds_all, wait_for


def status_of(cafe: CafeService, table: str) -> dict[str, object]:
    facts = cafe.read(lambda db: db.table_facts()) or {}
    return table_view(cafe.live(table), facts.get(table), tolerance_s=60, database_up=True)


def test_a_broker_down_at_start_only_delays_the_records(tmp_path: Path, dsn: str) -> None:
    mq = LocalMosquitto(PASSWORDS)  # not started yet: nothing listens on its port
    table = Table(mq, "t1", tmp_path / "t1").start()
    try:
        table.play(2)  # the table plays on; its records wait in its outbox
        assert not table.link.connected
        assert table.link.sender.backlog() > 0
        mq.start()
        cafe = CafeService(cafe_config(mq, dsn, tmp_path / "cafe")).start()
        try:
            wait_for(cafe, lambda: holds_all(cafe, table), "the backlog")
            assert table.link.wait_confirmed(lambda link: link.sender.backlog() == 0, 30)
        finally:
            cafe.stop()
    finally:
        table.close()
        mq.close()


def test_records_the_broker_lost_in_a_crash_are_published_again(tmp_path: Path,
                                                                dsn: str) -> None:
    mq = LocalMosquitto(PASSWORDS).start()
    folder = tmp_path / "cafe"
    table = Table(mq, "t1", tmp_path / "t1").start()
    cafe = CafeService(cafe_config(mq, dsn, folder)).start()
    try:
        table.play(1)
        wait_for(cafe, lambda: holds_all(cafe, table), "the first match")
        cafe.stop()  # the café away: the broker queues for its session...
        base = table.link.published
        table.play(2)
        # Wait until the broker has acknowledged everything the table published for them.
        want = table.link.sender.backlog()
        assert table.link.wait_confirmed(
            lambda link: link.published - base >= want and link.unacked_by_broker == 0, 30)
        mq.stop(signal.SIGKILL)  # ...and dies with the queue, after acknowledging the table
        mq.start()
        cafe = CafeService(cafe_config(mq, dsn, folder)).start()
        wait_for(cafe, lambda: holds_all(cafe, table), "what the broker lost")
        assert table.link.wait_confirmed(lambda link: link.sender.backlog() == 0, 30)
    finally:
        cafe.stop()
        table.close()
        mq.close()


def test_a_table_clock_far_off_is_flagged_and_orders_nothing(mq: LocalMosquitto,
                                                             cafe: CafeService,
                                                             tmp_path: Path) -> None:
    ahead = Table(mq, "t1", tmp_path / "t1", wall=lambda: time.time() + 3600).start()
    behind = Table(mq, "t2", tmp_path / "t2", wall=lambda: time.time() - 86400).start()
    try:
        ahead.play(1)
        behind.play(1)
        wait_for(cafe, lambda: holds_all(cafe, ahead, behind), "both tables")
        s1, s2 = status_of(cafe, "t1"), status_of(cafe, "t2")
        assert s1["level"] == "degraded" and any(
            "clock is 60 min ahead of the café's" in p for p in s1["problems"]), s1
        assert any("24.0 h behind" in p for p in s2["problems"]), s2
        # The records count all the same: order is the chain's, never a clock's.
        assert cafe.read(lambda db: len(db.matches())) == 2
    finally:
        ahead.close()
        behind.close()


def test_a_stopped_table_says_so(mq: LocalMosquitto, cafe: CafeService, tmp_path: Path) -> None:
    table = Table(mq, "t1", tmp_path / "t1").start()
    wait_for(cafe, lambda: cafe.live("t1").online is True, "t1 online")
    assert status_of(cafe, "t1")["status"].startswith("online since")
    table.close()
    wait_for(cafe, lambda: cafe.live("t1").online is False, "t1 offline")
    s = status_of(cafe, "t1")
    assert s["level"] == "down" and any("offline since" in p and "stopped" in p
                                        for p in s["problems"])

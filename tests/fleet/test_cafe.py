"""The café service when its own parts fail: the database down at start, and back."""

from __future__ import annotations

from pathlib import Path

from controller.fleet.cafe import CafeService
from controller.fleet.local import LocalMosquitto, LocalPostgres
from tests.fleet.helpers import Table, cafe_config, holds_all, staff_client, wait_for


def test_a_database_down_holds_the_records_back_and_says_so(
        mq: LocalMosquitto, pg_server: LocalPostgres, dsn: str, tmp_path: Path) -> None:
    pg_server.stop()
    cafe = CafeService(cafe_config(mq, dsn, tmp_path / "cafe")).start()
    table = Table(mq, "t1", tmp_path / "t1").start()
    try:
        wait_for(cafe, lambda: cafe.database.level == "down", "the database to be missed")
        table.play(1)
        wait_for(cafe, lambda: cafe.live("t1").last_heard is not None, "t1's records to arrive")
        client = staff_client(cafe)
        status = client.get("/api/status").json()
        assert status["database"]["level"] == "down"
        assert "database unavailable" in status["database"]["message"]
        t1 = next(t for t in status["tables"] if t["table"] == "t1")
        assert any("database is unavailable" in p for p in t1["problems"])
        assert 'id="database-banner"' in client.get("/").text
        assert client.get("/api/leaderboard").json() == {"available": False, "rows": [],
                                                         "matches": 0}
        # Nothing is confirmed to the table while the café cannot store it.
        assert table.link.sender.confirmed_pos["events"] == 0
        pg_server.start()
        wait_for(cafe, lambda: holds_all(cafe, table), "the records once it is back")
        assert cafe.database.level == "ok"
        assert table.link.wait_confirmed(lambda link: link.sender.backlog() == 0, 30)
    finally:
        table.close()
        cafe.stop()
        if not pg_server.running:
            pg_server.start()


def test_what_the_cafe_could_not_store_stays_with_the_broker(
        mq: LocalMosquitto, pg_server: LocalPostgres, dsn: str, tmp_path: Path) -> None:
    folder = tmp_path / "cafe"
    first = CafeService(cafe_config(mq, dsn, folder)).start()
    wait_for(first, lambda: first.broker.level == "ok", "the café's session")
    pg_server.stop()
    table = Table(mq, "t1", tmp_path / "t1").start()
    try:
        table.play(1)
        want = table.link.sender.backlog()
        # Everything reaches the café, which cannot store it: it acknowledges nothing.
        assert table.link.wait_confirmed(
            lambda link: link.published >= want and link.unacked_by_broker == 0, 30)
        wait_for(first, lambda: first.live("t1").last_heard is not None, "the records")
    finally:
        table.link.stop(drain_s=0)  # the table goes: only the broker still has the records
        first.stop()
        pg_server.start()
    second = CafeService(cafe_config(mq, dsn, folder)).start()  # the same session
    try:
        wait_for(second, lambda: holds_all(second, table), "the broker's redelivery")
    finally:
        second.stop()
        table.store.close()

"""Three real tables, one broker, one café service, and every fault at once.

Three `knapp serve --sim` processes with a `[fleet]` section play matches
against one Mosquitto and one café service on one PostgreSQL. One table is
killed with SIGKILL (its Last Will says so on the staff page), the broker is
killed with SIGKILL while the other two play on, PostgreSQL restarts while
records flow, the killed table comes back with its backlog. At the end every
record of every table is in PostgreSQL exactly once, verified, nothing was
refused, and the leaderboard is the one the tables' own stores give.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from controller.evidence.signing import TableKey
from controller.fleet.cafe import CafeService
from controller.fleet.config import FleetConfig
from controller.fleet.local import LocalMosquitto, LocalPostgres
from controller.fleet.table import TableLink
from controller.fleet.web import leaderboard_data, status_data
from tests.fleet.helpers import (
    PASSWORDS,
    broker_config,
    cafe_config,
    held,
    holds_all,
    table_records,
    wait_for,
)
from tests.fleet.serve_proc import ServedTable
from tests.fleet.test_end_to_end import own_leaderboard

pytestmark = pytest.mark.slow


def per_table(cafe: CafeService, table: str) -> int:
    return sum(n for (t, _s), n in held(cafe).items() if t == table)


def status(cafe: CafeService, table: str) -> dict[str, object]:
    return next(t for t in status_data(cafe)["tables"] if t["table"] == table)


def test_nothing_lost_or_counted_twice_through_kills_and_restarts(
        tmp_path: Path, pg_server: LocalPostgres, dsn: str) -> None:
    mq = LocalMosquitto(PASSWORDS).start()
    cafe = CafeService(cafe_config(mq, dsn, tmp_path / "cafe")).start()
    tables = {t: ServedTable(mq, t, tmp_path / t, seed=i) for i, t in
              enumerate(("t1", "t2", "t3"), 1)}
    try:
        for t in tables.values():
            t.start()
        for name in tables:
            wait_for(cafe, lambda n=name: per_table(cafe, n) >= 12, f"{name}'s first records")

        # A table loses power: the broker publishes its Last Will.
        tables["t2"].kill(signal.SIGKILL)
        wait_for(cafe, lambda: cafe.live("t2").online is False, "t2's Last Will")
        assert "connection lost" in " ".join(status(cafe, "t2")["problems"])

        # The broker dies with whatever it held; the other tables play on regardless.
        mq.stop(signal.SIGKILL)
        wait_for(cafe, lambda: cafe.broker.level == "down", "the café to notice")
        assert status_data(cafe)["broker"]["level"] == "down"
        for name in ("t1", "t3"):
            assert tables[name].played_on(8), f"{name} stopped playing without the broker"
        mq.start()
        wait_for(cafe, lambda: cafe.broker.level == "ok", "the café back on the broker")

        # PostgreSQL restarts while the backlogs drain.
        pg_server.restart()
        for name in ("t1", "t3"):
            assert tables[name].played_on(6)
        # The killed table comes back and resumes its match; its link publishes the rest.
        tables["t2"].start()
        assert tables["t2"].played_on(6)
        wait_for(cafe, lambda: cafe.live("t2").online is True, "t2 back online")
        assert cafe.database.level == "ok"

        for t in tables.values():
            t.kill(signal.SIGTERM)
        # Whatever a table had not published when it stopped goes at its next start.
        for name, t in tables.items():
            fleet = FleetConfig(table_id=name, broker=broker_config(mq, name, t.folder))
            link = TableLink(fleet, t.db_path, signer=TableKey.load(t.data),
                             poll_s=0.05).start()
            try:
                wait_for(cafe, lambda t=t, n=name: holds_all(cafe, (t.db_path, n)),
                         f"every record of {name}")
            finally:
                link.stop()

        rows = cafe.read(lambda db: db.conn.execute(
            "SELECT table_id, stream, seq, hash FROM fleet_records").fetchall())
        assert len(rows) == len(set(rows))
        want = set().union(*(table_records(t.db_path, n) for n, t in tables.items()))
        assert set(rows) == want
        assert cafe.read(lambda db: db.refusals()) == []
        assert cafe.totals["refused"] == 0
        board = {r["player"]: (r["played"], r["won"], r["cards"])
                 for r in leaderboard_data(cafe)["rows"]}
        assert board == own_leaderboard(*(t.db_path for t in tables.values()))
        assert sum(p for p, _, _ in board.values()) >= 3  # matches were finished
    finally:
        for t in tables.values():
            t.kill()
        cafe.stop()
        mq.close()

"""`knapp fleet demo`'s café: simulated tables reach the staff pages through the real servers."""

from __future__ import annotations

import pytest

from controller.cli.fleet_demo import Demo
from controller.fleet.local import LocalPostgres
from tests.fleet.helpers import staff_client, wait_for


def test_the_demo_cafe_runs_two_tables_to_the_staff_page(pg_server: LocalPostgres) -> None:
    demo = Demo(2, postgres=pg_server).start()
    try:
        cafe = demo.cafe
        assert cafe is not None

        def records(table: str) -> int:
            counts = cafe.read(lambda db: db.counts()) or {}
            return sum(n for (t, s), n in counts.items() if t == table and s != "health")

        for table in ("t1", "t2"):
            wait_for(cafe, lambda t=table: records(t) >= 5, f"{table}'s first records")
        status = staff_client(cafe, demo.staff_password).get("/api/status").json()
        assert [(t["table"], t["online"]) for t in status["tables"]] == [("t1", True),
                                                                           ("t2", True)]
        assert all(t["parts"][0]["part"] == "pads" and t["parts"][0]["level"] == "ok"
                   for t in status["tables"])
    finally:
        demo.stop()
    with pytest.raises(ValueError, match="1 to 6 tables"):
        Demo(7)

"""`knapp fleet rebuild`: the café's read models made again from the verified records alone."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from controller.fleet.ingest import Ingestor
from controller.fleet.summaries import leaderboard
from tests.fleet.test_trust import TABLE_KEY, signed_records


def test_rebuild_remakes_summaries_and_refuses_a_record_changed_in_the_database(
        dsn: str, tmp_path: Path) -> None:
    db = Ingestor.connect(dsn, wall=time.time)
    try:
        recs = signed_records(tmp_path / "t1", TABLE_KEY)
        assert db.ingest(recs, {}).accepted == len(recs)
        board = leaderboard(db.matches())
        matches = db.matches()
        # The read models lost or wrong (a bug, a manual edit): the leaderboard is off.
        db.conn.execute("UPDATE fleet_matches SET summary = summary || '{\"winners\": []}'")
        db.conn.execute("DELETE FROM fleet_streams")
        assert leaderboard(db.matches()) == [] and db.counts() == {}
        report = db.rebuild()
        assert report.records == len(recs) and report.refused == 0 and report.matches == 1
        assert db.matches() == matches and leaderboard(db.matches()) == board
        assert sum(db.counts().values()) == len(recs)

        # A record edited in the database itself: it and all after it in its stream go.
        stream = recs[0].stream
        n = sum(1 for r in recs if r.stream == stream)
        db.conn.execute("UPDATE fleet_records SET body = replace(body, '{', '{\"x\":0,') "
                        "WHERE stream = %s AND seq = 5", (stream,))
        report = db.rebuild()
        assert report.refused == n - 5 and report.records == len(recs) - (n - 5)
        assert db.counts()[("t1", stream)] == 5
        reasons = [r["reason"] for r in db.refusals(500)]
        assert any(r.startswith(f"rebuild: {stream} record 5") for r in reasons)
        assert db.matches()[0]["phase"] != "ended"  # cut short: no longer counted
        assert leaderboard(db.matches()) == []
    finally:
        db.close()


def test_the_command_reports_what_it_rebuilt(dsn: str, tmp_path: Path) -> None:
    db = Ingestor.connect(dsn, wall=time.time)
    recs = signed_records(tmp_path / "t1", TABLE_KEY)
    db.ingest(recs, {})
    db.close()
    (tmp_path / "cafe.password").write_text("x\n")
    cfg = tmp_path / "cafe.toml"
    cfg.write_text(f'[cafe]\ndatabase = "{dsn}"\n[broker]\nurl = "mqtt://127.0.0.1:1"\n'
                   'password_file = "cafe.password"\n')
    done = subprocess.run([sys.executable, "-m", "controller", "fleet", "rebuild", "--config",
                           str(cfg)], check=False, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"rebuilt from {len(recs)} verified records" in done.stdout
    assert "1 matches" in done.stdout and "0 refused" in done.stdout

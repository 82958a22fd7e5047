"""Rough edges a first-time user met on `make run` (a simulated table, no camera), fixed.

The setup page's calibration panel on a table without a camera. (The simulation panel
that a verdict pushed out of sight, the turner's tag, and a new setup that dealt before
anyone was at the table are covered in test_table_screen.py.)
"""

from __future__ import annotations

from pathlib import Path

from tests.web.roles import make_table


def test_a_table_without_a_camera_is_not_told_to_calibrate_one(tmp_path: Path) -> None:
    t = make_table(tmp_path)
    assert t.service.camera_health.level.value == "off"
    for client in (t.phone, t.staff):
        info = client.get("/api/calibration").json()
        assert info["configured"] is False
        assert info["detail"] == "no camera at this table: nothing to calibrate"
        assert "knapp calibrate" not in info["detail"]

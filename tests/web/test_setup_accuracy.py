"""The setup page shows the camera's accuracy measured on this table's own rounds
(`knapp vision eval CLIPS --save`), with how many rounds it rests on; before that,
how to measure it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.clock import FakeClock
from controller.config import parse_config
from controller.referee.service import TableService
from controller.store import EventStore
from controller.vision.evaluate import Tally, save_scores
from controller.web.app import create_app
from controller.web.auth import PinGuard
from tests.chromium import NEEDS_CHROMIUM, chromium
from tests.web.server import Server

PIN = "482913"


def measured(folder: Path) -> None:
    """Scores as `knapp vision eval` saves them: 12 rounds, 15 grabs."""
    folder.mkdir(parents=True, exist_ok=True)
    save_scores(folder, {"table": Tally(rounds=12, frames=900, grabs=15, seat_ok=13, figure_ok=15,
                                        asked=2, lift_timed=14, lift_within_frame=13,
                                        wrong_confident=0)}, source="clips")


def test_the_accuracy_api_says_how_to_measure_then_what_was_measured(tmp_path: Path) -> None:
    cfg = parse_config({"kiosk": {"data_dir": str(tmp_path), "allowed_hosts": ["testserver"]}})
    svc = TableService(cfg, store=EventStore(tmp_path / "k.db"), clock=FakeClock(1))
    app = create_app(svc, PinGuard(tmp_path, PIN, clock=svc.clock), autorun=False)
    with TestClient(app) as staff, TestClient(app) as phone:
        assert staff.post("/api/session", json={"pin": PIN}).status_code == 200
        before = phone.get("/api/camera/accuracy").json()
        assert before["measured"] is False and before["rounds"] == 0
        assert "knapp vision eval CLIPS --save" in before["detail"]
        assert before["clips_kept"] is True and before["folder"] is None
        assert staff.get("/api/camera/accuracy").json()["folder"] == str(tmp_path / "clips")
        measured(tmp_path / "clips")
        after = phone.get("/api/camera/accuracy").json()
        assert after["measured"] is True
        assert (after["rounds"], after["grabs"], after["wrong_confident"]) == (12, 15, 0)
        assert after["seat"] == pytest.approx(13 / 15, abs=1e-5)
        assert after["asked"] == pytest.approx(2 / 15, abs=1e-5)
        assert after["lift_within_frame"] == pytest.approx(13 / 14, abs=1e-5)
        assert str(tmp_path) not in json.dumps(after)  # a phone never learns the data folder
    svc.store.close()


def test_without_evidence_the_page_says_no_clips_are_kept(tmp_path: Path) -> None:
    cfg = parse_config({"kiosk": {"data_dir": str(tmp_path), "allowed_hosts": ["testserver"],
                                  "evidence": False}})
    svc = TableService(cfg, store=EventStore(tmp_path / "k.db"), clock=FakeClock(1))
    with TestClient(create_app(svc, PinGuard(tmp_path, PIN, clock=svc.clock),
                               autorun=False)) as c:
        info = c.get("/api/camera/accuracy").json()
    assert info["clips_kept"] is False and "keeps no labelled clips" in info["detail"]
    svc.store.close()


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_the_setup_page_shows_the_figures_and_the_rounds_they_rest_on(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nseats = ["Ada", "Ben", "Cleo"]\n[kiosk]\npin = "{PIN}"\n',
                   encoding="utf-8")
    data = tmp_path / "data"
    srv = Server(data, cfg).start()
    try:
        with chromium() as browser:
            page = browser.new_page()
            page.goto(srv.url + "/setup")
            page.wait_for_selector("#accuracy >> text=not measured yet")
            assert "knapp vision eval CLIPS --save" in page.inner_text("#accuracy")
            measured(data / "clips")
            page.reload()
            page.wait_for_selector("#accuracy-basis")
            text = page.inner_text("#accuracy")
            assert "Seat named right: 86.7 %" in text
            assert "table asked: 13.3 %" in text
            assert "lift within one frame of the pads: 92.9 %" in text
            assert "wrong seat named with confidence: 0" in text
            assert page.inner_text("#accuracy-basis") == "From 12 rounds (15 grabs)."
    finally:
        srv.kill()

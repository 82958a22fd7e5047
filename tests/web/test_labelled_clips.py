"""At a table with pads and a camera each settled round becomes a labelled clip: the pads'
lift time and the accepted seat, under the evidence retention and its privacy switch; and
`knapp vision eval` scores the camera on those clips."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.clock import FakeClock
from controller.config import parse_config
from controller.knapp.match import Phase, Round
from controller.referee.camera import CameraLink
from controller.referee.service import TableService
from controller.sim.render import RenderedSource, Scene
from controller.sim.table import simulated_service
from controller.store import EventStore
from controller.vision.analyze import FrameAnalyser
from controller.vision.calibrate import calibrate
from controller.vision.config import default_layout
from controller.vision.evaluate import read_labels
from controller.vision.ring import FrameRing
from tests.web.conftest import run_until
from tests.web.test_camera_service import SEATS, link_for, play_frames

PAD_LIFT_NS = 801_234_000   # after the card, as the pad reports it
DAY_S = 86_400.0


def _service(tmp_path: Path, *, evidence: bool = True, clips: bool = True,
             wall: list[float] | None = None) -> TableService:
    cfg = parse_config({"table": {"seats": list(SEATS)}, "match": {"target": 5},
                        "kiosk": {"countdown_s": 1, "sim_return_s": 1, "data_dir": str(tmp_path),
                                  "evidence": evidence, "clips": clips,
                                  "retention_days": 30}})
    now = wall if wall is not None else [time.time()]
    return simulated_service(cfg, store=EventStore(tmp_path / "knapp.db"),
                             clock=FakeClock(1_000_000_000), bots=0, seed=11,
                             wall=lambda: now[0])


def _play_round(svc: TableService, *, seat: str = "Cleo") -> Round:
    """One card: the camera sees `seat` take the right figure, the pad times its lift."""
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    link = link_for(rnd.reveal_ns, rnd.answer, seat=seat)
    svc.attach_camera(link)
    play_frames(svc, link, rnd, PAD_LIFT_NS)
    run_until(svc, lambda s: s.match.phase is not Phase.OPEN)
    svc.settle_evidence()
    return rnd


@pytest.mark.slow
def test_a_settled_round_is_a_labelled_clip_the_camera_is_scored_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svc = _service(tmp_path)
    rnd = _play_round(svc)
    assert rnd.winner == "Cleo" and rnd.claims[0].source == "sim+camera"
    clips = tmp_path / "clips"
    name = f"{svc.match_id}-000"
    assert sorted(p.name for p in clips.iterdir()) == [f"{name}.avi", f"{name}.json"]
    (clip,) = read_labels(clips)
    # The truth is the pad's lift time on the clip's own timeline (its first frame is the
    # card's: the camera's video starts there), and the seat of the accepted verdict.
    assert clip.kind == "table" and clip.fps == 30.0 and clip.seats == SEATS
    assert clip.truth == [{"kind": "grab", "seat": "Cleo", "figure": rnd.answer.value,
                           "touch_s": None, "lift_s": PAD_LIFT_NS / 1e9, "others": []}]
    label = json.loads((clips / f"{name}.json").read_text(encoding="utf-8"))
    assert label["recorded"]["match"] == svc.match_id and label["recorded"]["round"] == 0
    assert label["recorded"]["first_frame_t_ns"] == rnd.reveal_ns
    assert label["calibration"]["format"] and label["camera"]["seats"]
    svc.store.verify(svc.match_id)  # the clip is derived data: the log is as it was
    assert not any(e.get("name") != "photo-finish" for r in svc.match.rounds
                   for e in r.evidence)

    # The label carries the layout and the calibration it was recorded with: no --config.
    assert main(["vision", "eval", str(clips), "--json", "--save"]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert (total["rounds"], total["grabs"], total["seat_ok"], total["phantom"]) == (1, 1, 1, 0)
    assert total["lift_within_frame"] == 1.0
    assert (clips / "scores.json").is_file()
    svc.store.close()


@pytest.mark.slow
def test_the_tables_answer_to_who_took_it_is_the_clips_seat(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svc = _service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    # The camera sees nobody reach (an arm out of its view): the pad's lift waits in
    # the "who took it?" prompt until the table answers.
    src = RenderedSource(Scene(default_layout(SEATS), reaches=(), duration_s=2.2, fps=30),
                         start_ns=rnd.reveal_ns)
    cal = calibrate(src.renderer.render(0), default_layout(SEATS))
    link = CameraLink(src, FrameAnalyser(default_layout(SEATS), cal, fps=30), FrameRing(4.0))
    svc.attach_camera(link)
    play_frames(svc, link, rnd, PAD_LIFT_NS)
    assert [p["figure"] for p in svc.fusion.prompt()] == [rnd.answer.value]
    svc.answer(rnd.answer.value, "Ada")
    run_until(svc, lambda s: s.match.phase is not Phase.OPEN)
    svc.settle_evidence()
    assert rnd.winner == "Ada" and rnd.claims[0].source == "sim+table"
    (clip,) = read_labels(tmp_path / "clips")
    assert [(e["seat"], e["lift_s"]) for e in clip.truth] == [("Ada", PAD_LIFT_NS / 1e9)]
    assert main(["vision", "eval", str(tmp_path / "clips"), "--json"]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert (total["grabs"], total["missed"], total["seat_ok"]) == (1, 1, 0)  # not seen
    svc.store.close()


@pytest.mark.slow
def test_a_correction_derives_the_label_again_and_a_void_takes_the_clip(
        tmp_path: Path) -> None:
    svc = _service(tmp_path)
    rnd = _play_round(svc)
    label = tmp_path / "clips" / f"{svc.match_id}-000.json"
    assert json.loads(label.read_text(encoding="utf-8"))["truth"][0]["seat"] == "Cleo"
    svc.correct(svc.match_id, "award", "Ben's hand was first", round_index=rnd.index,
                seat="Ben")
    svc.tick()
    svc.settle_evidence()
    assert json.loads(label.read_text(encoding="utf-8"))["truth"][0]["seat"] == "Ben"
    svc.correct(svc.match_id, "void", "the card was misprinted", round_index=rnd.index)
    svc.tick()
    svc.settle_evidence()
    assert not (tmp_path / "clips").exists() or not any((tmp_path / "clips").iterdir())
    svc.store.close()


@pytest.mark.slow
def test_clips_go_with_the_evidence_retention_and_a_hold_keeps_them(tmp_path: Path) -> None:
    wall = [time.time()]  # file ages are wall-clock: from the files' own times on
    svc = _service(tmp_path, wall=wall)
    _play_round(svc)
    clips = tmp_path / "clips"
    name = f"{svc.match_id}-000"
    (clips / "scores.json").write_text("{}", encoding="utf-8")
    bundle = next(p.name for p in (tmp_path / "evidence").iterdir() if p.is_dir())
    assert bundle.startswith(name + "-")  # the round's photo-finish bundle
    svc.hold_evidence(svc.match_id, bundle, keep=True)
    clock = svc.clock
    assert isinstance(clock, FakeClock)
    wall[0] += 31 * DAY_S  # past the 30 retention days
    clock.advance(601)  # retention runs every ten minutes
    svc.tick()
    assert svc.evidence.clips_report is not None and svc.evidence.clips_report.held == [name]
    assert (clips / f"{name}.avi").is_file() and (clips / f"{name}.json").is_file()
    svc.hold_evidence(svc.match_id, bundle, keep=False)
    clock.advance(601)
    svc.tick()
    assert svc.evidence.clips_report.deleted == [name]
    assert sorted(p.name for p in clips.iterdir()) == ["scores.json"]  # the scores stay
    svc.store.close()


@pytest.mark.slow
def test_no_clip_without_evidence(tmp_path: Path) -> None:
    svc = _service(tmp_path, evidence=False)
    rnd = _play_round(svc)
    assert rnd.winner == "Cleo"  # the round was refereed all the same
    assert not (tmp_path / "clips").exists()
    assert not (tmp_path / "evidence").exists() or not any((tmp_path / "evidence").iterdir())
    svc.store.close()


@pytest.mark.slow
def test_clips_false_keeps_the_evidence_but_no_clip(tmp_path: Path) -> None:
    svc = _service(tmp_path, clips=False)
    rnd = _play_round(svc)
    assert rnd.winner == "Cleo"
    assert any(e.get("name") == "photo-finish" for r in svc.match.rounds for e in r.evidence)
    assert not (tmp_path / "clips").exists() or not any((tmp_path / "clips").iterdir())
    svc.store.close()

"""The table service's round flow on a fake clock: no sleeping, exact times."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.clock import FakeClock
from controller.errors import IllegalEvent
from controller.knapp.match import Phase
from controller.store import EventStore
from tests.web.conftest import make_service, run_until

MS = 1_000_000


def open_card(svc: object) -> None:
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)


def test_countdown_then_reveal_at_the_clock_time(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    t0 = svc.clock.now_ns()
    svc.tick()
    assert svc.snapshot()["countdown_ms"] == 1000
    open_card(svc)
    rnd = svc.match.current
    assert rnd is not None
    assert rnd.reveal_ns - t0 == pytest.approx(1_000 * MS, abs=10 * MS)
    assert svc.snapshot()["round"]["card"] == str(rnd.card)


def test_sim_grab_becomes_a_verdict_with_pad_time(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    clock = svc.clock
    assert isinstance(clock, FakeClock)
    clock.advance(0.8)
    answer = svc.match.current.answer  # type: ignore[union-attr]
    svc.sim_grab("Ben", answer)
    snap = svc.snapshot()
    assert snap["last_verdict"]["provisional"] and snap["last_verdict"]["winner"] == "Ben"
    claim = snap["round"]["claims"][0]
    assert claim["reaction_ms"] == pytest.approx(800, abs=0.001)
    assert claim["source"] == "sim+sim"
    run_until(svc, lambda s: s.match.phase is Phase.CLEARING)
    assert svc.match.scores()["Ben"] == 1
    assert svc.snapshot()["last_verdict"]["outcome"] == "won"
    leds = svc.pads.leds  # type: ignore[attr-defined]
    assert leds[answer] == (0, 160, 40)  # the correct figure's pad glows
    assert all(rgb == (0, 0, 0) for f, rgb in leds.items() if f is not answer)
    # simulation puts the figures back, then the next countdown starts
    run_until(svc, lambda s: s.match.phase is Phase.READY)
    assert svc.snapshot()["off_pad"] == []


def test_second_hand_on_the_same_figure_is_a_rival_claim(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    answer = svc.match.current.answer  # type: ignore[union-attr]
    svc.clock.advance(0.5)  # type: ignore[attr-defined]
    svc.sim_grab("Ada", answer)
    svc.clock.advance(0.001)  # type: ignore[attr-defined]
    svc.sim_grab("Cleo", answer)
    run_until(svc, lambda s: s.match.phase is not Phase.OPEN)
    rnd = svc.match.rounds[0]
    # 1 ms apart but the contact claim carries a camera-frame uncertainty: too close
    assert rnd.too_close and rnd.outcome.value == "redeal"  # type: ignore[union-attr]


def test_bots_play_a_whole_match(tmp_path: Path) -> None:
    svc = make_service(tmp_path, bots=3, target=3)
    run_until(svc, lambda s: s.match.phase is Phase.ENDED, step_s=0.02, limit_s=3600)
    assert svc.snapshot()["winners"]
    assert max(svc.match.scores().values()) == 3


def test_pause_holds_the_next_card(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    svc.control("pause")
    for _ in range(500):
        svc.clock.advance(0.01)  # type: ignore[attr-defined]
        svc.tick()
    assert svc.match.phase is Phase.READY and not svc.match.rounds
    svc.control("resume")
    open_card(svc)


def test_abandon_and_rematch(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    first = svc.match_id
    open_card(svc)
    svc.control("abandon", "closing time")
    assert svc.match.phase is Phase.ENDED and svc.match.abandoned == "closing time"
    svc.control("rematch")
    assert svc.match_id != first and svc.match.phase is Phase.READY
    with pytest.raises(IllegalEvent, match="unknown action"):
        svc.control("explode")


def test_restart_resumes_the_unfinished_match(tmp_path: Path) -> None:
    db = tmp_path / "knapp.db"
    svc = make_service(tmp_path, store=EventStore(db))
    open_card(svc)
    svc.sim_grab("Ada", svc.match.current.answer)  # type: ignore[union-attr]
    run_until(svc, lambda s: s.match.phase is Phase.CLEARING)
    state = svc.match.to_json()
    mid = svc.match_id
    svc.store.close()
    # kill -9 and start again on the same boot: the clock goes on where it was
    again = make_service(tmp_path, store=EventStore(db), clock=FakeClock(svc.clock.now_ns()))
    assert again.match_id == mid and again.match.to_json() == state
    assert "resumed match" in again.messages[0]


def test_table_answers_who_took_it_without_a_camera(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    rnd = svc.match.current
    assert rnd is not None
    svc.clock.advance(1.2)  # type: ignore[attr-defined]
    # a pad lift with nobody attributed: as with real pads and no camera
    svc.pads.lift(rnd.answer)  # type: ignore[attr-defined]
    svc.tick()
    prompt = svc.snapshot()["prompt"]
    assert [p["figure"] for p in prompt] == [rnd.answer.value]
    svc.clock.advance(0.1)  # type: ignore[attr-defined]
    svc.answer(rnd.answer.value, "Cleo")
    claim = svc.match.current.claims[0]  # type: ignore[union-attr]
    assert claim.seat == "Cleo" and claim.reaction_ns == pytest.approx(1200 * MS, abs=10 * MS)
    with pytest.raises(IllegalEvent, match="no lift of the"):
        svc.answer(rnd.answer.value, "Ada")


def test_paint_time_refines_the_reveal(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    rnd = svc.match.current
    assert rnd is not None
    with pytest.raises(IllegalEvent, match="within 1 s after the reveal"):
        svc.painted(rnd.index, rnd.reveal_ns + 5_000 * MS, 1)
    with pytest.raises(IllegalEvent, match="within 1 s after the reveal"):
        svc.painted(rnd.index, rnd.reveal_ns - 1 * MS, 1)
    svc.painted(rnd.index, rnd.reveal_ns + 21 * MS, 9 * MS)
    assert rnd.reveal_measure.label == "paint"
    assert svc.snapshot()["round"]["reveal_measure"] == "paint"
    svc.painted(rnd.index, rnd.reveal_ns + 40 * MS, 9 * MS)  # a second display: ignored
    assert rnd.reveal_ns == svc.match.rounds[0].reveal_ns
    assert rnd.reveal_ns - svc.match.events[1].t_ns == 21 * MS  # type: ignore[attr-defined]


def test_paint_after_a_grab_is_rejected(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    rnd = svc.match.current
    assert rnd is not None
    svc.clock.advance(0.3)  # type: ignore[attr-defined]
    svc.sim_grab("Ada", rnd.answer)
    with pytest.raises(IllegalEvent, match="after a grab"):
        svc.painted(rnd.index, rnd.reveal_ns + 400 * MS, 9 * MS)


def test_corrections_on_the_live_match(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    svc.sim_grab("Ada", svc.match.current.answer)  # type: ignore[union-attr]
    run_until(svc, lambda s: s.match.phase is Phase.CLEARING)
    svc.correct(svc.match_id, "award", "video shows Ben", 0, "Ben")
    assert svc.match.scores() == {"Ada": 0, "Ben": 1, "Cleo": 0}
    with pytest.raises(IllegalEvent, match="award needs a round and a seat"):
        svc.correct(svc.match_id, "award", "x")


def test_setup_starts_a_new_match_with_new_seats(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    svc.setup(["Ole", "Per", "Kari", "Liv"], 3, "unruly")
    assert svc.match.seats == ("Ole", "Per", "Kari", "Liv")
    assert svc.match.rules.target == 3 and svc.match.rules.variant.value == "unruly"
    from controller.errors import ConfigError

    with pytest.raises(ConfigError, match="duplicate seat name"):
        svc.setup(["A", "A"], 3, "standard")


def test_retention_runs_on_the_service_and_privacy_setting(tmp_path: Path) -> None:
    import os

    from controller.config import parse_config

    old = tmp_path / "evidence" / "round-0001"
    old.mkdir(parents=True)
    (old / "clip.webm").write_bytes(b"x" * 100)
    os.utime(old, (1_000, 1_000))
    cfg = parse_config({"kiosk": {"data_dir": str(tmp_path), "evidence": False,
                                  "retention_days": 7}})
    from controller.referee.service import TableService

    svc = TableService(cfg, store=EventStore(tmp_path / "k.db"), clock=FakeClock(1),
                       wall=lambda: 1_000 + 8 * 86_400.0)
    svc.tick()
    assert not old.exists()
    report = svc.evidence.retention_report
    assert report is not None and report.deleted == ["round-0001"]
    ev = svc.snapshot()["evidence"]
    assert ev == {"enabled": False, "recording": False, "retention_days": 7, "retention_mb": 2000}


def restarted(svc: object, tmp_path: Path, **kw: object) -> object:
    """kill -9 and start again on the same boot: same store file, the clock goes on."""
    svc.store.close()  # type: ignore[attr-defined]
    clock = FakeClock(svc.clock.now_ns())  # type: ignore[attr-defined]
    return make_service(tmp_path, store=EventStore(tmp_path / "knapp.db"), clock=clock,
                        **kw)  # type: ignore[arg-type]


def test_a_match_started_from_setup_is_resumed_with_its_setup(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    svc.setup(["Ole", "Per", "Kari", "Liv"], 3, "unruly")
    mid = svc.match_id
    open_card(svc)
    svc.sim_grab("Kari", svc.match.current.answer)  # type: ignore[union-attr]
    run_until(svc, lambda s: s.match.phase is Phase.CLEARING)
    state = svc.match.to_json()
    again = restarted(svc, tmp_path)
    assert again.match_id == mid and again.match.to_json() == state  # type: ignore[attr-defined]
    assert again.config.seats == ("Ole", "Per", "Kari", "Liv")  # type: ignore[attr-defined]
    # The setup holds for the table, not just that match: a rematch keeps the players.
    again.control("rematch")  # type: ignore[attr-defined]
    assert again.match.seats == ("Ole", "Per", "Kari", "Liv")  # type: ignore[attr-defined]
    assert again.match.rules.target == 3  # type: ignore[attr-defined]


def test_a_changed_configuration_file_wins_over_an_older_setup(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    svc.setup(["Ole", "Per"], 3, "standard")
    mid = svc.match_id
    again = restarted(svc, tmp_path, seats=("Xia", "Yan"))  # the file was edited since
    assert again.match_id != mid and again.match.seats == ("Xia", "Yan")  # type: ignore[attr-defined]
    assert any("configuration file changed" in m for m in again.messages)  # type: ignore[attr-defined]


def test_a_paused_match_comes_back_paused(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    svc.control("pause")
    again = restarted(svc, tmp_path)
    assert again.paused and again.snapshot()["paused"]  # type: ignore[attr-defined]
    for _ in range(300):
        again.clock.advance(0.01)  # type: ignore[attr-defined]
        again.tick()  # type: ignore[attr-defined]
    assert not again.match.rounds  # type: ignore[attr-defined]  # no card while paused
    again.control("resume")  # type: ignore[attr-defined]
    third = restarted(again, tmp_path)
    assert not third.paused  # type: ignore[attr-defined]


def test_the_last_verdict_is_shown_again_after_a_restart(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    open_card(svc)
    svc.sim_grab("Ben", svc.match.current.answer)  # type: ignore[union-attr]
    run_until(svc, lambda s: s.match.phase is Phase.CLEARING)
    shown = svc.snapshot()["last_verdict"]
    assert shown is not None and shown["winner"] == "Ben"
    again = restarted(svc, tmp_path)
    assert again.snapshot()["last_verdict"] == shown  # type: ignore[attr-defined]


def test_two_simulated_hands_on_one_figure_in_one_step_are_a_lift_and_a_contact(
        tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    sim = svc.simulation
    assert sim is not None
    now = svc.clock.now_ns()
    # Both before the pads are drained: the second lift is already queued.
    sim.grab("Ada", rnd.answer, now + 400_000_000)
    sim.grab("Ben", rnd.answer, now + 420_000_000)
    svc.clock.advance(0.5)  # type: ignore[attr-defined]
    svc.tick()
    sources = sorted(c.source for c in rnd.claims)
    assert [c.seat for c in sorted(rnd.claims, key=lambda c: c.t_ns)] == ["Ada", "Ben"]
    assert sources == ["sim contact", "sim+sim"]


def test_figures_left_off_by_a_rematch_are_put_back_before_the_next_card(
        tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    svc.sim_grab("Ada", rnd.answer)
    svc.control("rematch")  # the figure is still in Ada's hand
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    assert all(svc.pads.placed().values())  # type: ignore[attr-defined]

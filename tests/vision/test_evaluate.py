"""Scoring the camera's decisions against a round's truth (what the benchmark reports)."""

from __future__ import annotations

from controller.vision.confidence import ASK_BELOW
from controller.vision.evaluate import score

TRUTH = [{"kind": "grab", "seat": "Ada", "figure": "chest", "touch_s": 1.0, "lift_s": 1.2,
          "others": []},
         {"kind": "grab", "seat": "Ben", "figure": "child", "touch_s": 1.1, "lift_s": 1.3,
          "others": [["Cleo", 1.15]]}]


def _grab(seat: str | None, figure: str, lift_ms: float, confidence: float = 0.95,
          uncertainty_ms: float = 33.3, others: tuple[str, ...] = ()) -> dict:
    return {"kind": "grab", "seat": seat, "figure": figure, "touch_ms": None,
            "lift_ms": lift_ms, "uncertainty_ms": uncertainty_ms, "confidence": confidence,
            "other_claims": [{"seat": s, "touch_ms": 0.0, "uncertainty_ms": 33.3}
                             for s in others]}


def test_right_seats_and_times_within_a_frame() -> None:
    t = score(TRUTH, [_grab("Ada", "chest", 1210.0), _grab("Ben", "child", 1290.0,
                                                          others=("Cleo",))], 30.0)
    assert (t.grabs, t.seat_ok, t.figure_ok, t.asked, t.wrong_confident, t.phantom) == \
        (2, 2, 2, 0, 0, 0)
    assert (t.lift_within_frame, t.covered, t.rivals, t.rivals_found) == (2, 2, 1, 1)


def test_a_grab_of_the_same_figure_far_off_in_time_is_a_timing_error_not_a_phantom() -> None:
    # The child's grab dated 400 ms early (a hand over its pad read as empty): it is still
    # the camera's word on the child, so the chest's grab keeps its own truth.
    t = score(TRUTH, [_grab("Ada", "chest", 1200.0), _grab("Ben", "child", 900.0)], 30.0)
    assert (t.seat_ok, t.phantom, t.missed, t.wrong_confident) == (2, 0, 0, 0)
    assert t.lift_within_frame == 1 and max(t.lift_err_frames) == 12.0


def test_unsure_is_asked_wrong_and_sure_is_the_worst_and_extra_grabs_are_phantoms() -> None:
    t = score(TRUTH, [_grab("Cleo", "chest", 1200.0, ASK_BELOW - 0.01),
                      _grab("Cleo", "child", 1300.0, ASK_BELOW),
                      _grab("Ada", "dog", 2500.0)], 30.0)
    assert (t.asked, t.wrong_confident, t.seat_ok, t.phantom) == (1, 1, 0, 1)
    assert t.reliability == [(ASK_BELOW - 0.01, False), (ASK_BELOW, False)]
    assert score(TRUTH, [], 30.0).missed == 2


def test_a_grab_is_paired_with_its_own_figure_before_another_figure_near_in_time() -> None:
    # Cleo's child leaves first and is never seen; Eve's chest, 20 ms later, is seen
    # right. The chest's grab is Eve's, not a wrong seat for Cleo's child.
    truth = [{"kind": "grab", "seat": "Cleo", "figure": "child", "touch_s": 0.9,
              "lift_s": 1.0, "others": []},
             {"kind": "grab", "seat": "Eve", "figure": "chest", "touch_s": 0.9,
              "lift_s": 1.02, "others": []}]
    t = score(truth, [_grab("Eve", "chest", 1015.0)], 30.0)
    assert (t.seat_ok, t.wrong_confident, t.missed, t.phantom) == (1, 0, 1, 0)


def test_coverage_is_reported_beside_the_width_that_bought_it() -> None:
    """A lift covered only by a wide uncertainty counts as covered; its width, in
    frames, is kept and its median printed beside the coverage."""
    from controller.vision.evaluate import report

    t = score(TRUTH, [_grab("Ada", "chest", 1100.0, uncertainty_ms=200.0),
                      _grab("Ben", "child", 1310.0, uncertainty_ms=20.0)], 30.0)
    assert t.covered == 2 and t.lift_within_frame == 1
    assert t.lift_unc_frames == [6.0, 0.6]
    table, _ = report("set", {"grab": t})
    header, row = table.splitlines()[1:3]
    assert "covered % unc fr" in header
    # kind, grabs, seat, figure, asked, wrong, lift, covered, then the median width.
    assert row.split()[8] == "3.3"

"""Crowded tables: arms crossing over arms, pads hidden while a figure leaves.

The rounds are rounds of the benchmark sets (`bench/bench_vision.py`: same
seed, index, kind and look) that the camera once got wrong, by seat or by
more than a frame in lift time.
"""

from __future__ import annotations

import pytest

from controller.config import parse_config
from controller.sim.render import RenderedSource, TableRenderer
from controller.sim.scenarios import random_scene
from controller.vision.analyze import Analysis, analyze
from controller.vision.confidence import ASK_BELOW
from controller.vision.config import CameraConfig

SIX = ["Ada", "Ben", "Cleo", "Dan", "Eve", "Fay"]
T0 = 2_000_000_000


def _round(index: int, kind: str, hard: bool, players: int,
           seed: int = 0) -> tuple[Analysis, TableRenderer]:
    """Round `index` of the benchmark set of `seed` (`--seed`), analysed."""
    cam: CameraConfig = (parse_config({"table": {"seats": SIX[:players]}})).camera
    scene = random_scene(cam, index if seed == 0 else f"{seed}:{index}", kind=kind, hard=hard)
    source = RenderedSource(scene, start_ns=T0)
    return analyze(source, cam), source.renderer


def _grabs(result: Analysis) -> dict[str, tuple[str | None, int | None, int]]:
    """figure -> (seat, lift_ns from the video's start, uncertainty_ns) of each grab."""
    return {d.figure.value: (d.seat, None if d.lift_ns is None else d.lift_ns - T0,
                             d.uncertainty_ns)
            for d in result.decisions if d.kind == "grab"}


@pytest.mark.parametrize(("index", "hard"), [(59, True), (4, False)])
def test_crossing_arms_each_keep_their_own_seat(index: int, hard: bool) -> None:
    # 59: Ben's arm crosses Cleo's on the way to the dog while Eve reaches past Dan's
    # for it and carries it off; 4: Eve's hand on the chest is never seen touching it
    # under the others, only carrying it away toward her seat.
    result, renderer = _round(index, "mixed", hard, 6)
    truth = {e.figure.value: e.seat for e in renderer.ground_truth() if e.kind == "grab"}
    assert len(truth) == 3
    assert {f: g[0] for f, g in _grabs(result).items()} == truth


def test_a_lift_hidden_under_other_arms_is_timed_from_the_hand_going_back() -> None:
    # Round 94: Ada's arm hides the chest's pad for half a second around Cleo's lift;
    # the figure is long gone when the pad shows again.
    result, renderer = _round(94, "mixed", False, 6)
    truth = next(e for e in renderer.ground_truth() if e.figure.value == "chest")
    seat, lift_ns, unc = _grabs(result)["chest"]
    frame_ns = 1e9 / renderer.scene.fps
    assert seat == truth.seat == "Cleo" and lift_ns is not None and truth.lift_s is not None
    err = abs(lift_ns - truth.lift_s * 1e9)
    # A sliver of the chest shows between the arms: read against its own picture, the
    # pad is seen to the frame it moves. This renderer's hands carry it off at full
    # speed from the first instant; the camera dates a lift as a start from rest (real
    # hands start so: issue 11, where dating a figure seen well off its pad a frame
    # after it stood there as leaving between the two was 1.5-5 frames late on the
    # camera world), here about two frames early. What must hold is the uncertainty.
    assert err <= unc
    assert err <= 3 * frame_ns
    # Read by a sliver beside the hands, the chest may have slid unseen (`worst` in
    # `Tracker._unnoticed_mm`): the uncertainty is wider, never unbounded.
    assert unc <= 8 * frame_ns


def test_a_slow_lift_is_dated_before_the_pad_notices() -> None:
    # Round 75: the chest is drawn off slowly and still covers its pad's centre for
    # a frame after it started to move.
    result, renderer = _round(75, "grab", True, 2)
    (truth,) = renderer.ground_truth()
    seat, lift_ns, unc = _grabs(result)["chest"]
    assert seat == truth.seat and lift_ns is not None and truth.lift_s is not None
    err = abs(lift_ns - truth.lift_s * 1e9)
    # This renderer's hands move at constant speed from the first instant. Read with a
    # pixel near both the chest's picture and the pad counted for the nearer (issue 11:
    # else dark figures' empty pads read covered for ever), its pad shows empty a frame
    # sooner, and the fit's first positions include two found at the edge of the
    # picture's 14 mm search: the lift is dated 57 ms (3.4 frames) early. What must hold
    # is the stated uncertainty.
    assert err <= unc
    assert err <= 4 * 1e9 / renderer.scene.fps


def test_figures_lifted_out_from_under_arms_in_dimmed_light_are_followed() -> None:
    # Seed 1, round 59: six players, the lamp turned down by a third over the round.
    # The dog and the chest, each touched by two seats, are lifted the moment other
    # arms stop hiding their pads. Their colours were once compared in the light the
    # background model had half followed instead of the light they were learned in:
    # neither was found leaving, and the first seat to touch each was named, wrongly.
    # The viking, taken by Ben in the same tangle of six arms, is asked (below the
    # threshold) whoever is named for it: what must not happen is a wrong seat named
    # with confidence.
    result, renderer = _round(59, "mixed", True, 6, seed=1)
    frame_ns = 1e9 / renderer.scene.fps
    every = [e for e in renderer.ground_truth() if e.kind == "grab"]
    grabs = {d.figure.value: d for d in result.decisions if d.kind == "grab"}
    assert {e.figure.value for e in every} == set(grabs)
    viking = grabs["viking"]
    assert viking.seat == "Ben" or viking.confidence < ASK_BELOW
    truth = [e for e in every if e.figure.value in ("dog", "chest")]
    assert {e.figure.value: e.seat for e in truth} == {"dog": "Fay", "chest": "Cleo"}
    assert {e.figure.value: grabs[e.figure.value].seat for e in truth} == {
        "dog": "Fay", "chest": "Cleo"}
    for e in truth:
        d = grabs[e.figure.value]
        assert d.confidence > 0.5, e.figure   # seen carried, not guessed
        assert d.lift_ns is not None and e.lift_s is not None
        err = abs(d.lift_ns - T0 - e.lift_s * 1e9)
        # This renderer's hands start at full speed; the camera dates a lift as a start
        # from rest (issue 11): from the pad that watched it leave, as long before the
        # pad noticed as a start from rest takes to move it a pixel (the dog: 3.1
        # frames early). What must hold is the stated uncertainty.
        assert err <= d.uncertainty_ns, e.figure
        assert err <= 4 * frame_ns, e.figure


def test_a_blurred_dog_carried_off_in_fading_light_times_its_lift() -> None:
    # Seed 1, round 77: 30 fps with motion blur, the light fading; Dan carries the
    # white dog off past Ben's hand. A marker's white border 395 mm away was once
    # taken for the dog (1.3 frames early), then the dog was not found at all.
    result, renderer = _round(77, "contest", True, 4, seed=1)
    (truth,) = renderer.ground_truth()
    (d,) = [d for d in result.decisions if d.kind == "grab"]
    assert d.seat == truth.seat == "Dan" and d.confidence > 0.5
    assert d.lift_ns is not None and truth.lift_s is not None
    # Dated as a start from rest on this renderer's hands at full speed: a frame early
    # give or take; the marker's border gave 1.3 frames, and the truth outside the
    # stated uncertainty.
    err = abs(d.lift_ns - T0 - truth.lift_s * 1e9)
    assert err <= 1.2e9 / renderer.scene.fps and err <= d.uncertainty_ns


def test_a_dog_carried_off_under_a_lamp_turned_up_is_followed() -> None:
    # Seed 1, round 135: the light turned up by a third, the white dog clipped to
    # 255 in every channel, and carried off by a hand almost as white: divided by
    # the light it was grey, never found, and the lift was timed 1.8 frames late.
    result, renderer = _round(135, "grab", True, 2, seed=1)
    (truth,) = renderer.ground_truth()
    (d,) = [d for d in result.decisions if d.kind == "grab"]
    assert d.seat == truth.seat and d.confidence > 0.5
    assert d.lift_ns is not None and truth.lift_s is not None
    # This renderer's hand carries the dog off at full speed from the first instant; a
    # lift the pad watched is dated as a start from rest (issue 11: 2.5 frames early
    # here). What must hold is the stated uncertainty.
    err = abs(d.lift_ns - T0 - truth.lift_s * 1e9)
    assert err <= d.uncertainty_ns
    assert err <= 3 * 1e9 / renderer.scene.fps

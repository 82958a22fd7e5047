"""Whole rounds on the rendered table: who took which figure, when, and feints."""

from __future__ import annotations

import pytest

from controller.knapp.cards import Figure
from controller.sim.render import RenderedSource, Scene, Style, TableRenderer
from controller.vision.analyze import Analysis, analyze
from controller.vision.config import CameraConfig
from controller.vision.track import Decision

from .conftest import grab

STYLE = Style(tilt=0.08, rotate_deg=-3, noise=3)
T0 = 5_000_000_000  # frames carry host-clock times; the video starts here


def _analyse(scene: Scene) -> tuple[Analysis, TableRenderer]:
    source = RenderedSource(scene, start_ns=T0)
    return analyze(source, scene.camera), source.renderer


def _grabs(result: Analysis) -> list[Decision]:
    return [d for d in result.decisions if d.kind == "grab"]


@pytest.fixture(scope="module")
def contest(cam: CameraConfig) -> tuple[Analysis, TableRenderer]:
    # Dan touches the ship first; Ben touches it 100 ms later, lifts it and carries it off.
    scene = Scene(cam, (grab("Dan", Figure.SHIP, 0.4, lifts=False, hold=0.35, back=0.3),
                        grab("Ben", Figure.SHIP, 0.5, hold=0.2, back=0.3)),
                  duration_s=1.8, style=STYLE, seed=11)
    return _analyse(scene)


def test_a_clean_grab_names_seat_figure_and_times_within_a_frame(cam: CameraConfig) -> None:
    scene = Scene(cam, (grab("Cleo", Figure.CHILD, 0.4),), duration_s=1.6, style=STYLE,
                  seed=3, fps=30)
    result, renderer = _analyse(scene)
    truth = renderer.ground_truth()[0]
    assert [(d.seat, d.figure) for d in result.decisions] == [("Cleo", Figure.CHILD)]
    d = result.decisions[0]
    frame_ns = 1e9 / 30
    assert d.lift_ns is not None and d.touch_ns is not None and truth.lift_s and truth.touch_s
    assert abs(d.lift_ns - T0 - truth.lift_s * 1e9) <= frame_ns
    # Seen leaving, the lift's uncertainty covers the truth and stays within two and a
    # half frames: as long as the slowest carry takes to move a figure a pixel from
    # rest on its minimum-jerk start, and a half frame after.
    assert frame_ns / 2 <= d.uncertainty_ns <= 2.5 * frame_ns
    assert abs(d.lift_ns - T0 - truth.lift_s * 1e9) <= d.uncertainty_ns
    assert abs(d.touch_ns - T0 - truth.touch_s * 1e9) <= frame_ns
    assert d.confidence > 0.9
    assert d.other_claims == ()
    assert result.origin_ns == T0


def test_two_arms_on_a_figure_give_both_claims_with_their_first_touches(contest) -> None:
    result, renderer = contest
    truth = next(e for e in renderer.ground_truth() if e.kind == "grab")
    grabs = _grabs(result)
    assert [(d.seat, d.figure) for d in grabs] == [("Ben", Figure.SHIP)]
    (claim,) = grabs[0].other_claims
    assert claim.seat == "Dan"
    (dan_touch,) = [t for s, t in truth.others if s == "Dan"]
    assert claim.touch_ns is not None and grabs[0].touch_ns is not None
    assert abs(claim.touch_ns - T0 - dan_touch * 1e9) <= claim.uncertainty_ns
    assert claim.touch_ns < grabs[0].touch_ns      # Dan was first on it, Ben took it
    assert not [d for d in result.decisions if d.kind == "feint"]


def test_a_hand_that_withdraws_is_a_feint_not_a_grab(cam: CameraConfig) -> None:
    scene = Scene(cam, (grab("Ada", Figure.DOG, 0.4, lifts=False, hold=0.1),
                        grab("Dan", Figure.VIKING, 0.5, lifts=False, short_mm=20)),
                  duration_s=1.6, style=STYLE, seed=4, fps=60)
    result, _ = _analyse(scene)
    assert not _grabs(result)
    feints = {(d.seat, d.figure): d for d in result.decisions}
    assert set(feints) == {("Ada", Figure.DOG), ("Dan", Figure.VIKING)}
    assert feints[("Ada", Figure.DOG)].touch_ns is not None   # it touched, then let go
    assert feints[("Dan", Figure.VIKING)].touch_ns is None    # it stopped short
    assert all(d.lift_ns is None for d in result.decisions)


def test_decisions_serialise_to_the_analyze_json_shape(contest) -> None:
    result, _ = contest
    obj = _grabs(result)[0].to_json(result.origin_ns)
    assert set(obj) == {"kind", "seat", "figure", "touch_ms", "lift_ms", "uncertainty_ms",
                        "confidence", "other_claims"}
    assert obj["kind"] == "grab" and obj["seat"] == "Ben" and obj["figure"] == "ship"
    assert 0 < obj["touch_ms"] < obj["lift_ms"] < 1800
    assert obj["other_claims"][0]["seat"] == "Dan"


def test_a_frozen_camera_is_reported_and_decides_nothing(cam: CameraConfig) -> None:
    class Frozen(RenderedSource):
        def read(self):  # the same picture again and again, with fresh timestamps
            frame = super().read()
            if frame is None:
                return None
            if not hasattr(self, "first"):
                self.first = frame.image
            return frame.__class__(self.first, frame.t_ns, frame.index, True)

    scene = Scene(cam, (grab("Ada", Figure.SHIP, 0.3),), duration_s=1.5, style=STYLE)
    result = analyze(Frozen(scene), cam)
    assert result.statuses.get("frozen", 0) > 20
    assert result.decisions == []

"""Arms told apart by their colours where they touch (`vision.looks`)."""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from controller.knapp.cards import Figure
from controller.vision import detect as detect_mod
from controller.vision.calibrate import Calibration, project
from controller.vision.config import CameraConfig
from controller.vision.detect import BackgroundModel, build_view, detect
from controller.vision.looks import ArmLooks, decisive

RED_SLEEVE = (40, 40, 170)      # BGR
BLUE_SLEEVE = (170, 90, 30)
GREY_SLEEVE = (120, 120, 120)


def pixels(bgr: tuple[int, int, int], n: int = 400, noise: int = 6, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(np.array(bgr)[None, :] + rng.integers(-noise, noise + 1, (n, 3)),
                   0, 255).astype(np.uint8)


def test_a_pixel_goes_to_the_seat_whose_colours_it_has_and_a_shared_colour_to_none() -> None:
    looks = ArmLooks()
    looks.learn(0, looks.bins(pixels(RED_SLEEVE)))
    looks.learn(1, looks.bins(np.concatenate([pixels(BLUE_SLEEVE), pixels(GREY_SLEEVE)])))
    looks.learn(2, looks.bins(pixels(GREY_SLEEVE, seed=1)))
    ll = looks.loglik([0, 1, 2], looks.bins(np.concatenate(
        [pixels(RED_SLEEVE, 5, seed=2), pixels(BLUE_SLEEVE, 5, seed=3),
         pixels(GREY_SLEEVE, 5, seed=4)])))
    best, sure = decisive(ll)
    assert list(best[:10]) == [0] * 5 + [1] * 5 and sure[:10].all()
    # Grey is both seat 1's and seat 2's: colour does not settle it.
    assert not sure[10:].any()


def test_a_lamp_turned_down_does_not_change_whose_pixels_they_are() -> None:
    looks = ArmLooks()
    looks.learn(0, looks.bins(pixels(RED_SLEEVE)))
    looks.learn(1, looks.bins(pixels(BLUE_SLEEVE)))
    dim = (np.array(pixels(RED_SLEEVE, 20, seed=5), np.float32) * 0.6).astype(np.uint8)
    best, sure = decisive(looks.loglik([0, 1], looks.bins(dim, gain=0.6)))
    assert (best == 0).all() and sure.mean() > 0.8


def test_too_few_pixels_teach_nothing() -> None:
    looks = ArmLooks()
    looks.learn(0, looks.bins(pixels(RED_SLEEVE, n=20)))
    assert looks.hist == {}


def _stroke(img: np.ndarray, cal: Calibration, pts_mm, width: int, colour) -> None:
    px = project(cal.H, pts_mm)
    for a, b in itertools.pairwise(px):
        cv2.line(img, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), colour, width)


# Ada's arm from the near edge bends over to the child; Dan's from the right edge runs
# across it to just beyond: one region, where the two hands lie side by side.
ADA_ARM = [(450.0, 600.0), (450.0, 470.0), (500.0, 395.0)]
DAN_ARM = [(900.0, 300.0), (700.0, 360.0), (520.0, 360.0)]


def _side_by_side(cam: CameraConfig, calibration: Calibration, still, *, looks: bool):
    view = build_view(cam, calibration)
    bg = BackgroundModel()
    table = still.render(0)
    detect(table, view, bg, t_ns=0)
    # Each arm alone first (just inside the edge): what each seat's arm looks like.
    for k, (arm, colour) in enumerate(((ADA_ARM, RED_SLEEVE), (DAN_ARM, BLUE_SLEEVE))):
        img = table.copy()
        _stroke(img, calibration, arm[:2], 22, colour)
        detect(img, view, bg, t_ns=(k + 1) * 33_000_000)
    assert sorted(bg.looks.hist) == [0, 3]
    if not looks:
        bg.looks.hist.clear()
    img = table.copy()
    _stroke(img, calibration, ADA_ARM, 22, RED_SLEEVE)
    _stroke(img, calibration, DAN_ARM, 22, BLUE_SLEEVE)
    det = detect(img, view, bg, t_ns=3 * 33_000_000)
    return {a.seat: a for a in det.arms}


def test_two_hands_side_by_side_keep_their_own_tips_by_colour(
        cam: CameraConfig, calibration: Calibration, still) -> None:
    arms = _side_by_side(cam, calibration, still, looks=True)
    assert arms.keys() == {"Ada", "Dan"}
    assert arms["Ada"].shared and arms["Dan"].shared
    assert arms["Ada"].by_colour and arms["Dan"].by_colour
    # Within the stroke's round end (11 px, some 20 mm) of where each hand ends.
    assert math.dist(arms["Ada"].tip_mm, ADA_ARM[-1]) < 30
    assert math.dist(arms["Dan"].tip_mm, DAN_ARM[-1]) < 30
    # Parted by their straight bands alone, at least one tip lands on the other hand.
    alone = _side_by_side(cam, calibration, still, looks=False)
    assert max(math.dist(alone["Ada"].tip_mm, ADA_ARM[-1]),
               math.dist(alone["Dan"].tip_mm, DAN_ARM[-1])) > 40


def _arm_then_hand(cam: CameraConfig, calibration: Calibration, still):
    """Ada's arm seen whole just inside the edge, then a frame of only her hand at the
    child (her forearm like the wood): the view, the background, that frame and what was
    detected in the first."""
    view = build_view(cam, calibration)
    bg = BackgroundModel()
    table = still.render(0)
    detect(table, view, bg, t_ns=0)
    img = table.copy()
    _stroke(img, calibration, [(450.0, 600.0), (450.0, 470.0)], 22, RED_SLEEVE)
    first = detect(img, view, bg, t_ns=33_000_000)
    hand = table.copy()
    _stroke(hand, calibration, [(450.0, 470.0), cam.pad(Figure.CHILD)], 22, RED_SLEEVE)
    return view, bg, hand, first


def test_a_hand_whose_forearm_is_the_tables_colour_is_still_its_seats(
        cam: CameraConfig, calibration: Calibration, still, monkeypatch) -> None:
    """Seen whole once, then only from the wrist on (its forearm like the wood): with
    hidden arms on, the hand is not dropped for want of an edge crossing, and keeps its
    seat (off by default: see `detect.HIDDEN_ARMS`)."""
    monkeypatch.setattr(detect_mod, "HIDDEN_ARMS", True)
    view, bg, img, first = _arm_then_hand(cam, calibration, still)
    assert [a.seat for a in first.arms] == ["Ada"]
    pad = cam.pad(Figure.CHILD)
    det = detect(img, view, bg, t_ns=66_000_000)
    (arm,) = det.arms
    assert arm.seat == "Ada"
    assert math.dist(arm.tip_mm, pad) < 30
    # Found by colour alone: a guess at whose hand it is, never confidence.
    assert arm.by_colour and arm.shared
    # Without the seat's colours it is no arm at all (what the looks add).
    bg.looks.hist.clear()
    assert detect(img, view, bg, t_ns=99_000_000).arms == ()


def test_a_hand_found_by_its_colours_alone_is_forgotten_when_its_arm_is_not_seen_again(
        cam: CameraConfig, calibration: Calibration, still, monkeypatch) -> None:
    """A still patch of a seat's colours (where a hand rested, learned as table, reads as
    foreground once it moves) must not keep itself alive as that seat's hand."""
    monkeypatch.setattr(detect_mod, "HIDDEN_ARMS", True)
    view, bg, patch, _first = _arm_then_hand(cam, calibration, still)
    step = 33_000_000
    seen = [len(detect(patch, view, bg, t_ns=(2 + k) * step).arms) for k in range(40)]
    assert seen[0] == 1
    # Gone within `RECENT_S` (0.5 s, 15 frames) of the arm last crossing the edge, and
    # before the background takes the patch in as table.
    assert seen[16:] == [0] * 24


def _near_edge_split() -> CameraConfig:
    """Ada's and Cleo's stretches of the near edge meeting at x = 450 mm."""
    from tests.vision.conftest import table

    return table(seats={"Ada": {"at": [260.0, 600.0], "edge": [[80.0, 600.0], [440.0, 600.0]]},
                        "Cleo": {"at": [640.0, 600.0], "edge": [[460.0, 600.0], [820.0, 600.0]]},
                        "Ben": {"at": [0.0, 300.0]}, "Dan": {"at": [900.0, 300.0]}})


def test_arms_joined_only_near_the_edge_are_not_taken_for_hands_together(
        calibration: Calibration, still) -> None:
    """Two neighbours' elbows touch near the edge while their hands are far apart: one
    region, but nobody's hand can be taken for the other's; hands side by side can."""
    cam = _near_edge_split()
    view = build_view(cam, calibration)
    table_img = still.render(0)

    def arms(ada: list, cleo: list) -> dict:
        bg = BackgroundModel()
        detect(table_img, view, bg, t_ns=0)
        img = table_img.copy()
        _stroke(img, calibration, ada, 22, RED_SLEEVE)
        _stroke(img, calibration, cleo, 22, RED_SLEEVE)
        return {a.seat: a for a in detect(img, view, bg, t_ns=33_000_000).arms}

    apart = arms([(425.0, 600.0), (360.0, 300.0)], [(475.0, 600.0), (560.0, 300.0)])
    assert apart.keys() == {"Ada", "Cleo"}
    assert not apart["Ada"].shared and not apart["Cleo"].shared
    together = arms([(425.0, 600.0), (470.0, 400.0)], [(475.0, 600.0), (500.0, 400.0)])
    assert together.keys() == {"Ada", "Cleo"}
    assert together["Ada"].shared and together["Cleo"].shared


def test_one_arm_across_two_stretches_of_the_edge_is_not_two_hands_tangled(
        calibration: Calibration, still) -> None:
    """Ada's arm crosses the edge where her stretch meets Cleo's: two crossings of one
    region, both followed back to Ada. Her own two pieces lie within a hand of each
    other, but no other seat's hand is there to be taken for hers."""
    cam = _near_edge_split()
    view = build_view(cam, calibration)
    bg = BackgroundModel()
    table_img = still.render(0)
    detect(table_img, view, bg, t_ns=0)
    img = table_img.copy()
    _stroke(img, calibration, [(450.0, 600.0), (560.0, 380.0)], 30, RED_SLEEVE)
    arms = detect(img, view, bg, t_ns=33_000_000).arms
    assert len(arms) == 2 and {a.seat for a in arms} == {"Ada"}
    assert not any(a.shared for a in arms)
    assert max(a.tip_mm[1] for a in arms) > 500 > min(a.tip_mm[1] for a in arms)


def test_an_arm_teaches_the_seat_it_is_followed_to_not_the_stretch_it_crosses(
        cam: CameraConfig, calibration: Calibration, still) -> None:
    """Ben's arm crosses the edge in Ada's stretch, reaching in from his corner: what it
    looks like is Ben's, or Ada's own arm would later be taken for his."""
    view = build_view(cam, calibration)
    bg = BackgroundModel()
    table = still.render(0)
    detect(table, view, bg, t_ns=0)
    img = table.copy()
    _stroke(img, calibration, [(110.0, 600.0), (260.0, 480.0)], 22, RED_SLEEVE)
    (arm,) = detect(img, view, bg, t_ns=33_000_000).arms
    assert arm.seat == "Ben"
    assert list(bg.looks.hist) == [list(view.seats).index("Ben")]


def test_hidden_arms_are_off_by_default(cam: CameraConfig, calibration: Calibration,
                                        still) -> None:
    """A hand with no arm crossing the edge is nobody's unless hidden arms are on."""
    view, bg, img, _first = _arm_then_hand(cam, calibration, still)
    assert detect(img, view, bg, t_ns=66_000_000).arms == ()

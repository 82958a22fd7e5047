"""What issue 11 found on the camera world, held in place: grey figures on grey pads,
hands resting in the first frame, arms that cross the edge in a neighbour's stretch,
and confidence that must not be given where another hand was at the figure."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from controller.knapp.cards import Figure
from controller.sim.world_render import WorldRenderer, WorldSource
from controller.sim.world_scenes import kind_of, world_round
from controller.vision import detect as detect_mod
from controller.vision.analyze import analyze
from controller.vision.calibrate import Calibration, CalibrationError, calibrate, project
from controller.vision.confidence import ASK_BELOW
from controller.vision.config import CameraConfig
from controller.vision.detect import Arm, BackgroundModel, Detection, PadReading, build_view, detect
from controller.vision.track import Tracker

# Rounds of the tuning set whose first frame the single-colour figure model refused
# ("the viking's pad looks empty": a grey helmet on a grey pad, seen from above).
REFUSED_BEFORE = (("tune:12", "light"), ("tune:20", "light"), ("tune:6", "six"))


@pytest.mark.parametrize(("seed", "kind"), REFUSED_BEFORE)
def test_figures_alike_their_pads_from_above_calibrate_and_read_home(seed: str, kind: str) -> None:
    world = world_round(seed, kind)
    image = WorldRenderer(world).render(0)
    cal = calibrate(image, world.camera)
    view = build_view(world.camera, cal)
    bg = BackgroundModel()
    det = detect(image, view, bg)
    assert set(bg.templates) == set(Figure)          # each pad learned its own figure
    assert {f: r.state for f, r in det.pads.items()} == dict.fromkeys(Figure, "figure")
    assert all(r.exact for r in det.pads.values())


def test_a_pad_whose_figure_is_gone_is_still_refused() -> None:
    world = world_round("tune:12", "light")
    image = WorldRenderer(world).render(0)
    cam = world.camera
    cal = calibrate(image, cam)
    # Paint the chest out with its pad's own colour, taken from the pad's rim band.
    centre = project(cal.H, [cam.pad(Figure.CHEST)])[0]
    r = cam.pad_radius(Figure.CHEST) * view_scale(cal, cam, Figure.CHEST)
    c = (round(centre[0]), round(centre[1]))
    band = np.zeros(image.shape[:2], np.uint8)
    cv2.circle(band, c, round(0.86 * r), 255, -1)
    cv2.circle(band, c, round(0.72 * r), 0, -1)
    colour = np.median(image[band > 0], axis=0)
    empty = image.copy()
    cv2.circle(empty, c, round(0.9 * r), tuple(float(v) for v in colour), -1)
    with pytest.raises(CalibrationError, match="chest's pad looks empty"):
        calibrate(empty, cam)
    # A speck left of it (a crumb, a scratch) is no figure either: a quarter of its size.
    speck = empty.copy()
    speck[c[1] - 1:c[1] + 2, c[0] - 1:c[0] + 2] = (30, 190, 230)
    with pytest.raises(CalibrationError, match="chest's pad looks empty"):
        calibrate(speck, cam)


def view_scale(cal: Calibration, cam: CameraConfig, figure: Figure) -> float:
    """Pixels per mm at `figure`'s pad."""
    a, b = project(cal.H, [cam.pad(figure), (cam.pad(figure)[0] + 10, cam.pad(figure)[1])])
    return float(math.dist(a, b) / 10)


def test_a_hand_resting_in_the_first_frame_leaves_no_ghost_arm(
        cam: CameraConfig, calibration: Calibration, still) -> None:
    table = still.render(0)
    first = table.copy()
    # A hand and forearm resting over the near edge when the camera starts.
    a = project(calibration.H, [(200.0, 640.0)])[0]
    b = project(calibration.H, [(230.0, 520.0)])[0]
    cv2.line(first, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), (60, 90, 150), 28)
    view = build_view(cam, calibration)
    bg = BackgroundModel()
    detect(first, view, bg, t_ns=0)
    seen = []
    for k in range(1, 31):   # a second at 30 fps: the hand is gone, the table shows
        det = detect(table, view, bg, t_ns=round(k * 1e9 / 30))
        seen.append(len(det.arms))
    assert seen[0] >= 1                   # where the hand was reads as foreground at first
    assert seen[-5:] == [0] * 5           # still for half a second: it is table, not an arm


def test_an_arm_over_where_a_hand_rested_is_still_one_arm_to_the_figure(
        cam: CameraConfig, calibration: Calibration, still) -> None:
    table = still.render(0)
    skin = (60, 90, 150)

    def stroke(img, a_mm, b_mm, width):
        a, b = project(calibration.H, [a_mm, b_mm])
        cv2.line(img, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), skin, width)

    # Ada's fingers rest just inside the edge, where her arm will pass, when the camera
    # starts, as wide as the arm: over that spot the arm reads as the table learned there.
    first = table.copy()
    stroke(first, (451.0, 578.0), (454.0, 558.0), 26)
    view = build_view(cam, calibration)
    bg = BackgroundModel()
    detect(first, view, bg, t_ns=0)
    # Her arm reaches from the edge to the child: where it crosses the resting spot it
    # looks like the table learned there, a gap in the foreground.
    reach = table.copy()
    stroke(reach, (450.0, 600.0), cam.pad(Figure.CHILD), 20)
    det = detect(reach, view, bg, t_ns=33_000_000)
    (arm,) = [a for a in det.arms if a.seat == "Ada"]
    assert Figure.CHILD in arm.touching
    assert math.dist(arm.tip_mm, cam.pad(Figure.CHILD)) < cam.pad_radius(Figure.CHILD) + 10


def test_an_arm_is_followed_past_the_edge_to_its_shoulders_zone(
        cam: CameraConfig, calibration: Calibration) -> None:
    view = build_view(cam, calibration)
    seats = list(view.seats)
    half = detect_mod.DOWNSCALE

    def arm(entry_mm: tuple[float, float], inward: tuple[float, float]) -> int:
        ux, uy = inward
        n = math.hypot(ux, uy)
        along = [(entry_mm[0] + ux / n * s, entry_mm[1] + uy / n * s) for s in range(0, 150, 3)]
        pts = (project(view.H, along) / half).astype(np.float32)
        entry = (float(pts[0][0]), float(pts[0][1]))
        return detect_mod._followed_seat(view, pts, entry, seats.index("Ada"))

    # Crossing the near edge in Ada's stretch, 35 mm from Ben's, reaching in and right:
    # followed out, it comes from the corner behind Ben's stretch.
    assert seats[arm((110.0, 600.0), (1.0, -0.8))] == "Ben"
    # Straight in from the same place: Ada's own.
    assert seats[arm((110.0, 600.0), (0.0, -1.0))] == "Ada"


def _run(tracker: Tracker, frames: list[tuple[dict[Figure, PadReading], tuple[Arm, ...]]],
         fps: float = 30.0) -> list:
    out = []
    for i, (pads, arms) in enumerate(frames):
        out.extend(tracker.update(Detection(round(i * 1e9 / fps), i, "ok", pads, arms)))
    out.extend(tracker.finish())
    return [d for d in out if d.kind == "grab"]


def _lift_frames(cam: CameraConfig, rival_mm: float | None) -> list:
    """Ben's hand takes the child; a rival hand's tip comes `rival_mm` from its pad."""
    home = {f: PadReading(1.0, 0.0, 0.0, cam.pad(f), exact=True) for f in Figure}
    gone = {**home, Figure.CHILD: PadReading(0.0, 1.0, None, None, exact=True)}
    pad = cam.pad(Figure.CHILD)

    def ben(touch: bool) -> Arm:
        return Arm("Ben", (0.0, 300.0), pad if touch else (200.0, 320.0), (0.0, 0.0),
                   frozenset({Figure.CHILD}) if touch else frozenset(), 400)

    rival = () if rival_mm is None else (
        Arm("Dan", (900.0, 300.0), (pad[0] + rival_mm, pad[1]), (0.0, 0.0), frozenset(), 400),)
    frames = [(home, ())] * 5 + [(home, (ben(True), *rival))] * 6
    frames += [(gone, (ben(True), *rival))] * 3 + [(gone, (ben(False),))] * 12
    return frames + [(gone, ())] * 4


def test_the_only_hand_at_a_figure_is_named_with_confidence(cam, calibration) -> None:
    (d,) = _run(Tracker(build_view(cam, calibration)), _lift_frames(cam, None))
    assert (d.seat, d.figure) == ("Ben", Figure.CHILD)
    assert d.confidence >= ASK_BELOW


def test_another_hand_near_the_figure_makes_the_table_ask(cam, calibration) -> None:
    (d,) = _run(Tracker(build_view(cam, calibration)), _lift_frames(cam, 90.0))
    assert d.seat == "Ben"
    assert d.confidence < ASK_BELOW            # Dan's hand was there: ask, don't guess
    (far,) = _run(Tracker(build_view(cam, calibration)), _lift_frames(cam, 400.0))
    assert far.confidence >= ASK_BELOW         # a hand across the table is no rival


def test_a_hand_elsewhere_when_the_figure_left_is_not_named_with_confidence(
        cam, calibration) -> None:
    """tune:1466: Cleo's hand brushed the child on its way to the chest and was at
    the chest, 313 mm off, when the child left; Ben, his sleeve the table's colour,
    took it unseen. Cleo, the only hand that had touched it, was named at 0.99 (here
    she is at the figure farthest off)."""
    home = {f: PadReading(1.0, 0.0, 0.0, cam.pad(f), exact=True) for f in Figure}
    gone = {**home, Figure.CHILD: PadReading(0.0, 1.0, None, None, exact=True)}
    child = cam.pad(Figure.CHILD)
    far = max((pos for _, pos in cam.pads), key=lambda p: math.dist(p, child))

    def cleo(tip: tuple[float, float], touching: frozenset[Figure] = frozenset()) -> Arm:
        return Arm("Cleo", (0.0, 300.0), tip, (0.0, 0.0), touching, 400)

    def frames(tip_at_lift: tuple[float, float]) -> list:
        brushed = [(home, (cleo(child, frozenset({Figure.CHILD})),))] * 3
        return ([(home, ())] * 5 + brushed + [(home, (cleo(tip_at_lift),))] * 8
                + [(gone, (cleo(tip_at_lift),))] * 3 + [(gone, (cleo((200.0, 320.0)),))] * 12
                + [(gone, ())] * 4)

    (away,) = _run(Tracker(build_view(cam, calibration)), frames(far))
    assert math.dist(far, child) > 160.0
    assert away.confidence < ASK_BELOW       # her hand was elsewhere: ask who took it
    (there,) = _run(Tracker(build_view(cam, calibration)), frames((child[0] + 30, child[1])))
    assert there.seat == "Cleo" and there.confidence >= ASK_BELOW
    # tune:1548: a seat's two hands are one arm whose tip is the larger's. Her other
    # hand resting far off, the one gripping the child is still at it.
    resting = Arm("Cleo", (0.0, 300.0), far, (0.0, 0.0), frozenset(), 900)
    gripping = Arm("Cleo", (0.0, 320.0), child, (0.0, 0.0), frozenset({Figure.CHILD}), 300)
    both = ([(home, ())] * 5 + [(home, (resting, gripping))] * 11
            + [(gone, (resting, gripping))] * 3 + [(gone, (resting,))] * 12 + [(gone, ())] * 4)
    (two_hands,) = _run(Tracker(build_view(cam, calibration)), both)
    assert two_hands.seat == "Cleo" and two_hands.confidence >= ASK_BELOW


def test_one_hand_named_for_two_figures_that_left_together_makes_the_table_ask(
        cam, calibration) -> None:
    # Ben's hand touches the child and the dog, and both leave their pads: one hand takes
    # one figure, so a hand the camera did not see (the table's colour) took the other.
    home = {f: PadReading(1.0, 0.0, 0.0, cam.pad(f), exact=True) for f in Figure}
    gone = PadReading(0.0, 1.0, None, None, exact=True)
    one = {**home, Figure.CHILD: gone}
    both = {**one, Figure.DOG: gone}
    mid = ((cam.pad(Figure.CHILD)[0] + cam.pad(Figure.DOG)[0]) / 2,
           (cam.pad(Figure.CHILD)[1] + cam.pad(Figure.DOG)[1]) / 2)

    def ben(touching: frozenset[Figure]) -> Arm:
        return Arm("Ben", (0.0, 300.0), mid if touching else (200.0, 320.0), (0.0, 0.0),
                   touching, 400)

    def frames(after: dict[Figure, PadReading]) -> list:
        at = frozenset({Figure.CHILD, Figure.DOG})
        out = [(home, ())] * 5 + [(home, (ben(at),))] * 6
        return out + [(after, (ben(at),))] * 3 + [(after, (ben(frozenset()),))] * 12 \
            + [(after, ())] * 4

    grabs = _run(Tracker(build_view(cam, calibration)), frames(both))
    assert {d.figure for d in grabs} == {Figure.CHILD, Figure.DOG}
    assert all(d.seat == "Ben" and d.confidence < ASK_BELOW for d in grabs)
    (only,) = _run(Tracker(build_view(cam, calibration)), frames(one))
    assert only.confidence >= ASK_BELOW      # the dog stayed: Ben took the child


def test_a_hand_taking_the_next_figure_is_no_rival_for_this_one(cam, calibration) -> None:
    """Two players take neighbouring figures at once: Dan's hand at the chest, 112 mm from
    the child Ben takes, is near enough to have taken the child, unless it was busy
    taking the chest and never came over the child's pad."""
    home = {f: PadReading(1.0, 0.0, 0.0, cam.pad(f), exact=True) for f in Figure}
    gone = PadReading(0.0, 1.0, None, None, exact=True)
    child, chest = cam.pad(Figure.CHILD), cam.pad(Figure.CHEST)

    def frames(chest_taken: bool, on_the_way: tuple[float, float],
               brushed: frozenset[Figure] = frozenset()) -> list:
        ben = Arm("Ben", (900.0, 300.0), child, (0.0, 0.0), frozenset({Figure.CHILD}), 400)
        ben_back = Arm("Ben", (900.0, 300.0), (700.0, 320.0), (0.0, 0.0), frozenset(), 400)
        dan_way = Arm("Dan", (450.0, 600.0), on_the_way, (0.0, 0.0), brushed, 400)
        dan = Arm("Dan", (450.0, 600.0), chest, (0.0, 0.0), frozenset({Figure.CHEST}), 400)
        dan_back = Arm("Dan", (450.0, 600.0), (450.0, 520.0), (0.0, 0.0), frozenset(), 400)
        after = {**home, Figure.CHILD: gone} | ({Figure.CHEST: gone} if chest_taken else {})
        return ([(home, ())] * 5 + [(home, (dan_way,))] * 2 + [(home, (ben, dan))] * 6
                + [(after, (ben, dan))] * 3 + [(after, (ben_back, dan_back))] * 12
                + [(after, ())] * 4)

    def child_grab(chest_taken: bool, on_the_way: tuple[float, float],
                   brushed: frozenset[Figure] = frozenset()):
        grabs = _run(Tracker(build_view(cam, calibration)),
                     frames(chest_taken, on_the_way, brushed))
        return next(d for d in grabs if d.figure is Figure.CHILD)

    straight = (chest[0], chest[1] + 60.0)
    busy = child_grab(True, straight)
    assert busy.seat == "Ben" and busy.confidence >= ASK_BELOW
    # Dan's hand only feinted at the chest: free to have taken the child.
    assert child_grab(False, straight).confidence < ASK_BELOW
    # Dan took the chest, but his hand came over the child's pad on the way: ask.
    assert child_grab(True, (child[0] - 30.0, child[1] + 20.0)).confidence < ASK_BELOW
    # ... or touched the child with the back of his hand, his fingertips beyond it.
    assert child_grab(True, straight, frozenset({Figure.CHILD})).confidence < ASK_BELOW


def _one_grab_lift(seed: str) -> tuple[float, int, float]:
    """A world round with one grab, analysed: (its lift time's error, its stated
    uncertainty, a frame), in ns, once the figure is checked."""
    world = world_round(seed, kind_of(int(seed.split(":")[1])))
    result = analyze(WorldSource(world), world.camera)
    (truth,) = [e for e in world.to_json()["truth"] if e["kind"] == "grab"]
    (grab,) = [d for d in result.decisions if d.kind == "grab"]
    assert grab.figure.value == truth["figure"] and grab.lift_ns is not None
    return (abs(grab.lift_ns - result.origin_ns - truth["lift_s"] * 1e9), grab.uncertainty_ns,
            1e9 / world.fps)


@pytest.mark.parametrize("seed", ["tune:1405", "tune:1424"])
def test_a_figure_seen_well_off_its_pad_a_frame_after_it_stood_there_is_dated_honestly(
        seed: str) -> None:
    """A hand closes over the figure and carries it off from rest: the part of it
    still showing matched at home while it began to move, and a frame later it is
    10-20 mm off. Taken once for a push at speed (the window's middle, one frame's
    uncertainty), such lifts were dated 2-5 frames late with an uncertainty that did
    not hold the truth."""
    err, uncertainty, _ = _one_grab_lift(seed)
    assert err <= uncertainty


@pytest.mark.parametrize("seed", ["tune:1380", "tune:1401"])
def test_a_lift_hands_half_hid_is_given_an_uncertainty_that_holds_it(seed: str) -> None:
    """tune:1380: the white dog, a sixth of it showing beside the gripping hand, slid
    10 mm under it and still matched at home three frames after it left. tune:1401:
    the ship, hidden under two hands from ten frames before it left, was seen off its
    pad once before its pad read empty. Each stated uncertainty used to be two frames
    and missed the truth by three and by eleven."""
    err, uncertainty, _ = _one_grab_lift(seed)
    assert err <= uncertainty


def test_a_round_under_a_dim_lamp_on_dark_felt_is_analysed_not_refused_as_dark() -> None:
    """heldout:1790 (six players, dark felt, the lamp dim): the frames average under 25
    grey levels, and all of them were refused as "dark" from 1.6 s on; none of the
    round's three grabs was seen."""
    world = world_round("heldout:1790", "six")
    result = analyze(WorldSource(world), world.camera)
    truth = {e["figure"] for e in world.to_json()["truth"] if e["kind"] == "grab"}
    assert len(truth) == 3
    assert {d.figure.value for d in result.decisions if d.kind == "grab"} == truth


@pytest.mark.parametrize("seed", ["tune:1540", "tune:1603"])
def test_a_lift_the_pad_watched_is_dated_from_the_pad_within_a_frame(seed: str) -> None:
    """The pad read the figure home one frame and gone the next, and the figure was
    then found a few millimetres off in the closing fist (tune:1540: 6, 13, 15 mm
    at 60 fps; tune:1603: 12, 42, 84 mm at 30 fps). Extrapolated back from those
    positions, the lifts were dated 2.9 and 1.7 frames late; from the pad, within a
    frame."""
    err, _, frame = _one_grab_lift(seed)
    assert err <= frame


@pytest.mark.parametrize(("seed", "seat", "figure"), [("tune:1536", "Ada", "dog"),
                                                      ("tune:1468", "Eve", "viking")])
def test_a_pads_printed_ring_is_no_part_of_its_figures_picture(
        seed: str, seat: str, figure: str) -> None:
    """A ring printed round each pad reached a millimetre into the read disc; its
    pixels were learned as the figure's and still matched once the figure had gone (a
    sixth of its picture): the pad read "covered" for ever and the grab was never seen
    (9 of 55 single grabs on tune:1456-1555)."""
    world = world_round(seed, kind_of(int(seed.split(":")[1])))
    assert world.look.pad_ring_bgr is not None   # type: ignore[attr-defined]
    result = analyze(WorldSource(world), world.camera)
    (truth,) = [e for e in world.to_json()["truth"] if e["kind"] == "grab"]
    assert truth["seat"] == seat and truth["figure"] == figure
    grabs = [d for d in result.decisions if d.kind == "grab"]
    assert [d.figure.value for d in grabs] == [figure]
    assert grabs[0].lift_ns is not None
    assert abs(grabs[0].lift_ns - result.origin_ns - truth["lift_s"] * 1e9) \
        <= grabs[0].uncertainty_ns

"""Phantom grabs from issue 11, held in place: a dark hand passing over a pad, or an
arm lying across one, can read as the empty pad's colour; only a pad that lies still
with the table around it clear is empty, and a patch of a figure's colour is no sign
that it left."""

from __future__ import annotations

import cv2
import numpy as np

from controller.knapp.cards import Figure
from controller.vision.config import CameraConfig
from controller.vision.detect import (
    Arm,
    BackgroundModel,
    Detection,
    PadReading,
    TableView,
    detect,
)
from controller.vision.track import CLEAR_AROUND, QUIET_S, Tracker
from tests.vision.conftest import bare_pad, pad_bgr

FPS = 30.0


def _readings(view: TableView, frames: list[np.ndarray]) -> list[PadReading]:
    """The child's pad as `detect` reads it in each frame (after the still table)."""
    bg = BackgroundModel()
    out = []
    for i, img in enumerate(frames):
        det = detect(img, view, bg, t_ns=round(i * 1e9 / FPS), index=i)
        out.append(det.pads[Figure.CHILD])
    return out


def test_an_arm_of_the_pads_colour_across_a_pad_leaves_the_table_around_it_unclear(
        still_table) -> None:
    view, image = still_table
    pad = view.pad(Figure.CHILD)
    c = (round(pad.centre[0]), round(pad.centre[1]))
    r = round(pad.radius_px)
    # The figure gone: its pad painted bare (the pad only).
    bare = image.copy()
    cv2.circle(bare, c, round(r * 1.05), pad_bgr(view), -1)
    # An arm of the pad's own colour lying across the pad and out over the table.
    arm = image.copy()
    cv2.line(arm, (c[0] - 6 * r, c[1] + r), (c[0], c[1]), pad_bgr(view), 3 * r)
    bare_now = _readings(view, [image] * 3 + [bare] * 8)[-1]
    arm_now = _readings(view, [image] * 3 + [arm] * 8)[-1]
    assert bare_now.state == arm_now.state == "empty"     # the colour alone can't tell
    assert bare_now.around >= CLEAR_AROUND
    assert arm_now.around < CLEAR_AROUND


def test_a_pad_under_a_moving_hand_is_not_still_and_a_bare_one_is(still_table) -> None:
    view, image = still_table
    pad = view.pad(Figure.CHILD)
    c = (round(pad.centre[0]), round(pad.centre[1]))
    r = round(pad.radius_px)
    frames = [image] * 3
    for k in range(8):
        img = image.copy()
        # A textured hand sliding across the pad, a few pixels a frame.
        x = c[0] - 2 * r + 3 * k
        cv2.rectangle(img, (x - 2 * r, c[1] - 2 * r), (x + 2 * r, c[1] + 2 * r), (40, 60, 80), -1)
        for j in range(-2 * r, 2 * r, 4):
            cv2.line(img, (x + j, c[1] - 2 * r), (x + j, c[1] + 2 * r), (55, 75, 100), 1)
        frames.append(img)
    moving = _readings(view, frames)[-1]
    bare = bare_pad(image, view, Figure.CHILD)
    still = _readings(view, [image] * 3 + [bare] * 8)[-1]
    assert moving.still_s < QUIET_S
    assert still.still_s >= 0.2


def _frames(cam: CameraConfig, gone: PadReading) -> list[tuple[dict, tuple]]:
    """Dan's arm passes over the child's pad (not touching it, as a hand the table's
    colour is not seen as one) while the pad reads `gone`; then the child shows again."""
    home = {f: PadReading(1.0, 0.0, 0.0, cam.pad(f), exact=True) for f in Figure}
    over = {**home, Figure.CHILD: gone}
    dan = Arm("Dan", (900.0, 300.0), (cam.pad(Figure.DOG)[0], cam.pad(Figure.DOG)[1] - 80),
              (0.0, 0.0), frozenset(), 400)
    return [(home, ())] * 5 + [(over, (dan,))] * 15 + [(home, ())] * 12


def _grabs(view: TableView, frames: list[tuple[dict, tuple]]) -> list:
    tracker = Tracker(view, fps=FPS)
    out = []
    for i, (pads, arms) in enumerate(frames):
        out.extend(tracker.update(Detection(round(i * 1e9 / FPS), i, "ok", pads, arms)))
    out.extend(tracker.finish())
    return [d for d in out if d.kind == "grab"]


def test_a_hand_passing_over_a_pad_is_no_lift(still_table) -> None:
    view, _ = still_table
    passing = PadReading(0.0, 1.0, None, None, exact=True, still_s=0.0, around=1.0)
    assert _grabs(view, _frames(view.cam, passing)) == []
    bare = PadReading(0.0, 1.0, None, None, exact=True, still_s=0.5, around=1.0)
    assert len(_grabs(view, _frames(view.cam, bare))) == 1      # the check itself


def test_an_arm_lying_across_a_pad_is_no_lift(still_table) -> None:
    view, _ = still_table
    lying = PadReading(0.0, 1.0, None, None, exact=True, still_s=0.5, around=0.2)
    assert _grabs(view, _frames(view.cam, lying)) == []

"""Calibration on rendered snapshots: markers by id, homography, colours, clear failures."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from controller.knapp.cards import Figure
from controller.sim.render import FIGURE_BGR, RenderedSource, Scene, Style, TableRenderer
from controller.vision.analyze import analyze, calibrate_from, calibrate_live
from controller.vision.calibrate import (
    Calibration,
    CalibrationError,
    calibrate,
    draw_preview,
    markers_in,
    merge_markers,
    project,
)
from controller.vision.config import CameraConfig
from controller.vision.frames import Frame

from .conftest import RestingHands, table


def _error_mm(cal: Calibration, renderer: TableRenderer, cam: CameraConfig) -> float:
    """Largest distance (mm on the table) at the pads between the fitted and the true camera."""
    pts = [p for _, p in cam.pads] + [(0.0, 0.0), (cam.table_mm[0], cam.table_mm[1])]
    fitted = project(cal.H, pts)
    true = project(renderer.H, pts)
    px_per_mm = np.linalg.norm(true[-1] - true[-2]) / math.hypot(*cam.table_mm)
    return float(np.max(np.linalg.norm(fitted[:-2] - true[:-2], axis=1)) / px_per_mm)


def test_the_homography_matches_the_camera_and_colours_match_the_paint(
        cam: CameraConfig, still: TableRenderer, calibration: Calibration) -> None:
    assert calibration.markers == (0, 1, 2, 3)
    assert calibration.reprojection_px < 1.0
    assert _error_mm(calibration, still, cam) < 3.0
    for figure in Figure:
        paint = np.uint8([[FIGURE_BGR[figure]]])
        lab = cv2.cvtColor(paint, cv2.COLOR_BGR2LAB)[0, 0].astype(float)
        assert np.linalg.norm(lab - calibration.colour(figure).lab) < 12


def test_markers_are_found_by_id_not_by_order() -> None:
    # The same markers in other corners: the fit must follow the ids.
    swapped = table(markers={"centres_mm": [[860, 560], [40, 560], [40, 40], [860, 40]]})
    renderer = TableRenderer(Scene(swapped, style=Style(rotate_deg=-6)))
    cal = calibrate(renderer.render(0), swapped)
    assert _error_mm(cal, renderer, swapped) < 3.0


def test_a_covered_marker_leaves_three_which_still_fit(cam: CameraConfig) -> None:
    renderer = TableRenderer(Scene(cam, style=Style(cover_marker=2)))
    cal = calibrate(renderer.render(0), cam)
    assert cal.markers == (0, 1, 3)
    assert _error_mm(cal, renderer, cam) < 3.0


def test_two_missing_markers_name_the_missing_ids(cam: CameraConfig) -> None:
    img = TableRenderer(Scene(cam)).render(0)
    _h, w = img.shape[:2]
    img[:, w // 2:] = (60, 120, 70)  # the right half of the table, markers 1 and 2, hidden
    with pytest.raises(CalibrationError, match=r"missing id 1, 2"):
        calibrate(img, cam)


def test_markers_hidden_in_turn_over_a_few_frames_still_calibrate(cam: CameraConfig) -> None:
    """Hands resting on two markers, then on the other two: no frame alone calibrates,
    the markers seen over the frames do, and fit the camera as well as a clear view."""
    renderer = TableRenderer(Scene(cam, style=Style(tilt=0.1, rotate_deg=4)))
    img = renderer.render(0)
    _h, w = img.shape[:2]
    right, left = img.copy(), img.copy()
    right[:, w // 2:] = (60, 120, 70)            # markers 1 and 2 hidden
    left[:, :w // 3] = (60, 120, 70)             # markers 0 and 3 hidden (the pads show)
    frames = [Frame(im, k, k, True) for k, im in enumerate((right, left, right))]
    for f in frames:
        with pytest.raises(CalibrationError, match="found 2 of the 4"):
            calibrate(f.image, cam)
    assert sorted(merge_markers([markers_in(f.image) for f in frames])) == [0, 1, 2, 3]
    cal = calibrate_from(frames, cam)
    assert cal.markers == (0, 1, 2, 3)
    assert _error_mm(cal, renderer, cam) < 3.0
    with pytest.raises(CalibrationError, match=r"first 2 frames: .*missing id 1, 2"):
        calibrate_from([frames[0], frames[2]], cam)   # the same two hidden throughout


def test_a_fast_camera_calibrates_from_half_a_second_not_from_fifteen_frames(
        cam: CameraConfig) -> None:
    """At 120 fps the first 15 frames are 125 ms: the hands have not moved yet. Half a
    second of frames sees them move off the markers."""
    scene = Scene(cam, duration_s=0.6, fps=120.0)
    result = analyze(RestingHands(scene, until=30), cam)
    assert result.calibration.markers == (0, 1, 2, 3)
    assert _error_mm(result.calibration, TableRenderer(scene), cam) < 3.0


def test_a_live_camera_waits_for_hidden_markers_with_every_marker_seen_so_far(
        cam: CameraConfig) -> None:
    """Hands on two markers for two seconds, then on the other two: no half second of
    frames calibrates alone; with the markers of the frames before, the first half
    second after the hands moved does."""
    scene = Scene(cam, duration_s=4.0)
    cal, frame = calibrate_live(RestingHands(scene, until=60), cam)
    assert cal.markers == (0, 1, 2, 3)
    assert 60 <= frame.index < 75
    assert _error_mm(cal, TableRenderer(scene), cam) < 3.0
    # Hands that never move: it gives up after the wait, counted in frames, naming why.
    with pytest.raises(CalibrationError, match=r"first 45 frames: .*missing id 1, 2"):
        calibrate_live(RestingHands(scene, until=None), cam, wait_s=1.5)
    ended = RenderedSource(Scene(cam, duration_s=0.1))
    while ended.read() is not None:
        pass
    with pytest.raises(CalibrationError, match="gave no frame"):
        calibrate_live(ended, cam)


def test_a_dark_snapshot_and_an_empty_pad_are_refused(cam: CameraConfig) -> None:
    img = TableRenderer(Scene(cam)).render(0)
    with pytest.raises(CalibrationError, match="almost black"):
        calibrate((img * 0.05).astype(np.uint8), cam)
    moved = table(pads={"dog": [200, 450]})  # the dog is not where this file says
    with pytest.raises(CalibrationError, match="dog"):
        calibrate(img, moved)


def test_save_load_round_trip_and_bad_files(tmp_path, calibration: Calibration) -> None:
    path = tmp_path / "cal.json"
    calibration.save(path)
    assert Calibration.load(path) == calibration
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CalibrationError, match="not JSON"):
        Calibration.load(path)
    path.write_text('{"format": "knapp-camera-calibration/1", "image_size": [640]}',
                    encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"malformed|homography"):
        Calibration.load(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")


def test_preview_marks_what_was_found(cam: CameraConfig, still: TableRenderer,
                                      calibration: Calibration) -> None:
    img = still.render(0)
    preview = draw_preview(img, cam, calibration)
    assert preview.shape == img.shape
    # Each pad's outline is drawn in white where the snapshot had no white.
    pad = project(calibration.H, [cam.pad(Figure.SHIP)])[0]
    r = round(cam.figure_radius_mm * 0.6)
    ys, xs = np.nonzero(np.all(preview == 255, axis=2))
    near = np.hypot(xs - pad[0], ys - pad[1])
    assert np.any((near > r) & (near < r * 3))

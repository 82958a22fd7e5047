"""Markers re-checked during a match: a covered one is a note, a moved camera stops the camera."""

from __future__ import annotations

import re

import numpy as np

from controller.knapp.cards import Figure
from controller.referee.camera import CameraLink
from controller.referee.health import Level
from controller.sim.render import RenderedSource, Scene, Style, TableRenderer
from controller.vision.analyze import FrameAnalyser, analyze
from controller.vision.calibrate import Calibration
from controller.vision.config import CameraConfig
from controller.vision.frames import Frame
from controller.vision.markers import BLIND_S, CHECK_FRAMES, MarkerWatch
from controller.vision.ring import FrameRing

from .conftest import grab

STYLE = Style(tilt=0.1, rotate_deg=4, noise=3)


def _cover(img: np.ndarray, watch: MarkerWatch, ids: tuple[int, ...]) -> np.ndarray:
    """Paint over markers, as cups or elbows would."""
    out = img.copy()
    for i in ids:
        x0, y0 = watch.expected[i].min(axis=0).astype(int) - 3
        x1, y1 = watch.expected[i].max(axis=0).astype(int) + 3
        out[max(0, y0):y1, max(0, x0):x1] = (90, 120, 150)
    return out


def test_a_marker_covered_mid_match_is_a_note_and_the_camera_still_decides(
        cam: CameraConfig, calibration: Calibration) -> None:
    scene = Scene(cam, (grab("Ben", Figure.VIKING, 0.9),), duration_s=2.2, fps=30, seed=5,
                  style=Style(tilt=0.1, rotate_deg=4, noise=3, cover_marker=2, cover_from_s=0.3))
    source = RenderedSource(scene)
    link = CameraLink(source, FrameAnalyser(cam, calibration, fps=30), FrameRing(1.0))
    link.pump(source.renderer.frame_count)   # every frame, and no further: not "lost" yet
    assert [(d.seat, d.figure) for d in link.poll()] == [("Ben", Figure.VIKING)]
    assert link.analyser.statuses == {}
    health = link.health()
    assert health.level is Level.OK
    assert re.fullmatch(r"\d+\.\d fps, marker 2 covered", health.message), health.message


def test_a_moved_camera_is_reported_and_decides_nothing(
        cam: CameraConfig, calibration: Calibration) -> None:
    scene = Scene(cam, (grab("Ada", Figure.SHIP, 0.8),), duration_s=1.8, style=STYLE, seed=5)

    class Bumped(RenderedSource):
        def read(self) -> Frame | None:
            frame = super().read()
            if frame is None or frame.index < 5:
                return frame
            # Someone knocked the camera: the whole picture shifts by 9 and 6 pixels.
            return Frame(np.roll(frame.image, (6, 9), axis=(0, 1)), frame.t_ns, frame.index)

    result = analyze(Bumped(scene), cam, calibration)
    assert result.decisions == []
    # The first check after the bump sees it, the next frame confirms it.
    assert result.statuses.get("camera moved", 0) >= round(1.8 * 30) - CHECK_FRAMES - 1


def test_too_many_covered_markers_stop_the_camera_until_they_show_again(
        cam: CameraConfig, calibration: Calibration, still: TableRenderer) -> None:
    analyser = FrameAnalyser(cam, calibration, fps=30)
    watch = analyser.markers
    frame_ns = 33_333_333
    blind = round(BLIND_S * 30) + 2 * CHECK_FRAMES    # past BLIND_S on a check
    clear = still.render(0)
    hidden = _cover(clear, watch, (0, 1, 3))
    seen = []
    for i in range(CHECK_FRAMES + blind + 2 * CHECK_FRAMES):
        img = (hidden if CHECK_FRAMES <= i < CHECK_FRAMES + blind else clear).copy()
        img[0, 0] = i % 256    # a live camera: never twice the same picture
        analyser.feed(Frame(img, i * frame_ns, i))
        assert analyser.last is not None
        seen.append((analyser.last.status, analyser.note))
    # An arm over three corners for a moment: a note, and the camera goes on.
    assert seen[CHECK_FRAMES * 3] == ("ok", "markers 0, 1, 3 covered")
    # Three seconds without two markers in place: nobody can tell it has not moved.
    assert seen[CHECK_FRAMES + blind - 1][0].startswith("markers covered: 0, 1, 3; ")
    assert seen[-1] == ("ok", "")

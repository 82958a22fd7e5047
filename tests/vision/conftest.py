"""Shared fixtures: a four-seat table and rendered scenes analysed once per module."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.config import parse_config
from controller.knapp.cards import Figure
from controller.sim.render import Reach, RenderedSource, Scene, Style, TableRenderer
from controller.vision.calibrate import Calibration, calibrate
from controller.vision.config import CameraConfig
from controller.vision.detect import TableView, build_view
from controller.vision.frames import Frame

SEATS = ["Ada", "Ben", "Cleo", "Dan"]


def table(**camera: object) -> CameraConfig:
    """The camera section of a four-seat table, with `camera` keys overridden."""
    return (parse_config({"table": {"seats": SEATS}, "camera": camera})).camera


@pytest.fixture(scope="session")
def cam() -> CameraConfig:
    return table()


@pytest.fixture(scope="session")
def still(cam: CameraConfig) -> TableRenderer:
    """An empty, tilted table with every figure home."""
    return TableRenderer(Scene(cam, style=Style(tilt=0.1, rotate_deg=4, noise=3), seed=5))


@pytest.fixture(scope="session")
def calibration(cam: CameraConfig, still: TableRenderer) -> Calibration:
    return calibrate(still.render(0), cam)


@pytest.fixture(scope="session")
def still_table(cam: CameraConfig, calibration: Calibration, still: TableRenderer
                ) -> tuple[TableView, np.ndarray]:
    """The still table's view and its first frame."""
    return build_view(cam, calibration), still.render(0)


def pad_bgr(view: TableView) -> tuple[float, ...]:
    """The pads' own colour, as learned at calibration, in BGR."""
    lab = np.uint8([[view.pad_lab.clip(0, 255)]])
    return tuple(float(v) for v in cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)[0, 0])


def bare_pad(image: np.ndarray, view: TableView, figure: Figure) -> np.ndarray:
    """`image` with `figure` painted out in its pad's own colour (the pad only)."""
    out = image.copy()
    pad = view.pad(figure)
    c = (round(pad.centre[0]), round(pad.centre[1]))
    cv2.circle(out, c, round(pad.radius_px * 1.05), pad_bgr(view), -1)
    return out


def grab(seat: str, figure: Figure, start: float = 0.5, *, lifts: bool = True,
         touch_after: float = 0.3, hold: float = 0.1, back: float = 0.3,
         short_mm: float = 0.0) -> Reach:
    """A reach with round numbers: start, touch, release, end."""
    touch = start + touch_after
    return Reach(seat, figure, start, touch, touch + hold, touch + hold + back, lifts=lifts,
                 short_mm=short_mm)


class RestingHands(RenderedSource):
    """Hands resting on markers 1 and 2 (the table's right half) until frame `until`,
    then on markers 0 and 3; `until` None: on 1 and 2 throughout."""

    def __init__(self, scene: Scene, until: int | None) -> None:
        super().__init__(scene)
        self.until = until

    def read(self) -> Frame | None:
        frame = super().read()
        if frame is None:
            return None
        img = frame.image.copy()
        w = img.shape[1]
        if self.until is None or frame.index < self.until:
            img[:, w // 2:] = (60, 120, 70)
        else:
            img[:, :w // 3] = (60, 120, 70)
        return Frame(img, frame.t_ns, frame.index, True)

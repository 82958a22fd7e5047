"""Shared fixtures: a four-seat table and rendered scenes analysed once per module."""

from __future__ import annotations

import pytest

from controller.config import parse_config
from controller.knapp.cards import Figure
from controller.sim.render import Reach, Scene, Style, TableRenderer
from controller.vision.calibrate import Calibration, calibrate
from controller.vision.config import CameraConfig

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


def grab(seat: str, figure: Figure, start: float = 0.5, *, lifts: bool = True,
         touch_after: float = 0.3, hold: float = 0.1, back: float = 0.3,
         short_mm: float = 0.0) -> Reach:
    """A reach with round numbers: start, touch, release, end."""
    touch = start + touch_after
    return Reach(seat, figure, start, touch, touch + hold, touch + hold + back, lifts=lifts,
                 short_mm=short_mm)

"""The camera's stated confidence: calibrated to how often it was right, without moving
which grabs the table is asked about."""

from __future__ import annotations

import itertools

import numpy as np

from controller.vision.confidence import ASK_BELOW, CALIBRATION, calibrated


def test_calibration_never_moves_a_grab_across_the_asking_line() -> None:
    for raw in np.linspace(0.0, 1.0, 1001):
        assert (calibrated(float(raw)) >= ASK_BELOW) == (raw >= ASK_BELOW), raw


def test_calibration_is_monotone_and_a_probability() -> None:
    out = [calibrated(float(raw)) for raw in np.linspace(0.0, 1.0, 1001)]
    assert all(0.0 <= p <= 1.0 for p in out)
    assert all(b >= a for a, b in itertools.pairwise(out))


def test_the_fitted_steps_are_what_is_stated() -> None:
    # A crowd-capped 0.8 was right about three times in five on the tuning seeds.
    assert calibrated(0.8) == dict(CALIBRATION)[0.75]
    assert calibrated(0.95) == dict(CALIBRATION)[0.875]
    assert calibrated(0.8, ()) == 0.8          # no table: the raw value

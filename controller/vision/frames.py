"""Frames and the frame-source seam: what every source and every consumer shares.

A `Frame` is a BGR image with its host CLOCK_MONOTONIC timestamp. A source is
anything with `read()` (next frame, or None when there is none) and `close()`.
The sources themselves import this module, never the other way round:
`sources.py` holds OpenCV's `VideoCapture` (USB webcams, video files) and
`open_source`, `camera.py` picamera2, and `controller/sim/render.py` the
synthetic table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy.typing as npt

from controller.errors import KnappError

# OpenCV's stubs type results loosely; frames are uint8 BGR arrays at run time.
Image = npt.NDArray[Any]


class CameraError(KnappError, RuntimeError):
    """A camera or video cannot be opened or stopped delivering frames."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture from the camera.

    Args:
        image: BGR pixels, height x width x 3.
        t_ns: when it was taken, host CLOCK_MONOTONIC ns (the sensor's time where known).
        index: the frame's number in its source, from 0.
        sensor_time: True when `t_ns` came from the sensor or driver, not from arrival.
    """

    image: Image
    t_ns: int
    index: int
    sensor_time: bool = False


class FrameSource(Protocol):
    """Anything that hands out frames in order."""

    fps: float

    def read(self) -> Frame | None:
        """Return the next frame, or None when the source has ended or failed."""
        ...

    def close(self) -> None:
        """Release the device or file."""
        ...


def frames(source: FrameSource) -> Iterator[Frame]:
    """Iterate over a source until it ends."""
    while (frame := source.read()) is not None:
        yield frame

"""The camera thread and the evidence worker share a `CameraLink` without waiting on each other."""

from __future__ import annotations

import threading

import numpy as np

from controller.referee.camera import CameraLink
from controller.vision.frames import Frame
from controller.vision.ring import FrameRing


class StillSource:
    """A camera that delivers `n` grey frames 1/30 s apart (a `FrameSource`)."""

    fps = 30.0

    def __init__(self, n: int) -> None:
        self.n = n
        self.i = 0

    def read(self) -> Frame | None:
        if self.i >= self.n:
            return None
        self.i += 1
        return Frame(np.full((48, 64, 3), self.i % 255, np.uint8), self.i * 33_333_333,
                     self.i, True)

    def close(self) -> None:
        pass


def test_the_frames_around_a_lift_are_read_without_the_links_lock() -> None:
    ring = FrameRing(10.0)
    link = CameraLink(StillSource(30), analyser=None, ring=ring)  # type: ignore[arg-type]
    src = link.source
    for _ in range(30):
        frame = src.read()
        assert frame is not None
        ring.push(frame)
    got: list[int] = []
    # The camera thread holds the link's lock (it is between two frames' bookkeeping):
    # the evidence worker's decoding must not wait for it, nor it for the decoding.
    with link._lock:
        worker = threading.Thread(
            target=lambda: got.extend(f.index for f in link.frames_around(500_000_000)))
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive(), "frames_around waited for the camera's lock"
    assert got == list(range(1, 31))

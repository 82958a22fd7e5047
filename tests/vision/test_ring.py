"""The evidence ring buffer: its span, its size, and a camera thread pushing while others read."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from controller.knapp.cards import Figure
from controller.sim.render import Scene, TableRenderer
from controller.vision.frames import Frame
from controller.vision.ring import FrameRing

from .conftest import grab

FPS = 30.0


@pytest.fixture(scope="module")
def frames(cam) -> list[Frame]:
    renderer = TableRenderer(Scene(cam, (grab("Ada", Figure.SHIP, 0.1, hold=0.05),),
                                   duration_s=1.0, seed=2))
    return [Frame(renderer.render(i), 10**9 + round(i * 1e9 / FPS), i, True)
            for i in range(renderer.frame_count)]


def test_the_ring_keeps_only_its_span_and_stays_small(frames) -> None:
    ring = FrameRing(0.5)
    for f in frames:
        ring.push(f)
    kept = ring.frames()
    assert [f.index for f in kept] == [f.index for f in frames if
                                       frames[-1].t_ns - f.t_ns <= 500_000_000]
    raw = sum(f.image.nbytes for f in kept)
    assert ring.nbytes < raw / 8          # JPEG: at least 8x smaller than raw frames
    assert kept[0].image.shape == frames[0].image.shape
    middle = ring.frames(frames[20].t_ns, frames[22].t_ns)
    assert [f.index for f in middle] == [20, 21, 22]


def test_pushing_while_another_thread_reads_is_safe() -> None:
    # The service's camera thread pushes while the referee reads the frames around a
    # lift; without the ring's lock the reader fails with "deque mutated during iteration".
    rng = np.random.default_rng(7)
    images = [rng.integers(0, 256, (48, 64, 3), dtype=np.uint8) for _ in range(8)]
    ring = FrameRing(2.0)
    period = 20_000_000                   # 50 fps
    pushes = 2500
    done = threading.Event()
    errors: list[BaseException] = []
    gaps: list[list[int]] = []

    def camera() -> None:
        try:
            for i in range(pushes):
                ring.push(Frame(images[i % len(images)], i * period, i, True))
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    def referee() -> None:
        try:
            while not done.is_set():
                indices = [f.index for f in ring.frames()]
                if indices and indices != list(range(indices[0], indices[-1] + 1)):
                    gaps.append(indices)
        except BaseException as exc:
            errors.append(exc)
            done.set()

    threads = [threading.Thread(target=camera), threading.Thread(target=referee)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert gaps == []                     # every read is one unbroken run of frames
    assert [f.index for f in ring.frames()] == list(range(pushes - 101, pushes))
    assert len(ring) == 101               # 2 s at 50 fps, both ends included

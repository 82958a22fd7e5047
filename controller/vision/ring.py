"""The evidence ring buffer: the last few seconds of frames, JPEG-compressed.

JPEG keeps a frame at about 25 KB (640x480) instead of 900 KB raw, so the
kiosk's memory stays small. The camera thread pushes while the service reads
the frames around a lift for a photo-finish bundle, so the ring has its own
lock; encoding and decoding happen outside it, so neither side waits for the
other's JPEG work.
"""

from __future__ import annotations

import threading
from collections import deque

import cv2
import numpy as np

from controller.vision.frames import CameraError, Frame


class FrameRing:
    """The last `seconds` of frames, JPEG-compressed; safe to push and read from two threads.

    Args:
        seconds: how much to keep, measured on the frames' own timestamps.
        quality: JPEG quality (75 keeps detail for a judge at a tenth of the size).
    """

    def __init__(self, seconds: float = 4.0, *, quality: int = 75) -> None:
        self.span_ns = round(seconds * 1e9)
        self.quality = quality
        self._items: deque[tuple[int, int, bytes]] = deque()
        self._lock = threading.Lock()
        self.nbytes = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def push(self, frame: Frame) -> None:
        """Add a frame and drop those older than the span."""
        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:  # pragma: no cover - only on an encoder failure
            raise CameraError(f"frame {frame.index}: JPEG encoding failed")
        data = buf.tobytes()
        with self._lock:
            self._items.append((frame.t_ns, frame.index, data))
            self.nbytes += len(data)
            while self._items and frame.t_ns - self._items[0][0] > self.span_ns:
                self.nbytes -= len(self._items.popleft()[2])

    def frames(self, t0_ns: int | None = None, t1_ns: int | None = None) -> list[Frame]:
        """Decode the frames with `t0_ns <= t <= t1_ns` (all when not given)."""
        with self._lock:
            items = [item for item in self._items
                     if (t0_ns is None or item[0] >= t0_ns) and (t1_ns is None or item[0] <= t1_ns)]
        out = []
        for t, index, data in items:
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            out.append(Frame(np.asarray(img, np.uint8), t, index, True))
        return out

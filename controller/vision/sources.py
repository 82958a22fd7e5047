"""The frame sources OpenCV opens, and `open_source`, which picks one by name.

`VideoCaptureSource` reads USB webcams and video files. `open_source` turns
the `[camera] source` setting into a source; it imports `camera.py` only for
"picamera2", so picamera2 is never loaded on a laptop.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from controller.clock import Clock, MonotonicClock
from controller.vision.frames import CameraError, Frame, FrameSource


class VideoCaptureSource:
    """Frames from OpenCV `VideoCapture`: a USB webcam (an index) or a video file.

    A file's frames are stamped `start_ns` plus the file's own presentation time,
    so an analysis reports times from the video's start. A webcam's are stamped
    with the V4L2 buffer time when the driver gives a plausible one (V4L2 buffers
    carry CLOCK_MONOTONIC time), else with the arrival time on `clock`.

    Args:
        source: "0", "1", ... for a webcam, or a video file path.
        clock: the host clock (live cameras only).
        start_ns: the timestamp of a file's first frame.
        width, height, fps: the mode to ask a webcam for.
    """

    def __init__(self, source: str | int, *, clock: Clock | None = None, start_ns: int = 0,
                 width: int | None = None, height: int | None = None,
                 fps: float | None = None) -> None:
        self.live = isinstance(source, int) or str(source).isdigit()
        self._clock = clock or MonotonicClock()
        self._start_ns = start_ns
        self._index = 0
        self._last_pos_ns = -1
        if self.live:
            self._cap = cv2.VideoCapture(int(source))
        else:
            path = Path(str(source))
            if not path.is_file():
                raise CameraError(f"{path}: no such video file")
            self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            what = f"camera {source}" if self.live else f"{source}"
            raise CameraError(f"{what}: OpenCV cannot open it (unplugged, busy, or an "
                              "unsupported format?)")
        if self.live:
            if width:
                self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            if height:
                self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            if fps:
                self._cap.set(cv2.CAP_PROP_FPS, fps)
        count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count: int | None = None if self.live or count <= 0 else count
        reported = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = reported if 1.0 <= reported <= 1000.0 else float(fps or 30.0)

    def read(self) -> Frame | None:
        """Return the next frame, or None at the end of a file or when a camera fails."""
        ok, image = self._cap.read()
        if not ok or image is None:
            return None
        arrival = self._clock.now_ns()
        pos_ns = round(float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) * 1e6)
        sensor = False
        if self.live:
            # Use the driver's time only when it is on the host clock and recent.
            if 0 < pos_ns <= arrival and arrival - pos_ns < 1_000_000_000:
                t_ns, sensor = pos_ns, True
            else:
                t_ns = arrival
        else:
            if pos_ns <= self._last_pos_ns:  # containers without timestamps
                pos_ns = round(self._index * 1e9 / self.fps)
            t_ns, sensor = self._start_ns + pos_ns, True
        self._last_pos_ns = pos_ns
        frame = Frame(np.ascontiguousarray(image, dtype=np.uint8), t_ns, self._index, sensor)
        self._index += 1
        return frame

    def close(self) -> None:
        """Release the camera or file."""
        self._cap.release()


def open_source(name: str, *, clock: Clock | None = None, width: int = 640, height: int = 480,
                fps: float = 30.0) -> FrameSource:
    """Open the configured camera source: a webcam index, a video file or "picamera2"."""
    if name == "picamera2":
        from controller.vision.camera import Picamera2Source

        return Picamera2Source(width=width, height=height, fps=fps, clock=clock)
    if name == "sim":
        raise CameraError("source 'sim' is the synthetic table; build a RenderedSource "
                          "from a scene (controller.sim.render)")
    return VideoCaptureSource(name, clock=clock, width=width, height=height, fps=fps)

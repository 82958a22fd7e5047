"""The Raspberry Pi camera through picamera2: the only module that imports it.

picamera2 comes from Debian's `python3-picamera2` (its libcamera bindings are
not on PyPI), so it is imported inside `Picamera2Source.__init__`, never at
module level: `import controller.vision` works on any laptop. See
`hardware/camera/` for the Pi install (a venv with system site packages).

OpenCV's `VideoCapture` cannot open libcamera-era cameras, so frames come from
picamera2 as arrays. Each frame is stamped with its `SensorTimestamp` (ns, start
of readout, on CLOCK_MONOTONIC) minus half the exposure, the middle of the
exposure, which is the instant the picture best represents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from controller.clock import Clock, MonotonicClock
from controller.vision.frames import CameraError, Frame


class Picamera2Source:
    """Frames from a Pi camera (Camera Module 3: 1536x864 at up to 120 fps).

    Args:
        width, height, fps: the sensor mode to ask for (the nearest is used).
        clock: the host clock, for frames without a sensor timestamp.
        camera_num: which camera, on boards with two.
    """

    def __init__(self, *, width: int = 640, height: int = 480, fps: float = 30.0,
                 clock: Clock | None = None, camera_num: int = 0) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise CameraError(
                "picamera2 is not installed: on a Pi run hardware/camera/install-pi.sh "
                f"(apt's python3-picamera2 in a venv with system site packages): {exc}") from exc
        self._clock = clock or MonotonicClock()
        self.fps = float(fps)
        self._index = 0
        try:
            self._cam: Any = Picamera2(camera_num)
            config = self._cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"},
                controls={"FrameRate": float(fps)}, buffer_count=6)
            self._cam.configure(config)
            self._cam.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraError(f"camera {camera_num}: picamera2 cannot start it: {exc}") from exc

    def read(self) -> Frame | None:
        """Return the next frame, or None when the camera stopped delivering."""
        try:
            request = self._cam.capture_request()
        except (RuntimeError, OSError):
            return None
        try:
            # picamera2's "RGB888" is B, G, R in memory: OpenCV's BGR order.
            image = np.ascontiguousarray(request.make_array("main"), dtype=np.uint8)
            meta = request.get_metadata()
        finally:
            request.release()
        sensor_ns = meta.get("SensorTimestamp")
        exposure_us = meta.get("ExposureTime", 0)
        if isinstance(sensor_ns, int) and sensor_ns > 0:
            t_ns, sensor = sensor_ns - 500 * int(exposure_us), True
        else:
            t_ns, sensor = self._clock.now_ns(), False
        frame = Frame(image, t_ns, self._index, sensor)
        self._index += 1
        return frame

    def close(self) -> None:
        """Stop and release the camera."""
        try:
            self._cam.stop()
        finally:
            self._cam.close()

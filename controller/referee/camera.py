"""The live camera for the table service: frames -> ring buffer -> analyser -> decisions.

A `CameraLink` owns one frame source. `pump()` reads and analyses frames (the
service's camera thread calls it in a loop; tests call it directly, so nothing
depends on thread timing). Decisions wait in a queue for the service's tick.
The link also answers for the evidence: the frames around a moment, from the
compressed ring buffer.

Faults never stop the table: a source that stops delivering is "lost", a
picture that does not change is "frozen", frames the analyser cannot use
(dark, the camera moved, too many markers covered to tell) are counted; the
service then referees from the pads alone and asks the table who took the
figure. One covered marker is only a note on the "ok" status.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.errors import KnappError
from controller.referee.health import Health, Level

if TYPE_CHECKING:
    from controller.vision.analyze import FrameAnalyser
    from controller.vision.frames import Frame, FrameSource
    from controller.vision.ring import FrameRing
    from controller.vision.track import Decision


# The photo-finish window around a lift. Evidence is written once the frames
# after the lift are in the ring, plus a little for the last frame to arrive.
FRAMES_BEFORE_S = 0.5
FRAMES_AFTER_S = 0.5
EVIDENCE_DELAY_NS = round((FRAMES_AFTER_S + 0.1) * 1e9)


class CameraLink:
    """One camera feeding the referee.

    Args:
        source: the frame source (a webcam, picamera2, a video, the synthetic table).
        analyser: detection and tracking, calibrated for this table.
        ring: the evidence ring buffer.
    """

    def __init__(self, source: FrameSource, analyser: FrameAnalyser, ring: FrameRing) -> None:
        self.source = source
        self.analyser = analyser
        self.ring = ring
        self.fps = source.fps
        self._decisions: collections.deque[Decision] = collections.deque()
        self._lock = threading.Lock()
        self._times: collections.deque[int] = collections.deque(maxlen=60)
        self.frames = 0
        self.lost = False
        self.last_status = "starting"
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def pump(self, max_frames: int = 1) -> int:
        """Read and analyse up to `max_frames` frames; return how many were read."""
        n = 0
        while n < max_frames and not self.lost:
            try:
                frame = self.source.read()
            except KnappError as exc:
                self.lost, self.last_status = True, f"lost: {exc}"
                break
            if frame is None:
                self.lost, self.last_status = True, "lost: the camera stopped delivering frames"
                break
            self._feed(frame)
            n += 1
        return n

    def _feed(self, frame: Frame) -> None:
        self.ring.push(frame)
        decisions = self.analyser.feed(frame)
        det = self.analyser.last
        with self._lock:
            self.frames += 1
            self._times.append(frame.t_ns)
            self._decisions.extend(decisions)
            self.last_status = "ok" if det is None or det.status == "ok" else det.status

    def poll(self) -> list[Decision]:
        """The decisions made since the last call."""
        with self._lock:
            out = list(self._decisions)
            self._decisions.clear()
        return out

    def health(self) -> Health:
        """The camera's condition for banners and the setup page.

        OK with its frame rate, and a note such as 'marker 2 covered' (the camera
        still referees: the other markers show it has not moved); DOWN when lost
        or not started; DEGRADED when frames come but cannot be used (frozen,
        camera moved, markers covered).
        """
        with self._lock:
            status = self.last_status
            if self.lost:
                return Health(Level.DOWN, status.removeprefix("lost: "))
            if status == "starting":
                return Health(Level.DOWN, "starting")
            if status != "ok":
                return Health(Level.DEGRADED, status)
            parts = []
            if len(self._times) >= 2 and self._times[-1] > self._times[0]:
                fps = (len(self._times) - 1) * 1e9 / (self._times[-1] - self._times[0])
                parts.append(f"{fps:.1f} fps")
            if self.analyser.note:
                parts.append(self.analyser.note)
            return Health(Level.OK, ", ".join(parts))

    def frames_around(self, t_ns: int, before_s: float = FRAMES_BEFORE_S,
                      after_s: float = FRAMES_AFTER_S) -> list[Frame]:
        """Frames from the ring buffer around `t_ns`, for a photo-finish bundle.

        Called from the evidence worker while the camera thread pushes: the ring
        has its own lock and decodes outside it, and this link's lock is not
        taken, so the camera never waits for a bundle's JPEG decoding.
        """
        return self.ring.frames(t_ns - round(before_s * 1e9), t_ns + round(after_s * 1e9))

    def start(self, on_error: Callable[[str], None] | None = None) -> None:
        """Run `pump` in a background thread until `stop`."""

        def loop() -> None:
            while not self._stop.is_set() and not self.lost:
                self.pump(1)
            if on_error is not None and self.lost:
                on_error(self.last_status)

        self._thread = threading.Thread(target=loop, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and release the source."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.source.close()

"""Offline analysis of a recorded round: calibrate, detect, track, decide.

`analyze` is what `knapp vision analyze VIDEO` runs and what a disputed round
is re-examined with: the same detection and attribution as live play, over a
file's frames.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controller.vision.calibrate import (
    Calibration,
    CalibrationError,
    Markers,
    calibrate,
    markers_in,
    merge_markers,
)
from controller.vision.config import CameraConfig
from controller.vision.detect import BackgroundModel, Detection, build_view, detect
from controller.vision.frames import Frame, FrameSource
from controller.vision.markers import MarkerWatch
from controller.vision.track import Decision, Tracker

# Calibrate from half a second of frames, not a count of them: hands resting on the
# markers move on a human time scale, whatever the frame rate (15 frames are 125 ms at
# 120 fps, too short for a hand to uncover anything).
CALIBRATION_S = 0.5
CALIBRATION_MIN_FRAMES = 15
# A live camera whose markers stay hidden (hands, a cup) keeps trying this long, each
# half second with every marker seen so far, before refereeing from the pads alone.
CALIBRATION_WAIT_S = 20.0
FROZEN_FRAMES = 15


def calibration_frames(fps: float) -> int:
    """How many frames, at `fps`, to calibrate from: half a second's, at least 15."""
    return max(CALIBRATION_MIN_FRAMES, round(CALIBRATION_S * fps))


@dataclass
class Analysis:
    """The result of analysing a video.

    Args:
        decisions: every grab and feint, in the order decided.
        calibration: the calibration used.
        origin_ns: the first frame's timestamp (times in the JSON are from here).
        frames: frames read.
        statuses: frame status -> how many frames had it (besides "ok").
    """

    decisions: list[Decision]
    calibration: Calibration
    origin_ns: int
    frames: int
    statuses: dict[str, int] = field(default_factory=dict)


def calibrate_from(frames: list[Frame], cam: CameraConfig) -> Calibration:
    """Calibrate from the first frame of `frames` that gives a calibration; failing
    that, from the markers seen over all of them (hands resting on different markers
    in different frames), with the first frame whose pads and figures then calibrate."""
    return _calibrate_frames(frames, cam, [])[0]


def _calibrate_frames(frames: list[Frame], cam: CameraConfig, sightings: list[Markers],
                      ) -> tuple[Calibration, Frame]:
    """`calibrate_from`, with the markers of earlier frames (`sightings`, to which these
    frames' are added); returns the frame the pads and figures were learnt from."""
    error: CalibrationError | None = None
    for frame in frames:
        sightings.append(markers_in(frame.image))   # each frame's markers, found once
        try:
            return calibrate(frame.image, cam, sightings[-1]), frame
        except CalibrationError as exc:
            error = exc
    if len(sightings) > 1:
        markers = merge_markers(sightings)
        for frame in frames:
            try:
                return calibrate(frame.image, cam, markers), frame
            except CalibrationError as exc:
                error = exc
    raise CalibrationError(f"no calibration from the first {len(sightings)} frames: {error}")


def calibrate_live(source: FrameSource, cam: CameraConfig, *,
                   wait_s: float = CALIBRATION_WAIT_S) -> tuple[Calibration, Frame]:
    """Calibrate a camera from its frames as they come: from the first half second, or,
    while hands or a cup still hide markers, from each further half second together
    with every marker seen before, for up to `wait_s` of frames.

    Returns the calibration and the frame its pads and figures were learnt from (for
    the preview). Time is counted in frames at the source's rate, not on a clock.

    Raises:
        CalibrationError: the camera gave no frame, or none calibrated within `wait_s`.
    """
    per = calibration_frames(source.fps)
    limit = max(per, round(wait_s * source.fps))
    sightings: list[Markers] = []
    error = CalibrationError("the camera gave no frame to calibrate from")
    while len(sightings) < limit:
        window = [f for f in (source.read() for _ in range(min(per, limit - len(sightings))))
                  if f is not None]
        if not window:
            break
        try:
            return _calibrate_frames(window, cam, sightings)
        except CalibrationError as exc:
            error = exc
    raise error


class FrameAnalyser:
    """Detection and tracking of one camera: feed frames, collect decisions.

    Args:
        cam: the table layout.
        calibration: the calibration.
        fps: the nominal frame rate.
    """

    def __init__(self, cam: CameraConfig, calibration: Calibration, *, fps: float) -> None:
        self.view = build_view(cam, calibration)
        self.background = BackgroundModel()
        self.tracker = Tracker(self.view, fps=fps)
        self.markers = MarkerWatch(cam, calibration.H, calibration.image_size)
        self.statuses: dict[str, int] = {}
        self._last_sig = b""
        self._same = 0
        self.last: Detection | None = None

    def feed(self, frame: Frame) -> list[Decision]:
        """Process one frame; return the decisions it completed."""
        sig = frame.image[::24, ::24].tobytes()
        self._same = self._same + 1 if sig == self._last_sig else 0
        self._last_sig = sig
        det = detect(frame.image, self.view, self.background, t_ns=frame.t_ns,
                     index=frame.index, vacated=self.tracker.vacated,
                     hints=self.tracker.hints)
        if self._same >= FROZEN_FRAMES:
            det = Detection(frame.t_ns, frame.index, "frozen")
        elif det.status == "ok" and (markers := self.markers.feed(frame.image, frame.t_ns)) != "ok":
            # Pads and arms may be anywhere now: decide nothing until the markers vouch again.
            det = Detection(frame.t_ns, frame.index, markers)
        if det.status != "ok":
            # "camera moved", "markers covered", "dark", "frozen", "resolution"
            key = det.status.split(":")[0] if ":" in det.status else det.status.split(" ")[0]
            self.statuses[key] = self.statuses.get(key, 0) + 1
        self.last = det
        return self.tracker.update(det, frame.image, self.background.templates,
                                   self.background.mean)

    @property
    def note(self) -> str:
        """A warning that does not stop the camera, e.g. "marker 2 covered" ("" if none)."""
        return self.markers.note

    def finish(self) -> list[Decision]:
        """Decide whatever is still open."""
        return self.tracker.finish()


def analyze(source: FrameSource, cam: CameraConfig, calibration: Calibration | None = None,
            *, progress: Callable[[int], None] | None = None) -> Analysis:
    """Analyse every frame of `source`.

    Args:
        source: the video.
        cam: the table layout.
        calibration: a calibration; None calibrates from the first frames.
        progress: called with the number of frames done, now and then.

    Raises:
        CalibrationError: no calibration given and none found in the first frames.
    """
    # The first frames to calibrate from (all of them fed to the analyser after), or
    # the first alone when a calibration is given.
    head: list[Frame] = []
    wanted = calibration_frames(source.fps) if calibration is None else 1
    while len(head) < wanted and (f := source.read()) is not None:
        head.append(f)
    if not head:
        raise CalibrationError("the video has no frames")
    if calibration is None:
        calibration = calibrate_from(head, cam)
    analyser = FrameAnalyser(cam, calibration, fps=source.fps)
    n = 0
    decisions: list[Decision] = []

    for frame in head:
        decisions.extend(analyser.feed(frame))
        n += 1
    while (more := source.read()) is not None:
        decisions.extend(analyser.feed(more))
        n += 1
        if progress is not None and n % 30 == 0:
            progress(n)
    decisions.extend(analyser.finish())
    return Analysis(decisions, calibration, head[0].t_ns, n, analyser.statuses)

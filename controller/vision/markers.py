"""Re-checking the table markers during a match: covered, or has the camera moved?

The homography is fixed at calibration, so a bumped camera would silently
put every pad and seat in the wrong place. Every `CHECK_FRAMES` frames the
`MarkerWatch` reads each marker's 36 cells where calibration put them, which
costs microseconds; only when they do not match is ArUco run, on a small
window around the marker, to tell a covered marker from a moved one:

- a marker read where it belongs shows the camera has not moved;
- a marker found more than `MOVED_PX` from its calibrated corners in two
  checks in a row (the second on the very next frame) means the camera or
  the mat moved: the status says so, the camera decides nothing, and the
  referee goes on with the pads alone until `knapp calibrate` is run again;
- a marker not found is covered (a cup, an elbow, an arm from a corner seat).
  That alone changes nothing the camera sees, so it is a note on the "ok"
  status ("marker 2 covered"). Only when fewer than `MIN_IN_PLACE` markers
  have shown the camera in place for `BLIND_S` does the status say that
  nobody can tell whether it moved, and the referee go on with the pads alone;
  arms reaching over corners during a grab never last that long.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from controller.vision.aruco import detect_markers, marker_image
from controller.vision.calibrate import project
from controller.vision.config import CameraConfig
from controller.vision.frames import Image

CHECK_FRAMES = 15        # about twice a second at 30 fps
MOVED_PX = 6.0           # mean corner shift; calibration itself fits within 4 px
MIN_IN_PLACE = 2         # markers that must vouch for the calibration (8 corners)
BLIND_S = 3.0            # how long too few may vouch before the camera stops
ROI_MARGIN = 0.6         # search window around a marker, as a share of its size
CELLS = 6                # a 4x4 marker plus its black border, in cells
MAX_BAD_CELLS = 2
MIN_CONTRAST = 40        # grey levels between the marker's black and white cells
GREY_WEIGHTS = np.array([0.114, 0.587, 0.299], np.float32)   # BGR to grey, as OpenCV


class MarkerWatch:
    """Periodic check of the markers against their calibrated image positions.

    Args:
        cam: the table layout (where the markers are, in mm).
        homography: the calibrated table-mm to image-pixel homography.
        size: the calibrated image width, height.
    """

    def __init__(self, cam: CameraConfig, homography: npt.NDArray[np.float64],
                 size: tuple[int, int]) -> None:
        self.expected = {i: project(homography, quad).astype(np.float32)
                         for i, quad in enumerate(cam.marker_corners)}
        w, h = size
        self._rois: dict[int, tuple[int, int, int, int]] = {}
        for i, px in self.expected.items():
            lo, hi = px.min(axis=0), px.max(axis=0)
            pad = ROI_MARGIN * float(max(hi - lo))
            x0, y0 = max(0, math.floor(lo[0] - pad)), max(0, math.floor(lo[1] - pad))
            x1, y1 = min(w, math.ceil(hi[0] + pad)), min(h, math.ceil(hi[1] + pad))
            if x1 > x0 and y1 > y0:
                self._rois[i] = (x0, y0, x1, y1)
        # Each marker's cell centres in the image, and what each cell should be.
        unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        centres = (np.arange(CELLS, dtype=np.float32) + 0.5) / CELLS
        uv = np.stack(np.meshgrid(centres, centres), axis=-1).reshape(-1, 2)
        self._cells: dict[int, tuple[npt.NDArray[np.intp], npt.NDArray[np.intp],
                                     npt.NDArray[np.bool_]]] = {}
        for i, px in self.expected.items():
            m = cv2.getPerspectiveTransform(unit, px)
            xy = project(m, uv).round().astype(np.intp)
            if np.all((xy >= 1) & (xy < np.array([w - 1, h - 1]))):
                bits = marker_image(i, CELLS * 10)[5::10, 5::10] > 127
                self._cells[i] = (xy[:, 1], xy[:, 0], bits.reshape(-1))
        self._frames = 0
        self._last: dict[int, str] = {}           # marker -> "ok", "covered" or "moved"
        self._shift: dict[int, float] = {}
        self._moved_run: dict[int, int] = {}
        self._covered_run: dict[int, int] = {}
        self._confirm = False
        self._blind_since: int | None = None
        self.covered: tuple[int, ...] = ()
        self.moved: dict[int, float] = {}
        self.status = "ok"

    def feed(self, image: Image, t_ns: int) -> str:
        """Check the markers every `CHECK_FRAMES` frames; return the current status."""
        if self._frames % CHECK_FRAMES == 0 or self._confirm:
            self.check(image, t_ns)
        self._frames += 1
        return self.status

    def check(self, image: Image, t_ns: int) -> None:
        """Look for every marker where it belongs now."""
        for i, roi in self._rois.items():
            if self._in_place(image, i):
                self._last[i] = "ok"
            elif self._last.get(i) == "covered":
                # Still covered: the search is the costly part, and the markers still
                # in view would show a moved camera.
                continue
            else:
                self._last[i], self._shift[i] = self._search(image, i, roi)
        for i, result in self._last.items():
            self._moved_run[i] = self._moved_run.get(i, 0) + 1 if result == "moved" else 0
            self._covered_run[i] = self._covered_run.get(i, 0) + 1 if result == "covered" else 0
        self.moved = {i: self._shift[i] for i, n in self._moved_run.items() if n >= 2}
        # A marker seen moved once is checked again on the very next frame.
        self._confirm = any(n == 1 for n in self._moved_run.values())
        # A note once covered for two checks: an arm passing over a corner is not news.
        self.covered = tuple(sorted(i for i, n in self._covered_run.items() if n >= 2))
        in_place = sum(1 for r in self._last.values() if r == "ok")
        if in_place >= MIN_IN_PLACE:
            self._blind_since = None
        elif self._blind_since is None:
            self._blind_since = t_ns
        self._verdict(t_ns)

    def _verdict(self, t_ns: int) -> None:
        if self.moved:
            worst = max(self.moved, key=lambda i: self.moved[i])
            self.status = (f"camera moved: marker {worst} is {self.moved[worst]:.0f} px from "
                           "where it was calibrated; run knapp calibrate")
        elif self._blind_since is not None and t_ns - self._blind_since >= BLIND_S * 1e9:
            ids = ", ".join(str(i) for i in self.covered)
            self.status = f"markers covered: {ids}; cannot check that the camera has not moved"
        else:
            self.status = "ok"

    @property
    def note(self) -> str:
        """A warning for the status line while the camera still works ("" if none)."""
        if self.status != "ok" or not self.covered:
            return ""
        ids = ", ".join(str(i) for i in self.covered)
        return f"marker{'s' if len(self.covered) > 1 else ''} {ids} covered"

    def _in_place(self, image: Image, i: int) -> bool:
        """Whether marker `i`'s cells read right where calibration put them."""
        cells = self._cells.get(i)
        if cells is None:
            return False
        ys, xs, bits = cells
        # A 3x3 mean per cell centre: noise and JPEG ringing do not flip a cell.
        v = np.zeros(len(ys), np.float32)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                px = image[ys + dy, xs + dx].astype(np.float32)
                v += px @ GREY_WEIGHTS if px.ndim == 2 else px
        lo, hi = float(v.min()) / 9, float(v.max()) / 9
        if hi - lo < MIN_CONTRAST:
            return False
        white = v / 9 > (lo + hi) / 2
        return int(np.count_nonzero(white != bits)) <= MAX_BAD_CELLS

    def _search(self, image: Image, i: int, roi: tuple[int, int, int, int]) -> tuple[str, float]:
        x0, y0, x1, y1 = roi
        part = image[y0:y1, x0:x1]
        grey = part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
        found = detect_markers(np.ascontiguousarray(grey)).get(i)
        if found is None:
            return "covered", 0.0
        shift = float(np.mean(np.linalg.norm(
            found + np.array([x0, y0], np.float32) - self.expected[i], axis=1)))
        return ("ok" if shift <= MOVED_PX else "moved"), shift

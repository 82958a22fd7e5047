"""Re-checking the table markers during a match: covered, or has the camera moved?

The homography is fixed at calibration, so a bumped camera would silently
put every pad and seat in the wrong place. Every `CHECK_FRAMES` frames the
`MarkerWatch` looks for each marker id in a small window around where
calibration put it. Reading the marker's 36 cells where calibration put them
costs microseconds; only when they do not match is ArUco run, on a small
window around the marker, to tell a covered marker from a moved one:

- a marker found where it belongs confirms the camera has not moved;
- a marker found more than `MOVED_PX` from its calibrated corners means the
  camera (or the mat) moved: nothing the camera says can be trusted until
  `knapp calibrate` is run again;
- a marker not found is covered (a cup, an elbow).

A verdict needs `CONFIRM_CHECKS` checks in a row, so an arm sweeping over a
corner is not a fault. One or two covered markers leave the others to vouch
for the calibration; the camera goes on and says which are covered. With
fewer than `MIN_IN_PLACE` markers confirming it, nobody can tell whether the
camera moved, so the frame status says so and the referee goes on with the
pads alone.
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
CONFIRM_CHECKS = 2
MOVED_PX = 6.0           # mean corner shift; calibration itself fits within 4 px
MIN_IN_PLACE = 2         # markers that must confirm the calibration (8 corners)
ROI_MARGIN = 0.6         # window around a marker, as a share of its size
CELLS = 6                # a 4x4 marker plus its black border, in cells
MAX_BAD_CELLS = 2
MIN_CONTRAST = 40        # grey levels between the marker's black and white cells


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
        # Per marker, the last few check results: "ok", "covered" or "moved <px>".
        self._seen: dict[int, list[str]] = {i: [] for i in self.expected}
        self.covered: tuple[int, ...] = ()
        self.moved: dict[int, float] = {}
        self.status = "ok"

    def check(self, image: Image) -> None:
        """Look for every marker where it belongs now."""
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        for i, (x0, y0, x1, y1) in self._rois.items():
            if self._in_place(grey, i):
                result = "ok"
            elif i in self.covered:
                # Still covered: the search is the costly part, and the markers still
                # in view would show a moved camera.
                result = "covered"
            else:
                result = self._search(grey, i, (x0, y0, x1, y1))
            seen = self._seen[i]
            seen.append(result)
            del seen[:-CONFIRM_CHECKS]
        self._verdict()

    def _in_place(self, grey: Image, i: int) -> bool:
        """Whether marker `i`'s cells read right where calibration put them."""
        cells = self._cells.get(i)
        if cells is None:
            return False
        ys, xs, bits = cells
        # A 3x3 mean per cell centre: noise and JPEG ringing do not flip a cell.
        v = np.zeros(len(ys), np.float32)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                v += grey[ys + dy, xs + dx]
        lo, hi = float(v.min()) / 9, float(v.max()) / 9
        if hi - lo < MIN_CONTRAST:
            return False
        white = v / 9 > (lo + hi) / 2
        return int(np.count_nonzero(white != bits)) <= MAX_BAD_CELLS

    def _search(self, grey: Image, i: int, roi: tuple[int, int, int, int]) -> str:
        x0, y0, x1, y1 = roi
        found = detect_markers(np.ascontiguousarray(grey[y0:y1, x0:x1])).get(i)
        if found is None:
            return "covered"
        shift = float(np.mean(np.linalg.norm(
            found + np.array([x0, y0], np.float32) - self.expected[i], axis=1)))
        return "ok" if shift <= MOVED_PX else f"moved {shift:.0f}"

    def feed(self, image: Image) -> str:
        """Check the markers every `CHECK_FRAMES` frames; return the current status."""
        if self._frames % CHECK_FRAMES == 0:
            self.check(image)
        self._frames += 1
        return self.status

    def _verdict(self) -> None:
        settled = {i: s[-1] for i, s in self._seen.items()
                   if len(s) == CONFIRM_CHECKS and len(set(s)) == 1}
        if settled:
            # Only a repeated result changes a marker's verdict; flicker keeps the last one.
            self.covered = tuple(sorted(
                {i for i in self.covered if i not in settled}
                | {i for i, r in settled.items() if r == "covered"}))
            moved = {i: v for i, v in self.moved.items() if i not in settled}
            moved.update({i: float(r.split()[1]) for i, r in settled.items()
                          if r.startswith("moved")})
            self.moved = moved
        in_place = len(self.expected) - len(self.covered) - len(self.moved)
        if self.moved:
            worst = max(self.moved, key=lambda i: self.moved[i])
            self.status = (f"camera moved: marker {worst} is {self.moved[worst]:.0f} px from "
                           "where it was calibrated; run knapp calibrate")
        elif in_place < MIN_IN_PLACE:
            ids = ", ".join(str(i) for i in self.covered)
            self.status = f"markers covered: {ids}; cannot check the camera has not moved"
        else:
            self.status = "ok"

    @property
    def note(self) -> str:
        """A warning for the status line while the camera still works ("" if none)."""
        if self.status != "ok" or not self.covered:
            return ""
        ids = ", ".join(str(i) for i in self.covered)
        return f"marker{'s' if len(self.covered) > 1 else ''} {ids} covered"

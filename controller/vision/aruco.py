"""ArUco across OpenCV versions: 4.7+ / 5.x (`ArucoDetector`) and 4.6 contrib (functions).

OpenCV 4.7 moved ArUco into `objdetect` and removed the module-level
`detectMarkers`, `Dictionary_get` and `drawMarker`; Debian's 4.6 (the Pi's
`python3-opencv`) has only those. Everything else in this package calls these
two functions, so the difference lives here alone.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from controller.errors import KnappError

DICTIONARY = "DICT_4X4_50"


class ArucoUnavailable(KnappError, RuntimeError):
    """This OpenCV build has no ArUco module (e.g. a 4.6 main wheel without contrib)."""


def _aruco() -> Any:
    aruco = getattr(cv2, "aruco", None)
    if aruco is None:
        raise ArucoUnavailable(
            f"OpenCV {cv2.__version__} has no cv2.aruco; install opencv-python-headless >= 4.7 "
            "or Debian's python3-opencv (which includes the contrib modules)")
    return aruco


def _dictionary() -> Any:
    aruco = _aruco()
    ident = getattr(aruco, DICTIONARY)
    if hasattr(aruco, "getPredefinedDictionary"):
        return aruco.getPredefinedDictionary(ident)
    return aruco.Dictionary_get(ident)  # pragma: no cover - OpenCV < 4.7


def detect_markers(grey: npt.NDArray[Any]) -> dict[int, npt.NDArray[np.float32]]:
    """Find DICT_4X4_50 markers; return id -> its 4 corners (4x2, marker's TL, TR, BR, BL).

    Ids come back in no particular order, so callers must look them up by id.
    """
    aruco = _aruco()
    dictionary = _dictionary()
    if hasattr(aruco, "ArucoDetector"):
        params = aruco.DetectorParameters()
        params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = aruco.ArucoDetector(dictionary, params).detectMarkers(grey)
    else:  # pragma: no cover - OpenCV < 4.7
        params = aruco.DetectorParameters_create()
        params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = aruco.detectMarkers(grey, dictionary, parameters=params)
    found: dict[int, npt.NDArray[np.float32]] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        found[int(marker_id)] = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    return found


def marker_image(marker_id: int, side_px: int) -> npt.NDArray[np.uint8]:
    """Return the printable marker `marker_id` as a `side_px` square grey image."""
    aruco = _aruco()
    dictionary = _dictionary()
    if hasattr(aruco, "generateImageMarker"):
        img = aruco.generateImageMarker(dictionary, marker_id, side_px)
    else:  # pragma: no cover - OpenCV < 4.7
        img = aruco.drawMarker(dictionary, marker_id, side_px)
    return np.asarray(img, dtype=np.uint8)

"""Calibration: where the table is in the picture, and what the figures look like.

From one snapshot with every figure on its pad: find the four ArUco markers
by id (never by the order OpenCV returns them), fit the table-to-image
homography, and learn each figure's colour and the pads' colour under the
venue's light. The result is saved as JSON and drawn as a preview picture so a
person can see at a glance that it is right.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from controller.errors import KnappError
from controller.knapp.cards import Figure
from controller.vision.appearance import learn_clusters
from controller.vision.aruco import DICTIONARY, detect_markers
from controller.vision.config import MARKER_IDS, CameraConfig, Point
from controller.vision.frames import Image

FORMAT = "knapp-camera-calibration/1"
# Below this Lab distance two learned colours are too alike to tell apart.
MIN_COLOUR_SEPARATION = 25.0
RING_SHARE = 0.2          # of a pad's ring in the pads' colour: the pad is where it was said
MAX_REPROJECTION_PX = 4.0
PAD_READ = 0.86           # of a pad's radius: the disc its figure is looked for in (inside a rim)
RING_BAND = (0.62, 0.86)  # of a pad's radius: inside its rim, outside all but the ship
MIN_FIGURE_SHARE = 0.25   # of a figure's size from above that must look unlike its pad


class CalibrationError(KnappError, ValueError):
    """The snapshot or calibration file cannot give a usable calibration."""


@dataclass(frozen=True)
class ColourModel:
    """A learned colour: mean in OpenCV's 8-bit Lab and its spread (Lab units)."""

    lab: tuple[float, float, float]
    spread: float

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"lab": list(self.lab), "spread": self.spread}


@dataclass(frozen=True)
class Calibration:
    """The result of `calibrate`.

    Args:
        image_size: width, height of the pictures it applies to.
        homography: 3x3 table-mm to image-pixel matrix, row-major.
        markers: the marker ids found.
        reprojection_px: mean marker-corner error of the fit, pixels.
        figures: figure -> its learned colour.
        pad: the pads' learned colour (what an empty pad looks like).
    """

    image_size: tuple[int, int]
    homography: tuple[float, ...]
    markers: tuple[int, ...]
    reprojection_px: float
    figures: tuple[tuple[Figure, ColourModel], ...]
    pad: ColourModel

    @property
    def H(self) -> npt.NDArray[np.float64]:  # noqa: N802 - the usual name of a homography
        """The table-mm to image-pixel homography."""
        return np.asarray(self.homography, np.float64).reshape(3, 3)

    def colour(self, figure: Figure) -> ColourModel:
        """Return the learned colour of `figure`."""
        return dict(self.figures)[figure]

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form written to the calibration file."""
        return {
            "format": FORMAT, "dictionary": DICTIONARY,
            "image_size": list(self.image_size),
            "homography": [float(v) for v in self.homography],
            "markers": list(self.markers), "reprojection_px": self.reprojection_px,
            "figures": {f.value: c.to_json() for f, c in self.figures},
            "pad": self.pad.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "<calibration>") -> Calibration:
        """Rebuild from `to_json` output; raise `CalibrationError` naming what is wrong."""
        try:
            if data.get("format") != FORMAT:
                raise CalibrationError(f"{source}: not a calibration file "
                                       f"(format {data.get('format')!r}, expected {FORMAT!r})")
            size = tuple(int(v) for v in data["image_size"])
            hom = tuple(float(v) for v in data["homography"])
            if len(size) != 2 or len(hom) != 9:
                raise CalibrationError(f"{source}: image_size needs 2 numbers and "
                                       "homography 9")
            figures = tuple((Figure(name), _colour(c)) for name, c in data["figures"].items())
            missing = set(Figure) - {f for f, _ in figures}
            if missing:
                raise CalibrationError(f"{source}: no colour for "
                                       f"{', '.join(sorted(f.value for f in missing))}")
            return cls((size[0], size[1]), hom, tuple(int(m) for m in data["markers"]),
                       float(data["reprojection_px"]), figures, _colour(data["pad"]))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"{source}: malformed calibration: {exc!r}") from exc

    def save(self, path: str | Path) -> None:
        """Write the calibration file."""
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: not JSON: {exc}") from exc
        return cls.from_json(data, str(path))


def _colour(data: Any) -> ColourModel:
    lab = tuple(float(v) for v in data["lab"])
    if len(lab) != 3:
        raise ValueError("a colour needs 3 Lab values")
    return ColourModel((lab[0], lab[1], lab[2]), float(data["spread"]))


def project(H: npt.NDArray[Any], pts: npt.ArrayLike) -> npt.NDArray[np.float64]:  # noqa: N803
    """Map N x 2 points with homography `H`."""
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(p, H), np.float64).reshape(-1, 2)


def local_scale(H: npt.NDArray[Any], at: Point) -> float:  # noqa: N803
    """Pixels per millimetre around table point `at`."""
    p = project(H, [at, (at[0] + 10, at[1]), (at[0], at[1] + 10)])
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20.0)


def fit_homography(found: dict[int, npt.NDArray[np.float32]], cam: CameraConfig,
                   ) -> tuple[npt.NDArray[np.float64], tuple[int, ...], float]:
    """Fit table-mm -> image from the markers found, looked up by id.

    Raises:
        CalibrationError: fewer than three of the table's markers are visible.
    """
    ids = tuple(i for i in MARKER_IDS if i in found)
    if len(ids) < 3:
        missing = [str(i) for i in MARKER_IDS if i not in found]
        extra = sorted(set(found) - set(MARKER_IDS))
        hint = f"; saw other ids {extra}" if extra else ""
        raise CalibrationError(
            f"found {len(ids)} of the 4 table markers (missing id {', '.join(missing)}){hint}: "
            "is the whole table in view, well lit, and are the markers DICT_4X4_50 ids 0 to 3?")
    img = np.concatenate([found[i] for i in ids]).astype(np.float64)
    mm = np.array([p for i in ids for p in cam.marker_corners[i]], np.float64)
    H, _ = cv2.findHomography(mm, img, 0)  # noqa: N806
    if H is None:
        raise CalibrationError("the markers' corners do not define a plane (degenerate layout)")
    err = float(np.mean(np.linalg.norm(project(H, mm) - img, axis=1)))
    return np.asarray(H, np.float64), ids, err


def disc_pixels(image: Image, centre: tuple[float, float], r_px: float,
                r_inner_px: float = 0.0) -> npt.NDArray[np.uint8]:
    """Return the pixels (N x 3) of a disc, or of a ring when `r_inner_px` > 0."""
    h, w = image.shape[:2]
    cx, cy = centre
    x0, x1 = max(0, math.floor(cx - r_px)), min(w, math.ceil(cx + r_px) + 1)
    y0, y1 = max(0, math.floor(cy - r_px)), min(h, math.ceil(cy + r_px) + 1)
    if x0 >= x1 or y0 >= y1:
        return np.zeros((0, 3), np.uint8)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - cx) ** 2 + (yy - cy) ** 2
    sel = (d2 <= r_px * r_px) & (d2 >= r_inner_px * r_inner_px)
    return np.asarray(image[y0:y1, x0:x1][sel], np.uint8)


def learn_colour(pixels: npt.NDArray[np.uint8]) -> ColourModel:
    """Learn a colour from BGR pixels: Lab median and a robust spread."""
    lab = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    lab = lab.astype(np.float64)
    med = np.median(lab, axis=0)
    mad = np.median(np.linalg.norm(lab - med, axis=1))
    return ColourModel((float(med[0]), float(med[1]), float(med[2])), float(1.4826 * mad))


def _near(pixels: npt.NDArray[np.uint8], lab: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Which BGR pixels lie within `MIN_COLOUR_SEPARATION` of the Lab colour `lab`."""
    px = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    near: npt.NDArray[np.bool_] = (np.linalg.norm(px.astype(np.float64) - lab, axis=1)
                                   < MIN_COLOUR_SEPARATION)
    return near


def _pad_colour(rings: list[npt.NDArray[np.uint8]]) -> ColourModel:
    """The pads' colour: the one colour every pad's band shows (figures differ per pad).

    A band's median mixes in its figure wherever a long figure covers it; of
    the band pixels' main colours, the pads' is the one found on the most pads.
    """
    every = np.concatenate(rings)
    clusters = learn_clusters(every, k=6)

    def rank(m: tuple[float, float, float]) -> tuple[int, float]:
        shares = [float(np.mean(_near(r, np.array(m, np.float64)))) if len(r) else 0.0
                  for r in rings]
        return sum(v >= RING_SHARE for v in shares), min(shares)

    # The colour most pads' bands show enough of (a pad put elsewhere shows none).
    best = max(clusters.means, key=rank)
    near = _near(every, np.array(best, np.float64))
    return learn_colour(every[near]) if np.count_nonzero(near) >= 5 else learn_colour(every)


def lab_distance(a: ColourModel, b: ColourModel) -> float:
    """Euclidean distance of two colours in Lab."""
    return math.dist(a.lab, b.lab)


Markers = dict[int, npt.NDArray[np.float32]]


def markers_in(image: Image) -> Markers:
    """The markers found in a colour picture, by id (none in anything else: `calibrate`
    refuses such a picture with its own message)."""
    if image.ndim != 3 or image.shape[2] != 3:
        return {}
    return detect_markers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def merge_markers(sightings: list[Markers]) -> Markers:
    """The table's markers seen over several pictures from the fixed camera: each id's
    corners, the median over the pictures that saw it whole.

    A hand resting on a marker's corner hides it from one picture; over a few frames
    it moves, and where people sit by the corners another frame sees it.
    """
    seen: dict[int, list[npt.NDArray[np.float32]]] = {}
    for found in sightings:
        for i, corners in found.items():
            seen.setdefault(i, []).append(corners)
    return {i: np.median(np.stack(c), axis=0).astype(np.float32) for i, c in seen.items()}


def calibrate(image: Image, cam: CameraConfig, markers: Markers | None = None) -> Calibration:
    """Calibrate from a snapshot with all figures on their pads.

    `markers`: the markers' corners already found (in `image`, or over several
    frames: `merge_markers`); None finds them in `image`.

    Raises:
        CalibrationError: markers missing, a figure not on its pad, or two
            figures (or a figure and its pad) too alike in this light.
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError(f"expected a colour picture, got an array of shape {image.shape}")
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if float(grey.mean()) < 20:
        raise CalibrationError("the snapshot is almost black: is the light on and the lens "
                               "uncovered?")
    found = detect_markers(grey) if markers is None else markers
    H, ids, err = fit_homography(found, cam)  # noqa: N806
    if err > MAX_REPROJECTION_PX:
        raise CalibrationError(f"the markers do not fit the configured positions (mean error "
                               f"{err:.1f} px): check [camera.markers] against the table")
    discs: list[npt.NDArray[np.uint8]] = []
    ring: list[npt.NDArray[np.uint8]] = []
    for figure, pad in cam.pads:
        c = project(H, [pad])[0]
        s = local_scale(H, pad)
        px = disc_pixels(image, (c[0], c[1]), PAD_READ * cam.pad_radius(figure) * s)
        if len(px) < 5:
            raise CalibrationError(f"the {figure.value}'s pad at {pad} mm is outside the picture")
        discs.append(px)
        # The pad's own colour: the band inside its rim, outside all but the longest figures.
        r_pad = cam.pad_radius(figure) * s
        ring.append(disc_pixels(image, (c[0], c[1]), RING_BAND[1] * r_pad, RING_BAND[0] * r_pad))
    pad_colour = _pad_colour(ring)
    pad_lab = np.array(pad_colour.lab, np.float64)
    figures: list[tuple[Figure, ColourModel]] = []
    for (figure, pad), ring_px, disc in zip(cam.pads, ring, discs, strict=True):
        # A figure standing off its centre, or longer than the mean, covers part of its
        # ring: the ring is there when a good share of it has the pads' colour.
        if float(np.mean(_near(ring_px, pad_lab))) < RING_SHARE:
            raise CalibrationError(f"no pad ring around the {figure.value}'s position "
                                   f"{cam.pad(figure)} mm: check [camera.pads] against the "
                                   "table (or the calibration snapshot)")
        # The figure is what on its pad is unlike the pad (a grey helmet on a grey pad is
        # not, but the Viking's red is): at least a quarter of its size from above.
        size = cam.figure_size(figure)
        s = local_scale(H, pad)
        unlike = disc[~_near(disc, pad_lab)]
        if len(unlike) < max(5.0, MIN_FIGURE_SHARE * size[0] * size[1] * s * s):
            raise CalibrationError(f"the {figure.value}'s pad looks empty (it shows little "
                                   "but the pads' colour): put every figure on its pad and "
                                   "retry")
        figures.append((figure, learn_colour(unlike)))
    # Two figures alike from above (a viking's grey helmet, a dog's grey back) are no
    # reason to refuse: which figure left is told by which pad emptied, and a lifted
    # figure is never followed onto another figure's standing place (`find_figure`).
    h, w = image.shape[:2]
    return Calibration((w, h), tuple(float(v) for v in H.ravel()), ids, err, tuple(figures),
                       pad_colour)


def _lab_to_bgr(c: ColourModel) -> tuple[int, int, int]:
    px = np.array([[list(c.lab)]], np.float64).clip(0, 255).astype(np.uint8)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0]
    return int(b), int(g), int(r)


def draw_preview(image: Image, cam: CameraConfig, cal: Calibration) -> Image:
    """Draw every marker, pad, figure colour and seat on a copy of the snapshot."""
    out = image.copy()
    H = cal.H  # noqa: N806
    w, h = cam.table_mm
    table = project(H, [(0, 0), (w, 0), (w, h), (0, h)]).round().astype(np.int32)
    cv2.polylines(out, [table], True, (255, 255, 255), 2, cv2.LINE_AA)
    for marker_id, quad in enumerate(cam.marker_corners):
        pts = project(H, quad).round().astype(np.int32)
        colour = (0, 220, 0) if marker_id in cal.markers else (0, 0, 255)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        label = f"id {marker_id}" + ("" if marker_id in cal.markers else " MISSING")
        _label(out, label, (int(pts[0][0]), int(pts[0][1]) - 6), colour)
    for figure, pad in cam.pads:
        c = project(H, [pad])[0]
        r = cam.figure_radius_mm * local_scale(H, pad)
        centre = (round(c[0]), round(c[1]))
        cv2.circle(out, centre, round(r), (255, 255, 255), 2, cv2.LINE_AA)
        cv2.circle(out, centre, round(r * 0.6), _lab_to_bgr(cal.colour(figure)), -1, cv2.LINE_AA)
        _label(out, figure.value, (centre[0] - round(r), centre[1] + round(r) + 14),
               (255, 255, 255))
    for name, pos in cam.seats:
        p = project(H, [pos])[0]
        q = (int(np.clip(p[0], 8, out.shape[1] - 8)), int(np.clip(p[1], 8, out.shape[0] - 8)))
        cv2.circle(out, q, 7, (0, 200, 255), -1, cv2.LINE_AA)
        _label(out, name, (q[0] + 9, q[1] + 5), (0, 200, 255))
    _label(out, f"markers {list(cal.markers)}  fit error {cal.reprojection_px:.2f} px",
           (8, out.shape[0] - 10), (255, 255, 255))
    return out


def _label(img: Image, text: str, at: tuple[int, int], colour: tuple[int, int, int]) -> None:
    cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)

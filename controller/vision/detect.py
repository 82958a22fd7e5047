"""Per-frame detection: figures on pads, arms over the table, and where they come from.

Pure functions on arrays plus one explicit piece of state, the empty-table
`BackgroundModel`. Costs are kept near a bare colour threshold's:

- Figures on pads: only the pixels of each pad's centre disc (full resolution)
  are converted to Lab and compared with the colours learned at calibration.
  Each pad reads as figure, empty pad, or covered (an arm over it).
- Arms: the frame is halved (a 78 mm arm is still 20+ pixels wide), compared
  with the background, and the connected regions that cross the table's edge
  are arms. The seat is the one nearest where the region crosses the edge.
  A lone arm's tip is its pixel farthest from its edge crossing. A region
  crossing the edge at several seats (arms touching or crossing) is taken
  apart arm by arm: each arm's direction comes from its own stretch next to
  the edge, its tip from how far its middle runs on along that line, and its
  pixels are those nearest its axis (see `_band_tips`), except where each
  seat's colours, learnt while its arm was alone, say whose a pixel is; those
  colours also find a hand whose forearm does not show at the edge
  (`vision.looks`, kept in the background model).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.vision.calibrate import (
    PAD_READ,
    RING_BAND,
    Calibration,
    ColourModel,
    lab_distance,
    local_scale,
    project,
)
from controller.vision.config import CameraConfig, Point
from controller.vision.frames import Image
from controller.vision.looks import ArmLooks, decisive

DOWNSCALE = 2
FG_THRESHOLD = 22          # grey levels, max over channels, after gain correction
FG_LOW = 10                # ... or this many, where the channels did not change alike
LIGHT_SPREAD = 0.12        # channel ratios this far apart (of their mean): no change of light
LOW_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))   # half-res pixels
# Off: on held-out seeds heldout:1456-1555 it named 7 more seats with confidence (40.8 %
# against 35.4 %) but one wrong (a race, not traced yet), and on heldout:1556-1655 it
# named fewer (36.8 % against 38.4 %): docs/camera.md, "Benchmark".
LOW_CONTRAST_ARMS = False
# An arm the table's colour still hides the table's grain: where the table as modelled
# has texture (grey Sobel energy `TEX_ABOVE_NOISE` times the noise's) and the frame's
# gradients in a `TEX_WIN`-pixel window correlate with it less than `TEX_NCC`,
# something lies over it.
TEXTURE_ARMS = True
TEX_WIN = 5                # quarter-resolution pixels (10 at half resolution)
TEX_NCC = 0.3
TEX_ABOVE_NOISE = 3.0
TEX_SAMPLE = 2             # every this many quarter pixels, both ways, for the noise
TEX_MOST = 0.5             # of the table's grain hidden at once: no arm (a camera knocked)
TEX_NEAR = np.ones((2 * TEX_WIN - 1, 2 * TEX_WIN - 1), np.uint8)   # a window's reach
TEX_EVERY = 4              # frames between readings of the model's grain (it changes slowly)
OPEN_KERNEL = np.ones((3, 3), np.uint8)   # foreground is whole areas, not specks
MIN_ARM_AREA = 40          # half-resolution pixels
EDGE_BAND_PX = 3
TOUCH_MARGIN_MM = 2.0
ARM_STEP_MM = 70.0         # how far a touching arm's tip may advance per frame (2 m/s)
ARM_HALF_WIDTH_MM = 45.0   # an arm's half width, with room for fingers spread
ARM_STEM_MM = 160.0        # the part of an arm next to the edge, which gives its direction
BAND_GAP_MM = 12.0         # a gap this long along an arm's middle ends the arm
ARM_CORE_MM = 12.0         # the middle of an arm: another arm covers it only where it crosses
HAND_REACH_MM = 120.0      # the part of an arm behind its tip that can grip
FOLLOW_MM = (150.0, 250.0, 350.0)   # how far past the edge an arm is followed to its shoulder
BRIDGE_MM = 30.0           # a gap this narrow within an arm does not split it
ISLAND_GAP_MM = 280.0      # a hand this far beyond its arm's end (a forearm, 25-27 cm) ...
ISLAND_DEG = 30.0          # ... and within this of the arm's line is that arm's hand
ISLAND_STEP_MM = 100.0     # a region crossing no edge this near last frame's is that one
PAD_ISLAND_R = 1.1         # a region this much of it within this many pad radii ...
PAD_ISLAND_SHARE = 0.7     # ... of a pad's centre is that pad's change, not a hand
TIP_TOUCH_MM = 2.0        # a tip this far outside a pad's rim is at its figure
BG_ALPHA = 0.04            # empty-table pixels follow the light within a second
BG_ABSORB = 0.002          # anything left lying still becomes table in ~15 s at 30 fps
STILL_S = 0.5              # foreground that has not changed this long is table (or a ghost)
STILL_ALPHA = 0.3          # ... and is taken into the table this fast
MOTION_LEVEL = 12          # grey levels between two frames that count as a change
STILL_SHARE = 0.9          # of a pad's pixels unchanged: the pad lies still
AROUND_MM = (4.0, 14.0)    # the table just outside a pad's rim, from it (mm)
DARK_LEVEL = 30.0         # grey: a frame whose brightest hundredth is below this is unlit
PAD_DISC = 0.6             # the centre disc read on a pad, as a share of a figure's radius
LIFTED_TOL = 1.5           # colour tolerance for a lifted figure, relative to one on its pad
LOOK_AREA = 150            # a region with no edge crossing this large may be a hidden arm's
# Hands found by their seat's colours alone (no crossing at the edge): off. On the
# camera world's tuning rounds they found "hands" beside the taker's in single grabs
# (a resting hand, a sleeve's patch) and made the table ask where it had known; until
# they can be told from those, an arm must be seen crossing the edge.
HIDDEN_ARMS = False
LOOK_SHARE = 0.3           # of a joined region's pixels settled by colour, to part it so
CLIPPED = 245              # a pixel this bright in every channel is clipped white


@dataclass(frozen=True)
class PadGeom:
    """A pad's pixels: the centre disc at full resolution, the touch disc at half."""

    figure: Figure
    centre: tuple[float, float]
    radius_px: float
    disc: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
    touch: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
    whole: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
    # The table just outside the pad, at half resolution: an arm lying over the pad
    # lies across this too.
    around: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] = (
        np.zeros(0, np.intp), np.zeros(0, np.intp))


@dataclass(frozen=True)
class TableView:
    """Everything per-frame detection needs, precomputed from a calibration."""

    cam: CameraConfig
    cal: Calibration
    size: tuple[int, int]
    H: npt.NDArray[np.float64]
    Hinv: npt.NDArray[np.float64]
    px_per_mm: float
    table_mask: npt.NDArray[np.uint8]
    band_idx: npt.NDArray[np.intp]
    band_seat: npt.NDArray[np.intp]
    band_xy: npt.NDArray[np.float32]
    seats: tuple[str, ...]
    pads: tuple[PadGeom, ...]
    colour_lab: npt.NDArray[np.float32]
    colour_tol: npt.NDArray[np.float32]
    pad_lab: npt.NDArray[np.float32]
    pad_tol: float
    sample_idx: npt.NDArray[np.intp]
    colour_floor: npt.NDArray[np.float32]   # each figure's darkest channel (BGR) as learned
    zones: tuple[npt.NDArray[np.float32], ...] = ()   # each seat's zone (mm), in seat order
    table_box: tuple[int, int, int, int] = (0, 0, 0, 0)   # the table's bounds, half res: x y w h

    def to_mm(self, pts_px: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Full-resolution pixels -> table mm."""
        return project(self.Hinv, pts_px)

    def to_px(self, pts_mm: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Table mm -> full-resolution pixels."""
        return project(self.H, pts_mm)

    def pad(self, figure: Figure) -> PadGeom:
        """Return the pad geometry of `figure`."""
        return self.pads[list(Figure).index(figure)]


def _disc(centre: tuple[float, float], r: float, shape: tuple[int, int],
          r_inner: float = 0.0) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    h, w = shape
    cx, cy = centre
    y0, y1 = max(0, math.floor(cy - r)), min(h, math.ceil(cy + r) + 1)
    x0, x1 = max(0, math.floor(cx - r)), min(w, math.ceil(cx + r) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - cx) ** 2 + (yy - cy) ** 2
    sel = (d2 <= r * r) & (d2 >= r_inner * r_inner)
    return yy[sel].astype(np.intp), xx[sel].astype(np.intp)


def _ring(centre: tuple[float, float], r0: float, r1: float, shape: tuple[int, int]
          ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Pixel indices between radii `r0` and `r1` around `centre`, clipped to `shape`."""
    ys, xs = _disc(centre, r1, shape)
    keep = np.hypot(xs - centre[0], ys - centre[1]) >= r0
    return ys[keep], xs[keep]


def colour_tolerance(c: ColourModel) -> float:
    """How far (Lab) a pixel may be from a learned colour and still count as it."""
    return max(20.0, 3.5 * c.spread)


def build_view(cam: CameraConfig, cal: Calibration) -> TableView:
    """Precompute the pixel geometry of the table for `detect`."""
    w, h = cal.image_size
    H = cal.H  # noqa: N806
    sw, sh = w // DOWNSCALE, h // DOWNSCALE
    tw, th = cam.table_mm
    corners = project(H, [(0, 0), (tw, 0), (tw, th), (0, th)]) / DOWNSCALE
    table = np.zeros((sh, sw), np.uint8)
    cv2.fillPoly(table, [corners.round().astype(np.int32)], 255)
    inner = cv2.erode(table, np.ones((2 * EDGE_BAND_PX + 1,) * 2, np.uint8))
    # Where the picture's border cuts the table, arms enter from the border too.
    band = (table > 0) & (inner == 0)
    band[:EDGE_BAND_PX] |= table[:EDGE_BAND_PX] > 0
    band[-EDGE_BAND_PX:] |= table[-EDGE_BAND_PX:] > 0
    band[:, :EDGE_BAND_PX] |= table[:, :EDGE_BAND_PX] > 0
    band[:, -EDGE_BAND_PX:] |= table[:, -EDGE_BAND_PX:] > 0
    band_idx = np.flatnonzero(band)
    by, bx = np.divmod(band_idx, sw)
    band_xy = np.stack([bx, by], axis=1).astype(np.float32)
    band_mm = project(np.linalg.inv(H), band_xy * DOWNSCALE)
    band_seat = seat_of_edge(cam, band_mm)
    pads = []
    for figure, pos in cam.pads:
        c = project(H, [pos])[0]
        s = local_scale(H, pos)
        r = cam.figure_radius_mm * s
        pads.append(PadGeom(
            figure, (float(c[0]), float(c[1])), float(r),
            _disc((c[0], c[1]), PAD_DISC * r, (h, w)),
            _disc((c[0] / DOWNSCALE, c[1] / DOWNSCALE),
                  (cam.figure_radius_mm + TOUCH_MARGIN_MM) * s / DOWNSCALE, (sh, sw)),
            _disc((c[0] / DOWNSCALE, c[1] / DOWNSCALE),
                  (cam.figure_radius_mm + 8.0) * s / DOWNSCALE, (sh, sw)),
            _ring((c[0] / DOWNSCALE, c[1] / DOWNSCALE),
                  (cam.pad_radius(figure) + AROUND_MM[0]) * s / DOWNSCALE,
                  (cam.pad_radius(figure) + AROUND_MM[1]) * s / DOWNSCALE, (sh, sw))))
    colours = [cal.colour(f) for f in Figure]
    # A noisy snapshot widens the learned spreads; never so far that a figure's
    # colour and the empty pad's overlap (half the distance between them at most).
    gap = [lab_distance(c, cal.pad) for c in colours]
    fig_tol = [min(colour_tolerance(c), 0.5 * g) for c, g in zip(colours, gap, strict=True)]
    pad_tol = min(colour_tolerance(cal.pad), 0.5 * min(gap))
    ys, xs = np.nonzero(inner)
    step = max(1, len(ys) // 400)
    sample = (ys[::step] * sw + xs[::step]).astype(np.intp)
    return TableView(
        cam=cam, cal=cal, size=(w, h), H=H, Hinv=np.asarray(np.linalg.inv(H), np.float64),
        px_per_mm=local_scale(H, (tw / 2, th / 2)), table_mask=table, band_idx=band_idx,
        table_box=tuple(int(v) for v in cv2.boundingRect(table)),  # type: ignore[arg-type]
        band_seat=band_seat, band_xy=band_xy, seats=cam.seat_names(), pads=tuple(pads),
        colour_lab=np.array([c.lab for c in colours], np.float32),
        colour_tol=np.array(fig_tol, np.float32),
        pad_lab=np.array(cal.pad.lab, np.float32), pad_tol=pad_tol,
        zones=tuple(np.array(cam.zones()[n], np.float32).reshape(-1, 1, 2)
                    for n in cam.seat_names()),
        sample_idx=sample, colour_floor=np.array(
            [cv2.cvtColor(np.array([[c.lab]], np.uint8), cv2.COLOR_LAB2BGR).min()
             for c in colours], np.float32))


def seat_of_edge(cam: CameraConfig, pts_mm: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """The seat whose zone each point of the table's edge lies in (index into the seats).

    People reach with one arm from a shoulder beside their seat point, and that
    arm crosses the edge 200-240 mm from it, nearer a neighbour's seat point
    than their own on a crowded table: the seat zones (`[camera.seats]` edges, or
    the edge halfway to each neighbour) say whose arm it is, not the nearest
    seat point. A point in no zone (the gap an installer leaves between two)
    goes to the zone nearest it.
    """
    zones = cam.zones()
    names = cam.seat_names()
    signed = np.empty((len(pts_mm), len(names)), np.float64)
    for j, name in enumerate(names):
        poly = np.array(zones[name], np.float32).reshape(-1, 1, 2)
        signed[:, j] = [cv2.pointPolygonTest(poly, (float(x), float(y)), True)
                        for x, y in pts_mm]
    seat: npt.NDArray[np.intp] = np.argmax(signed, axis=1).astype(np.intp)
    return seat


@dataclass(frozen=True)
class Arm:
    """One arm over the table in one frame.

    Args:
        seat: the seat it comes from.
        entry_mm: where it crosses the table edge.
        tip_mm: its farthest point from the edge (the fingertips or a held figure).
        tip_px: the same, in full-resolution pixels.
        touching: the figures (on their pads) it touches.
        area_px: its size in half-resolution pixels.
    """

    seat: str
    entry_mm: Point
    tip_mm: Point
    tip_px: Point
    touching: frozenset[Figure]
    area_px: int
    # One region with another seat's arm whose pixels come within a hand's length of
    # this one's tip (hands touching, arms crossing): which hand is whose is less sure.
    shared: bool = False
    # Parted from other arms, or found at all, by the seats' colours (`vision.looks`).
    by_colour: bool = False
    # Its hand was found apart from it, beyond its end and in its line (`_join_islands`).
    joined: bool = False


@dataclass(frozen=True)
class PadReading:
    """What a pad's centre shows: the share of figure-coloured and pad-coloured pixels."""

    figure: float
    empty: float
    # Where the visible part of the figure was found, in mm off its pad (None: not
    # looked for, or not found), and the share of its picture that matched there.
    moved_mm: float | None = None
    moved_at: Point | None = None
    exact: bool = False   # read against the figure's own picture (a pixel's move shows)
    # How long most of the pad has looked the same (s): an empty pad lies still, a hand
    # passing over it does not, however like the pad its colour is.
    still_s: float = math.inf
    # The share of the table just outside the pad that looks as it did when first seen:
    # low when an arm lies over the pad (even one taken into the background as it rests).
    around: float = 1.0

    @property
    def state(self) -> str:
        """"figure", "empty" or "covered" (something else is over it)."""
        if self.figure >= 0.45:
            return "figure"
        if self.empty >= 0.35 and self.figure <= 0.15:
            return "empty"
        return "covered"


@dataclass(frozen=True)
class Detection:
    """Everything seen in one frame.

    Args:
        t_ns, index: the frame's timestamp and number.
        status: "ok", or what is wrong with the frame ("dark", "resolution ...").
        pads: figure -> what its pad shows.
        arms: the arms over the table.
        gain: the frame's brightness relative to the table as first seen (the light
            the colours were learned in): colours are compared after dividing it out.
    """

    t_ns: int
    index: int
    status: str = "ok"
    pads: dict[Figure, PadReading] = field(default_factory=dict)
    arms: tuple[Arm, ...] = ()
    gain: float = 1.0


class BackgroundModel:
    """The empty table at half resolution, following slow light changes.

    Pixels not under an arm move toward the current frame quickly (`BG_ALPHA`);
    pixels under a foreground region only very slowly (`BG_ABSORB`), so a cup
    put down on the table becomes table after a while but a hand never does.
    """

    def __init__(self) -> None:
        self.mean: npt.NDArray[np.float32] | None = None
        # The table as first seen: the model follows the light, the learned colours don't.
        self.first: npt.NDArray[np.float32] | None = None
        self.signature: bytes = b""
        # Each figure's picture on its pad (learned when the pad is first clear to see,
        # again when the figure is put back: nobody puts it back exactly as it stood).
        self.templates: dict[Figure, PadTemplate] = {}
        self.away: set[Figure] = set()
        # When each pixel last changed: a hand resting in the first frame is learned as
        # table, and where it was reads as foreground once it moves, a ghost that never
        # moves again; anything unchanged for `STILL_S` is taken in quickly.
        self.prev: npt.NDArray[np.uint8] | None = None
        self.changed: npt.NDArray[np.float64] | None = None
        # Each seat's arm by its colours, to part arms that touch.
        self.looks = ArmLooks()
        # Last frame's regions crossing no edge (half-resolution centroids) and the seat
        # each came from (`_join_islands`).
        self.islands: list[tuple[npt.NDArray[np.float32], int]] = []
        # The model's grey gradients over the table, the correlation each frame's must
        # reach and where it has grain (`_unlike_texture`), and how many frames ago they
        # were taken: the model changes slowly.
        self.grain: tuple[npt.NDArray[Any], ...] = ()
        self.grain_age = 0

    def reset(self) -> None:
        """Forget the table (after recalibration or a resolution change)."""
        self.islands = []
        self.grain = ()
        self.grain_age = 0
        self.mean = None
        self.first = None
        self.templates = {}
        self.away = set()
        self.prev = None
        self.changed = None
        self.looks.reset()

    def update(self, small: Image, fg: Image, t_s: float = 0.0) -> None:
        """Blend `small` into the model, slowly where `fg` is set unless it is still."""
        if self.mean is None:
            self.mean = small.astype(np.float32)
            self.first = self.mean.copy()
            self.prev = small.copy()
            self.changed = np.full(small.shape[:2], t_s, np.float64)
            return
        assert self.prev is not None and self.changed is not None
        d = cv2.absdiff(small, self.prev)
        moved = cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2]) > MOTION_LEVEL
        self.changed[moved] = t_s
        self.prev = small.copy()
        still = ((t_s - self.changed) >= STILL_S).astype(np.uint8) * 255
        cv2.accumulateWeighted(small, self.mean, BG_ALPHA, mask=cv2.bitwise_not(fg))
        cv2.accumulateWeighted(small, self.mean, BG_ABSORB, mask=cv2.bitwise_and(fg, ~still))
        cv2.accumulateWeighted(small, self.mean, STILL_ALPHA, mask=cv2.bitwise_and(fg, still))


def read_pads(image: Image, view: TableView, gain: float = 1.0) -> dict[Figure, PadReading]:
    """Classify each pad's centre disc as figure, empty pad or covered."""
    idx_y = np.concatenate([p.disc[0] for p in view.pads])
    idx_x = np.concatenate([p.disc[1] for p in view.pads])
    raw = image[idx_y, idx_x]
    px = cv2.convertScaleAbs(raw, alpha=1.0 / gain) if gain != 1.0 else raw
    clipped = raw.min(axis=1) >= CLIPPED
    lab = cv2.cvtColor(px.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    out: dict[Figure, PadReading] = {}
    start = 0
    for i, pad in enumerate(view.pads):
        n = len(pad.disc[0])
        seg = lab[start:start + n]
        start += n
        if n == 0:
            out[pad.figure] = PadReading(0.0, 0.0)
            continue
        fig = np.linalg.norm(seg - view.colour_lab[i], axis=1) < view.colour_tol[i]
        if _clips(view, i, gain):
            fig |= clipped[start - n:start]
        d_pad = np.linalg.norm(seg - view.pad_lab, axis=1)
        out[pad.figure] = PadReading(float(np.count_nonzero(fig)) / n,
                                     float(np.count_nonzero(d_pad < view.pad_tol)) / n)
    return out


# -- pads read against the figure as it stood there -------------------------------------------

TEMPLATE_TOL = 24.0        # Lab distance from the figure as learned still counting as it
INFORM_TOL = 20.0          # Lab distance from the pad's colour that shows a figure
SURE_SHARE = 0.85          # of a figure's picture matching at home: it stands there, in full
SEEN_SHARE = 0.2           # ... matching somewhere near: its visible part is there
SHIFT_MARGIN = 0.08        # a shift must match this much better than none to count
SHIFT_MM = 14.0            # how far off its pad a figure is looked for by its picture
SHIFT_STEP = 1             # pixels between the shifts tried
CLEAR_RING = 0.12          # of a pad's colour band showing the pad: no hand over it
MIN_INFORM_PX = 12         # a footprint smaller than this cannot be told from its pad
RIM_FROM = 0.7             # of a pad's radius: the outer part of its disc, where its rim shows
RIM_SHARE = 0.6            # of the circle just outside the disc in one colour: the rim's


@dataclass
class PadTemplate:
    """A figure as it stood on its pad when learned: its pixels, not one colour.

    A painted figure from above is several tones (a Viking is mostly its grey
    helmet, the dog its grey back), and stands wherever it was put on the pad:
    comparing each pad with its own figure's picture needs no colour model of
    the figure at all, only the pad's colour to tell an empty pad.
    """

    x0: int
    y0: int
    lab: npt.NDArray[np.float32]      # h x w x 3, the figure at home, gain divided out
    inform: npt.NDArray[np.bool_]     # pixels of the figure (unlike the pad)
    ring: npt.NDArray[np.bool_]       # pixels of the pad's own colour band

    @functools.cached_property
    def ref(self) -> npt.NDArray[np.float32]:
        """The figure's pixels alone (n x 3), as every reading compares them."""
        return self.lab[self.inform]


def _patch(image: Image, view: TableView, figure: Figure, gain: npt.NDArray[np.float32]
           ) -> tuple[int, int, npt.NDArray[np.float32], npt.NDArray[np.bool_],
                      npt.NDArray[np.bool_], npt.NDArray[np.float64]] | None:
    """The square around `figure`'s pad in Lab (light divided out), with its disc, ring
    and each pixel's distance from the pad's centre (in pad radii)."""
    pad = view.pad(figure)
    r = view.cam.pad_radius(figure) * pad.radius_px / view.cam.figure_radius_mm
    square = _pad_square(pad.centre, r, view.size)
    if square is None:
        return None
    x0, y0, x1, y1, disc, ring, dist = square
    raw = image[y0:y1, x0:x1]
    if np.any(np.abs(gain - 1.0) > 0.01):
        raw = np.asarray(cv2.multiply(raw, np.array([*(1.0 / gain), 0.0])), np.uint8)
    raw = cv2.blur(raw, (3, 3))
    lab = cv2.cvtColor(raw, cv2.COLOR_BGR2LAB).astype(np.float32)
    return x0, y0, lab, disc, ring, dist


@functools.lru_cache(maxsize=64)
def _pad_square(centre: Point, r: float, size: tuple[int, int]
                ) -> tuple[int, int, int, int, npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                           npt.NDArray[np.float64]] | None:
    """The square around a pad (corners, its read disc, its ring band and each pixel's
    distance from its centre in radii): geometry alone, the same every frame. Callers
    must not write into the arrays."""
    w, h = size
    cx, cy = centre
    x0, x1 = max(0, math.floor(cx - r)), min(w, math.ceil(cx + r) + 1)
    y0, y1 = max(0, math.floor(cy - r)), min(h, math.ceil(cy + r) + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xx - cx, yy - cy) / r
    disc, ring = d <= PAD_READ, (d >= RING_BAND[0]) & (d <= RING_BAND[1])
    for a in (disc, ring, d):
        a.flags.writeable = False
    return x0, y0, x1, y1, disc, ring, d


def learn_template(image: Image, view: TableView, figure: Figure,
                   gain: npt.NDArray[np.float32]) -> PadTemplate | None:
    """Learn `figure`'s picture on its pad, or None if its pad is not clear to see now.

    Clear is: most of the pad's colour band shows the pad (no hand over it), and
    the figure shows enough pixels unlike the pad.
    """
    got = _patch(image, view, figure, gain)
    if got is None:
        return None
    x0, y0, lab, disc, ring, dist = got
    d_pad = np.linalg.norm(lab - view.pad_lab, axis=2)
    near = d_pad < max(INFORM_TOL, view.pad_tol)
    if np.count_nonzero(ring) == 0 or float(np.mean(near[ring])) < CLEAR_RING:
        return None
    inform = disc & ~near & ~_rim(lab, dist, view.pad_lab)
    if np.count_nonzero(inform) < MIN_INFORM_PX:
        return None
    return PadTemplate(x0, y0, lab, inform, ring)


def _rim(lab: npt.NDArray[np.float32], dist: npt.NDArray[np.float64],
         pad_lab: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """The pixels of a pad's read disc (`dist`: from its centre, in pad radii) that show
    the pad's own rim rather than its figure.

    A ring printed round a pad (camera-mount.md asks for one) reaches into the
    read disc wherever the calibration is a millimetre off: unlike the pad, those
    pixels were taken for the figure's and still matched its picture once it had
    gone (a sixth of it: the pad read "covered" for ever and the grab was never
    seen). The rim is what the pad shows just outside the read disc, all the way
    round (a figure, however off-centre, covers only part of that circle); in
    the disc's outer part, pixels of the rim's colour (or a blend of it and the
    pad's) are no part of the figure.
    """
    outside = (dist > PAD_READ) & (dist <= 1.0)
    none = np.zeros(dist.shape, np.bool_)
    if np.count_nonzero(outside) < MIN_INFORM_PX:
        return none
    rim_lab = np.median(lab[outside], axis=0)
    if float(np.mean(np.linalg.norm(lab[outside] - rim_lab, axis=1) < TEMPLATE_TOL)) \
            < RIM_SHARE:
        return none   # no one colour all round: no printed ring to speak of
    # The ring's inner edge, blurred by the lens and the 3x3 blur, blends ring and pad:
    # a pixel near any blend of the two is the rim's.
    v = rim_lab - pad_lab
    k = np.clip((lab - pad_lab) @ v / max(float(v @ v), 1e-6), 0.0, 1.0)
    blend = pad_lab + k[..., None] * v
    near_blend: npt.NDArray[np.bool_] = np.linalg.norm(lab - blend, axis=2) < TEMPLATE_TOL
    rim: npt.NDArray[np.bool_] = (dist >= RIM_FROM) & (dist <= PAD_READ) & near_blend
    return rim


def read_template(image: Image, view: TableView, figure: Figure, tpl: PadTemplate,
                  gain: npt.NDArray[np.float32], *, look: bool = False) -> PadReading:
    """How much of `figure`'s learned picture its pad still shows, and how much is pad.

    With `look` (a hand at it), or when not all of it matches, its picture is
    also looked for a little off the pad: a one-colour figure moved a few
    pixels still matches most of its place.
    """
    got = _patch(image, view, figure, gain)
    if got is None or got[2].shape != tpl.lab.shape:
        return PadReading(0.0, 0.0)
    lab = got[2]
    px = lab[tpl.inform]
    # Squared distances, compared with squared tolerances, and counts: read for every
    # pad every frame, np.linalg.norm's and np.mean's fixed overheads outweigh the
    # arithmetic on a few hundred pixels.
    f = px - tpl.ref
    d_fig = np.einsum("ij,ij->i", f, f)
    p = px - view.pad_lab
    d_pad = np.einsum("ij,ij->i", p, p)
    # A pixel near both the figure's picture and the pad's colour (a dark figure in a
    # dimmed light) goes to the nearer: else an empty pad still matched a fifth of a
    # dark figure's picture, read "covered" for ever, and its lift was never seen.
    same = (d_fig < TEMPLATE_TOL ** 2) & (d_fig <= d_pad)
    empty = (d_pad < max(INFORM_TOL, view.pad_tol) ** 2) & (d_pad < d_fig)
    n = max(len(px), 1)
    share = np.count_nonzero(same) / n
    bare = np.count_nonzero(empty & ~same) / n
    if share >= SURE_SHARE and not look:
        return PadReading(share, bare, 0.0, view.cam.pad(figure), exact=True)
    moved = _shifted(image, view, figure, tpl, gain=gain, at_home=share)
    return PadReading(share, bare, moved[0] if moved else None,
                      moved[1] if moved else None, exact=True)


def _shifted(image: Image, view: TableView, figure: Figure, tpl: PadTemplate, *,
             gain: npt.NDArray[np.float32], at_home: float) -> tuple[float, Point] | None:
    """Where the visible part of a figure partly hidden or starting to move now is.

    Counts, for every shift up to `SHIFT_MM`, how many pixels of the figure's
    picture match there (a hand over part of it spoils only those it covers,
    unlike a sum of squared differences); the best shift wins if clearly
    better than none. Returns (mm off its pad, where in mm), or None.
    """
    pad = view.pad(figure)
    scale = pad.radius_px / view.cam.figure_radius_mm
    reach = max(2, round(SHIFT_MM * scale))
    h, w = tpl.lab.shape[:2]
    x0, y0 = tpl.x0 - reach, tpl.y0 - reach
    if x0 < 0 or y0 < 0 or x0 + w + 2 * reach > view.size[0] or y0 + h + 2 * reach > view.size[1]:
        return None
    raw = image[y0:y0 + h + 2 * reach, x0:x0 + w + 2 * reach]
    if np.any(np.abs(gain - 1.0) > 0.01):
        raw = np.asarray(cv2.multiply(raw, np.array([*(1.0 / gain), 0.0])), np.uint8)
    lab = cv2.cvtColor(cv2.blur(raw, (3, 3)), cv2.COLOR_BGR2LAB)
    idx, gy, gx = _shift_index(tpl.inform.tobytes(), tpl.inform.shape, reach)
    # Every shift at once, a channel at a time on integers (Lab of 8-bit pixels is
    # whole numbers, the picture's too): the same counts as a float gather of
    # (shifts x pixels x 3), at a tenth of its cost.
    ref = tpl.lab[tpl.inform].astype(np.int32)
    dist2 = np.zeros(idx.shape, np.int32)
    for ch in range(3):
        d = lab[..., ch].ravel()[idx].astype(np.int32) - ref[None, :, ch]
        dist2 += d * d
    shares = np.mean(dist2 < TEMPLATE_TOL ** 2, axis=1)
    k = int(np.argmax(shares))   # the first best, in the order the loop took them
    share, dx, dy = ((float(shares[k]), int(gx[k]), int(gy[k])) if shares[k] > at_home
                     else (at_home, 0, 0))
    if share < SEEN_SHARE or (dx, dy) == (0, 0) or share < at_home + SHIFT_MARGIN:
        return (0.0, view.cam.pad(figure)) if at_home >= SEEN_SHARE else None
    cx, cy = pad.centre
    mm = view.to_mm([(cx + dx, cy + dy)])[0]
    at = (float(mm[0]), float(mm[1]))
    return math.dist(at, view.cam.pad(figure)), at


@functools.lru_cache(maxsize=64)
def _shift_index(inform: bytes, shape: tuple[int, ...], reach: int
                 ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """For a picture's pixels (`inform`, a bool mask's bytes) and every shift up to
    `reach` but none: the flat index of each shifted pixel in the window around it,
    and the shifts (dy, dx). A picture is learned once and read every frame."""
    ys, xs = np.nonzero(np.frombuffer(inform, np.bool_).reshape(shape))
    steps = np.arange(-reach, reach + 1, SHIFT_STEP)
    gy, gx = np.meshgrid(steps, steps, indexing="ij")
    keep = (gy != 0) | (gx != 0)
    gy, gx = gy[keep], gx[keep]
    width = shape[1] + 2 * reach
    idx = ((ys + reach)[None, :] + gy[:, None]) * width + (xs + reach)[None, :] + gx[:, None]
    return idx.astype(np.intp), gy.astype(np.intp), gx.astype(np.intp)


def _colour_window(image: Image, view: TableView, figure: Figure, centre_px: Point,
                   radius_mm: float, *, gain: float, tol_scale: float, min_side: int
                   ) -> tuple[npt.NDArray[np.bool_], int, int] | None:
    """Pixels of `figure`'s colour in the square of `radius_mm` around `centre_px`,
    with the square's top-left corner; None when less than `min_side` of it is in view."""
    r = radius_mm * view.px_per_mm
    h, w = image.shape[:2]
    x0, x1 = max(0, int(centre_px[0] - r)), min(w, int(centre_px[0] + r) + 1)
    y0, y1 = max(0, int(centre_px[1] - r)), min(h, int(centre_px[1] + r) + 1)
    if x1 - x0 < min_side or y1 - y0 < min_side:
        return None
    raw = image[y0:y1, x0:x1]
    roi = cv2.convertScaleAbs(raw, alpha=1.0 / gain) if gain != 1.0 else raw
    i = list(Figure).index(figure)
    lab = cv2.cvtColor(roi, cv2.COLOR_BGR2LAB).astype(np.float32)
    match = np.linalg.norm(lab - view.colour_lab[i], axis=2) < tol_scale * view.colour_tol[i]
    if _clips(view, i, gain):
        match |= raw.min(axis=2) >= CLIPPED
    return match, x0, y0


def _clips(view: TableView, i: int, gain: float) -> bool:
    """Whether figure `i` shows clipped white in a light `gain` times the learned one.

    The white dog under a lamp brighter than at calibration reads 255 in every
    channel: dividing the light out makes it grey, not white, so a pixel clipped
    in every channel counts as that figure. A coloured figure never clips in all
    three channels, nor does a pale hand unless it is brighter than the dog.
    """
    return float(view.colour_floor[i]) * gain >= CLIPPED


def locate_figure(image: Image, view: TableView, figure: Figure, near_px: Point,
                  radius_mm: float, *, gain: float = 1.0) -> Point | None:
    """Find `figure`'s colour near `near_px`; return its centre in table mm, or None."""
    window = _colour_window(image, view, figure, near_px, radius_mm, gain=gain,
                            tol_scale=1.0, min_side=1)
    if window is None:
        return None
    match, x0, y0 = window
    ys, xs = np.nonzero(match)
    fig_area = math.pi * (view.cam.figure_radius_mm * view.px_per_mm) ** 2
    if len(xs) < 0.3 * fig_area:
        return None
    mm = view.to_mm([(x0 + float(xs.mean()), y0 + float(ys.mean()))])[0]
    return (float(mm[0]), float(mm[1]))


def find_figure(image: Image, view: TableView, figure: Figure, near_mm: Point,
                radius_mm: float, *, gain: float = 1.0,
                standing: frozenset[Figure] = frozenset()) -> Point | None:
    """Find a lifted `figure` within `radius_mm` of `near_mm`; return its centre in mm.

    Unlike `locate_figure`, each patch of the figure's colour is judged on its
    own: the one nearest `near_mm` that is the size of a figure (not a sleeve
    of the same colour, not a speck) wins.
    """
    c = view.to_px([near_mm])[0]
    # Lifted, a figure is nearer the lamp and the lens, tilted and blurred: its colour
    # strays further from the one learned on its pad.
    window = _colour_window(image, view, figure, (float(c[0]), float(c[1])), radius_mm,
                            gain=gain, tol_scale=LIFTED_TOL, min_side=3)
    if window is None:
        return None
    match, x0, y0 = window
    n, _labels, stats, centroids = cv2.connectedComponentsWithStats(
        match.astype(np.uint8), connectivity=8)
    fig_area = math.pi * (view.cam.figure_radius_mm * view.px_per_mm) ** 2
    best: tuple[float, Point] | None = None
    for k in range(1, n):
        area = stats[k, cv2.CC_STAT_AREA]
        if not 0.3 * fig_area <= area <= 2.5 * fig_area:
            continue
        px = (x0 + float(centroids[k, 0]), y0 + float(centroids[k, 1]))
        if _on_a_marker(view, px) or _on_a_standing_figure(view, px, standing, figure):
            continue
        d = math.dist(px, (float(c[0]), float(c[1])))
        if best is None or d < best[0]:
            best = (d, px)
    if best is None:
        return None
    mm = view.to_mm([best[1]])[0]
    return (float(mm[0]), float(mm[1]))


MARKER_MARGIN_MM = 15.0  # the printed white quiet zone around each marker


def _on_a_standing_figure(view: TableView, px: tuple[float, float],
                          standing: frozenset[Figure], figure: Figure) -> bool:
    """Whether `px` lies on the pad of another figure that still stands there.

    Figures alike from above (a grey helmet, a grey back, colours widened for a
    noisy light) made the tracker follow a neighbour that never moved: a patch
    on a standing figure's pad is that figure, not the one being carried.
    """
    mm = view.to_mm([px])[0]
    r = view.cam.figure_radius_mm
    return any(math.dist((float(mm[0]), float(mm[1])), view.cam.pad(f)) < r
               for f in standing if f is not figure)


def _on_a_marker(view: TableView, px: tuple[float, float]) -> bool:
    """Whether `px` lies on a printed marker or its white margin.

    A marker's white border is the size and colour of the white dog seen from
    above, and it never moves: taking it for a carried figure put one benchmark
    lift 1.3 frames early. A figure carried right over a marker is lost for those
    few frames only; the tracker follows it before and after.
    """
    x, y = view.to_mm([px])[0]
    for quad in view.cam.marker_corners:
        xs = [p[0] for p in quad]
        ys = [p[1] for p in quad]
        if (min(xs) - MARKER_MARGIN_MM <= x <= max(xs) + MARKER_MARGIN_MM
                and min(ys) - MARKER_MARGIN_MM <= y <= max(ys) + MARKER_MARGIN_MM):
            return True
    return False


def frame_status(image: Image, view: TableView) -> str:
    """Return "ok" or why the frame cannot be used."""
    h, w = image.shape[:2]
    if (w, h) != view.size:
        return f"resolution {w}x{h}, calibrated for {view.size[0]}x{view.size[1]}"
    # Unlit is nothing in view bright, the markers' white border included: dark felt
    # under a dim lamp averages under 25 grey levels yet is plain to see (every frame
    # of such rounds was refused and their grabs never seen: heldout:1790, tune:1480).
    sample = image[::16, ::16].reshape(-1)
    k = len(sample) * 99 // 100
    if float(np.partition(sample, k)[k]) < DARK_LEVEL:
        return "dark"
    return "ok"


def detect(image: Image, view: TableView, bg: BackgroundModel, *, t_ns: int = 0,
           index: int = 0, vacated: frozenset[Figure] = frozenset(),
           hints: dict[str, Point] | None = None) -> Detection:
    """Detect pads and arms in one frame and update the background model.

    Args:
        image: the BGR frame.
        view: the calibrated table.
        bg: the background model (updated in place).
        t_ns, index: copied into the result.
        vacated: figures known to be off their pads; their empty pads are not arms.
        hints: seat -> its arm's tip (full-resolution pixels) in the previous frame:
            how far a tip among touching arms may run on in one frame.
    """
    status = frame_status(image, view)
    if status != "ok":
        return Detection(t_ns, index, status)
    sw, sh = view.size[0] // DOWNSCALE, view.size[1] // DOWNSCALE
    small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA)
    if bg.mean is None:
        bg.update(small, np.zeros((sh, sw), np.uint8), t_ns / 1e9)
    assert bg.mean is not None and bg.first is not None
    flat_now = small.reshape(-1, 3)[view.sample_idx].sum(axis=1).astype(np.float32)
    flat_bg = bg.mean.reshape(-1, 3)[view.sample_idx].sum(axis=1)
    flat_first = bg.first.reshape(-1, 3)[view.sample_idx].sum(axis=1)
    gain = _median(flat_now / np.maximum(flat_bg, 1.0))
    # The model follows the light within a second; the colours learned at calibration
    # do not, so they are compared after dividing out the light relative to the table
    # as first seen (relative to the model, a lamp turned down a second ago would read
    # as no change, and every pad as covered).
    light = gain * _median(flat_bg / np.maximum(flat_first, 1.0))
    ref = cv2.convertScaleAbs(bg.mean, alpha=gain)
    diff = cv2.absdiff(small, ref)
    d0, d1, d2 = cv2.split(diff)
    most = cv2.max(cv2.max(d0, d1), d2)
    _, fg = cv2.threshold(most, FG_THRESHOLD, 255, cv2.THRESH_BINARY)
    if LOW_CONTRAST_ARMS:
        fg = cv2.bitwise_or(fg, _unlike_light(small, ref, most, view.table_mask))
    if TEXTURE_ARMS:
        fg = _with_texture(fg, small, bg, view)
    fg = cv2.bitwise_and(fg, view.table_mask)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, OPEN_KERNEL)
    for figure in vacated:
        pad = view.pad(figure)
        ys, xs = pad.whole
        lab = cv2.cvtColor(small[ys, xs].reshape(-1, 1, 3),
                           cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
        empty = np.linalg.norm(lab - view.pad_lab, axis=1) < view.pad_tol * 1.5
        fg[ys[empty], xs[empty]] = 0
    # An arm over the spot where a hand rested in the first frame (learned as table)
    # shows a gap there: pieces closer than `BRIDGE_MM` are one arm.
    k = 2 * max(1, round(BRIDGE_MM / 2 * view.px_per_mm / DOWNSCALE)) + 1
    joined = cv2.dilate(fg, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    _n, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    labels[fg == 0] = 0
    arms = _arms(labels, stats, view, hints or {}, small=small, looks=bg.looks,
                 t_s=t_ns / 1e9, light=light, islands=bg.islands)
    bg.update(small, fg, t_ns / 1e9)
    ratio = (small.reshape(-1, 3)[view.sample_idx].astype(np.float32)
             / np.maximum(bg.first.reshape(-1, 3)[view.sample_idx], 1.0))
    per_channel = np.array([_median(ratio[:, c]) for c in range(3)], np.float32)
    pads: dict[Figure, PadReading] = {}
    _read_templates(image, view, bg, pads=pads, arms=arms, vacated=vacated,
                    gain=per_channel.astype(np.float32))
    if len(pads) < len(view.pads):
        # By colour only where no picture is learned yet (or its figure is away).
        pads = {**read_pads(image, view, light), **pads}
    still = _still_pads(view, bg, t_ns / 1e9)
    around = _clear_around(view, small, bg.first, per_channel.astype(np.float32))
    return Detection(t_ns, index, "ok",
                     {f: dataclasses.replace(pads[f], still_s=still[f], around=around[f])
                      for f in Figure}, arms, light)


def _unlike_light(small: Image, ref: Image, most: Image, mask: Image) -> Image:
    """Pixels a little off the table (`FG_LOW` to `FG_THRESHOLD`) in a way no change of
    light makes: not every channel scaled alike.

    Dark skin on dark wood, a navy sleeve on navy felt, differ from the table by less
    than `FG_THRESHOLD` in every channel, and the arm was found in pieces or not at
    all; a shadow or a lamp differs by as much but scales every channel alike (a
    shadow is the same table in less light; Prati et al. 2003, the test OpenCV's
    MOG2 uses for shadows).
    """
    low = (most > FG_LOW) & (mask > 0)
    if not np.any(low):
        return np.zeros(most.shape, np.uint8)
    a = small[low].astype(np.float32) + 1.0
    b = ref[low].astype(np.float32) + 1.0
    ratio = a / b
    spread = (ratio.max(axis=1) - ratio.min(axis=1)) / ratio.mean(axis=1)
    out = np.zeros(most.shape, np.uint8)
    out[low] = np.where(spread > LIGHT_SPREAD, 255, 0).astype(np.uint8)
    # Only whole areas: the soft edge of every arm differs this little too, and taken
    # in it fattened arms until two beside each other were one.
    return cv2.morphologyEx(out, cv2.MORPH_OPEN, LOW_KERNEL)


def _with_texture(fg: Image, small: Image, bg: BackgroundModel, view: TableView) -> Image:
    """Colour's foreground `fg` and, apart from it, where the table's grain is hidden."""
    # Not within a window of what colour found (whole areas: not its specks on an
    # arm nearly the table's colour): there the window straddles an edge
    # the table never had, and the grain reads as hidden a window's half beyond
    # it (every arm and hand fattened by 15-20 mm: hands joined sleeves 45 mm
    # away, fingers touched figures they did not). What texture adds apart from
    # colour's pieces within `BRIDGE_MM` still joins them.
    # On the table only: an arm beyond the edge, over the floor, is colour's, and
    # would keep the grain it hides from reaching the edge it crosses.
    near = cv2.dilate(cv2.morphologyEx(cv2.bitwise_and(fg, view.table_mask),
                                       cv2.MORPH_OPEN, OPEN_KERNEL), TEX_NEAR)
    return cv2.bitwise_or(fg, cv2.bitwise_and(_unlike_texture(small, bg, view),
                                              cv2.bitwise_not(near)))


def _unlike_texture(small: Image, bg: BackgroundModel, view: TableView) -> Image:
    """Pixels where the table's grain no longer shows: its texture as modelled, and
    the frame's gradients there correlate poorly with it.

    Dark skin over dark wood, a sleeve the colour of the table, differ from it by
    less than any colour threshold that passes shadows and noise, and such an arm
    was not found at all, or only where it crosses the edge; but it hides the grain
    it lies on, which a shadow or a lamp does not (it scales the gradients, and
    their correlation is the same). Colour and edges fused for people on any
    background: Jabri et al. 2000, "Detection and location of people in video images
    using adaptive fusion of color and edge information".
    """
    x, y, w, h = view.table_box
    out = np.zeros(small.shape[:2], np.uint8)
    if w == 0 or h == 0:
        return out
    # The windows are summed at a quarter of the resolution (each a 2 x 2 block's
    # mean first): a third of the cost, and the grain's correlation is no finer.
    w, h = w - w % 2, h - h % 2
    quarter = (w // 2, h // 2)
    k = (TEX_WIN, TEX_WIN)
    mask = view.table_mask[y:y + h, x:x + w]
    if not bg.grain or bg.grain_age >= TEX_EVERY or bg.grain[0].shape != (h, w):
        assert bg.mean is not None
        b = cv2.cvtColor(bg.mean[y:y + h, x:x + w], cv2.COLOR_BGR2GRAY)
        bx, by = cv2.Sobel(b, cv2.CV_32F, 1, 0), cv2.Sobel(b, cv2.CV_32F, 0, 1)
        eb = cv2.boxFilter(cv2.resize(cv2.add(cv2.multiply(bx, bx), cv2.multiply(by, by)),
                                      quarter, interpolation=cv2.INTER_AREA), -1, k)
        # Scratch images for every frame's products: a fresh image this size each time
        # costs more than the arithmetic (new pages from the system).
        bg.grain = (bx, by, eb, cv2.sqrt(eb) * TEX_NCC, np.empty_like(bx), np.empty_like(bx),
                    cv2.resize(mask, quarter, interpolation=cv2.INTER_NEAREST))
        bg.grain_age = 0
    bx, by, eb, limit, p1, p2, inside = bg.grain
    bg.grain_age += 1
    g = cv2.cvtColor(small[y:y + h, x:x + w], cv2.COLOR_BGR2GRAY)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    cv2.add(cv2.multiply(gx, bx, dst=p1), cv2.multiply(gy, by, dst=p2), dst=p1)
    cross = cv2.boxFilter(cv2.resize(p1, quarter, interpolation=cv2.INTER_AREA), -1, k)
    cv2.add(cv2.multiply(gx, gx, dst=p1), cv2.multiply(gy, gy, dst=p2), dst=p1)
    eg = cv2.boxFilter(cv2.resize(p1, quarter, interpolation=cv2.INTER_AREA), -1, k)
    # The grain must stand out of the noise: of the frame's and of the model's, which
    # is one frame's own at first (a young model of plain felt, JPEG blocks and all,
    # has the energy of grain, and every fresh frame "hid" it). Where nothing changed
    # (most of the table), the gradients of frame minus model are that noise alone:
    # their energy, eg + eb - 2 cross, on a sample of the table.
    step = (slice(None, None, TEX_SAMPLE), slice(None, None, TEX_SAMPLE))
    noise = (eg[step] + eb[step] - 2 * cross[step])[inside[step] > 0]
    if not noise.size:
        return out
    # (At least a grey level's worth: frames exactly alike still differ by rounding.)
    floor = TEX_ABOVE_NOISE * max(_median(noise), 1.0)
    textured = cv2.bitwise_and(cv2.compare(eb, np.array([floor]), cv2.CMP_GT), inside)
    # cross / sqrt(eg * eb) < TEX_NCC, without the division.
    lost = cv2.bitwise_and(cv2.compare(
        cross, cv2.multiply(cv2.sqrt(eg, dst=eg), limit, dst=eg), cv2.CMP_LT), textured)
    if cv2.countNonZero(lost) > TEX_MOST * max(cv2.countNonZero(textured), 1):
        # The grain gone from most of the table at once is no arm: the camera was
        # knocked (the markers will say so within `markers.CHECK_FRAMES`), or a cloth
        # was laid over the table.
        return out
    # (Specks are opened away with colour's: `detect`; off the table, masked there.)
    out[y:y + h, x:x + w] = cv2.resize(lost, (w, h), interpolation=cv2.INTER_NEAREST)
    return out


def _median(values: npt.NDArray[np.floating[Any]]) -> float:
    """The median of a few thousand values (np.median's overhead is most of its cost)."""
    n = len(values)
    part = np.partition(values, [(n - 1) // 2, n // 2])
    return float(part[(n - 1) // 2] + part[n // 2]) / 2


def _still_pads(view: TableView, bg: BackgroundModel, t_s: float) -> dict[Figure, float]:
    """How long (s) `STILL_SHARE` of each pad's pixels have not changed."""
    if bg.changed is None:
        return dict.fromkeys(Figure, 0.0)
    out = {}
    for pad in view.pads:
        ys, xs = pad.whole
        changed = bg.changed[ys, xs]
        if len(changed) == 0:
            out[pad.figure] = 0.0
            continue
        # The STILL_SHARE-th earliest change time (np.quantile costs ten times this).
        k = min(len(changed) - 1, math.ceil(STILL_SHARE * len(changed)) - 1)
        out[pad.figure] = t_s - float(np.partition(changed, k)[k])
    return out


def _clear_around(view: TableView, small: Image, first: npt.NDArray[np.float32],
                  gain: npt.NDArray[np.float32]) -> dict[Figure, float]:
    """The share of each pad's surroundings that look as the table did when first seen
    (the light divided out per channel)."""
    ys = np.concatenate([p.around[0] for p in view.pads])
    xs = np.concatenate([p.around[1] for p in view.pads])
    # All pads at once: one gather and one comparison, then each pad's share.
    d = np.abs(small[ys, xs].astype(np.float32) - first[ys, xs] * gain).max(axis=1)
    same = (d < FG_THRESHOLD).astype(np.float32)
    out = {}
    at = 0
    for pad in view.pads:
        n = len(pad.around[0])
        out[pad.figure] = float(same[at:at + n].mean()) if n else 1.0
        at += n
    return out


def _read_templates(image: Image, view: TableView, bg: BackgroundModel, *,
                    pads: dict[Figure, PadReading], arms: tuple[Arm, ...],
                    vacated: frozenset[Figure], gain: npt.NDArray[np.float32]) -> None:
    """Read each pad against its own figure's picture where one is learned (in place)."""
    touched = frozenset(f for a in arms for f in a.touching)
    for figure in Figure:
        if figure in vacated:
            bg.away.add(figure)
            continue
        if figure in bg.away:
            bg.away.discard(figure)
            bg.templates.pop(figure, None)
        tpl = bg.templates.get(figure)
        if tpl is None and figure not in touched:
            tpl = learn_template(image, view, figure, gain)
            if tpl is not None:
                bg.templates[figure] = tpl
        if tpl is not None:
            pads[figure] = read_template(image, view, figure, tpl, gain, look=figure in touched)


def _followed_seat(view: TableView, pts: npt.NDArray[np.float32], entry: Point,
                   seat: int) -> int:
    """The seat an arm comes from: followed out past the edge, whose zone it reaches.

    People reach with one arm from a shoulder beside their seat, so an arm
    may cross the edge in a neighbour's stretch of it; its direction there
    points back to the shoulder, which lies in its owner's zone behind the
    edge. `seat` (the zone of the crossing) stands when the direction is unclear.
    """
    if len(view.zones) < 2 or len(pts) < MIN_ARM_AREA // 2:
        return seat
    scale = view.px_per_mm / DOWNSCALE
    e = np.array(entry, np.float32)
    near = pts[np.linalg.norm(pts - e, axis=1) <= ARM_STEM_MM * scale]
    if len(near) < MIN_ARM_AREA // 2:
        return seat
    mm = view.to_mm(np.array([e, near.mean(axis=0)], np.float64) * DOWNSCALE)
    out = mm[0] - mm[1]
    length = float(np.linalg.norm(out))
    if length < ARM_STEM_MM / 4:
        return seat
    votes = np.zeros(len(view.zones))
    for follow in FOLLOW_MM:
        q = mm[0] + out / length * follow
        d = [cv2.pointPolygonTest(z, (float(q[0]), float(q[1])), True) for z in view.zones]
        votes[int(np.argmax(d))] += 1
    return int(np.argmax(votes)) if votes.max() > len(FOLLOW_MM) / 2 else seat


def _owners(pts: npt.NDArray[np.float32],
            axes: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]
            ) -> npt.NDArray[np.intp]:
    """Split the pixels of arms that touch: each goes to the arm whose axis is nearest.

    An arm is close to a straight band from its edge crossing to its tip, so
    the distance to that segment decides.
    """
    dists = []
    for a, b in axes:
        ab = b - a
        denom = float(ab @ ab) or 1.0
        u = np.clip(((pts - a) @ ab) / denom, 0.0, 1.0)
        dists.append(np.linalg.norm(pts - (a + u[:, None] * ab), axis=1))
    owner: npt.NDArray[np.intp] = np.argmin(np.stack(dists, axis=1), axis=1).astype(np.intp)
    return owner


def _far_tip(pts: npt.NDArray[np.float32], entry: Point) -> npt.NDArray[np.float32]:
    """A lone arm's tip: its pixel farthest from where it crosses the edge."""
    d = pts - np.array(entry, np.float32)
    tip: npt.NDArray[np.float32] = pts[int(np.argmax(d[:, 0] ** 2 + d[:, 1] ** 2))]
    return tip


def _band_tips(pts: npt.NDArray[np.float32], ents: list[tuple[int, float, float]],
               view: TableView, hints: dict[str, Point]) -> list[npt.NDArray[np.float32]]:
    """The tips of arms that touch or cross, from each arm's own straight band.

    Near the table edge arms do not overlap yet, so the pixels nearest each
    crossing (within `ARM_STEM_MM`) give the arm's direction: from the
    crossing through their centroid. The arm then runs along that line as far
    as its middle (`ARM_CORE_MM` either side) stays filled; another arm
    crossing it fills the middle only where it crosses, and a hand beyond a
    gap (a figure between two gripping hands) is not this arm's. The tip is
    the farthest pixel of its band (`ARM_HALF_WIDTH_MM` either side) up to
    there. A tip may not
    run more than `ARM_STEP_MM` past last frame's, which stops it sliding up
    an arm that crosses at a shallow angle.
    """
    scale = view.px_per_mm / DOWNSCALE
    entries = np.array([(x, y) for _, x, y in ents], np.float32)
    to_entry = np.linalg.norm(pts[:, None, :] - entries[None, :, :], axis=2)
    nearest = np.argmin(to_entry, axis=1)
    stem = ARM_STEM_MM * scale
    half_width = ARM_HALF_WIDTH_MM * scale
    core = ARM_CORE_MM * scale
    gap = BAND_GAP_MM * scale
    tips = []
    for j, (seat, ex, ey) in enumerate(ents):
        entry = entries[j]
        near = pts[(nearest == j) & (to_entry[:, j] <= stem)]
        axis = (near.mean(axis=0) - entry) if len(near) else np.zeros(2, np.float32)
        length = float(np.linalg.norm(axis))
        if length < 1.0:
            tips.append(_far_tip(pts[nearest == j], (ex, ey)) if np.any(nearest == j)
                        else entry)
            continue
        axis /= length
        d = pts - entry
        along = d @ axis
        across = np.abs(d[:, 0] * axis[1] - d[:, 1] * axis[0])
        inband = (across <= half_width) & (along >= 0)
        steps = np.sort(along[(across <= core) & (along >= 0)])
        if len(steps) == 0:
            tips.append(entry)
            continue
        # The arm ends at the first gap along its middle longer than BAND_GAP_MM.
        breaks = np.flatnonzero(np.diff(steps) > gap)
        reach = float(steps[breaks[0]]) if len(breaks) else float(steps[-1])
        hint = hints.get(view.seats[seat])
        if hint is not None:
            last = float((np.array(hint, np.float32) / DOWNSCALE - entry) @ axis)
            reach = min(reach, max(last, 0.0) + ARM_STEP_MM * scale)
        cand = np.flatnonzero(inband & (along <= reach))
        tips.append(pts[cand[int(np.argmax(along[cand]))]] if len(cand) else entry)
    return tips


def _arms(labels: npt.NDArray[Any], stats: npt.NDArray[Any], view: TableView,
          hints: dict[str, Point], *, small: Image | None = None,
          looks: ArmLooks | None = None, t_s: float = 0.0, light: float = 1.0,
          islands: list[tuple[npt.NDArray[np.float32], int]]) -> tuple[Arm, ...]:
    entries = _crossings(labels, stats, view)
    use_looks = looks is not None and small is not None and bool(looks.hist)
    hidden = _hidden_seats(entries, stats, looks, t_s) if use_looks and HIDDEN_ARMS else {}
    arms: list[Arm] = []
    scale = view.px_per_mm / DOWNSCALE
    hand2 = (HAND_REACH_MM * scale) ** 2
    learn: list[tuple[int, npt.NDArray[np.float32]]] = []
    found_by: list[tuple[int, bool, tuple[float, float], tuple[float, float]]] = []
    lone: dict[int, npt.NDArray[np.float32]] = {}   # see `_join_islands`
    for label, ents in entries.items():
        (x0, y0, w, h), ys, xs, pts = _region(labels, stats, label)
        owner: npt.NDArray[np.intp] | None = None
        tips: list[npt.NDArray[np.float32]] = []
        virtual = 0
        by_colour = False
        if use_looks and (len(ents) > 1 or hidden):
            assert looks is not None and small is not None
            found = _by_looks(pts, ents, hidden=hidden, looks=looks, small=small, view=view,
                              hints=hints, t_s=t_s, light=light)
            if found is not None:
                ents, tips, owner, virtual = found
                by_colour = True
        if not ents:
            continue
        if owner is None and len(ents) > 1:
            tips = _band_tips(pts, ents, view, hints)
            axes = [(np.array([ex, ey], np.float32), tip)
                    for (_, ex, ey), tip in zip(ents, tips, strict=True)]
            owner = _owners(pts, axes)
        elif owner is None:
            tips = [_far_tip(pts, (ents[0][1], ents[0][2]))]
            owner = np.zeros(len(pts), np.intp)
        own = np.full((h, w), -1, np.intp)
        own[ys, xs] = owner
        # Each piece's seat, followed past the edge: an arm found in two pieces of one
        # region (two crossings, one shoulder) is one seat's, not two hands tangled.
        seats = np.array([_followed_seat(view, pts[owner == j], (ex, ey), seat)
                          if j < len(ents) - virtual else seat
                          for j, (seat, ex, ey) in enumerate(ents)], np.intp)
        for j, (_, ex, ey) in enumerate(ents):
            if np.count_nonzero(owner == j) < MIN_ARM_AREA // 2:
                continue
            seat = int(seats[j])
            tx0, ty0 = float(tips[j][0]), float(tips[j][1])
            tip_px = (tx0 * DOWNSCALE, ty0 * DOWNSCALE)
            mm = view.to_mm([(ex * DOWNSCALE, ey * DOWNSCALE), tip_px])
            tip_mm = (float(mm[1, 0]), float(mm[1, 1]))
            touching = _touching(view, tip_mm, labels=labels, label=label, mine=own == j,
                                 corner=(x0, y0), tip_half_px=(tx0, ty0), reach2=hand2)
            # One region with another seat's arm matters where it lies near this hand
            # (whose hand is whose); two elbows joined near the edge do not.
            others = pts[(owner >= 0) & (seats[np.maximum(owner, 0)] != seat)]
            shared = len(ents) > 1 and bool(np.any(
                np.sum((others - np.array([tx0, ty0], np.float32)) ** 2, axis=1) <= hand2))
            # Parted by colour from another arm near its hand, or found by colour alone:
            # a better guess at whose hand is whose, never proof (the table is asked).
            hidden_arm = j >= len(ents) - virtual
            coloured = by_colour and (shared or hidden_arm)
            arms.append(Arm(view.seats[seat], (float(mm[0, 0]), float(mm[0, 1])),
                            tip_mm, tip_px,
                            frozenset(touching), int(np.count_nonzero(owner == j)),
                            shared or coloured, coloured))
            found_by.append((seat, hidden_arm, (ex, ey), (tx0, ty0)))
            if len(ents) == 1 and not by_colour and not hidden_arm:
                _note_lone(lone, len(arms) - 1, pts, (ex, ey), scale)
            if len(ents) == 1 and not by_colour:
                # Alone (no hidden arm's colours in it): what this seat's arm looks like,
                # under the seat it was followed to past the edge, not the crossing's.
                learn.append((seat, pts))
    _join_islands(arms, found_by, lone, labels=labels, stats=stats, entries=entries, view=view,
                  hints=hints, islands=islands)
    kept = _keep_and_learn(found_by, learn, looks, small, t_s=t_s, light=light)
    return tuple(arms[k] for k in kept)


def _join_islands(arms: list[Arm], found_by: list[tuple[int, bool, tuple[float, float],
                                                       tuple[float, float]]],
                  lone: dict[int, npt.NDArray[np.float32]], *, labels: npt.NDArray[Any],
                  stats: npt.NDArray[Any], entries: dict[int, list[tuple[int, float, float]]],
                  view: TableView, hints: dict[str, Point],
                  islands: list[tuple[npt.NDArray[np.float32], int]]) -> None:
    """Join to an arm the hand seen beyond its end, apart from it (in place).

    Skin or a sleeve close to the table's colour is no foreground, so an arm
    may show as a sleeve crossing the edge and, apart from it, a hand at the
    figures: the hand is no arm (it crosses no edge), and a grab by it had no
    seat, or its seat's tip leapt when the two pieces touched. A region that
    crosses no edge, starts within `ISLAND_GAP_MM` beyond the end of exactly
    one arm and lies within `ISLAND_DEG` of that arm's line (its stem's
    direction, `lone`) is that arm's hand, when the arm is alone in its region
    (arms that touch are parted by their own lines already). A region in line
    with two arms' ends is nobody's: which is whose is not guessed. Nor is
    a region that came from another seat (`_island_origins`): a hand whose
    whole arm is the table's colour, in line with a neighbour's arm reaching
    for the same figures, is its own seat's (tune:1426, tune:1378: named the
    neighbour's at 0.99 without this).
    """
    found = _island_origins(labels, stats, entries, view, hints=hints, islands=islands)
    islands[:] = [(pts.mean(axis=0), origin) for _label, _box, pts, origin in found]
    if not lone:
        return
    scale = view.px_per_mm / DOWNSCALE
    reach = ISLAND_GAP_MM * scale
    cone = math.cos(math.radians(ISLAND_DEG))
    ends = _lone_ends(lone, found_by, scale)
    hand2 = (HAND_REACH_MM * scale) ** 2
    pads = [(np.array(p.centre, np.float32) / DOWNSCALE,
             (PAD_ISLAND_R * view.cam.pad_radius(p.figure) * scale) ** 2) for p in view.pads]
    claims: dict[int, list[tuple[float, int, npt.NDArray[np.float32], int, int, int, int]]] = {}
    for label, (x0, y0, w, h), pts, origin in found:
        if len(pts) < MIN_ARM_AREA:
            continue
        if any(np.mean(np.sum((pts - c) ** 2, axis=1) <= r2) >= PAD_ISLAND_SHARE
               for c, r2 in pads):
            continue   # a pad's own change (its figure gone or nudged), no hand
        near = [(gap, k) for k, end, u in ends
                if (gap := _gap_in_line(pts, end, u, reach=reach, cone=cone,
                                        width=ARM_HALF_WIDTH_MM * scale)) is not None]
        # In line with other arms too (whatever region they are in): nobody's.
        others = [k for k, (_s, hidden_arm, entry, tip) in enumerate(found_by)
                  if k not in lone and not hidden_arm
                  and _in_line(pts, np.array(entry, np.float32), np.array(tip, np.float32),
                               reach=reach, cone=cone, width=ARM_HALF_WIDTH_MM * scale)]
        if len(near) == 1 and not others and found_by[near[0][1]][0] == origin:
            gap, k = near[0]
            claims.setdefault(k, []).append((gap, label, pts, x0, y0, w, h))
    for k, options in claims.items():
        _gap, label, pts, x0, y0, w, h = min(options, key=lambda c: c[0])
        arm = arms[k]
        seat, hidden_arm, entry_px, _tip = found_by[k]
        far = _far_tip(pts, entry_px)
        tx0, ty0 = float(far[0]), float(far[1])
        tip_px = (tx0 * DOWNSCALE, ty0 * DOWNSCALE)
        mm = view.to_mm([tip_px])
        tip_mm = (float(mm[0, 0]), float(mm[0, 1]))
        touching = _touching(view, tip_mm, labels=labels, label=label,
                             mine=np.ones((h, w), np.bool_), corner=(x0, y0),
                             tip_half_px=(tx0, ty0), reach2=hand2)
        arms[k] = dataclasses.replace(arm, tip_mm=tip_mm, tip_px=tip_px,
                                      touching=arm.touching | frozenset(touching),
                                      area_px=arm.area_px + len(pts), joined=True)
        found_by[k] = (seat, hidden_arm, entry_px, (tx0, ty0))


def _note_lone(lone: dict[int, npt.NDArray[np.float32]], k: int, pts: npt.NDArray[np.float32],
               entry: tuple[float, float], scale: float) -> None:
    """Note arm `k`, alone in its region (`pts`), with its stem's direction: the pixels
    within `ARM_STEM_MM` of where it crosses the edge, from there."""
    e = np.array(entry, np.float32)
    stem = pts[np.sum((pts - e) ** 2, axis=1) <= (ARM_STEM_MM * scale) ** 2]
    if len(stem):
        lone[k] = stem.mean(axis=0) - e


def _lone_ends(lone: dict[int, npt.NDArray[np.float32]],
               found_by: list[tuple[int, bool, tuple[float, float], tuple[float, float]]],
               scale: float) -> list[tuple[int, npt.NDArray[np.float32], npt.NDArray[np.float32]]]:
    """Each lone arm long enough for a direction: (arm, its end on its line, the line's
    unit direction)."""
    ends = []
    for k, axis in lone.items():
        _seat, _hidden, entry, tip = found_by[k]
        length = float(np.linalg.norm(axis))
        e = np.array(entry, np.float32)
        depth = float((np.array(tip, np.float32) - e) @ axis) / max(length, 1e-6)
        if length > 0 and depth >= ARM_STEM_MM / 2 * scale:
            ends.append((k, e + axis / length * depth, axis / length))
    return ends


def _gap_in_line(pts: npt.NDArray[np.float32], end: npt.NDArray[np.float32],
                 u: npt.NDArray[np.float32], *, reach: float, cone: float, width: float
                 ) -> float | None:
    """How far `pts` start beyond `end`, if within `reach` and the cone about `u` (or
    within `width` of it); None if not."""
    rel = pts - end
    dist = np.linalg.norm(rel, axis=1)
    i = int(np.argmin(dist))
    if dist[i] > reach:
        return None
    if dist[i] > width and float(rel[i] @ u) / float(dist[i]) < cone:
        return None
    return float(dist[i])


def _region(labels: npt.NDArray[Any], stats: npt.NDArray[Any], label: int
            ) -> tuple[tuple[int, int, int, int], npt.NDArray[np.intp], npt.NDArray[np.intp],
                       npt.NDArray[np.float32]]:
    """A region's box (x0, y0, w, h), its pixels' rows and columns within the box, and
    the pixels (half resolution) as points."""
    x0, y0 = int(stats[label, cv2.CC_STAT_LEFT]), int(stats[label, cv2.CC_STAT_TOP])
    w, h = int(stats[label, cv2.CC_STAT_WIDTH]), int(stats[label, cv2.CC_STAT_HEIGHT])
    ys, xs = np.nonzero(labels[y0:y0 + h, x0:x0 + w] == label)
    return (x0, y0, w, h), ys, xs, np.stack([xs + x0, ys + y0], axis=1).astype(np.float32)


def _island_origins(labels: npt.NDArray[Any], stats: npt.NDArray[Any],
                    entries: dict[int, list[tuple[int, float, float]]], view: TableView, *,
                    hints: dict[str, Point], islands: list[tuple[npt.NDArray[np.float32], int]]
                    ) -> list[tuple[int, tuple[int, int, int, int], npt.NDArray[np.float32], int]]:
    """Each region crossing no edge and large enough to be a hand: its label, box and
    pixels (`_region`), and the seat (zone index) it came from, given last frame's
    regions (`islands`: centroid, seat).

    A region is last frame's one whose centroid was within `ISLAND_STEP_MM` (a
    hand at 3 m/s between frames at 30 fps) and keeps its seat. A new one is
    the hand of the seat whose tip was last frame within a hand's reach of it
    (an arm whose forearm stopped showing), or else of the seat whose stretch
    of the edge is nearest: a hand that rested in view at calibration, its
    arm the table's colour, first shows where it lay, by its owner's edge.
    """
    scale = view.px_per_mm / DOWNSCALE
    step2 = (ISLAND_STEP_MM * scale) ** 2
    reach2 = (HAND_REACH_MM * scale) ** 2
    tips = [(view.seats.index(seat), np.array(px, np.float32) / DOWNSCALE)
            for seat, px in hints.items() if seat in view.seats]
    out = []
    for label in range(1, len(stats)):
        if label in entries or stats[label, cv2.CC_STAT_AREA] < MIN_ARM_AREA:
            continue
        box, _ys, _xs, pts = _region(labels, stats, label)   # never empty: fg was dilated
        out.append((label, box, pts, _origin(pts, view, islands=islands, tips=tips,
                                             step2=step2, reach2=reach2)))
    return out


def _origin(pts: npt.NDArray[np.float32], view: TableView, *,
            islands: list[tuple[npt.NDArray[np.float32], int]],
            tips: list[tuple[int, npt.NDArray[Any]]], step2: float, reach2: float) -> int:
    """The seat a region crossing no edge came from (see `_island_origins`)."""
    c = pts.mean(axis=0)
    close = min(((float(np.sum((c - pc) ** 2)), seat) for pc, seat in islands),
                key=lambda v: v[0], default=None)
    if close is not None and close[0] <= step2:
        return close[1]
    by_tip = min(((float(np.min(np.sum((pts - tip) ** 2, axis=1))), seat) for seat, tip in tips),
                 key=lambda v: v[0], default=None)
    if by_tip is not None and by_tip[0] <= reach2:
        return by_tip[1]
    w, h = view.cam.table_mm
    x, y = (float(v) for v in view.to_mm([(float(c[0]) * DOWNSCALE,
                                           float(c[1]) * DOWNSCALE)])[0])
    edge = min([(x, (0.0, y)), (w - x, (w, y)), (y, (x, 0.0)), (h - y, (x, h))])[1]
    return int(seat_of_edge(view.cam, np.array([edge], np.float64))[0])


def _in_line(pts: npt.NDArray[np.float32], entry: npt.NDArray[np.float32],
             tip: npt.NDArray[np.float32], *, reach: float, cone: float, width: float) -> bool:
    """Whether `pts` start within `reach` beyond `tip`, within the cone of entry->tip
    (anywhere within `reach`, for an arm with no length to give a direction)."""
    axis = tip - entry
    length = float(np.linalg.norm(axis))
    u = axis / length if length > 0 else axis
    return _gap_in_line(pts, tip, u, reach=reach, cone=-1.0 if length == 0 else cone,
                        width=width) is not None


def _hidden_seats(entries: dict[int, list[tuple[int, float, float]]], stats: npt.NDArray[Any],
                  looks: ArmLooks | None, t_s: float) -> dict[int, tuple[float, float]]:
    """Seats whose arm was seen lately but crosses the edge nowhere now -> its last
    crossing; regions with no crossing that may be their hands join `entries`."""
    assert looks is not None
    crossing = {e[0] for ents in entries.values() for e in ents}
    hidden: dict[int, tuple[float, float]] = {}
    for seat in looks.hist:
        last = looks.recent(seat, t_s)
        if seat not in crossing and last is not None:
            hidden[seat] = last[0]
    for label in range(1, len(stats)):
        if hidden and label not in entries and stats[label, cv2.CC_STAT_AREA] >= LOOK_AREA:
            entries[label] = []
    return hidden


def _keep_and_learn(found_by: list[tuple[int, bool, tuple[float, float], tuple[float, float]]],
                    learn: list[tuple[int, npt.NDArray[np.float32]]], looks: ArmLooks | None,
                    small: Image | None, *, t_s: float, light: float) -> list[int]:
    """Which arms stand, noting where each was seen and learning lone arms' looks."""
    # A seat's arm found crossing the edge (its seat known only once followed past the
    # edge) has no hidden hand besides: that was somebody else's.
    real = {seat for seat, hidden_arm, _, _ in found_by if not hidden_arm}
    kept = [k for k, (seat, hidden_arm, _, _) in enumerate(found_by)
            if not (hidden_arm and seat in real)]
    if looks is not None:
        for k in kept:
            seat, hidden_arm, entry, tip = found_by[k]
            looks.seen(seat, t_s, entry, tip, crossing=not hidden_arm)
        if small is not None:
            for seat, pts in learn:
                idx = pts.astype(np.intp)
                looks.learn(seat, looks.bins(small[idx[:, 1], idx[:, 0]], light))
    return kept


def _crossings(labels: npt.NDArray[Any], stats: npt.NDArray[Any], view: TableView
               ) -> dict[int, list[tuple[int, float, float]]]:
    """Region label -> the seats (zone index) whose stretch of the edge it crosses, and
    where (half-resolution pixels)."""
    band_lab = labels.reshape(-1)[view.band_idx]
    on = band_lab > 0
    nseats = len(view.seats)
    key = band_lab[on].astype(np.int64) * nseats + view.band_seat[on]
    xy_on = view.band_xy[on]
    keys, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    sx = np.bincount(inverse, weights=xy_on[:, 0]) if len(keys) else np.zeros(0)
    sy = np.bincount(inverse, weights=xy_on[:, 1]) if len(keys) else np.zeros(0)
    entries: dict[int, list[tuple[int, float, float]]] = {}
    for k, c, x, y in zip(keys, counts, sx, sy, strict=True):
        label, seat = divmod(int(k), nseats)
        if c >= 2 and stats[label, cv2.CC_STAT_AREA] >= MIN_ARM_AREA:
            entries.setdefault(label, []).append((seat, x / c, y / c))
    return entries


def _touching(view: TableView, tip_mm: Point, *, labels: npt.NDArray[Any], label: int,
              mine: npt.NDArray[np.bool_], corner: tuple[int, int],
              tip_half_px: Point, reach2: float) -> list[Figure]:
    """The figures an arm touches.

    Args:
        labels, label: the frame's regions (half resolution) and the arm's.
        mine: which pixels of the region's bounding box (from `corner`) are this arm's.
        tip_half_px, reach2: its tip, and the squared reach of its hand (half-res px).
    """
    touching = []
    x0, y0 = corner
    tx0, ty0 = tip_half_px
    for pad in view.pads:
        if math.dist(tip_mm, view.cam.pad(pad.figure)) \
                <= view.cam.pad_radius(pad.figure) + TIP_TOUCH_MM:
            # A hand the colour of the pad under it is no foreground there: an arm whose
            # tip stops at a pad's rim is at the figure on it.
            touching.append(pad.figure)
            continue
        ty, tx = pad.touch
        # Only the hand touches: an arm reaching past a figure covers it, no more.
        hit = (labels[ty, tx] == label) & ((tx - tx0) ** 2 + (ty - ty0) ** 2 <= reach2)
        if np.any(hit) and np.any(mine[ty[hit] - y0, tx[hit] - x0]):
            touching.append(pad.figure)
    return touching


def _by_looks(pts: npt.NDArray[np.float32], ents: list[tuple[int, float, float]], *,
              hidden: dict[int, tuple[float, float]], looks: ArmLooks, small: Image,
              view: TableView, hints: dict[str, Point], t_s: float, light: float
              ) -> tuple[list[tuple[int, float, float]], list[npt.NDArray[np.float32]],
                         npt.NDArray[np.intp], int] | None:
    """Part a region among its arms by each seat's colours (see `vision.looks`).

    The region's arms are those crossing the edge in it, and any seat whose arm
    was seen lately near here, does not cross the edge anywhere now (its forearm
    the table's colour), and whose colours are there. Returns the arms (hidden
    ones last, at their last crossing), their tips, each pixel's owner and how
    many are hidden; None when colour does not tell them apart.
    """
    scale = view.px_per_mm / DOWNSCALE
    near = []
    for seat, _entry in hidden.items():
        last = looks.recent(seat, t_s)
        if last is None:
            continue
        tip = np.array(last[1], np.float32)
        if float(np.min(np.sum((pts - tip) ** 2, axis=1))) <= (ARM_STEP_MM * scale) ** 2:
            near.append(seat)
    seats = [e[0] for e in ents] + near
    if (len(seats) < 2 and not near) or any(s not in looks.hist for s in seats):
        return None
    idx = pts.astype(np.intp)
    bins = looks.bins(small[idx[:, 1], idx[:, 0]], light)
    # A hidden arm's colours must be its own against every seat's arm known, not only
    # those crossing here: a hand with no crossing may be anyone's (an invisible arm).
    known = seats + [x for x in looks.hist if x not in seats]
    ll = looks.loglik(known, bins)
    best, sure = decisive(ll)
    keep = [j for j in range(len(ents), len(seats))
            if np.count_nonzero(sure & (best == j)) >= MIN_ARM_AREA]
    ll = ll[:, :len(seats)]
    seats = [e[0] for e in ents] + [seats[j] for j in keep]
    cols = list(range(len(ents))) + keep
    if not keep and len(ents) < 2:
        return None
    ll = ll[:, cols]
    best, sure = decisive(ll)
    if np.count_nonzero(sure) < LOOK_SHARE * len(pts):
        return None
    all_ents = list(ents) + [(seats[j], *hidden[seats[j]]) for j in range(len(ents), len(seats))]
    owner = best.copy()
    if len(ents) > 1:
        # Pixels colour does not settle go by the crossing arms' geometry.
        axes = [(np.array([ex, ey], np.float32), tip) for (_, ex, ey), tip
                in zip(ents, _band_tips(pts, ents, view, hints), strict=True)]
        owner[~sure] = _owners(pts[~sure], axes)
    elif ents:
        owner[~sure] = 0
    else:
        owner[~sure] = -1
    tips = []
    step2 = (ARM_STEP_MM * scale) ** 2
    for j, (seat, ex, ey) in enumerate(all_ents):
        # The tip from the pixels whose colour says they are this arm's, where enough
        # do: at a crossing the blend of two sleeves is anybody's.
        mine = pts[(owner == j) & sure]
        if len(mine) < MIN_ARM_AREA // 2:
            mine = pts[owner == j]
        if len(mine) == 0:
            tips.append(np.array([ex, ey], np.float32))
            continue
        hint = hints.get(view.seats[seat])
        if hint is not None:
            close = np.sum((mine - np.array(hint, np.float32) / DOWNSCALE) ** 2, axis=1) <= step2
            if np.any(close):
                mine = mine[close]
        tips.append(_far_tip(mine, (ex, ey)))
    return all_ents, tips, owner, len(all_ents) - len(ents)

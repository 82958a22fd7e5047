"""Follow a lifted figure from its pad by its own picture, frame to frame.

Telling which of several hands at a figure took it by where the figure's
*colour* lies near each fingertip names a neighbour too often: a sleeve, a
pale hand or another figure's paint can match, and two fingertips at one
figure both see it (issue 11). A figure being carried is instead followed as
what it looks like: the picture learned on its pad, searched for in a small
window around where it was a frame ago, and then updated from each frame, so
the fingers that close on it and the tilt it takes become part of what is
followed. The holding hand moves with that picture; a rival's does not.
An updated picture can slide off the figure onto what lies beside it: found
away from the pad looking like the empty table there, it is dropped.

OpenCV's own trackers do not fit: MIL re-learns a classifier every frame
(tens of milliseconds at this size), and the DNN trackers need model files a
table does not have. `cv2.matchTemplate` with the figure's mask does the work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.vision.config import Point
from controller.vision.detect import TEMPLATE_TOL, PadTemplate, TableView
from controller.vision.frames import Image

CARRY_MAX_MM_S = 2500.0   # the fastest a hand carries a figure (peak of a quick reach)
SEARCH_MARGIN_PX = 3      # beyond how far it can have moved, for blur and noise
KEEP_SHARE = 0.35         # of the picture's pixels matching where it was found: still it
UPDATE = 0.5              # how much of each frame's look enters the picture followed
MAX_GAP_S = 1.0           # lost for longer than this (under a hand): stop following
MAX_REACH_MM = 80.0       # however long it was hidden, look no farther than this
STILL_PX = 2              # found this near where it stood: it has not moved yet
REFOUND_MM = 20.0         # found again this far from where it was lost ...
REFOUND_GAP_S = 0.1       # ... after this long unseen: maybe not it
NEAR_STANDING = 0.8       # of a figure's radius: a match there is the figure standing there
TABLE_FROM_MM = 45.0      # found this far from where it stood, it must not look like ...
TABLE_LIKE = 0.5          # ... the empty table there in this share of its pixels


@dataclass
class Follow:
    """One lifted figure being followed.

    Args:
        figure: the figure.
        lab: the picture followed (Lab, the light divided out), h x w x 3.
        mask: its figure pixels.
        corner_px: where the picture's top-left corner was last found (full-res px).
        t_ns: when.
        path: (t_ns, the figure's centre in table mm) for every frame it was found.
    """

    figure: Figure
    lab: npt.NDArray[np.float32]
    mask: npt.NDArray[np.uint8]
    corner_px: tuple[int, int]
    t_ns: int
    velocity_px_s: tuple[float, float] = (0.0, 0.0)
    path: list[tuple[int, Point]] = field(default_factory=list)
    lost: bool = False
    home_px: tuple[int, int] = (0, 0)
    share: float = 0.0        # of its picture matching where it was last looked for
    # Found again far from where it was lost long ago: it may be something else now, so
    # what it does from here on is no evidence of who holds it.
    broken: bool = False
    # The hand it was last found in, followed on once the picture is lost in it.
    fist: Fist | None = None

    def home_mm(self, view: TableView) -> Point:
        """Where the figure stood on its pad (its picture's centre there), in mm."""
        ox, oy = self.offset_px
        mm = view.to_mm([(self.home_px[0] + ox, self.home_px[1] + oy)])[0]
        return (float(mm[0]), float(mm[1]))

    @property
    def offset_px(self) -> tuple[float, float]:
        """The figure's centre within the picture."""
        ys, xs = np.nonzero(self.mask)
        return float(xs.mean()), float(ys.mean())


@dataclass
class Fist:
    """The hand a figure was last found in, followed by the points on it that move.

    A small figure closed in a fist shows nothing of its picture, and whose fist it
    is cannot be told by colour when arms lie over arms. The fist itself still shows
    knuckles, fingers and their shading: corners that sparse optical flow
    (`cv2.calcOpticalFlowPyrLK`) follows frame to frame, whatever their colour.

    Args:
        points: the points followed (full-res px), N x 1 x 2.
        t_ns: the frame they are in.
        at: where the fist is (table mm): where it was started, moved on by the points'
            median move each frame (points are dropped on the way, and the median of
            those left is another point of the hand).
        path: (t_ns, `at`, the share of the points within `FIST_TOGETHER_MM` of their
            median, how many) for every frame followed.
    """

    points: npt.NDArray[np.float32]
    t_ns: int
    at: Point
    path: list[tuple[int, Point, float, int]] = field(default_factory=list)
    lost: bool = False
    step_px: tuple[float, float] = (0.0, 0.0)   # the points' median move in the last frame


FIST_RADIUS_MM = 30.0     # the fingers closed round a figure lie this near its centre
FIST_POINTS = 60          # at most this many corners followed
FIST_BACK_PX = 1.0        # followed on and back again, a point must return this near
FIST_MIN_POINTS = 4       # fewer left: the fist is lost
FIST_TOGETHER_MM = 40.0   # points this near their median move as one hand
FIST_WINDOW = (21, 21)    # px: a knuckle's worth at the table's scale
FIST_LEVELS = 3           # pyramid levels: a fast carry moves 40 px a frame at 30 fps


def fist_start(grey: Image, centre_px: tuple[float, float], view: TableView, t_ns: int
               ) -> Fist | None:
    """Begin following the hand around `centre_px` in `grey` (the frame of `t_ns`)."""
    mask = np.zeros_like(grey)
    cv2.circle(mask, (round(centre_px[0]), round(centre_px[1])),
               max(2, round(FIST_RADIUS_MM * view.px_per_mm)), 255, -1)
    pts = cv2.goodFeaturesToTrack(grey, FIST_POINTS, 0.01, 3, mask=mask)
    if pts is None or len(pts) < FIST_MIN_POINTS:
        return None
    mm = view.to_mm([centre_px])[0]
    return Fist(pts.astype(np.float32), t_ns, (float(mm[0]), float(mm[1])))


def fist_step(fist: Fist, before: Image, grey: Image, view: TableView, t_ns: int) -> None:
    """Follow the fist from `before` (the frame it was last followed in) into `grey`
    (both greyscale).

    A point is kept only if following it back from `grey` returns it where it was
    (Kalal, Mikolajczyk and Matas's forward-backward error): a point on the edge of
    the hand, where the table shows through, slides and does not come back.
    """
    if fist.lost or t_ns <= fist.t_ns:
        return
    # Started where the last frame's move would take them: a hand moves on much as it
    # moved, and a search from there is not led astray by the knuckles' likeness.
    guess = (fist.points + np.array(fist.step_px, np.float32)).astype(np.float32)
    on, st, _ = cv2.calcOpticalFlowPyrLK(before, grey, fist.points, guess,
                                         winSize=FIST_WINDOW, maxLevel=FIST_LEVELS,
                                         flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
    back, st2, _ = cv2.calcOpticalFlowPyrLK(grey, before, on, fist.points.copy(),
                                            winSize=FIST_WINDOW, maxLevel=FIST_LEVELS,
                                            flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
    err = np.linalg.norm((back - fist.points).reshape(-1, 2), axis=1)
    ok = (st.ravel() == 1) & (st2.ravel() == 1) & (err < FIST_BACK_PX)
    if int(ok.sum()) < FIST_MIN_POINTS:
        fist.lost = True
        return
    was = view.to_mm(fist.points[ok].reshape(-1, 2))
    sx, sy = np.median((on[ok] - fist.points[ok]).reshape(-1, 2), axis=0)
    fist.step_px = (float(sx), float(sy))
    fist.points = on[ok].reshape(-1, 1, 2)
    fist.t_ns = t_ns
    mm = view.to_mm(fist.points.reshape(-1, 2))
    dx, dy = np.median(mm - was, axis=0)
    fist.at = (fist.at[0] + float(dx), fist.at[1] + float(dy))
    together = float(np.mean(np.linalg.norm(mm - np.median(mm, axis=0), axis=1)
                             < FIST_TOGETHER_MM))
    fist.path.append((t_ns, fist.at, together, len(fist.points)))


def start(tpl: PadTemplate, figure: Figure, t_ns: int) -> Follow | None:
    """Begin following `figure` from the picture learned on its pad (None if too small)."""
    ys, xs = np.nonzero(tpl.inform)
    if len(xs) < 6:
        return None
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    lab = tpl.lab[y0:y1, x0:x1].copy()
    mask = tpl.inform[y0:y1, x0:x1].astype(np.uint8)
    corner = (tpl.x0 + x0, tpl.y0 + y0)
    return Follow(figure, lab, mask, corner, t_ns, home_px=corner)


def _lab(image: Image, box: tuple[int, int, int, int], gain: float
         ) -> npt.NDArray[np.float32]:
    x0, y0, x1, y1 = box
    raw = image[y0:y1, x0:x1]
    if abs(gain - 1.0) > 0.01:
        raw = cv2.convertScaleAbs(raw, alpha=1.0 / gain)
    return cv2.cvtColor(cv2.blur(raw, (3, 3)), cv2.COLOR_BGR2LAB).astype(np.float32)


def step(fol: Follow, image: Image, view: TableView, t_ns: int, *, gain: float = 1.0,
         standing: frozenset[Figure] = frozenset(), table: Image | None = None
         ) -> Point | None:
    """Look for the followed figure in this frame; return its centre in mm, or None.

    The window reaches as far as the fastest carry can have taken it since it
    was last found, from where its speed so far puts it. A match on a figure
    still standing on its own pad is refused (that is the neighbour). `table` is
    the empty table (half resolution, in the light the pictures were learned
    in): a match away from the pad that looks like the table there is no figure.
    """
    if fol.lost:
        return None
    dt = (t_ns - fol.t_ns) / 1e9
    if dt <= 0:
        return None
    if dt > MAX_GAP_S:
        fol.lost = True
        return None
    h, w = fol.mask.shape
    reach = round(min(CARRY_MAX_MM_S * dt, MAX_REACH_MM) * view.px_per_mm) + SEARCH_MARGIN_PX
    px = fol.corner_px[0] + fol.velocity_px_s[0] * dt
    py = fol.corner_px[1] + fol.velocity_px_s[1] * dt
    iw, ih = view.size
    x0, y0 = max(0, round(px) - reach), max(0, round(py) - reach)
    x1, y1 = min(iw, round(px) + reach + w), min(ih, round(py) + reach + h)
    if x1 - x0 < w or y1 - y0 < h:
        fol.lost = True
        return None
    win = _lab(image, (x0, y0, x1, y1), gain)
    cost = cv2.matchTemplate(win, fol.lab, cv2.TM_SQDIFF, mask=cv2.merge([fol.mask] * 3))
    cost = np.nan_to_num(cost, nan=np.inf, posinf=np.inf)
    ox, oy = fol.offset_px
    rad = view.cam.figure_radius_mm * NEAR_STANDING * view.px_per_mm
    others = [view.pad(f).centre for f in standing if f is not fol.figure]
    if others:
        # Corners that would put the figure's centre on a standing figure's pad.
        yy, xx = np.mgrid[0:cost.shape[0], 0:cost.shape[1]]
        for cx, cy in others:
            cost[np.hypot(xx + x0 + ox - cx, yy + y0 + oy - cy) < rad] = np.inf
    _mn, _mx, (bx, by), _ = cv2.minMaxLoc(cost)
    if not math.isfinite(float(cost[by, bx])):
        return None
    got = win[by:by + h, bx:bx + w]
    on = fol.mask.astype(bool)
    share = float(np.mean(np.linalg.norm(got[on] - fol.lab[on], axis=1) < TEMPLATE_TOL))
    fol.share = share
    if share < KEEP_SHARE:
        return None
    corner = (x0 + bx, y0 + by)
    if table is not None and math.dist(corner, fol.home_px) > TABLE_FROM_MM * view.px_per_mm \
            and _table_like(got, fol.mask, table, corner) >= TABLE_LIKE:
        # The picture, updated from each frame, slid off the figure onto the table
        # (a blue ship over blue felt, beside the arm that hid it: tune:1526 followed
        # the felt along a neighbour's arm to the neighbour). Whatever it follows from
        # here is no evidence.
        fol.broken = True
        return None
    if dt > REFOUND_GAP_S and math.dist(corner, fol.corner_px) > REFOUND_MM * view.px_per_mm:
        fol.broken = True
    sub = _subpixel(cost, bx, by)
    fol.velocity_px_s = ((corner[0] - fol.corner_px[0]) / dt, (corner[1] - fol.corner_px[1]) / dt)
    fol.corner_px = corner
    fol.t_ns = t_ns
    if max(abs(corner[0] - fol.home_px[0]), abs(corner[1] - fol.home_px[1])) > STILL_PX:
        # On its way: the fingers closing on it and its tilt become part of what is
        # followed (at home it keeps its own picture, or the hands over it would be).
        fol.lab = (1 - UPDATE) * fol.lab + UPDATE * got
    mm = view.to_mm([(corner[0] + sub[0] + ox, corner[1] + sub[1] + oy)])[0]
    at = (float(mm[0]), float(mm[1]))
    fol.path.append((t_ns, at))
    return at


def _table_like(got: npt.NDArray[np.float32], mask: npt.NDArray[np.uint8], table: Image,
                corner: tuple[int, int]) -> float:
    """The share of the picture's pixels in `got` (Lab) that look like the empty table
    under them (`table`: half resolution, BGR)."""
    h, w = mask.shape
    x, y = corner
    x0, y0 = x // 2, y // 2
    x1, y1 = min(table.shape[1], (x + w) // 2 + 2), min(table.shape[0], (y + h) // 2 + 2)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    up = cv2.resize(table[y0:y1, x0:x1], ((x1 - x0) * 2, (y1 - y0) * 2),
                    interpolation=cv2.INTER_LINEAR)[y - 2 * y0:y - 2 * y0 + h,
                                                    x - 2 * x0:x - 2 * x0 + w]
    if up.shape[:2] != (h, w):
        return 0.0
    lab = cv2.cvtColor(cv2.blur(np.clip(up, 0, 255).astype(np.uint8), (3, 3)),
                       cv2.COLOR_BGR2LAB).astype(np.float32)
    on = mask.astype(bool)
    return float(np.mean(np.linalg.norm(got[on] - lab[on], axis=1) < TEMPLATE_TOL))


def _subpixel(cost: npt.NDArray[Any], x: int, y: int) -> tuple[float, float]:
    """The offset of the true minimum from the best pixel: a parabola through it and its
    neighbours along each axis (a start from rest moves a figure under a pixel in its
    first frame, and that frame dates the lift)."""
    def along(a: float, b: float, c: float) -> float:
        den = a - 2 * b + c
        if not (math.isfinite(a) and math.isfinite(c)) or den <= 0:
            return 0.0
        return float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))

    h, w = cost.shape
    dx = along(float(cost[y, x - 1]), float(cost[y, x]), float(cost[y, x + 1])) \
        if 0 < x < w - 1 else 0.0
    dy = along(float(cost[y - 1, x]), float(cost[y, x]), float(cost[y + 1, x])) \
        if 0 < y < h - 1 else 0.0
    return dx, dy

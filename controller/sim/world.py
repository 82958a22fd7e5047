"""The camera world: a table in three dimensions, people reaching over it, exact truth.

This world is built from published facts (`controller/sim/people.py`,
docs/camera.md "The camera world"), not from what the camera pipeline assumes:

- a pinhole camera above the table (height, tilt, turn and a little barrel
  distortion drawn per scene), so things nearer the lens look bigger and lean
  outwards, as they do;
- the five figures as solid shapes of their assumed real sizes, several tones
  each, standing off their pads' centres at any angle;
- players seated around the edge, each reaching with one arm from a shoulder
  beside their seat; the arm bends at the elbow, the hand opens on the way and
  its fingers close on the figure (Jeannerod 1984); hands move on
  minimum-jerk paths (Flash & Hogan 1985) from rest, at human peak speeds;
  a figure leaves its pad a load phase after the fingers close (Johansson &
  Westling 1984), rising and travelling back towards the player;
- idle hands rest on the table (also while the camera calibrates) and fidget.

The world knows exactly when each hand touched each figure and when each
figure left its pad (`truth`). Drawing is `controller/sim/world_render.py`;
the kinds of rounds and their looks are `controller/sim/world_scenes.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.sim.people import BGR, Body, minimum_jerk
from controller.vision.config import CameraConfig, Point

Vec3 = tuple[float, float, float]


# -- the figures ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One solid piece of a figure: a convex footprint (figure mm) between two heights."""

    outline: tuple[Point, ...]
    z0: float
    z1: float
    bgr: BGR


def _box(x0: float, y0: float, x1: float, y1: float) -> tuple[Point, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def _ngon(r: float, n: int = 10, cx: float = 0.0, cy: float = 0.0,
          sx: float = 1.0) -> tuple[Point, ...]:
    return tuple((cx + sx * r * math.cos(2 * math.pi * k / n),
                  cy + r * math.sin(2 * math.pi * k / n)) for k in range(n))


def _shade(bgr: BGR, f: float) -> BGR:
    return (min(255, round(bgr[0] * f)), min(255, round(bgr[1] * f)), min(255, round(bgr[2] * f)))


def figure_parts(figure: Figure, size: tuple[float, float, float], paint: BGR
                 ) -> tuple[Part, ...]:
    """The solid pieces of `figure` at `size` (length, width, height), in its own paint.

    Figure x runs along its length. The shapes are simple solids of the
    figures' outlines (docs/camera.md "The figures"), with the details that
    give each several tones: a sail, a helmet and horns, a cap, straps and a
    lid, ears and a nose.
    """
    length, width, height = size
    lx, wy = length / 2, width / 2
    if figure is Figure.SHIP:
        hull = ((-lx, -wy), (lx * 0.55, -wy), (lx, 0.0), (lx * 0.55, wy), (-lx, wy))
        return (Part(hull, 0.0, height * 0.32, paint),
                Part(_box(-lx * 0.8, -wy * 0.8, lx * 0.4, wy * 0.8), height * 0.32, height * 0.36,
                     _shade(paint, 1.15)),
                Part(_box(-3.0, -wy * 1.25, 3.0, wy * 1.25), height * 0.4, height,
                     _shade(paint, 1.45)),
                Part(_ngon(2.5, 6), height * 0.36, height * 1.04, (40, 60, 90)))
    if figure is Figure.VIKING:
        body = _ngon(wy, 12, sx=lx / wy)
        return (Part(body, 0.0, height * 0.72, paint),
                Part(_ngon(wy * 0.62, 10), height * 0.72, height * 0.93, (150, 150, 160)),
                Part(_box(-3.0, -wy * 1.05, 3.0, -wy * 0.55), height * 0.8, height,
                     (175, 215, 235)),
                Part(_box(-3.0, wy * 0.55, 3.0, wy * 1.05), height * 0.8, height,
                     (175, 215, 235)))
    if figure is Figure.CHILD:
        body = _ngon(wy, 12, sx=lx / wy)
        return (Part(body, 0.0, height * 0.72, paint),
                Part(_ngon(wy * 0.7, 10), height * 0.72, height, _shade(paint, 0.7)))
    if figure is Figure.CHEST:
        strap = 3.0
        return (Part(_box(-lx, -wy, lx, wy), 0.0, height * 0.66, paint),
                Part(_box(-lx, -wy, lx, wy), height * 0.66, height * 0.97, _shade(paint, 0.88)),
                Part(_box(-lx * 0.5 - strap, -wy * 1.02, -lx * 0.5 + strap, wy * 1.02), 0.0,
                     height, (20, 95, 150)),
                Part(_box(lx * 0.5 - strap, -wy * 1.02, lx * 0.5 + strap, wy * 1.02), 0.0,
                     height, (20, 95, 150)))
    # The dog: body, head at the front, dark ears and nose, a grey patch on the back.
    head = length * 0.32
    return (Part(_box(-lx, -wy * 0.8, lx - head * 0.6, wy * 0.8), 0.0, height * 0.72, paint),
            Part(_box(-lx * 0.4, -wy * 0.55, lx * 0.05, wy * 0.55), height * 0.72,
                 height * 0.74, (165, 170, 175)),
            Part(_box(lx - head, -wy, lx, wy), height * 0.45, height, paint),
            Part(_box(lx - head * 0.8, -wy * 1.15, lx - head * 0.45, -wy * 0.6), height * 0.7,
                 height * 1.02, (60, 62, 70)),
            Part(_box(lx - head * 0.8, wy * 0.6, lx - head * 0.45, wy * 1.15), height * 0.7,
                 height * 1.02, (60, 62, 70)),
            Part(_box(lx - 3.0, -2.5, lx + 1.0, 2.5), height * 0.6, height * 0.85, (25, 25, 25)))


# -- the camera ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Lens:
    """A pinhole camera with radial distortion, above the table.

    Args:
        centre: where the lens is, table mm (z up from the table top).
        rotation: 3x3 world-to-camera matrix, row-major (camera z looks down the table).
        focal_px: focal length in pixels.
        principal: the principal point, pixels.
        k1: radial distortion (negative: barrel).
        size: the picture's width and height.
    """

    centre: Vec3
    rotation: tuple[float, ...]
    focal_px: float
    principal: Point
    k1: float
    size: tuple[int, int]

    @property
    def R(self) -> npt.NDArray[np.float64]:  # noqa: N802 - the usual name
        """The rotation as a matrix."""
        return np.asarray(self.rotation, np.float64).reshape(3, 3)

    def project(self, pts: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """World points (N x 3, mm) to pixels (N x 2)."""
        p = np.asarray(pts, np.float64).reshape(-1, 3) - np.asarray(self.centre)
        c = p @ self.R.T
        z = np.maximum(c[:, 2], 1.0)
        x, y = c[:, 0] / z, c[:, 1] / z
        d = 1.0 + self.k1 * (x * x + y * y)
        return np.stack([self.principal[0] + self.focal_px * x * d,
                         self.principal[1] + self.focal_px * y * d], axis=1)

    def scale_at(self, p: Vec3) -> float:
        """Pixels per mm for a small thing at `p` (it looks bigger nearer the lens)."""
        c = (np.asarray(p, np.float64) - np.asarray(self.centre)) @ self.R.T
        return float(self.focal_px / max(c[2], 1.0))

    def table_rays(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """For each pixel, where its ray meets the table top (mm): maps for `cv2.remap`."""
        w, h = self.size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        xd = (u - self.principal[0]) / self.focal_px
        yd = (v - self.principal[1]) / self.focal_px
        # Undo the distortion by fixed-point iteration (it is small).
        x, y = xd.copy(), yd.copy()
        for _ in range(6):
            d = 1.0 + self.k1 * (x * x + y * y)
            x, y = xd / d, yd / d
        rays = np.stack([x, y, np.ones_like(x)], axis=-1) @ self.R   # camera -> world
        t = -self.centre[2] / np.where(np.abs(rays[..., 2]) < 1e-9, -1e-9, rays[..., 2])
        mx = self.centre[0] + t * rays[..., 0]
        my = self.centre[1] + t * rays[..., 1]
        return mx.astype(np.float32), my.astype(np.float32)


def rotation(yaw_deg: float, pitch_deg: float, roll_deg: float) -> tuple[float, ...]:
    """World-to-camera rotation of a camera looking straight down, then turned and tilted."""
    a, b, c = (math.radians(v) for v in (yaw_deg, pitch_deg, roll_deg))
    down = np.diag([1.0, 1.0, -1.0])   # image x along table x, image y along table y
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(b), -math.sin(b)], [0, math.sin(b), math.cos(b)]])
    ry = np.array([[math.cos(c), 0, math.sin(c)], [0, 1, 0], [-math.sin(c), 0, math.cos(c)]])
    m = rx @ ry @ rz @ down
    return tuple(float(v) for v in m.ravel())


# -- how things move -----------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """A minimum-jerk move of a hand's wrist from `p0` to `p1` between `t0` and `t1`.

    Args:
        arc_mm: the hand rises this much half-way (0 at both ends).
        lag_s: the move along the table starts this much after the move upwards.
        rise_s: how long the move upwards takes (default: the whole move).
    """

    t0: float
    t1: float
    p0: Vec3
    p1: Vec3
    arc_mm: float = 0.0
    lag_s: float = 0.0
    rise_s: float = 0.0

    def at(self, t: float) -> Vec3:
        """The wrist at `t` (clamped to the move)."""
        dur = max(self.t1 - self.t0, 1e-6)
        flat = minimum_jerk((t - self.t0 - self.lag_s) / max(dur - self.lag_s, 1e-6))
        up = minimum_jerk((t - self.t0) / (self.rise_s or dur))
        u = min(1.0, max(0.0, (t - self.t0) / dur))
        bump = self.arc_mm * 4.0 * u * (1.0 - u)
        return (self.p0[0] + (self.p1[0] - self.p0[0]) * flat,
                self.p0[1] + (self.p1[1] - self.p0[1]) * flat,
                self.p0[2] + (self.p1[2] - self.p0[2]) * up + bump)


@dataclass(frozen=True)
class Ramp:
    """A minimum-jerk change of one number (a hand's opening or heading) from `v0` to `v1`."""

    t0: float
    t1: float
    v0: float
    v1: float

    def at(self, t: float) -> float:
        """The value at `t` (clamped to the ramp)."""
        return self.v0 + (self.v1 - self.v0) * minimum_jerk(
            (t - self.t0) / max(self.t1 - self.t0, 1e-6))


def _track(segments: tuple[Move, ...] | tuple[Ramp, ...], t: float) -> object:
    """The active segment at `t`: the last one started, or the first one."""
    active = segments[0]
    for s in segments:
        if s.t0 <= t:
            active = s
    return active


@dataclass(frozen=True)
class HandPlan:
    """What one hand does: its wrist's moves, its opening (mm) and heading (radians)."""

    moves: tuple[Move, ...]
    opening: tuple[Ramp, ...]
    heading: tuple[Ramp, ...]
    fidget_mm: float = 4.0
    fidget_phase: float = 0.0

    def state(self, t: float) -> tuple[Vec3, float, float]:
        """(wrist position, finger opening mm, heading radians) at `t`."""
        move = _track(self.moves, t)
        assert isinstance(move, Move)
        p = move.at(t)
        still = all(not (m.t0 <= t <= m.t1) for m in self.moves)
        if still and self.fidget_mm:
            # A resting hand is never quite still.
            ph = self.fidget_phase
            p = (p[0] + self.fidget_mm * math.sin(1.3 * t + ph),
                 p[1] + self.fidget_mm * math.sin(0.9 * t + 2 * ph), p[2])
        op = _track(self.opening, t)
        hd = _track(self.heading, t)
        assert isinstance(op, Ramp) and isinstance(hd, Ramp)
        return p, op.at(t), hd.at(t)


@dataclass(frozen=True)
class Player:
    """One person at the table.

    Args:
        seat: the seat's name.
        at: where they sit, on the table edge (mm).
        inward: unit vector from there into the table.
        body: sizes, handedness and skin.
        sleeve: the sleeve colour; `sleeve_to` how far down the arm it reaches
            (0 = bare arms, 1 = to the wrist).
        hands: the reaching hand's plan first, then the other hand's (None: in the lap).
    """

    seat: str
    at: Point
    inward: Point
    body: Body
    sleeve: BGR
    sleeve_to: float
    hands: tuple[HandPlan | None, HandPlan | None]

    def right(self) -> Point:
        """The player's right, along the edge (facing the table)."""
        return (-self.inward[1], self.inward[0])

    def shoulder(self, hand: int, lean_mm: float = 0.0) -> Vec3:
        """The shoulder of hand 0 (the reaching one) or 1, leaning forward by `lean_mm`."""
        side = 1.0 if (hand == 0) != self.body.left_handed else -1.0
        r = self.right()
        back = self.body.shoulder_back - lean_mm
        return (self.at[0] - self.inward[0] * back + r[0] * side * self.body.shoulder_half,
                self.at[1] - self.inward[1] * back + r[1] * side * self.body.shoulder_half,
                self.body.shoulder_up)


@dataclass(frozen=True)
class Carry:
    """A figure in a hand: from `t_lift` it moves with `seat`'s reaching hand."""

    figure: Figure
    seat: str
    t_lift: float
    offset: Vec3       # the figure's base relative to the wrist at the lift


@dataclass(frozen=True)
class TruthEvent:
    """What really happened: a grab (the figure left its pad) or a feint, exact times."""

    kind: str            # "grab" | "feint"
    seat: str
    figure: Figure
    touch_s: float | None
    lift_s: float | None
    others: tuple[tuple[str, float], ...] = ()   # other seats' hands on it: (seat, touch_s)


@dataclass(frozen=True)
class World:
    """One round in the camera world.

    Args:
        camera: the table file as an installer would write it for this table.
        lens: the real camera.
        homes: figure -> (x, y, heading) where it stands.
        paints: figure -> its paint.
        players: the people.
        carries: the figures that are taken.
        truth: what happened, exactly.
        fps, duration_s: the video.
        look: how it looks (`controller.sim.world_scenes.Look`).
        kind: the kind of round.
        seed: the seed of everything random in it.
    """

    camera: CameraConfig
    lens: Lens
    homes: tuple[tuple[Figure, tuple[float, float, float]], ...]
    paints: tuple[tuple[Figure, BGR], ...]
    players: tuple[Player, ...]
    carries: tuple[Carry, ...]
    truth: tuple[TruthEvent, ...]
    fps: float
    duration_s: float
    look: object
    kind: str
    seed: int
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def frame_count(self) -> int:
        """How many frames the video has."""
        return max(1, math.floor(self.duration_s * self.fps + 1e-9))

    def player(self, seat: str) -> Player:
        """The player in `seat`."""
        return next(p for p in self.players if p.seat == seat)

    def figure_pose(self, figure: Figure, t: float) -> tuple[Vec3, float, str | None]:
        """(base position, heading, the seat holding it or None) of `figure` at `t`."""
        x, y, heading = dict(self.homes)[figure]
        for c in self.carries:
            if c.figure is figure and t >= c.t_lift:
                plan = self.player(c.seat).hands[0]
                assert plan is not None
                wrist, _, _ = plan.state(t)
                return ((wrist[0] + c.offset[0], wrist[1] + c.offset[1],
                         wrist[2] + c.offset[2]), heading, c.seat)
        return (x, y, 0.0), heading, None

    def to_json(self) -> dict[str, object]:
        """The truth, as the benchmark's truth files hold it."""
        return {"kind": self.kind, "fps": self.fps, "seed": self.seed,
                "players": len(self.players),
                "truth": [{"kind": e.kind, "seat": e.seat, "figure": e.figure.value,
                           "touch_s": e.touch_s, "lift_s": e.lift_s,
                           "others": [list(o) for o in e.others]} for e in self.truth]}

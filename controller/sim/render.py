"""The synthetic table: rendered camera frames with exact ground truth.

Used by the tests, the benchmark and the kiosk's simulation mode. A `Scene` is
the table layout plus a script of `Reach`es (an arm from a seat toward a
figure, which may lift it or withdraw); `TableRenderer` draws it the way the
overhead camera would see it, with a `Style` for the things that make real
video hard: table colour, skin tone, sleeves in the figures' colours, camera
tilt, sensor noise, JPEG artefacts, motion blur, light changes and a covered
marker. `ground_truth()` says exactly when each hand touched and each figure
left its pad.

Noise comes from numpy's PCG64 seeded from the project's `Rng`: a scene is the
same picture every time on this numpy, which is what tests need (a match's
replay does not depend on pictures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.rng import Rng
from controller.vision.aruco import marker_image
from controller.vision.config import CameraConfig, Point
from controller.vision.frames import Frame, Image

# The figures' paint, BGR: HABA's wooden figures are bright, saturated colours.
FIGURE_BGR: dict[Figure, tuple[int, int, int]] = {
    Figure.SHIP: (200, 90, 20),
    Figure.VIKING: (30, 30, 210),
    Figure.CHILD: (40, 170, 40),
    Figure.CHEST: (20, 205, 235),
    Figure.DOG: (238, 238, 238),
}
SKIN_BGR = ((170, 195, 235), (120, 160, 215), (90, 130, 185), (60, 90, 140), (40, 60, 95))
HAND_RADIUS_MM = 34.0
ARM_WIDTH_MM = 78.0
HAND_LENGTH_MM = 110.0
GRIP_MM = 5.0  # how far a gripping hand overlaps the figure's outline


@dataclass(frozen=True)
class Reach:
    """One arm's trip from its seat toward a figure and back.

    Args:
        seat: the seat the arm comes from.
        figure: the figure it goes for.
        start_s: the hand crosses the table edge inward.
        touch_s: the hand grips the figure (or stops short, see `short_mm`).
        release_s: the hand starts back; if `lifts`, the figure leaves its pad now.
        end_s: the hand is back over the edge.
        lifts: True when this arm carries the figure away.
        short_mm: for a feint, how far from the figure the hand stops (0 = touches it).
    """

    seat: str
    figure: Figure
    start_s: float
    touch_s: float
    release_s: float
    end_s: float
    lifts: bool = False
    short_mm: float = 0.0


@dataclass(frozen=True)
class Style:
    """How the scene looks; the defaults are a well-lit table and a clean camera."""

    table_bgr: tuple[int, int, int] = (70, 120, 60)  # a green felt mat
    floor_bgr: tuple[int, int, int] = (45, 45, 50)
    pad_bgr: tuple[int, int, int] = (125, 55, 120)  # purple rings: a colour nobody wears
    skin: tuple[tuple[int, int, int], ...] = SKIN_BGR
    sleeves: tuple[tuple[int, int, int], ...] = ((90, 60, 50), (50, 50, 50), (120, 120, 140))
    tilt: float = 0.0          # keystone: far edge shrinks by this fraction
    rotate_deg: float = 0.0
    noise: float = 2.0         # sensor noise sigma, grey levels
    jpeg_quality: int = 0      # 0: none
    motion_blur: bool = False
    light_drift: float = 0.0   # relative brightness change over the video
    light_step: float = 0.0    # sudden change (a lamp switched) at mid video
    cover_marker: int | None = None  # a cup over part of this marker
    cover_from_s: float = 0.0


@dataclass(frozen=True)
class Scene:
    """A table, its style and what the arms do.

    Args:
        camera: the table layout.
        reaches: the arms' trips.
        duration_s: the video length.
        fps: frames per second.
        size: output width, height in pixels.
        style: how it looks.
        seed: noise seed.
        sleeves: seat -> sleeve colour (defaults cycle through the style's).
        skins: seat -> skin colour.
    """

    camera: CameraConfig
    reaches: tuple[Reach, ...] = ()
    duration_s: float = 3.0
    fps: float = 30.0
    size: tuple[int, int] = (640, 480)
    style: Style = field(default_factory=Style)
    seed: int = 0
    sleeves: tuple[tuple[str, tuple[int, int, int]], ...] = ()
    skins: tuple[tuple[str, tuple[int, int, int]], ...] = ()


@dataclass(frozen=True)
class TruthEvent:
    """What really happened: a grab (lift) or a feint, with exact times."""

    kind: str            # "grab" | "feint"
    seat: str
    figure: Figure
    touch_s: float | None
    lift_s: float | None
    others: tuple[tuple[str, float], ...] = ()   # other seats on the figure: (seat, touch_s)


def camera_homography(camera: CameraConfig, size: tuple[int, int], *, tilt: float = 0.0,
                      rotate_deg: float = 0.0) -> npt.NDArray[np.float64]:
    """Return the table-mm to image-pixel homography of a camera above the table centre."""
    w, h = camera.table_mm
    out_w, out_h = size
    scale = min(out_w * 0.86 / w, out_h * 0.86 / h)
    cx, cy = out_w / 2, out_h / 2
    hw, hh = w * scale / 2, h * scale / 2
    # Keystone: the far edge (y = 0) looks shorter when the camera leans toward the near side.
    far = 1.0 - tilt
    dst = np.array([[-hw * far, -hh], [hw * far, -hh], [hw, hh], [-hw, hh]], dtype=np.float64)
    a = math.radians(rotate_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    dst = dst @ rot.T + np.array([cx, cy])
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    return np.asarray(cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)),
                      dtype=np.float64)


def _seat_outside(camera: CameraConfig, seat_pos: Point, out_mm: float) -> Point:
    """Return a point `out_mm` beyond the table edge behind a seat."""
    w, h = camera.table_mm
    x, y = seat_pos
    d = {"l": x, "r": w - x, "t": y, "b": h - y}
    side = min(d, key=lambda k: d[k])
    return {"l": (x - out_mm, y), "r": (x + out_mm, y), "t": (x, y - out_mm),
            "b": (x, y + out_mm)}[side]


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    ax, ay = b[0] - a[0], b[1] - a[1]
    n = ax * ax + ay * ay or 1.0
    u = min(1.0, max(0.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / n))
    return math.dist(p, (a[0] + u * ax, a[1] + u * ay))


class TableRenderer:
    """Draw a `Scene` frame by frame.

    The table is drawn top-down in millimetre space at `px_per_mm`, then warped
    into the camera's view with the scene's homography, so the markers come out
    in perspective exactly as a tilted camera would see them.
    """

    MARGIN_MM = 180.0

    def __init__(self, scene: Scene, *, px_per_mm: float = 0.8) -> None:
        self.scene = scene
        cam = scene.camera
        self.s = px_per_mm
        st = scene.style
        self.H = camera_homography(cam, scene.size, tilt=st.tilt, rotate_deg=st.rotate_deg)
        m = self.MARGIN_MM
        # canvas px -> mm -> image px
        to_mm = np.array([[1 / self.s, 0, -m], [0, 1 / self.s, -m], [0, 0, 1]])
        self._warp = self.H @ to_mm
        self._cw = round((cam.table_mm[0] + 2 * m) * self.s)
        self._ch = round((cam.table_mm[1] + 2 * m) * self.s)
        rng = Rng(scene.seed)
        self._np = np.random.Generator(np.random.PCG64(rng.fork("pixels").next_u64()))
        self._static = self._draw_static(rng.fork("static"))
        seats = dict(cam.seats)
        sleeve_of = dict(scene.sleeves)
        skin_of = dict(scene.skins)
        self._sleeve = {n: sleeve_of.get(n, st.sleeves[i % len(st.sleeves)])
                        for i, n in enumerate(seats)}
        self._skin = {n: skin_of.get(n, st.skin[i % len(st.skin)]) for i, n in enumerate(seats)}
        self._outside = {n: _seat_outside(cam, p, 260.0) for n, p in seats.items()}
        self._entry = {n: _seat_outside(cam, p, 40.0) for n, p in seats.items()}
        self.frame_count = max(1, math.floor(scene.duration_s * scene.fps + 1e-9))

    # -- geometry ------------------------------------------------------------------

    def _c(self, p: Point) -> tuple[int, int]:
        """mm -> canvas pixel (integer, with 4 fractional bits for cv2 shift)."""
        m = self.MARGIN_MM
        return (round((p[0] + m) * self.s * 16), round((p[1] + m) * self.s * 16))

    def _contact_point(self, r: Reach, short_mm: float) -> Point:
        fig = self.scene.camera.pad(r.figure)
        e = self._entry[r.seat]
        dx, dy = fig[0] - e[0], fig[1] - e[1]
        d = math.hypot(dx, dy)
        reach = self.scene.camera.figure_radius_mm + HAND_RADIUS_MM - GRIP_MM + short_mm
        return (fig[0] - dx / d * reach, fig[1] - dy / d * reach)

    def hand_at(self, r: Reach, t: float) -> Point | None:
        """Where the hand of reach `r` is at time `t` (None when off the table)."""
        if t < r.start_s or t > r.end_s:
            return None
        e = self._entry[r.seat]
        c = self._contact_point(r, r.short_mm)
        if t <= r.touch_s:
            u = (t - r.start_s) / max(r.touch_s - r.start_s, 1e-6)
            return (e[0] + (c[0] - e[0]) * u, e[1] + (c[1] - e[1]) * u)
        if t <= r.release_s:
            return c
        u = (t - r.release_s) / max(r.end_s - r.release_s, 1e-6)
        return (c[0] + (e[0] - c[0]) * u, c[1] + (e[1] - c[1]) * u)

    def figure_at(self, figure: Figure, t: float) -> tuple[Point, bool]:
        """Return where `figure` is at `t` and whether it is carried."""
        for r in self.scene.reaches:
            if r.lifts and r.figure is figure and t >= r.release_s:
                hand = self.hand_at(r, t)
                if hand is None:
                    return ((-1e4, -1e4), True)  # carried off the table
                c = self._contact_point(r, 0.0)
                pad = self.scene.camera.pad(figure)
                return ((pad[0] + hand[0] - c[0], pad[1] + hand[1] - c[1]), True)
        return (self.scene.camera.pad(figure), False)

    def contacts(self, r: Reach) -> dict[Figure, float]:
        """When the hand of `r` first met each figure standing on its pad (1 ms steps).

        The hand is the palm circle and the bare forearm behind it (the part a
        camera sees as the hand); a figure already lifted by someone is not touched.
        """
        cam = self.scene.camera
        out: dict[Figure, float] = {}
        rf = cam.figure_radius_mm
        steps = max(1, round((r.end_s - r.start_s) * 1000))
        for k in range(steps + 1):
            t = r.start_s + k / 1000
            hand = self.hand_at(r, t)
            if hand is None:
                continue
            out_pt = self._outside[r.seat]
            dx, dy = hand[0] - out_pt[0], hand[1] - out_pt[1]
            d = math.hypot(dx, dy) or 1.0
            wrist = (hand[0] - dx / d * HAND_LENGTH_MM, hand[1] - dy / d * HAND_LENGTH_MM)
            for figure, _pad in cam.pads:
                if figure in out:
                    continue
                pos, held = self.figure_at(figure, t)
                if held:
                    continue
                if (math.dist(hand, pos) <= rf + HAND_RADIUS_MM
                        or _seg_dist(pos, wrist, hand) <= rf + ARM_WIDTH_MM * 0.375):
                    out[figure] = t
        return out

    def ground_truth(self) -> list[TruthEvent]:
        """Every grab and feint in the scene, in order of lift or withdrawal.

        An arm whose hand touched a figure and was still on the table when
        another arm lifted it is a rival claim on that grab; any other arm that
        lifted nothing is a feint at the figure it went for.
        """
        out: list[TruthEvent] = []
        touches = {id(r): self.contacts(r) for r in self.scene.reaches}

        def rival(o: Reach, lift: Reach) -> float | None:
            t = touches[id(o)].get(lift.figure)
            if o is lift or (o.lifts and o.figure is lift.figure) or t is None:
                return None
            return t if t <= lift.release_s <= o.end_s else None

        for r in self.scene.reaches:
            touch = touches[id(r)].get(r.figure)
            if r.lifts:
                others = tuple((o.seat, t) for o in self.scene.reaches
                               if (t := rival(o, r)) is not None)
                out.append(TruthEvent("grab", r.seat, r.figure, touch, r.release_s, others))
            elif not any(rival(r, o) is not None for o in self.scene.reaches if o.lifts):
                out.append(TruthEvent("feint", r.seat, r.figure, touch, None))
        return sorted(out, key=lambda e: e.lift_s if e.lift_s is not None else e.touch_s or 0.0)

    # -- drawing -------------------------------------------------------------------

    def _draw_static(self, rng: Rng) -> Image:
        cam, st = self.scene.camera, self.scene.style
        gen = np.random.Generator(np.random.PCG64(rng.next_u64()))
        canvas = np.empty((self._ch, self._cw, 3), np.uint8)
        canvas[:] = st.floor_bgr
        tw, th = round(cam.table_mm[0] * self.s), round(cam.table_mm[1] * self.s)
        m = round(self.MARGIN_MM * self.s)
        # Wood-like grain: low-frequency stripes plus fine noise.
        grain = gen.normal(0, 1, (th // 8 + 2, 4)).astype(np.float32)
        grain = cv2.resize(grain, (tw, th), interpolation=cv2.INTER_CUBIC) * 6.0
        fine = gen.normal(0, 3, (th, tw)).astype(np.float32)
        table = np.asarray(st.table_bgr, np.float32)[None, None, :] + (grain + fine)[..., None]
        canvas[m:m + th, m:m + tw] = np.clip(table, 0, 255).astype(np.uint8)
        for figure in Figure:
            cv2.circle(canvas, self._c(cam.pad(figure)),
                       round((cam.figure_radius_mm + 8) * self.s * 16), st.pad_bgr, -1,
                       cv2.LINE_AA, 4)
        for marker_id, quad in enumerate(cam.marker_corners):
            self._draw_marker(canvas, marker_id, quad)
        return canvas

    def _draw_marker(self, canvas: Image, marker_id: int, quad: tuple[Point, ...]) -> None:
        side = 120
        img = marker_image(marker_id, side)
        quiet = side // 6
        big = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
        big[quiet:quiet + side, quiet:quiet + side] = img
        src = np.array([[quiet, quiet], [quiet + side, quiet], [quiet + side, quiet + side],
                        [quiet, quiet + side]], np.float32)
        m = self.MARGIN_MM
        dst = np.array([[(x + m) * self.s, (y + m) * self.s] for x, y in quad], np.float32)
        h = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(cv2.cvtColor(big, cv2.COLOR_GRAY2BGR), h,
                                     (self._cw, self._ch), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full(big.shape, 255, np.uint8), h, (self._cw, self._ch))
        canvas[mask > 127] = warped[mask > 127]

    def _draw_dynamic(self, canvas: Image, t: float) -> None:
        cam, st = self.scene.camera, self.scene.style
        r_px16 = round(cam.figure_radius_mm * self.s * 16)
        carried: list[tuple[Figure, Point]] = []
        for figure in Figure:
            pos, held = self.figure_at(figure, t)
            if held:
                carried.append((figure, pos))
            else:
                self._draw_figure(canvas, figure, pos, r_px16)
        if st.cover_marker is not None and t >= st.cover_from_s:
            quad = cam.marker_corners[st.cover_marker]
            cx = sum(p[0] for p in quad) / 4 + 20
            cy = sum(p[1] for p in quad) / 4 + 15
            cv2.circle(canvas, self._c((cx, cy)), round(32 * self.s * 16), (70, 95, 150), -1,
                       cv2.LINE_AA, 4)
        for r in self.scene.reaches:
            hand = self.hand_at(r, t)
            if hand is None:
                continue
            out = self._outside[r.seat]
            dx, dy = hand[0] - out[0], hand[1] - out[1]
            d = math.hypot(dx, dy) or 1.0
            wrist = (hand[0] - dx / d * HAND_LENGTH_MM, hand[1] - dy / d * HAND_LENGTH_MM)
            skin = self._skin[r.seat]
            cv2.line(canvas, self._c(out), self._c(wrist), self._sleeve[r.seat],
                     round(ARM_WIDTH_MM * self.s), cv2.LINE_AA, 4)
            cv2.line(canvas, self._c(wrist), self._c(hand), skin,
                     round(ARM_WIDTH_MM * 0.75 * self.s), cv2.LINE_AA, 4)
            cv2.circle(canvas, self._c(hand), round(HAND_RADIUS_MM * self.s * 16), skin, -1,
                       cv2.LINE_AA, 4)
        for figure, pos in carried:
            # Lifted: nearer the camera, so drawn a little larger, over the hand.
            self._draw_figure(canvas, figure, pos, round(r_px16 * 1.08))

    def _draw_figure(self, canvas: Image, figure: Figure, pos: Point, r_px16: int) -> None:
        colour = FIGURE_BGR[figure]
        cv2.circle(canvas, self._c(pos), r_px16, colour, -1, cv2.LINE_AA, 4)
        shade = tuple(int(c * 0.8) for c in colour)
        cv2.circle(canvas, self._c(pos), r_px16, shade, max(1, round(self.s * 2)),
                   cv2.LINE_AA, 4)

    def render(self, index: int) -> Image:
        """Return frame `index` as the camera would deliver it."""
        sc, st = self.scene, self.scene.style
        t = index / sc.fps
        if st.motion_blur:
            # Average three instants across a 1/2-frame exposure: real motion blur.
            acc = np.zeros((self._ch, self._cw, 3), np.float32)
            for dt in (-0.25 / sc.fps, 0.0, 0.25 / sc.fps):
                canvas = self._static.copy()
                self._draw_dynamic(canvas, max(0.0, t + dt))
                acc += canvas
            canvas = (acc / 3).astype(np.uint8)
        else:
            canvas = self._static.copy()
            self._draw_dynamic(canvas, t)
        img = cv2.warpPerspective(canvas, self._warp, sc.size, flags=cv2.INTER_LINEAR,
                                  borderValue=st.floor_bgr)
        gain = 1.0 + st.light_drift * t / max(sc.duration_s, 1e-6)
        if st.light_step and t >= sc.duration_s / 2:
            gain += st.light_step
        if gain != 1.0 or st.noise > 0:
            f = img.astype(np.float32) * gain
            if st.noise > 0:
                f += self._np.normal(0.0, st.noise, f.shape[:2]).astype(np.float32)[..., None]
            img = np.clip(f, 0, 255).astype(np.uint8)
        if st.jpeg_quality:
            _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, st.jpeg_quality])
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        return img


class RenderedSource:
    """A `FrameSource` over a rendered scene; frame i is stamped `start_ns + i / fps`.

    Args:
        scene: what to draw.
        start_ns: the first frame's timestamp.
    """

    def __init__(self, scene: Scene, *, start_ns: int = 0) -> None:
        self.renderer = TableRenderer(scene)
        self.fps = scene.fps
        self._start = start_ns
        self._i = 0

    def read(self) -> Frame | None:
        """Return the next frame, or None after the scene's last one."""
        if self._i >= self.renderer.frame_count:
            return None
        img = self.renderer.render(self._i)
        frame = Frame(img, self._start + round(self._i * 1e9 / self.fps), self._i, True)
        self._i += 1
        return frame

    def close(self) -> None:
        """Nothing to release."""


def write_video(scene: Scene, path: str, *, fourcc: str = "FFV1") -> TableRenderer:
    """Render `scene` into a video file (lossless FFV1 in .mkv by default)."""
    renderer = TableRenderer(scene)
    writer = cv2.VideoWriter(path, cv2.VideoWriter.fourcc(*fourcc), scene.fps, scene.size)
    if not writer.isOpened():
        raise OSError(f"{path}: OpenCV cannot write {fourcc} video here")
    try:
        for i in range(renderer.frame_count):
            writer.write(renderer.render(i))
    finally:
        writer.release()
    return renderer

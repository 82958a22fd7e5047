"""Drawing the camera world as the overhead camera sees it.

Every solid is projected through the scene's pinhole lens (with its
distortion), so a figure's top is drawn where a lens would put it (leaning
outwards, larger as it rises) and a hand high above the table looks bigger
than the pad under it. The table top (wood, felt or cloth, its pads and
printed markers) is a texture mapped through the lens ray by ray
(`cv2.remap`). Then the light: a lamp with its fall-off and the lens's
vignetting, soft shadows of everything above the table, a colour cast and a
white balance that drift, lamp changes, motion blur over the exposure, sensor
noise that grows with brightness, and JPEG.

This shares no drawing code with `controller/sim/render.py` (the older,
flatter table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.rng import Rng
from controller.sim.people import BGR
from controller.sim.world import HandPlan, Player, Vec3, World, figure_parts
from controller.vision.aruco import marker_image
from controller.vision.frames import Frame, Image

TEXTURE_PX_PER_MM = 2.0
FINGER_R = 8.5              # a finger's radius, mm


@dataclass(frozen=True)
class Look:
    """How a round looks: materials, light and camera faults.

    Args:
        table: "wood", "felt" or "cloth"; `table_bgr` its base colour, `table_bgr2`
            the second colour (grain, weave).
        pad_bgr: the pads' colour; `pad_ring_bgr` a printed ring round each (or None).
        floor_bgr: what lies beyond the table (floor, laps, chairs).
        lamp: the lamp's position (mm); `ambient` the share of light that is not
            from it (shadows are that bright).
        tint: the light's colour after the camera's white balance, per BGR channel.
        light: (time s, brightness factor) steps, e.g. a lamp switched at 1.2 s.
        drift: brightness change over the whole video (0.1 = 10 % brighter at the end).
        awb: white balance drift per channel over the video.
        exposure_s: how long each frame is exposed (motion blur).
        read_noise, shot_noise: sensor noise, grey levels: sigma^2 = read^2 + shot * level.
        jpeg: JPEG quality, 0 for none.
        cover: a cup standing on a marker: (marker id, from s), or None.
    """

    table: str = "felt"
    table_bgr: BGR = (70, 120, 60)
    table_bgr2: BGR = (60, 110, 55)
    pad_bgr: BGR = (110, 110, 110)
    pad_ring_bgr: BGR | None = None
    floor_bgr: BGR = (50, 55, 60)
    lamp: Vec3 = (450.0, 300.0, 1800.0)
    ambient: float = 0.45
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    light: tuple[tuple[float, float], ...] = ()
    drift: float = 0.0
    awb: tuple[float, float, float] = (0.0, 0.0, 0.0)
    exposure_s: float = 0.004
    read_noise: float = 2.0
    shot_noise: float = 0.05
    jpeg: int = 0
    cover: tuple[int, float] | None = None


def _look(world: World) -> Look:
    look = world.look
    assert isinstance(look, Look)
    return look


# -- the table top, as a texture -------------------------------------------------------------


def _texture(world: World, rng: Rng) -> tuple[Image, float]:
    """The table top in table mm, with its pads and printed markers."""
    look, cam = _look(world), world.camera
    s = TEXTURE_PX_PER_MM
    w, h = cam.table_mm
    gen = np.random.Generator(np.random.PCG64(rng.next_u64()))
    tw, th = round(w * s), round(h * s)
    tex = _surface(look, tw, th, gen)
    for figure, pad in cam.pads:
        r = cam.pad_radius(figure)
        c = _tx(pad, s)
        if look.pad_ring_bgr is not None:
            cv2.circle(tex, c, round(r * s * 16), look.pad_ring_bgr, -1, cv2.LINE_AA, 4)
            cv2.circle(tex, c, round((r - 5) * s * 16), look.pad_bgr, -1, cv2.LINE_AA, 4)
        else:
            cv2.circle(tex, c, round(r * s * 16), look.pad_bgr, -1, cv2.LINE_AA, 4)
    for marker_id, quad in enumerate(cam.marker_corners):
        _paste_marker(tex, marker_id, quad, s)
    # Anti-alias before sampling at the camera's coarser pitch.
    return cv2.GaussianBlur(tex, (0, 0), 0.9 * s), s


def _tx(p: tuple[float, float], s: float) -> tuple[int, int]:
    return (round(p[0] * s * 16), round(p[1] * s * 16))


def _surface(look: Look, tw: int, th: int, gen: np.random.Generator) -> npt.NDArray[np.float32]:
    """Wood (grain along x), felt (fine fibres) or cloth (a weave) in the look's colours."""
    a = np.asarray(look.table_bgr, np.float32)
    b = np.asarray(look.table_bgr2, np.float32)
    if look.table == "wood":
        yy = np.arange(th, dtype=np.float32)[:, None]
        xx = np.arange(tw, dtype=np.float32)[None, :]
        warp = cv2.resize(gen.normal(0, 1, (8, 12)).astype(np.float32), (tw, th),
                          interpolation=cv2.INTER_CUBIC) * 25.0
        rings = 0.5 + 0.5 * np.sin((yy + warp + 0.002 * xx * xx / max(tw, 1)) * 0.09)
        fine = cv2.resize(gen.normal(0, 1, (th // 2 + 1, 24)).astype(np.float32), (tw, th),
                          interpolation=cv2.INTER_LINEAR) * 0.25
        mix = np.clip(rings ** 3 + fine, 0, 1)[..., None]
        planks = ((yy // 240) % 2).astype(np.float32)[..., None] * 0.06
        out = a * (1 - mix) + b * mix
        return np.asarray(out * (1 - planks) + gen.normal(0, 3, (th, tw, 1)), np.float32)
    if look.table == "cloth":
        rows = np.arange(th)[:, None]
        cols = np.arange(tw)[None, :]
        weave = (((rows // 3) + (cols // 3)) % 2).astype(np.float32)[..., None]
        out = a * (1 - 0.35 * weave) + b * 0.35 * weave
        return np.asarray(out + gen.normal(0, 4, (th, tw, 1)), np.float32)
    fibres = cv2.GaussianBlur(gen.normal(0, 6, (th, tw)).astype(np.float32), (0, 0), 1.2)
    mottle = cv2.resize(gen.normal(0, 1, (6, 9)).astype(np.float32), (tw, th),
                        interpolation=cv2.INTER_CUBIC)[..., None]
    return np.asarray(a + (b - a) * 0.5 * (1 + np.tanh(mottle)) * 0.4 + fibres[..., None],
                      np.float32)


def _paste_marker(tex: Image, marker_id: int, quad: tuple[tuple[float, float], ...],
                  s: float) -> None:
    """A printed marker on white paper with its quiet zone, flat on the table."""
    side = 240
    img = marker_image(marker_id, side)
    quiet = side // 5
    paper = np.full((side + 2 * quiet, side + 2 * quiet), 245, np.uint8)
    paper[quiet:quiet + side, quiet:quiet + side] = np.maximum(img, 25)
    src = np.array([[quiet, quiet], [quiet + side, quiet], [quiet + side, quiet + side],
                    [quiet, quiet + side]], np.float32)
    dst = np.array([[x * s, y * s] for x, y in quad], np.float32)
    hmat = cv2.getPerspectiveTransform(src, dst)
    size = (tex.shape[1], tex.shape[0])
    warped = cv2.warpPerspective(cv2.cvtColor(paper, cv2.COLOR_GRAY2BGR).astype(np.float32),
                                 hmat, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones(paper.shape, np.float32), hmat, size,
                               flags=cv2.INTER_LINEAR)[..., None]
    tex[:] = tex * (1 - mask) + warped * mask


# -- the renderer ---------------------------------------------------------------------------------


class WorldRenderer:
    """Draw a `World` frame by frame.

    Args:
        world: the round.
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.lens = world.lens
        look = _look(world)
        rng = Rng(world.seed).fork("render")
        self._noise = np.random.Generator(np.random.PCG64(rng.fork("noise").next_u64()))
        tex, s = _texture(world, rng.fork("texture"))
        mx, my = self.lens.table_rays()
        self._table_xy = (mx, my)
        self._light = self._light_map(mx, my, look)
        floor = np.asarray(look.floor_bgr, np.float32)
        base = cv2.remap(tex, mx * s, my * s, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=tuple(float(c) for c in floor))
        tw, th = world.camera.table_mm
        off = (mx < 0) | (my < 0) | (mx > tw) | (my > th)
        gen = np.random.Generator(np.random.PCG64(rng.fork("floor").next_u64()))
        base[off] += gen.normal(0, 5, (int(np.count_nonzero(off)), 1)).astype(np.float32)
        self._static = np.asarray(base * self._light[..., None], np.float32)
        self._parts = {f: figure_parts(f, world.camera.figure_size(f), dict(world.paints)[f])
                       for f in Figure}
        self.frame_count = world.frame_count

    def _light_map(self, mx: npt.NDArray[np.float32], my: npt.NDArray[np.float32],
                   look: Look) -> npt.NDArray[np.float32]:
        """The lamp's light on the table (cosine over distance squared) and the vignetting."""
        lx, ly, lz = look.lamp
        r2 = (mx - lx) ** 2 + (my - ly) ** 2 + lz * lz
        irr = lz / np.power(r2, 1.5)
        w, h = self.world.camera.table_mm
        centre = lz / ((w / 2 - lx) ** 2 + (h / 2 - ly) ** 2 + lz * lz) ** 1.5
        lamp = look.ambient + (1 - look.ambient) * irr / centre
        height, width = mx.shape
        u, v = np.meshgrid(np.arange(width, dtype=np.float32),
                           np.arange(height, dtype=np.float32))
        px, py = self.lens.principal
        cos = self.lens.focal_px / np.sqrt((u - px) ** 2 + (v - py) ** 2 + self.lens.focal_px ** 2)
        return np.asarray(lamp * cos ** 4, np.float32)

    # -- per frame ------------------------------------------------------------------------

    def render(self, index: int) -> Image:
        """Frame `index` as the camera delivers it."""
        world, look = self.world, _look(self.world)
        t = index / world.fps
        n = max(1, min(3, round(look.exposure_s / 0.004)))
        if n == 1:
            img = self._instant(t)
        else:
            img = np.zeros_like(self._static)
            for k in range(n):
                img += self._instant(t - look.exposure_s * (0.5 - (k + 0.5) / n))
            img /= n
        gain = self._gain(t)
        tint = [look.tint[c] * (1 + look.awb[c] * t / max(world.duration_s, 1e-6))
                for c in range(3)]
        img *= np.asarray([gain * c for c in tint], np.float32)
        noise = self._noise.standard_normal(img.shape[:2], np.float32)
        sigma = np.sqrt(look.read_noise ** 2 + look.shot_noise * np.clip(img.mean(axis=2), 0, 255))
        img += (noise * sigma)[..., None]
        out = np.clip(img, 0, 255).astype(np.uint8)
        if look.jpeg:
            _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg])
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        return out

    def _gain(self, t: float) -> float:
        look = _look(self.world)
        g = 1.0 + look.drift * t / max(self.world.duration_s, 1e-6)
        for at, factor in look.light:
            if t >= at:
                g *= factor
        return g

    def _instant(self, t: float) -> npt.NDArray[np.float32]:
        """The scene at one instant, lit, before the camera's own faults."""
        img = self._static.copy()
        batch = _Batch()
        self._figures(t, batch)
        for player in self.world.players:
            for k, plan in enumerate(player.hands):
                if plan is not None:
                    self._arm(player, k, plan, t, batch)
        self._cup(t, batch)
        if not batch.prims:
            return img
        look = _look(self.world)
        pts = np.asarray(batch.pts, np.float64)
        lamp = np.asarray(look.lamp, np.float64)
        k = lamp[2] / np.maximum(lamp[2] - pts[:, 2], 1.0)
        dropped = lamp + (pts - lamp) * k[:, None]
        dropped[:, 2] = 0.0
        both = self.lens.project(np.concatenate([pts, dropped]))
        depth = self._depth(np.concatenate([pts, dropped]))
        n = len(pts)
        main = np.round(both[:n] * 16).astype(np.int32)
        # Shadows are soft: drawn at half resolution, blurred, then spread over the picture.
        shade_px = np.round(both[n:] * 8).astype(np.int32)
        scale = self.lens.focal_px / depth
        h, w = self._light.shape
        visible = [p for p in batch.prims if _in_view(both[p.start:p.start + p.count], w, h)]
        shadow = np.zeros((h // 2, w // 2), np.uint8)
        for prim in batch.prims:
            _draw(shadow, prim, shade_px, scale[n:] / 2, None)
        soft = cv2.resize(cv2.GaussianBlur(shadow, (0, 0), 2.0), (w, h),
                          interpolation=cv2.INTER_LINEAR).astype(np.float32)
        img *= (1.0 - (1.0 - look.ambient) * 0.8 / 255.0 * soft)[..., None]
        for prim in sorted(visible, key=lambda p: p.z):
            x, y = both[prim.start]
            light = float(self._light[int(np.clip(y, 0, h - 1)), int(np.clip(x, 0, w - 1))])
            _draw(img, prim, main, scale[:n], light)
        return img

    def _depth(self, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        c = (pts - np.asarray(self.lens.centre)) @ self.lens.R.T
        return np.asarray(np.maximum(c[:, 2], 1.0), np.float64)

    # -- solids ----------------------------------------------------------------------------

    def _figures(self, t: float, batch: _Batch) -> None:
        for figure in Figure:
            base, heading, _held = self.world.figure_pose(figure, t)
            c, s = math.cos(heading), math.sin(heading)
            for part in self._parts[figure]:
                ring = [(base[0] + x * c - y * s, base[1] + x * s + y * c)
                        for x, y in part.outline]
                batch.prism(base[2] + part.z1,
                            [(x, y, base[2] + part.z0) for x, y in ring],
                            [(x, y, base[2] + part.z1) for x, y in ring], part.bgr)

    def _cup(self, t: float, batch: _Batch) -> None:
        cover = _look(self.world).cover
        if cover is None or t < cover[1]:
            return
        quad = self.world.camera.marker_corners[cover[0]]
        cx = sum(p[0] for p in quad) / 4 + 12
        cy = sum(p[1] for p in quad) / 4 + 8
        ring = [(cx + 36 * math.cos(a), cy + 36 * math.sin(a))
                for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)]
        batch.prism(95.0, [(x, y, 0.0) for x, y in ring], [(x, y, 95.0) for x, y in ring],
                    (60, 80, 160))

    # -- people ---------------------------------------------------------------------------------

    def _arm(self, player: Player, k: int, plan: HandPlan, t: float, batch: _Batch) -> None:
        body = player.body
        wrist, opening, heading = plan.state(t)
        shoulder = player.shoulder(k)
        reach = body.upper_arm + body.forearm - 15.0
        dist = math.dist(shoulder, wrist)
        if dist > reach:
            # Reaching far: the player leans in.
            shoulder = player.shoulder(k, lean_mm=dist - reach)
        elbow = _elbow(shoulder, wrist, body.upper_arm, body.forearm,
                       side=1.0 if (k == 0) != body.left_handed else -1.0, right=player.right())
        r_up, r_wrist = body.arm_diameter / 2, body.wrist_diameter / 2
        r_elbow = (r_up + r_wrist) / 2 + 4
        # The sleeve covers the arm from the shoulder to `sleeve_to` of its length.
        cut = player.sleeve_to * 2.0
        for a, b, ra, rb, start in ((shoulder, elbow, r_up, r_elbow, 0.0),
                                    (elbow, wrist, r_elbow, r_wrist, 1.0)):
            covered = min(1.0, max(0.0, cut - start))
            mid = (a[0] + (b[0] - a[0]) * covered, a[1] + (b[1] - a[1]) * covered,
                   a[2] + (b[2] - a[2]) * covered)
            rm = ra + (rb - ra) * covered
            if covered > 0:
                batch.capsule(max(a[2], mid[2]) + 2.0, a, mid, (ra + 6, rm + 6), player.sleeve)
            if covered < 1:
                batch.capsule(max(mid[2], b[2]) + 1.0, mid, b, (rm, rb), body.skin)
        self._hand(player, k, wrist, opening=opening, heading=heading, batch=batch)

    def _hand(self, player: Player, k: int, wrist: Vec3, *, opening: float, heading: float,
              batch: _Batch) -> None:
        """Palm and five fingers; gripping, they close round `opening` mm ahead of the palm."""
        body = player.body
        length, breadth = body.hand_length, body.hand_breadth
        u = (math.cos(heading), math.sin(heading))
        # Facing the table palm down, a right hand's thumb is on its left.
        thumb_side = -1.0 if (k == 0) != body.left_handed else 1.0
        left = (-u[1] * thumb_side, u[0] * thumb_side)   # towards the thumb

        def at(fwd: float, side: float, dz: float) -> Vec3:
            return (wrist[0] + u[0] * fwd + left[0] * side,
                    wrist[1] + u[1] * fwd + left[1] * side, wrist[2] + dz)

        skin = body.skin
        knuckle = 0.5 * length
        grip = 0.62 * length
        half = opening / 2
        gripping = opening < breadth * 0.9
        batch.polygon(wrist[2] + 9.0, [at(0, 0.33 * breadth, 8), at(knuckle, 0.48 * breadth, 8),
                                       at(knuckle, -0.48 * breadth, 8),
                                       at(0, -0.33 * breadth, 8)], skin, 0.92)
        for j, off in enumerate((0.36, 0.12, -0.12, -0.36)):
            base = at(knuckle, off * breadth, 4)
            if gripping:
                # The fingers close on the figure's far side; the outer ones curl.
                lateral = -(half + 4) * (1.0 - 0.3 * j)
                tip = at(grip + 6 - 9 * j, lateral, -14 if j != 1 else 2)
            else:
                spread = (off * breadth) * (1 + 0.35 * opening / max(breadth, 1))
                tip = at(knuckle + 0.42 * length * (1 - 0.06 * abs(j - 1.5)), spread, -6)
            batch.capsule(max(base[2], tip[2]) - 6.0, base, tip, (FINGER_R, FINGER_R * 0.85), skin)
        thumb_base = at(0.18 * length, 0.4 * breadth, 0)
        thumb_tip = (at(grip, half + 4, -14) if gripping
                     else at(0.45 * length, 0.55 * breadth + 0.3 * opening, -8))
        batch.capsule(max(thumb_base[2], thumb_tip[2]) - 6.0, thumb_base, thumb_tip,
                      (FINGER_R * 1.1, FINGER_R * 0.9), skin)


@dataclass
class _Prim:
    """One solid to draw: a prism (bottom ring, top ring), a rod or a flat polygon."""

    z: float
    kind: str
    start: int
    count: int
    bgr: BGR
    ra: float = 0.0
    rb: float = 0.0
    shade: float = 1.0


class _Batch:
    """The solids of one instant, their points gathered to be projected at once."""

    def __init__(self) -> None:
        self.pts: list[Vec3] = []
        self.prims: list[_Prim] = []

    def prism(self, z: float, bottom: list[Vec3], top: list[Vec3], bgr: BGR) -> None:
        self.prims.append(_Prim(z, "prism", len(self.pts), len(bottom), bgr))
        self.pts.extend(bottom)
        self.pts.extend(top)

    def capsule(self, z: float, a: Vec3, b: Vec3, radii: tuple[float, float], bgr: BGR) -> None:
        self.prims.append(_Prim(z, "rod", len(self.pts), 2, bgr, radii[0], radii[1]))
        self.pts.extend((a, b))

    def polygon(self, z: float, pts: list[Vec3], bgr: BGR, shade: float) -> None:
        self.prims.append(_Prim(z, "flat", len(self.pts), len(pts), bgr, shade=shade))
        self.pts.extend(pts)


def _in_view(pts: npt.NDArray[np.float64], w: int, h: int) -> bool:
    """Whether any of a solid's points is near the picture (limbs are wide: a margin)."""
    margin = 60.0
    return bool(np.any((pts[:, 0] > -margin) & (pts[:, 0] < w + margin)
                       & (pts[:, 1] > -margin) & (pts[:, 1] < h + margin)))


def _colour(bgr: BGR, f: float) -> tuple[float, float, float]:
    return (bgr[0] * f, bgr[1] * f, bgr[2] * f)


def _draw(img: Image, prim: _Prim, px: npt.NDArray[np.int32], scale: npt.NDArray[np.float64],
          light: float | None) -> None:
    """Draw `prim` (points `px` in 1/16 pixels); `light` None draws its shadow mask."""
    i, n = prim.start, prim.count
    if prim.kind == "prism":
        hull = cv2.convexHull(px[i:i + 2 * n])
        if light is None:
            cv2.fillConvexPoly(img, hull, 255, cv2.LINE_8, 4)
            return
        cv2.fillConvexPoly(img, hull, _colour(prim.bgr, light * 0.62), cv2.LINE_AA, 4)
        cv2.fillConvexPoly(img, px[i + n:i + 2 * n], _colour(prim.bgr, light), cv2.LINE_AA, 4)
        return
    if prim.kind == "flat":
        if light is None:
            cv2.fillConvexPoly(img, px[i:i + n], 255, cv2.LINE_8, 4)
        else:
            cv2.fillConvexPoly(img, px[i:i + n], _colour(prim.bgr, light * prim.shade),
                               cv2.LINE_AA, 4)
        return
    ax, ay = int(px[i][0]), int(px[i][1])
    bx, by = int(px[i + 1][0]), int(px[i + 1][1])
    unit = 16 if light is not None else 8
    sa, sb = float(scale[i]) * prim.ra * unit, float(scale[i + 1]) * prim.rb * unit
    dx, dy = bx - ax, by - ay
    norm = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / norm, dx / norm
    layers = ((1.0, 0.7),) if light is None else ((1.0, 0.7), (0.55, 1.0))
    for width, shade in layers:
        wa, wb = sa * width, sb * width
        quad = np.array([[ax + nx * wa, ay + ny * wa], [bx + nx * wb, by + ny * wb],
                         [bx - nx * wb, by - ny * wb], [ax - nx * wa, ay - ny * wa]],
                        np.float64).round().astype(np.int32)
        colour = 255 if light is None else _colour(prim.bgr, light * shade)
        line = cv2.LINE_8 if light is None else cv2.LINE_AA
        cv2.fillConvexPoly(img, quad, colour, line, 4)
        cv2.circle(img, (ax, ay), max(unit, round(wa)), colour, -1, line, 4)
        cv2.circle(img, (bx, by), max(unit, round(wb)), colour, -1, line, 4)


def _elbow(shoulder: Vec3, wrist: Vec3, upper: float, fore: float, *, side: float,
           right: tuple[float, float]) -> Vec3:
    """Where the elbow is: the arm bends down and out to the reaching arm's side."""
    s, w = np.asarray(shoulder), np.asarray(wrist)
    d = w - s
    dist = float(np.linalg.norm(d)) or 1.0
    dist_c = min(dist, upper + fore - 1.0)
    along = (upper * upper - fore * fore + dist_c * dist_c) / (2 * dist_c)
    h = math.sqrt(max(upper * upper - along * along, 0.0))
    axis = d / dist
    hint = np.array([right[0] * side * 0.6, right[1] * side * 0.6, -0.8])
    perp = hint - axis * float(hint @ axis)
    perp /= float(np.linalg.norm(perp)) or 1.0
    e = s + axis * along + perp * h
    return (float(e[0]), float(e[1]), float(e[2]))


class WorldSource:
    """A `FrameSource` over a rendered world; frame i is stamped `start_ns + i / fps`.

    Args:
        world: the round.
        start_ns: the first frame's timestamp.
    """

    def __init__(self, world: World, *, start_ns: int = 0) -> None:
        self.renderer = WorldRenderer(world)
        self.fps = world.fps
        self._start = start_ns
        self._i = 0

    def read(self) -> Frame | None:
        """The next frame, or None after the last."""
        if self._i >= self.renderer.frame_count:
            return None
        frame = Frame(self.renderer.render(self._i),
                      self._start + round(self._i * 1e9 / self.fps), self._i, True)
        self._i += 1
        return frame

    def close(self) -> None:
        """Nothing to release."""

"""Random rounds for the synthetic table: the benchmark set, demos and simulation.

`random_scene(cam, seed, kind=...)` draws one round with the project's `Rng`:
which seats reach for which figures, when, how fast, and how the table looks.
Kinds: "grab" (one clean grab), "contest" (two arms on one figure), "feint"
(a hand that withdraws) and "mixed" (several of these at once); `hard=True`
adds the difficult looks (figure-coloured sleeves, tilt, noise, JPEG, blur,
light changes, a covered marker).
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.rng import Rng
from controller.sim.render import FIGURE_BGR, SKIN_BGR, Reach, Scene, Style
from controller.vision.config import CameraConfig

# Play mats: the pads sit under a mat, so its colour is ours to choose; these
# differ from skin and from everyday sleeves (see docs/camera.md).
TABLES = {
    "green felt": (70, 120, 60), "blue felt": (140, 95, 45), "teal": (100, 100, 30),
    "light grey": (185, 182, 178), "olive": (40, 110, 110), "sky": (200, 160, 90),
}
SLEEVES = ((90, 60, 50), (50, 50, 50), (120, 120, 140), (40, 40, 110), (150, 150, 150))
KINDS = ("grab", "contest", "feint", "mixed")
MIN_SKIN_CONTRAST = 25.0   # Lab distance: an arm the mat's colour is invisible to any camera


def _lab(bgr: tuple[int, int, int]) -> npt.NDArray[np.float64]:
    px = np.array([[bgr]], np.uint8)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0], np.float64)


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return float(np.linalg.norm(_lab(a) - _lab(b)))


def random_style(rng: Rng, *, hard: bool) -> tuple[str, Style]:
    """Draw how the table looks; return (table name, style)."""
    name = rng.choice(sorted(TABLES))
    table = TABLES[name]
    skins = tuple(s for s in SKIN_BGR if _contrast(s, table) >= MIN_SKIN_CONTRAST)
    sleeves = tuple(s for s in SLEEVES if _contrast(s, table) >= MIN_SKIN_CONTRAST)
    if not hard:
        return name, Style(table_bgr=table, skin=skins, sleeves=sleeves)
    if rng.random() < 0.5:
        sleeves = tuple(FIGURE_BGR[f] for f in rng.sample(list(Figure), 3)
                        if _contrast(FIGURE_BGR[f], table) >= MIN_SKIN_CONTRAST) + sleeves[:1]
    return name, Style(
        table_bgr=table, skin=skins, sleeves=sleeves,
        tilt=rng.random() * 0.2, rotate_deg=(rng.random() - 0.5) * 16,
        noise=1.0 + rng.random() * 5, jpeg_quality=rng.choice([0, 0, 55, 70, 85]),
        motion_blur=rng.random() < 0.4,
        light_drift=(rng.random() - 0.5) * 0.5,
        light_step=rng.choice([0.0, 0.0, 0.2, -0.2]),
        cover_marker=rng.choice([None, None, None, 0, 1, 2, 3]),
        cover_from_s=rng.choice([0.0, 1.0]))


def _reach(rng: Rng, seat: str, figure: Figure, start: float, *, lifts: bool,
           short_mm: float = 0.0) -> Reach:
    approach = 0.22 + rng.random() * 0.2
    hold = 0.05 + rng.random() * 0.12
    back = 0.22 + rng.random() * 0.18
    touch = start + approach
    return Reach(seat, figure, round(start, 4), round(touch, 4), round(touch + hold, 4),
                 round(touch + hold + back, 4), lifts=lifts, short_mm=short_mm)


def random_scene(cam: CameraConfig, seed: int | str, *, kind: str = "mixed", hard: bool = False,
                 fps: float | None = None, players: int | None = None) -> Scene:
    """Draw one round on the table `cam`.

    Args:
        cam: the table layout (its seats are the players; `players` keeps the first n).
        seed: which round.
        kind: "grab", "contest", "feint" or "mixed".
        hard: draw the difficult looks too.
        fps: 30 or 60 (default: drawn).
        players: how many seats take part (default: all).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    rng = Rng(f"scene:{seed}:{kind}:{hard}")
    seats = list(cam.seat_names())[:players] if players else list(cam.seat_names())
    _table_name, style = random_style(rng.fork("style"), hard=hard)
    fps = fps or rng.choice([30.0, 60.0])
    figures = list(Figure)
    rng.shuffle(figures)
    rng.shuffle(seats)
    t0 = 0.5 + rng.random() * 0.3
    reaches: list[Reach] = []
    if kind in ("grab", "mixed"):
        reaches.append(_reach(rng, seats.pop(), figures.pop(), t0, lifts=True))
    if kind in ("contest", "mixed") and len(seats) >= 2:
        fig = figures.pop()
        a = _reach(rng, seats.pop(), fig, t0 + rng.random() * 0.1, lifts=False)
        b_touch = a.touch_s + 0.02 + rng.random() * 0.15
        b_start = b_touch - (0.22 + rng.random() * 0.2)
        b = _reach(rng, seats.pop(), fig, b_start, lifts=False)
        b = dataclasses.replace(b, touch_s=round(b_touch, 4))
        lift = max(a.touch_s, b.touch_s) + 0.04 + rng.random() * 0.1
        winner, loser = (a, b) if rng.random() < 0.6 else (b, a)
        back = 0.22 + rng.random() * 0.18
        reaches.append(dataclasses.replace(winner, release_s=round(lift, 4),
                                           end_s=round(lift + back, 4), lifts=True))
        reaches.append(dataclasses.replace(loser, release_s=round(lift + 0.08, 4),
                                           end_s=round(lift + 0.08 + back, 4)))
    if kind in ("feint", "mixed") and seats:
        short = rng.choice([0.0, 10.0, 25.0])
        reaches.append(_reach(rng, seats.pop(), figures.pop(), t0 + rng.random() * 0.2,
                              lifts=False, short_mm=short))
    if kind == "mixed" and seats and rng.random() < 0.5:
        reaches.append(_reach(rng, seats.pop(), figures.pop(), t0 + 0.1 + rng.random() * 0.3,
                              lifts=True))
    end = max(r.end_s for r in reaches) + 0.4
    scene = Scene(cam, tuple(reaches), duration_s=math.ceil(end * 10) / 10, fps=fps,
                  style=style, seed=rng.next_u64() % (1 << 31))
    return scene

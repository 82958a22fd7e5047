"""Rounds in the camera world: tables, looks, players and what they do, by kind.

`world_round(seed, kind)` draws one round with the project's `Rng`. Kinds:

- "grab": one player takes a figure; the others' hands rest.
- "race": two players go for one figure, the second hand arriving 15-150 ms
  after the first; the first takes it, the second withdraws.
- "feint": a hand goes for a figure and withdraws (touching it or stopping
  short); half the time another player takes another figure meanwhile.
- "sleeves": a grab by players in sleeves of the figures' colours.
- "light": a grab while a lamp is switched and the white balance drifts.
- "marker": a grab with a cup on one of the markers.
- "six": six players: several grabs, a race and a feint at once.
- "double": two players take two different figures at the same moment.

Seeds: `tuning_seeds(n)` and `heldout_seeds(n)` never overlap (different
labels), so a figure measured on held-out rounds says nothing about rounds
anything was tuned on.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import cv2
import numpy as np

from controller.config import parse_config
from controller.knapp.cards import Figure
from controller.rng import Rng
from controller.sim import people
from controller.sim.people import BGR, Body, draw_body, uniform
from controller.sim.world import (
    Carry,
    HandPlan,
    Lens,
    Move,
    Player,
    Ramp,
    TruthEvent,
    Vec3,
    World,
    rotation,
)
from controller.sim.world_render import Look
from controller.vision.config import CameraConfig, Point, perimeter_at, perimeter_point

KINDS = ("grab", "race", "feint", "sleeves", "light", "marker", "six", "double")
SEATS = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Fay")

# Paint, BGR: HABA's figures are painted in strong colours (a batch varies a little).
PAINT: dict[Figure, BGR] = {
    Figure.SHIP: (185, 95, 25), Figure.VIKING: (40, 35, 200), Figure.CHILD: (55, 160, 50),
    Figure.CHEST: (35, 195, 235), Figure.DOG: (232, 234, 232),
}
WOODS = (((120, 165, 205), (85, 125, 170)), ((55, 85, 120), (35, 55, 85)),
         ((140, 180, 215), (110, 150, 190)), ((35, 50, 75), (25, 35, 55)))
FELTS = ((70, 120, 60), (140, 95, 45), (50, 50, 150), (118, 118, 118), (42, 42, 42),
         (150, 180, 200))
CLOTHS = (((225, 228, 232), (170, 175, 200)), ((200, 215, 225), (60, 60, 170)),
          ((90, 60, 40), (120, 90, 70)))
PADS = ((110, 110, 110), (35, 35, 35), (110, 60, 30), (150, 185, 210), (125, 55, 120),
        (70, 70, 70))
SLEEVES = ((90, 60, 40), (40, 40, 40), (130, 130, 140), (220, 220, 225), (140, 100, 60),
           (60, 60, 140), (50, 110, 70), (170, 190, 210), (120, 80, 120))
TABLES = ((900.0, 600.0), (1000.0, 700.0), (1200.0, 800.0), (800.0, 800.0), (660.0, 360.0))


@dataclass(frozen=True)
class Action:
    """What a player's reaching hand does this round."""

    seat: str
    figure: Figure
    kind: str           # "take", "feint", "late" (a race's second hand)
    start_s: float
    short_mm: float = 0.0


def tuning_seeds(n: int, start: int = 0) -> list[str]:
    """Seeds the pipeline may be tuned on."""
    return [f"tune:{i}" for i in range(start, start + n)]


def heldout_seeds(n: int, start: int = 0) -> list[str]:
    """Seeds nothing was tuned on: report these."""
    return [f"heldout:{i}" for i in range(start, start + n)]


def kind_of(index: int) -> str:
    """The kind of the round at `index` of a set (every kind in turn)."""
    return KINDS[index % len(KINDS)]


# -- the table ----------------------------------------------------------------------------------


def _seat_spots(rng: Rng, table: Point, n: int) -> list[Point]:
    """Where `n` players sit: on the edge, at least 420 mm apart, 150 mm from corners."""
    w, h = table
    length = 2 * (w + h)
    for _ in range(200):
        start = rng.random() * length
        gaps = [1.0 + 0.35 * rng.random() for _ in range(n)]
        total = sum(gaps)
        spots = [(start + length * sum(gaps[:i]) / total) % length for i in range(n)]
        ok = all(min((a - b) % length, (b - a) % length) >= 420 for i, a in enumerate(spots)
                 for b in spots[i + 1:])
        corners = [0.0, w, w + h, 2 * w + h]
        ok = ok and all(min(abs((s - c + length / 2) % length - length / 2) for c in corners)
                        >= 150 for s in spots)
        if ok:
            return [perimeter_point(table, s)[0] for s in spots]
    raise ValueError(f"{n} players do not fit round a {w:g} x {h:g} mm table")


def _pads(rng: Rng, table: Point, radius: float) -> dict[Figure, Point]:
    """A pentagon, a row (the pad tray, 75-90 mm pitch) or a loose ring of pads."""
    w, h = table
    figures = list(Figure)
    rng.shuffle(figures)
    style = rng.choice(["pentagon", "row", "row", "scatter"]) if w > 700 else "row"
    cx, cy = w / 2 + (rng.random() - 0.5) * 80, h / 2 + (rng.random() - 0.5) * 60
    if style == "row":
        pitch = max(2 * radius + 6, 75.0 + rng.random() * 15)
        return {f: (cx + (i - 2) * pitch, cy) for i, f in enumerate(figures)}
    ring = max(2 * radius + 10, 95.0) / (2 * math.sin(math.pi / 5)) + rng.random() * 25
    turn = rng.random() * 2 * math.pi
    out: dict[Figure, Point] = {}
    for i, f in enumerate(figures):
        a = turn + 2 * math.pi * i / 5 + (rng.random() - 0.5) * (0.25 if style == "scatter" else 0)
        rr = ring * (1 + (rng.random() - 0.5) * (0.3 if style == "scatter" else 0))
        out[f] = (round(cx + rr * math.cos(a), 1), round(cy + rr * math.sin(a), 1))
    return out


def _table_file(rng: Rng, seats: tuple[str, ...], table: Point
                ) -> tuple[CameraConfig, dict[str, object]]:
    """The `[camera]` section an installer would write for this table, parsed by the product."""
    radius = round(30.0 + rng.random() * 6, 1)
    pads = _pads(rng, table, radius)
    spots = _seat_spots(rng, table, len(seats))
    size = round(max(40.0, table[0] / 17) + rng.random() * 12)   # big enough for the camera
    inset = size * 0.5 + 6 + rng.random() * 10
    w, h = table
    centres = [[inset, inset], [w - inset, inset], [w - inset, h - inset], [inset, h - inset]]
    ids = [0, 1, 2, 3]
    rng.shuffle(ids)   # any id in any corner
    order = [centres[ids.index(i)] for i in range(4)]
    seat_table: dict[str, object] = {}
    length = 2 * (w + h)
    pos = [perimeter_at(table, p) for p in spots]
    for i, (name, spot) in enumerate(zip(seats, spots, strict=True)):
        if rng.random() < 0.5 or len(seats) == 1:
            seat_table[name] = [round(spot[0], 1), round(spot[1], 1)]
            continue
        # Where this player's arms come in: the edge towards the neighbours, less 10 mm.
        others = sorted((p - pos[i]) % length for j, p in enumerate(pos) if j != i)
        ahead, behind = others[0] / 2 - 10, (length - others[-1]) / 2 - 10
        a = perimeter_point(table, pos[i] - behind)[0]
        b = perimeter_point(table, pos[i] + ahead)[0]
        seat_table[name] = {"at": [round(spot[0], 1), round(spot[1], 1)],
                            "edge": [[round(a[0], 1), round(a[1], 1)],
                                     [round(b[0], 1), round(b[1], 1)]]}
    camera: dict[str, object] = {"table_mm": [w, h],
                                 "markers": {"size_mm": size, "centres_mm": order},
              "pads": {"radius_mm": radius, **{f.value: list(p) for f, p in pads.items()}},
              "seats": seat_table}
    return parse_config({"table": {"seats": list(seats)}, "camera": camera}).camera, camera


# -- the camera and the look ----------------------------------------------------------------------


def _delta_e(a: BGR, b: BGR) -> float:
    """CIE76 colour difference of two BGR colours."""
    lab = cv2.cvtColor(np.array([[a, b]], np.uint8), cv2.COLOR_BGR2LAB).astype(float)[0]
    return float(np.linalg.norm((lab[0] - lab[1]) * np.array([100 / 255, 1, 1])))


def _lens(rng: Rng, table: Point, size: tuple[int, int]) -> Lens:
    """A camera above the table's middle, turned and tilted a little, its zoom set so the
    table fills the picture as an installer would aim it."""
    w, h = table
    height = 750.0 + rng.random() * 550.0
    centre = (w / 2 + (rng.random() - 0.5) * 100, h / 2 + (rng.random() - 0.5) * 80, height)
    yaw = (rng.random() - 0.5) * 16 + (180.0 if rng.random() < 0.2 else 0.0)
    rot = rotation(yaw, (rng.random() - 0.5) * 8, (rng.random() - 0.5) * 8)
    k1 = -0.06 * rng.random()
    principal = (size[0] / 2 + (rng.random() - 0.5) * 0.03 * size[0],
                 size[1] / 2 + (rng.random() - 0.5) * 0.03 * size[1])
    m = 20.0
    corners = [(-m, -m, 0), (w + m, -m, 0), (w + m, h + m, 0), (-m, h + m, 0)]
    unit = Lens(centre, rot, 1.0, (0.0, 0.0), k1, size).project(corners)
    f = min(min(principal[0], size[0] - principal[0]) * 0.97 / float(np.max(np.abs(unit[:, 0]))),
            min(principal[1], size[1] - principal[1]) * 0.97 / float(np.max(np.abs(unit[:, 1]))))
    return Lens(centre, rot, f, principal, k1, size)


def _surface(rng: Rng) -> tuple[str, BGR, BGR]:
    """A table top no figure's colour (the installing guide asks for that, as for the pads)."""
    material = rng.choice(["wood", "wood", "felt", "felt", "cloth"])
    if material == "wood":
        choices = list(WOODS)
    elif material == "felt":
        choices = [(f, tuple(max(0, min(255, c + 8)) for c in f)) for f in FELTS]  # type: ignore[misc]
    else:
        choices = list(CLOTHS)
    ok = [(a, b) for a, b in choices
          if all(min(_delta_e(a, p), _delta_e(b, p)) >= 35 for p in PAINT.values())]
    a, b = rng.choice(ok)
    return material, a, b


def _look(rng: Rng, kind: str, table: Point, fps: float, events: tuple[float, float]) -> Look:
    material, a, b = _surface(rng)
    # Pads an installer can see: not the table's colour (or, pads covered by the mat's
    # own felt, a ring round each in another colour, as hardware/camera-mount.md asks).
    # and in a colour none of the figures has (docs/camera.md, "Installing").
    def unlike_figures(c: BGR) -> bool:
        return all(_delta_e(c, p) >= 30 for p in PAINT.values())

    pads = [p for p in PADS if _delta_e(p, a) >= 20 and _delta_e(p, b) >= 20
            and unlike_figures(p)]
    pad = rng.choice(pads)
    ring = None
    rings = [c for c in ((125, 55, 120), (30, 30, 30), (160, 160, 160))
             if _delta_e(c, a) >= 30 and unlike_figures(c)]
    if rng.random() < 0.25 and rings and unlike_figures(a):
        pad, ring = a, rng.choice(rings)
    w, h = table
    c = (rng.random() - 0.5) * 0.24
    lamp = (w / 2 + (rng.random() - 0.5) * 600, h / 2 + (rng.random() - 0.5) * 400,
            1200.0 + rng.random() * 1200)
    steps: tuple[tuple[float, float], ...] = ()
    awb = (0.0, 0.0, 0.0)
    drift = (rng.random() - 0.5) * 0.1
    if kind in ("light", "six") and (kind == "light" or rng.random() < 0.3):
        at = events[0] + (events[1] - events[0] + 0.4) * rng.random() - 0.2
        factor = rng.choice([0.65, 0.75, 0.85, 1.2, 1.3, 1.4])
        steps = ((round(at, 3), factor),)
        awb = tuple((rng.random() - 0.5) * 0.16 for _ in range(3))  # type: ignore[assignment]
        drift = (rng.random() - 0.5) * 0.3
    cover = None
    if kind == "marker":
        when = 0.0 if rng.random() < 0.5 else round(events[0] * rng.random(), 2)
        cover = (rng.randint(0, 3), when)
    exposure = min(1.0 / fps, 0.002 + rng.random() * 0.014)
    return Look(table=material, table_bgr=a, table_bgr2=b, pad_bgr=pad, pad_ring_bgr=ring,
                floor_bgr=rng.choice([(40, 45, 50), (70, 80, 95), (30, 30, 30)]), lamp=lamp,
                ambient=0.35 + rng.random() * 0.3, tint=(1 + c, 1.0, 1 - c), light=steps,
                drift=drift, awb=awb, exposure_s=exposure, read_noise=1.0 + rng.random() * 3,
                shot_noise=0.02 + rng.random() * 0.13,
                jpeg=rng.choice([0, 0, 60, 75, 85, 95]), cover=cover)


# -- hands -----------------------------------------------------------------------------------------


def _heading(a: Point, b: Point) -> float:
    return math.atan2(b[1] - a[1], b[0] - a[0])


def _rest(cam: CameraConfig, player_at: Point, inward: Point, body: Body, *, hand: int,
          rng: Rng) -> Vec3 | None:
    """Where a hand rests: on the table near its owner's edge, or in the lap (None).

    Not on a printed marker: the table is calibrated with the hands in view, and an
    installer asks for the markers to be left clear.
    """
    if rng.random() < 0.45:
        return None
    side = 1.0 if (hand == 0) != body.left_handed else -1.0
    right = (-inward[1], inward[0])
    # The wrist at the table's edge, the fingers on it; on a small mat in the middle of
    # a bigger table the players' edge lies beyond the mat's.
    depth = -20.0 + rng.random() * 80 - _mat_margin(cam)
    lateral = side * body.shoulder_half * (0.4 + 0.4 * rng.random())
    wrist = (player_at[0] + inward[0] * depth + right[0] * lateral,
             player_at[1] + inward[1] * depth + right[1] * lateral)
    hand_mid = (wrist[0] + inward[0] * body.hand_length * 0.5,
                wrist[1] + inward[1] * body.hand_length * 0.5)
    for quad in cam.marker_corners:
        centre = (sum(p[0] for p in quad) / 4, sum(p[1] for p in quad) / 4)
        if min(math.dist(centre, wrist), math.dist(centre, hand_mid)) < 130:
            return None
    return (wrist[0], wrist[1], 22.0)


def _mat_margin(cam: CameraConfig) -> float:
    """How far beyond a small mat's edge its players sit (a mat in a table's middle)."""
    return 200.0 if cam.table_mm[1] < 500 else 0.0


def _lap(player_at: Point, inward: Point, body: Body, hand: int) -> Vec3:
    side = 1.0 if (hand == 0) != body.left_handed else -1.0
    right = (-inward[1], inward[0])
    return (player_at[0] - inward[0] * 140 + right[0] * side * body.shoulder_half * 0.7,
            player_at[1] - inward[1] * 140 + right[1] * side * body.shoulder_half * 0.7, -90.0)


def _still(at: Vec3, heading: float, opening: float, rng: Rng) -> HandPlan:
    return HandPlan((Move(-1.0, -1.0, at, at),), (Ramp(-1.0, -1.0, opening, opening),),
                    (Ramp(-1.0, -1.0, heading, heading),), fidget_mm=2.0 + 4 * rng.random(),
                    fidget_phase=rng.random() * 6.28)


@dataclass
class _Reach:
    plan: HandPlan
    touch_s: float | None
    lift_s: float | None
    carry: Carry | None


def _reach(world_cam: CameraConfig, homes: dict[Figure, tuple[float, float, float]],
           player: Player, action: Action, *, rest: Vec3, rng: Rng,
           lift_at: float | None = None) -> _Reach:
    """A reach from `rest` for `action.figure`, and what follows: a lift and carry, or back.

    The hand travels on one minimum-jerk path, opening to its widest 60-70 % of the
    way, then closes on the figure; a load phase later the figure leaves its pad and
    rises while the hand pulls it back towards the player.
    """
    body = player.body
    fx, fy, _ = homes[action.figure]
    length, width, height = world_cam.figure_size(action.figure)
    shoulder = player.shoulder(0)
    u = _heading((shoulder[0], shoulder[1]), (fx, fy))
    grip = 0.62 * body.hand_length + action.short_mm
    grasp = (fx - math.cos(u) * grip, fy - math.sin(u) * grip, height + 5.0)
    dist = math.dist(rest, grasp)
    reach_t = people.reach_duration(dist, rng)
    t0 = action.start_s
    arrive = t0 + reach_t
    close = uniform(rng, people.CLOSE_S)
    contact = arrive + close
    grip_w = min(length, width) if action.kind != "feint" or action.short_mm == 0 else width + 30
    widest = grip_w + uniform(rng, people.APERTURE_EXTRA_MM)
    peak = t0 + reach_t * uniform(rng, people.APERTURE_PEAK_AT)
    rest_open = body.hand_breadth * 0.55
    opening = [Ramp(t0, peak, rest_open, widest), Ramp(peak, arrive, widest, grip_w + 12),
               Ramp(arrive, contact, grip_w + 12, grip_w)]
    rest_heading = _heading(player.at, (player.at[0] + player.inward[0],
                                        player.at[1] + player.inward[1]))
    heading = [Ramp(t0, t0 + reach_t * 0.6, rest_heading, u)]
    moves = [Move(t0, arrive, rest, grasp, arc_mm=40 + 40 * rng.random())]
    touched = action.short_mm == 0
    if action.kind == "take":
        lift = lift_at if lift_at is not None else contact + uniform(rng, people.LOAD_S)
        carry_t = uniform(rng, people.CARRY_S)
        up = uniform(rng, people.LIFT_HEIGHT_MM)
        back = 60.0 - 140.0 * rng.random()
        end = (player.at[0] + player.inward[0] * back, player.at[1] + player.inward[1] * back,
               grasp[2] + up)
        moves.append(Move(lift, lift + carry_t, grasp, end, lag_s=0.02 * rng.random(),
                          rise_s=carry_t * (0.4 + 0.3 * rng.random())))
        offset = (fx - grasp[0], fy - grasp[1], -grasp[2])
        plan = HandPlan(tuple(moves), tuple(opening), tuple(heading), fidget_mm=0.0)
        return _Reach(plan, contact, lift, Carry(action.figure, player.seat, lift, offset))
    # A feint or a second hand: hold a moment, open and go back.
    hold = 0.08 + 0.2 * rng.random()
    back_t = people.reach_duration(dist, rng) * 1.2
    opening.append(Ramp(contact + hold, contact + hold + 0.1, grip_w, rest_open))
    moves.append(Move(contact + hold, contact + hold + back_t, grasp, rest, arc_mm=30))
    plan = HandPlan(tuple(moves), tuple(opening), tuple(heading), fidget_mm=0.0)
    return _Reach(plan, contact if touched else None, None, None)


# -- rounds ----------------------------------------------------------------------------------------


def _actions(kind: str, rng: Rng, seats: list[str], reveal: float) -> list[Action]:
    """Who reaches for what, and when, for a kind of round."""
    figures = list(Figure)
    rng.shuffle(figures)
    order = list(seats)
    rng.shuffle(order)

    def start() -> float:
        return reveal + people.reaction_s(rng)

    acts: list[Action] = []
    if kind in ("grab", "sleeves", "light", "marker"):
        acts.append(Action(order[0], figures[0], "take", start()))
    elif kind == "race":
        acts.append(Action(order[0], figures[0], "take", start()))
        acts.append(Action(order[1], figures[0], "late", 0.0))
    elif kind == "feint":
        acts.append(Action(order[0], figures[0], "feint", start(),
                           short_mm=rng.choice([0.0, 0.0, 10.0, 25.0, 40.0])))
        if len(order) > 1 and rng.random() < 0.5:
            acts.append(Action(order[1], figures[1], "take", start() + 0.1))
    elif kind == "double":
        t = start()
        acts.append(Action(order[0], figures[0], "take", t))
        acts.append(Action(order[1], figures[1], "take", t + (rng.random() - 0.5) * 0.1))
    else:   # six
        t = start()
        acts.append(Action(order[0], figures[0], "take", t))
        acts.append(Action(order[1], figures[1], "take", t + rng.random() * 0.3))
        acts.append(Action(order[2], figures[2], "take", t + rng.random() * 0.3))
        acts.append(Action(order[3], figures[2], "late", 0.0))
        acts.append(Action(order[4], figures[3], "feint", t + rng.random() * 0.3,
                           short_mm=rng.choice([0.0, 15.0])))
    return acts


def _sleeve(kind: str, rng: Rng) -> tuple[BGR, float]:
    if kind in ("sleeves", "six") and rng.random() < (0.8 if kind == "sleeves" else 0.3):
        colour = PAINT[rng.choice(list(Figure))]
        return (tuple(max(0, min(255, c + rng.randint(-15, 15))) for c in colour),  # type: ignore[return-value]
                rng.choice([1.0, 0.8, 0.6]))
    return rng.choice(SLEEVES), rng.choice([1.0, 1.0, 0.8, 0.6, 0.35, 0.0])


def world_round(seed: str | int, kind: str = "grab", *, fps: float | None = None,
                size: tuple[int, int] | None = None) -> World:
    """Draw one round of `kind` from `seed`."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    rng = Rng(f"world:{seed}:{kind}")
    n = 6 if kind == "six" else 2 + rng.randint(0, 3) if kind not in ("race", "double") \
        else 2 + rng.randint(0, 2)
    table = (1200.0, 800.0) if n >= 5 else rng.choice(TABLES[:4] if n > 3 else TABLES)
    seats = SEATS[:n]
    cam, section = _table_file(rng.fork("table"), seats, table)
    fps = fps or rng.choice([30.0, 30.0, 30.0, 60.0, 60.0, 120.0])
    size = size or ((768, 432) if table[0] / table[1] > 1.6 else (640, 480))
    reveal = 0.9 + 0.3 * rng.random()
    homes = {f: (p[0] + (rng.random() - 0.5) * 16, p[1] + (rng.random() - 0.5) * 16,
                 rng.random() * 2 * math.pi) for f, p in cam.pads}
    paints = {f: tuple(max(0, min(255, c + rng.randint(-8, 8))) for c in bgr)
              for f, bgr in PAINT.items()}
    actions = _actions(kind, rng.fork("actions"), list(seats), reveal)
    players, carries, truth = _people(cam, homes, actions, kind, rng.fork("people"))
    last = max([e.lift_s or e.touch_s or reveal for e in truth] + [reveal + 0.8])
    duration = math.ceil((last + 0.9) * 10) / 10
    events = (reveal, last)
    look = _look(rng.fork("look"), kind, table, fps, events)
    lens = _lens(rng.fork("lens"), table, size)
    return World(camera=cam, lens=lens, homes=tuple(homes.items()),
                 paints=tuple(paints.items()),  # type: ignore[arg-type]
                 players=players, carries=carries, truth=truth, fps=fps, duration_s=duration,
                 look=look, kind=kind, seed=rng.next_u64() % (1 << 31),
                 extra={"camera": section, "seats": list(seats)})


def _people(cam: CameraConfig, homes: dict[Figure, tuple[float, float, float]],
            actions: list[Action], kind: str, rng: Rng
            ) -> tuple[tuple[Player, ...], tuple[Carry, ...], tuple[TruthEvent, ...]]:
    """The players, their hands' plans, the figures they carry and the truth."""
    players: list[Player] = []
    carries: list[Carry] = []
    truth: list[TruthEvent] = []
    by_seat = {a.seat: a for a in actions}
    taken: dict[Figure, _Reach] = {}
    # Second hands are timed from the first, so the first hands go first.
    ordered = sorted(cam.seats, key=lambda s: by_seat[s[0]].kind == "late" if s[0] in by_seat
                     else False)
    for name, at in ordered:
        r = rng.fork(name)
        body = draw_body(r)
        if _mat_margin(cam):
            body = dataclasses.replace(body, shoulder_back=body.shoulder_back + _mat_margin(cam))
        inward = _inward(cam.table_mm, at)
        sleeve, sleeve_to = _sleeve(kind, r)
        rest0 = _rest(cam, at, inward, body, hand=0, rng=r)
        rest1 = _rest(cam, at, inward, body, hand=1, rng=r)
        base = Player(name, at, inward, body, sleeve, sleeve_to, (None, None))
        act = by_seat.get(name)
        heading = math.atan2(inward[1], inward[0])
        other = _still(rest1, heading, body.hand_breadth * 0.5, r) if rest1 else None
        if act is None:
            first = _still(rest0, heading, body.hand_breadth * 0.5, r) if rest0 else None
            players.append(Player(name, at, inward, body, sleeve, sleeve_to, (first, other)))
            continue
        start = rest0 or _lap(at, inward, body, 0)
        if act.kind == "late":
            act = _late(act, taken[act.figure], cam, homes, base, rest=start, rng=r)
        reach = _reach(cam, homes, base, act, rest=start, rng=r.fork("reach"))
        players.append(Player(name, at, inward, body, sleeve, sleeve_to, (reach.plan, other)))
        if reach.carry is not None:
            carries.append(reach.carry)
            taken[act.figure] = reach
        if act.kind == "feint":
            truth.append(TruthEvent("feint", name, act.figure, reach.touch_s, None))
        elif act.kind == "late":
            winner = next(c.seat for c in carries if c.figure is act.figure)
            lift = taken[act.figure].lift_s
            assert lift is not None
            truth = [TruthEvent(e.kind, e.seat, e.figure, e.touch_s, e.lift_s,
                                (*e.others, (name, reach.touch_s)))
                     if e.seat == winner and e.figure is act.figure
                     and reach.touch_s is not None and reach.touch_s < lift else e
                     for e in truth]
        else:
            truth.append(TruthEvent("grab", name, act.figure, reach.touch_s, reach.lift_s))
    order = {s: i for i, (s, _) in enumerate(cam.seats)}
    players.sort(key=lambda p: order[p.seat])
    truth.sort(key=lambda e: e.lift_s if e.lift_s is not None else e.touch_s or 0.0)
    return tuple(players), tuple(carries), tuple(truth)


def _late(act: Action, first: _Reach, cam: CameraConfig,
          homes: dict[Figure, tuple[float, float, float]], player: Player, *, rest: Vec3,
          rng: Rng) -> Action:
    """A race's second hand: it closes on the figure 15-150 ms after the first one did."""
    assert first.touch_s is not None
    target = first.touch_s + 0.015 + 0.135 * rng.random()
    # Time the reach so its contact lands on `target`: the same stream draws the same reach.
    probe = _reach(cam, homes, player, Action(act.seat, act.figure, "late", 0.0), rest=rest,
                   rng=rng.fork("reach"))
    assert probe.touch_s is not None
    return Action(act.seat, act.figure, "late", target - probe.touch_s)


def _inward(table: Point, at: Point) -> Point:
    w, h = table
    d = {(0.0, 1.0): at[1], (-1.0, 0.0): w - at[0], (0.0, -1.0): h - at[1], (1.0, 0.0): at[0]}
    return min(d, key=lambda k: d[k])

"""The `[camera]` section of the table configuration file.

Table coordinates are millimetres on the table top: origin at one corner, `x`
along the long edge, `y` across it (pointing away from the camera's top row
when the camera is mounted the usual way round). Everything the camera knows
about the table is given in these coordinates and mapped to pixels by the
calibration's homography.

Example::

    [camera]
    source = "0"                     # webcam index, a video file, "picamera2" or "sim"
    calibration = "calibration.json" # relative to this file; omit to calibrate on start
    width = 640
    height = 480
    fps = 30
    table_mm = [900, 600]

    [camera.markers]                 # ArUco DICT_4X4_50, ids 0 to 3
    size_mm = 50
    centres_mm = [[40, 40], [860, 40], [860, 560], [40, 560]]   # index = marker id

    [camera.pads]                    # where each figure stands, mm
    radius_mm = 32                   # every pad's radius (the disc the figure stands on)
    ship = [290, 300]
    viking = { at = [370, 300], radius_mm = 28 }   # a pad of its own size

    [camera.figures]                 # [length, width, height] mm; defaults: the real figures
    dog = [42, 15, 36]

    [camera.seats]                   # where each seat meets the table edge, mm
    Ada = [450, 600]
    Ben = { at = [0, 300], edge = [[0, 80], [0, 520]] }      # where Ben's arms come in
    Cleo = { at = [450, 0], zone = [[150, 0], [750, 0], [750, -400], [150, -400]] }

A seat's **zone** is where that player's arms come from: a polygon in table
millimetres that reaches beyond the edge (where the player sits). `edge`
gives a stretch of the table edge and the zone is everything behind it; a
seat given as a point alone owns the edge halfway to its neighbours.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.knapp.cards import Figure
from controller.settings import Section

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]
Polygon = tuple[Point, ...]

MARKER_IDS = (0, 1, 2, 3)
DEFAULT_TABLE_MM: Point = (900.0, 600.0)
DEFAULT_MARKER_MM = 50.0
DEFAULT_PAD_RADIUS_MM = 32.0
# The figures' size seen from above and their height, mm: [length, width, height].
# HABA does not publish them; these are the sizes assumed in docs/camera.md ("The
# figures"): each fits a 64 mm pad and the tray's 75 mm pitch.
FIGURE_SIZE_MM: dict[Figure, tuple[float, float, float]] = {
    Figure.SHIP: (58.0, 24.0, 50.0),
    Figure.VIKING: (30.0, 28.0, 54.0),
    Figure.CHILD: (24.0, 22.0, 40.0),
    Figure.CHEST: (34.0, 24.0, 29.0),
    Figure.DOG: (44.0, 16.0, 36.0),
}
# A seat must sit on the table's edge: at most this far from it.
SEAT_EDGE_TOLERANCE_MM = 60.0
# How far behind the edge a seat zone reaches (a seated player's shoulders are 150-300 mm).
ZONE_DEPTH_MM = 900.0
ZONE_INSET_MM = 40.0     # and how far onto the table (arms cross the edge at an angle)


@dataclass(frozen=True)
class CameraConfig:
    """The camera's view of the table, in table millimetres.

    Args:
        source: "sim", "picamera2", a webcam index ("0") or a video file path.
        calibration: the calibration file, or None to calibrate from the first frames.
        width, height, fps: the requested capture mode.
        table_mm: the table top's width and depth.
        marker_corners: marker id -> its four corners (TL, TR, BR, BL as printed).
        pads: figure -> pad centre.
        seats: seat name -> where it meets the table edge, in `[table] seats` order.
        ring_seconds: how much recent video the evidence ring buffer keeps.
        pad_radii: figure -> its pad's radius (empty: `DEFAULT_PAD_RADIUS_MM`).
        figure_sizes: figure -> (length, width, height) mm (empty: `FIGURE_SIZE_MM`).
        seat_zones: seat -> the polygon its arms come from (empty: from the seat points).
    """

    source: str = "sim"
    calibration: Path | None = None
    width: int = 640
    height: int = 480
    fps: float = 30.0
    table_mm: Point = DEFAULT_TABLE_MM
    marker_corners: tuple[Quad, ...] = ()
    pads: tuple[tuple[Figure, Point], ...] = ()
    seats: tuple[tuple[str, Point], ...] = ()
    ring_seconds: float = 4.0
    pad_radii: tuple[tuple[Figure, float], ...] = ()
    figure_sizes: tuple[tuple[Figure, tuple[float, float, float]], ...] = ()
    seat_zones: tuple[tuple[str, Polygon], ...] = ()

    def pad(self, figure: Figure) -> Point:
        """Return the pad centre of `figure`."""
        return self._pad_at[figure]

    def pad_radius(self, figure: Figure) -> float:
        """Return the radius of `figure`'s pad."""
        return self._pad_radius.get(figure, DEFAULT_PAD_RADIUS_MM)

    # Looked up for every pad in every frame: built once (the config is frozen).
    @functools.cached_property
    def _pad_at(self) -> dict[Figure, Point]:
        return dict(self.pads)

    @functools.cached_property
    def _pad_radius(self) -> dict[Figure, float]:
        return dict(self.pad_radii)

    def figure_size(self, figure: Figure) -> tuple[float, float, float]:
        """Return `figure`'s (length, width, height) in mm."""
        return dict(self.figure_sizes).get(figure, FIGURE_SIZE_MM[figure])

    @functools.cached_property
    def figure_radius_mm(self) -> float:
        """A typical figure's radius seen from above (the mean half-diagonal)."""
        sizes = [self.figure_size(f) for f in Figure]
        return sum(math.hypot(a, b) / 2 for a, b, _ in sizes) / len(sizes)

    def seat_names(self) -> tuple[str, ...]:
        """Return the seats in configuration order."""
        return tuple(name for name, _ in self.seats)

    def zones(self) -> dict[str, Polygon]:
        """Each seat's zone: the given polygon, else the edge halfway to its neighbours."""
        given = dict(self.seat_zones)
        derived = point_zones(self.table_mm, self.seats) if len(given) < len(self.seats) else {}
        return {name: given.get(name) or derived[name] for name, _ in self.seats}


def default_layout(seats: tuple[str, ...], table_mm: Point = DEFAULT_TABLE_MM) -> CameraConfig:
    """Return the default table: markers in the corners, pads in a row, seats around."""
    w, h = table_mm
    inset = DEFAULT_MARKER_MM * 0.8
    centres = [(inset, inset), (w - inset, inset), (w - inset, h - inset), (inset, h - inset)]
    # A pentagon in the middle, as the figures stand in the game.
    pads = tuple((fig, (round(w / 2 + 95.0 * math.sin(2 * math.pi * i / 5), 1),
                        round(h / 2 - 95.0 * math.cos(2 * math.pi * i / 5), 1)))
                 for i, fig in enumerate(Figure))
    return CameraConfig(table_mm=table_mm,
                        marker_corners=tuple(_square(c, DEFAULT_MARKER_MM) for c in centres),
                        pads=pads, seats=tuple(zip(seats, default_seat_positions(len(seats),
                                                                                 table_mm),
                                                   strict=True)))


def default_seat_positions(n: int, table_mm: Point = DEFAULT_TABLE_MM) -> list[Point]:
    """Spread `n` seats around the table edge, the first at the near long side."""
    w, h = table_mm
    cx, cy = w / 2, h / 2
    out: list[Point] = []
    for i in range(n):
        ang = math.pi / 2 + 2 * math.pi * i / n
        dx, dy = math.cos(ang), math.sin(ang)
        # Walk from the centre along the ray until it meets the rectangle.
        t = min(cx / abs(dx) if abs(dx) > 1e-9 else math.inf,
                cy / abs(dy) if abs(dy) > 1e-9 else math.inf)
        out.append((round(cx + dx * t, 1), round(cy + dy * t, 1)))
    return out


# -- the table's edge as one line: positions along it ------------------------------------


def perimeter_at(table_mm: Point, p: Point) -> float:
    """How far along the edge (clockwise from the corner (0, 0)) the point nearest `p` is."""
    w, h = table_mm
    x, y = min(max(p[0], 0.0), w), min(max(p[1], 0.0), h)
    d = {"top": y, "right": w - x, "bottom": h - y, "left": x}
    side = min(d, key=lambda k: d[k])
    if side == "top":
        return x
    if side == "right":
        return w + y
    if side == "bottom":
        return w + h + (w - x)
    return 2 * w + h + (h - y)


def perimeter_point(table_mm: Point, s: float) -> tuple[Point, Point]:
    """The edge point `s` mm along the edge and the outward normal there."""
    w, h = table_mm
    s %= 2 * (w + h)
    if s <= w:
        return (s, 0.0), (0.0, -1.0)
    if s <= w + h:
        return (w, s - w), (1.0, 0.0)
    if s <= 2 * w + h:
        return (w - (s - w - h), h), (0.0, 1.0)
    return (0.0, h - (s - 2 * w - h)), (-1.0, 0.0)


def edge_zone(table_mm: Point, s0: float, s1: float) -> Polygon:
    """The zone behind the stretch of edge from `s0` to `s1` (clockwise), as a polygon."""
    w, h = table_mm
    length = 2 * (w + h)
    span = (s1 - s0) % length or length
    corners = [0.0, w, w + h, 2 * w + h]
    inside = sorted(s0 + (c - s0) % length for c in corners if 0 < (c - s0) % length < span)
    inner: list[Point] = []
    outer: list[Point] = []
    for s in [s0, *inside, s0 + span]:
        (px, py), (nx, ny) = perimeter_point(table_mm, s)
        if any(abs(s - c) < 1e-6 for c in inside):
            # Both sides' normals: the zone turns the corner.
            (_, _), (ax, ay) = perimeter_point(table_mm, s - 1e-3)
            (_, _), (bx, by) = perimeter_point(table_mm, s + 1e-3)
            nx, ny = ax + bx, ay + by
        inner.append((px - nx * ZONE_INSET_MM, py - ny * ZONE_INSET_MM))
        outer.append((px + nx * ZONE_DEPTH_MM, py + ny * ZONE_DEPTH_MM))
    return tuple(inner + outer[::-1])


def point_zones(table_mm: Point, seats: tuple[tuple[str, Point], ...]) -> dict[str, Polygon]:
    """Each seat owns the edge halfway to its neighbours on either side."""
    length = 2 * (table_mm[0] + table_mm[1])
    pos = sorted((perimeter_at(table_mm, p), name) for name, p in seats)
    out: dict[str, Polygon] = {}
    for i, (s, name) in enumerate(pos):
        if len(pos) == 1:
            out[name] = edge_zone(table_mm, s, s + length - 1e-3)
            continue
        prev = pos[i - 1][0]
        nxt = pos[(i + 1) % len(pos)][0]
        lo = s - ((s - prev) % length) / 2
        hi = s + ((nxt - s) % length) / 2
        out[name] = edge_zone(table_mm, lo, hi)
    return out


def _square(centre: Point, size: float) -> tuple[Point, Point, Point, Point]:
    x, y = centre
    s = size / 2
    return ((x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s))


def _point(section: Section, key: str, value: Any) -> Point:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise section.error(key, "expected a position [x_mm, y_mm]")
    return (float(value[0]), float(value[1]))


def parse_camera(section: Section, seat_names: tuple[str, ...], *,
                 base_dir: Path | None = None) -> CameraConfig:
    """Parse `[camera]`; a relative calibration path is taken from `base_dir` (the file's)."""
    section.known("source", "calibration", "width", "height", "fps", "table_mm", "markers",
                  "pads", "figures", "seats", "ring_seconds")
    source = section.take("source", (str, int), "sim")
    source = str(source).strip()
    if not source:
        raise section.error("source", "must not be empty")
    cal = section.take("calibration", str, "")
    calibration: Path | None = None
    if cal:
        calibration = Path(cal)
        if not calibration.is_absolute() and base_dir is not None:
            calibration = base_dir / calibration
    width = section.integer("width", 640, minimum=160, maximum=4096)
    height = section.integer("height", 480, minimum=120, maximum=3072)
    fps = section.number("fps", 30.0, minimum=1, maximum=240)
    ring = section.number("ring_seconds", 4.0, minimum=0.5, maximum=30)
    raw_table = section.take("table_mm", list, list(DEFAULT_TABLE_MM))
    table = _point(section, "table_mm", raw_table)
    if min(table) < 200 or max(table) > 4000:
        raise section.error("table_mm", f"a table of {table[0]:g} x {table[1]:g} mm is not "
                                        "plausible (200 to 4000 mm per side)")
    base = default_layout(seat_names, table)

    corners = _parse_markers(section, base.marker_corners, table)
    sizes = _parse_figures(section)
    pads, radii = _parse_pads(section, base.pads, table, dict(sizes))
    seats, zones = _parse_seats(section, seat_names, base.seats, table)

    return CameraConfig(source=source, calibration=calibration, width=width, height=height,
                        fps=fps, table_mm=table, marker_corners=corners, pads=pads,
                        seats=seats, ring_seconds=ring, pad_radii=radii, figure_sizes=sizes,
                        seat_zones=zones)


def _parse_markers(section: Section, default: tuple[Quad, ...],
                   table: Point) -> tuple[Quad, ...]:
    """`[camera.markers]`: the four markers' corners, from centres and a size or given whole."""
    markers = section.sub("markers").known("size_mm", "centres_mm", "corners_mm")
    corners = default
    size = markers.number("size_mm", DEFAULT_MARKER_MM, minimum=10, maximum=500)
    if markers.has("corners_mm") and markers.has("centres_mm"):
        raise markers.error("corners_mm", "give either centres_mm or corners_mm, not both")
    if markers.has("centres_mm"):
        raw = markers.take("centres_mm", list, [])
        if len(raw) != len(MARKER_IDS):
            raise markers.error("centres_mm", f"needs {len(MARKER_IDS)} positions (ids 0 to 3),"
                                              f" got {len(raw)}")
        corners = tuple(_square(_point(markers, f"centres_mm[{i}]", v), size)
                        for i, v in enumerate(raw))
    elif markers.has("corners_mm"):
        raw = markers.take("corners_mm", list, [])
        if len(raw) != len(MARKER_IDS):
            raise markers.error("corners_mm", f"needs {len(MARKER_IDS)} markers, got {len(raw)}")
        parsed = []
        for i, quad in enumerate(raw):
            if not isinstance(quad, list) or len(quad) != 4:
                raise markers.error(f"corners_mm[{i}]", "needs four corners [x_mm, y_mm]")
            pts = [_point(markers, f"corners_mm[{i}][{j}]", v) for j, v in enumerate(quad)]
            parsed.append((pts[0], pts[1], pts[2], pts[3]))
        corners = tuple(parsed)
    elif markers.has("size_mm") or size != DEFAULT_MARKER_MM:
        corners = tuple(_square(_centre(q), size) for q in corners)
    markers.finish()
    for i, quad in enumerate(corners):
        for x, y in quad:
            if not (0 <= x <= table[0] and 0 <= y <= table[1]):
                raise section.error(f"markers[{i}]", f"corner ({x:g}, {y:g}) mm is off the "
                                                     f"{table[0]:g} x {table[1]:g} mm table")
    return corners


def _parse_figures(section: Section) -> tuple[tuple[Figure, tuple[float, float, float]], ...]:
    """`[camera.figures]`: a figure's [length, width, height] in mm, where it differs."""
    figs = section.sub("figures").known(*(f.value for f in Figure))
    out: list[tuple[Figure, tuple[float, float, float]]] = []
    for fig in Figure:
        raw = figs.take(fig.value, list, [])
        if not raw:
            continue
        if len(raw) != 3 or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                    for v in raw):
            raise figs.error(fig.value, "expected [length_mm, width_mm, height_mm]")
        length, width, height = (float(v) for v in raw)
        if not (5 <= width <= length <= 150 and 5 <= height <= 200):
            raise figs.error(fig.value, f"{length:g} x {width:g} x {height:g} mm is not a "
                                        "figure (5 to 150 mm across, length >= width)")
        out.append((fig, (length, width, height)))
    figs.finish()
    return tuple(out)


def _pad_entry(pads_s: Section, fig: Figure, where: Point, radius: float
               ) -> tuple[Point, float]:
    """One pad: `[x, y]`, or `{at = [x, y], radius_mm = r}`."""
    raw: list[Any] | dict[str, Any] = pads_s.take(fig.value, (list, dict), list(where))
    if isinstance(raw, list):
        return _point(pads_s, fig.value, raw), radius
    one = Section(pads_s.source, pads_s.key(fig.value), raw).known("at", "radius_mm")
    at = _point(one, "at", one.take("at", list, list(where)))
    r = one.number("radius_mm", radius, minimum=8, maximum=150)
    one.finish()
    return at, r


def _parse_pads(section: Section, default: tuple[tuple[Figure, Point], ...], table: Point,
                sizes: dict[Figure, tuple[float, float, float]],
                ) -> tuple[tuple[tuple[Figure, Point], ...], tuple[tuple[Figure, float], ...]]:
    """`[camera.pads]`: each pad's centre and radius, on the table, apart, big enough."""
    pads_s = section.sub("pads").known("radius_mm", *(f.value for f in Figure))
    radius = pads_s.number("radius_mm", DEFAULT_PAD_RADIUS_MM, minimum=8, maximum=150)
    pads: list[tuple[Figure, Point]] = []
    radii: list[tuple[Figure, float]] = []
    for fig, where in default:
        at, r = _pad_entry(pads_s, fig, where, radius)
        pads.append((fig, at))
        radii.append((fig, r))
    pads_s.finish()
    rad = dict(radii)
    for fig, (x, y) in pads:
        r = rad[fig]
        if not (r <= x <= table[0] - r and r <= y <= table[1] - r):
            raise section.error(f"pads.{fig.value}", f"({x:g}, {y:g}) mm is off the table")
        width = sizes.get(fig, FIGURE_SIZE_MM[fig])[1]
        if 2 * r < width:
            raise section.error(f"pads.{fig.value}", f"a pad of radius {r:g} mm is narrower "
                                                     f"than the {fig.value} ({width:g} mm)")
    for i, (fa, pa) in enumerate(pads):
        for fb, pb in pads[i + 1:]:
            if math.dist(pa, pb) < rad[fa] + rad[fb]:
                raise section.error(f"pads.{fb.value}", f"overlaps the {fa.value}'s pad "
                                                        f"({math.dist(pa, pb):.0f} mm apart)")
    return tuple(pads), tuple(radii)


def _seat_entry(seats_s: Section, name: str, where: Point, table: Point
                ) -> tuple[Point, Polygon | None]:
    """One seat: `[x, y]`, or `{at = [x, y], edge = [[x, y], [x, y]]}` or `{..., zone = [...]}`."""
    raw: list[Any] | dict[str, Any] = seats_s.take(name, (list, dict), list(where))
    if isinstance(raw, list):
        return _point(seats_s, name, raw), None
    one = Section(seats_s.source, seats_s.key(name), raw).known("at", "edge", "zone")
    at = _point(one, "at", one.take("at", list, list(where)))
    zone: Polygon | None = None
    if one.has("edge") and one.has("zone"):
        raise one.error("zone", "give either edge or zone, not both")
    if one.has("edge"):
        ends = one.take("edge", list, [])
        if len(ends) != 2:
            raise one.error("edge", "expected two points [[x, y], [x, y]] on the table edge")
        a, b = (_point(one, f"edge[{i}]", v) for i, v in enumerate(ends))
        for i, p in enumerate((a, b)):
            if _edge_distance(p, table) > SEAT_EDGE_TOLERANCE_MM:
                raise one.error(f"edge[{i}]", f"({p[0]:g}, {p[1]:g}) mm is not on the table "
                                              "edge")
        s0, s1 = perimeter_at(table, a), perimeter_at(table, b)
        length = 2 * (table[0] + table[1])
        # The stretch that holds the seat itself, whichever way round the ends were given.
        s = perimeter_at(table, at)
        if (s - s0) % length > (s1 - s0) % length:
            s0, s1 = s1, s0
        zone = edge_zone(table, s0, s1)
    elif one.has("zone"):
        pts = one.take("zone", list, [])
        if len(pts) < 3:
            raise one.error("zone", f"a polygon needs at least 3 points, got {len(pts)}")
        zone = tuple(_point(one, f"zone[{i}]", v) for i, v in enumerate(pts))
        if not _inside(at, zone, margin=SEAT_EDGE_TOLERANCE_MM):
            raise one.error("zone", f"does not contain the seat's own position {at}")
    one.finish()
    return at, zone


def _parse_seats(section: Section, seat_names: tuple[str, ...],
                 default: tuple[tuple[str, Point], ...], table: Point,
                 ) -> tuple[tuple[tuple[str, Point], ...], tuple[tuple[str, Polygon], ...]]:
    """`[camera.seats]`: where each seat reaches in (all or none given), with its zone."""
    seats_s = section.sub("seats").known(*seat_names)
    seats: list[tuple[str, Point]] = []
    zones: list[tuple[str, Polygon]] = []
    given = [s for s in seat_names if seats_s.has(s)]
    if given and len(given) != len(seat_names):
        missing = [s for s in seat_names if not seats_s.has(s)]
        raise seats_s.error(missing[0], "every seat of [table] seats needs a position "
                                        f"once any is given (missing: {', '.join(missing)})")
    for name, where in default:
        pos, zone = _seat_entry(seats_s, name, where, table)
        edge = _edge_distance(pos, table)
        if edge > SEAT_EDGE_TOLERANCE_MM:
            raise seats_s.error(name, f"({pos[0]:g}, {pos[1]:g}) mm is {edge:.0f} mm from the "
                                      f"table edge; a seat is where a player reaches in")
        seats.append((name, pos))
        if zone is not None:
            zones.append((name, zone))
    seats_s.finish()
    _check_zones_apart(seats_s, tuple(seats), tuple(zones))
    return tuple(seats), tuple(zones)


def _check_zones_apart(seats_s: Section, seats: tuple[tuple[str, Point], ...],
                       zones: tuple[tuple[str, Polygon], ...]) -> None:
    """No seat's position may lie in another seat's given zone: arms would go to both."""
    for name, zone in zones:
        for other, pos in seats:
            if other != name and _inside(pos, zone, margin=0.0):
                raise seats_s.error(name, f"its zone takes in {other}'s seat at "
                                          f"({pos[0]:g}, {pos[1]:g}) mm")


def _edge_distance(p: Point, table: Point) -> float:
    return min(abs(p[0]), abs(p[0] - table[0]), abs(p[1]), abs(p[1] - table[1]))


def _inside(p: Point, poly: Polygon, *, margin: float) -> bool:
    """Whether `p` lies in `poly` or within `margin` of it (ray casting plus edge distance)."""
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (ax, ay), (bx, by) = poly[i], poly[(i + 1) % n]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
    if inside or margin <= 0:
        return inside
    return min(_seg_distance(p, poly[i], poly[(i + 1) % n]) for i in range(n)) <= margin


def _seg_distance(p: Point, a: Point, b: Point) -> float:
    ax, ay = b[0] - a[0], b[1] - a[1]
    n = ax * ax + ay * ay or 1.0
    u = min(1.0, max(0.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / n))
    return math.dist(p, (a[0] + u * ax, a[1] + u * ay))


def _centre(quad: tuple[Point, Point, Point, Point]) -> Point:
    return (sum(p[0] for p in quad) / 4, sum(p[1] for p in quad) / 4)

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
    radius_mm = 22                   # the figure's radius seen from above
    ship = [290, 300]
    viking = [370, 300]

    [camera.seats]                   # where each seat meets the table edge, mm
    Ada = [450, 600]
    Ben = [0, 300]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.knapp.cards import Figure
from controller.settings import Section

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

MARKER_IDS = (0, 1, 2, 3)
DEFAULT_TABLE_MM: Point = (900.0, 600.0)
DEFAULT_MARKER_MM = 50.0
DEFAULT_FIGURE_RADIUS_MM = 22.0
# A seat must sit on the table's edge: at most this far from it.
SEAT_EDGE_TOLERANCE_MM = 60.0


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
        figure_radius_mm: a figure's radius seen from above.
        seats: seat name -> where it meets the table edge, in `[table] seats` order.
        ring_seconds: how much recent video the evidence ring buffer keeps.
    """

    source: str = "sim"
    calibration: Path | None = None
    width: int = 640
    height: int = 480
    fps: float = 30.0
    table_mm: Point = DEFAULT_TABLE_MM
    marker_corners: tuple[Quad, ...] = ()
    pads: tuple[tuple[Figure, Point], ...] = ()
    figure_radius_mm: float = DEFAULT_FIGURE_RADIUS_MM
    seats: tuple[tuple[str, Point], ...] = ()
    ring_seconds: float = 4.0

    def pad(self, figure: Figure) -> Point:
        """Return the pad centre of `figure`."""
        return dict(self.pads)[figure]

    def seat_names(self) -> tuple[str, ...]:
        """Return the seats in configuration order."""
        return tuple(name for name, _ in self.seats)


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
                  "pads", "seats", "ring_seconds")
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
    pads, radius = _parse_pads(section, base.pads, table)
    seats = _parse_seats(section, seat_names, base.seats, table)

    return CameraConfig(source=source, calibration=calibration, width=width, height=height,
                        fps=fps, table_mm=table, marker_corners=corners, pads=pads,
                        figure_radius_mm=radius, seats=seats, ring_seconds=ring)


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


def _parse_pads(section: Section, default: tuple[tuple[Figure, Point], ...],
                table: Point) -> tuple[tuple[tuple[Figure, Point], ...], float]:
    """`[camera.pads]`: each figure's pad centre and the pad radius, on the table, apart."""
    pads_s = section.sub("pads").known("radius_mm", *(f.value for f in Figure))
    radius = pads_s.number("radius_mm", DEFAULT_FIGURE_RADIUS_MM, minimum=5, maximum=100)
    pads: list[tuple[Figure, Point]] = []
    for fig, where in default:
        raw_p = pads_s.take(fig.value, list, list(where))
        pads.append((fig, _point(pads_s, fig.value, raw_p)))
    pads_s.finish()
    for fig, (x, y) in pads:
        if not (radius <= x <= table[0] - radius and radius <= y <= table[1] - radius):
            raise section.error(f"pads.{fig.value}", f"({x:g}, {y:g}) mm is off the table")
    for i, (fa, pa) in enumerate(pads):
        for fb, pb in pads[i + 1:]:
            if math.dist(pa, pb) < 2 * radius:
                raise section.error(f"pads.{fb.value}", f"overlaps the {fa.value}'s pad "
                                                        f"({math.dist(pa, pb):.0f} mm apart)")
    return tuple(pads), radius


def _parse_seats(section: Section, seat_names: tuple[str, ...],
                 default: tuple[tuple[str, Point], ...],
                 table: Point) -> tuple[tuple[str, Point], ...]:
    """`[camera.seats]`: where each seat reaches in, on the table's edge (all or none given)."""
    seats_s = section.sub("seats").known(*seat_names)
    seats: list[tuple[str, Point]] = []
    given = [s for s in seat_names if seats_s.has(s)]
    if given and len(given) != len(seat_names):
        missing = [s for s in seat_names if not seats_s.has(s)]
        raise seats_s.error(missing[0], "every seat of [table] seats needs a position "
                                        f"once any is given (missing: {', '.join(missing)})")
    for name, where in default:
        pos = _point(seats_s, name, seats_s.take(name, list, list(where)))
        edge = min(abs(pos[0]), abs(pos[0] - table[0]), abs(pos[1]), abs(pos[1] - table[1]))
        if edge > SEAT_EDGE_TOLERANCE_MM:
            raise seats_s.error(name, f"({pos[0]:g}, {pos[1]:g}) mm is {edge:.0f} mm from the "
                                      f"table edge; a seat is where a player reaches in")
        seats.append((name, pos))
    seats_s.finish()
    return tuple(seats)


def _centre(quad: tuple[Point, Point, Point, Point]) -> Point:
    return (sum(p[0] for p in quad) / 4, sum(p[1] for p in quad) / 4)

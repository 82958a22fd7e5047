"""The table's four ArUco markers as pages to print at exact scale.

`knapp vision markers markers.pdf` writes A4 or Letter pages drawn in
millimetres: each marker at the side the table file gives (`[camera.markers]
size_mm`), a white border of one marker cell inside a dashed cut line, its id,
and on every page a 100 mm ruler to check that the printer kept the scale.
A PNG is still possible (with its resolution stored, so a viewer can print it
at size), but a PDF carries the size itself and cannot be "fitted" by
accident as easily.

The PDF is written with fpdf2, imported only here and only when a PDF is
written, so `import controller` stays light. The markers are vector paths
(one even-odd fill per marker: the black square with its white cells cut
out), so they print sharp at any resolution without seams between cells.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from controller.errors import KnappError

if TYPE_CHECKING:
    from fpdf import FPDF

# Page sizes in mm (ISO 216 A4; US Letter 8.5 x 11 in).
PAPER_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 12.0  # most printers cannot print within 4-6 mm of the edge
RULER_MM = 100.0
HEADER_MM = 46.0  # title, instructions and the ruler at the top of every page
LABEL_MM = 6.0  # the id line above each marker, outside the cut line
GAP_MM = 6.0  # between two cut lines
CELLS = 6  # DICT_4X4_50: 4 x 4 data cells and a one-cell black border
PNG_DPI = 300
MARKER_RANGE_MM = (10.0, 500.0)
DPI_RANGE = (72, 1200)
TOP_MARK_MIN_QUIET_MM = 4.0  # room for the "top" mark inside the white border
PRINT_NOTE = "Print at 100 % / actual size; this bar must measure 100 mm."


class MarkerPrintError(KnappError, ValueError):
    """The markers cannot be written as asked (bad file name, size or paper)."""


@dataclass(frozen=True)
class Placement:
    """One marker on a page, in mm from the page's top-left corner.

    Args:
        marker_id: the ArUco id.
        x_mm, y_mm: the black square's top-left corner.
        side_mm: the black square's side.
    """

    marker_id: int
    x_mm: float
    y_mm: float
    side_mm: float

    @property
    def quiet_mm(self) -> float:
        """The white border inside the cut line: one marker cell."""
        return self.side_mm / CELLS

    @property
    def cut_mm(self) -> float:
        """The side of the cut square (marker and white border)."""
        return self.side_mm + 2 * self.quiet_mm


def marker_sides(marker_corners: Sequence[Sequence[tuple[float, float]]]) -> dict[int, float]:
    """Return marker id -> side in mm, the mean edge of its four corners in the table file."""
    sides: dict[int, float] = {}
    for marker_id, quad in enumerate(marker_corners):
        edges = [math.dist(quad[k], quad[(k + 1) % 4]) for k in range(4)]
        sides[marker_id] = round(sum(edges) / 4, 1)
    return sides


def check_sides(sides: Mapping[int, float]) -> None:
    """Refuse a marker side outside the range the table file allows."""
    lo, hi = MARKER_RANGE_MM
    for marker_id, side in sides.items():
        if not lo <= side <= hi:
            raise MarkerPrintError(f"marker {marker_id}: a side of {side:g} mm is outside "
                                   f"{lo:g}-{hi:g} mm")


def layout(sides: Mapping[int, float], paper: str) -> list[list[Placement]]:
    """Place the markers on as many pages as they need, in id order, row by row.

    Raises:
        MarkerPrintError: an unknown paper, or a marker too large for the page.
    """
    if paper not in PAPER_MM:
        raise MarkerPrintError(f"unknown paper {paper!r}; use one of {', '.join(PAPER_MM)}")
    check_sides(sides)
    width, height = PAPER_MM[paper]
    left, top = MARGIN_MM, MARGIN_MM + HEADER_MM
    right, bottom = width - MARGIN_MM, height - MARGIN_MM
    pages: list[list[Placement]] = [[]]
    x, y, row_h = left, top, 0.0
    for marker_id in sorted(sides):
        side = sides[marker_id]
        cut = side + 2 * side / CELLS
        need_h = LABEL_MM + cut
        if cut > right - left or need_h > bottom - top:
            most = min(right - left, bottom - top - LABEL_MM) * CELLS / (CELLS + 2)
            raise MarkerPrintError(f"marker {marker_id}: {side:g} mm does not fit on "
                                   f"{paper.upper()} (at most {math.floor(most)} mm)")
        if x + cut > right + 1e-9:  # next row
            x, y, row_h = left, y + row_h + GAP_MM, 0.0
        if y + need_h > bottom + 1e-9:  # next page
            pages.append([])
            x, y, row_h = left, top, 0.0
        quiet = side / CELLS
        pages[-1].append(Placement(marker_id, x + quiet, y + LABEL_MM + quiet, side))
        x += cut + GAP_MM
        row_h = max(row_h, need_h)
    return pages


def write_markers(path: str | Path, sides: Mapping[int, float], *, paper: str | None = None,
                  dpi: int | None = None) -> str:
    """Write the markers to `path` (.pdf or .png); return a line saying what was written.

    Args:
        path: the file to write; its extension picks the format.
        sides: marker id -> the black square's side in mm.
        paper: "a4" (default) or "letter"; PDF only.
        dpi: resolution of a PNG (default 300); PNG only.

    Raises:
        MarkerPrintError: an unknown extension, an option of the other format, a size
            out of range, or a file that cannot be written.
    """
    out = Path(path)
    kind = out.suffix.lower()
    if kind not in (".pdf", ".png"):
        got = f"unknown extension {out.suffix!r}" if out.suffix else "no extension"
        raise MarkerPrintError(f"{out.name}: {got}; write a .pdf (to print at exact scale) "
                               "or a .png")
    if kind == ".pdf":
        if dpi is not None:
            raise MarkerPrintError("--dpi is for a .png; a PDF is drawn at exact scale")
        return _write_pdf(out, sides, paper or "a4")
    if paper is not None:
        raise MarkerPrintError("--paper is for a .pdf; write markers.pdf to choose the paper")
    return _write_png(out, sides, PNG_DPI if dpi is None else dpi)


def _sizes_text(sides: Mapping[int, float]) -> str:
    if len(set(sides.values())) == 1:
        return f"{next(iter(sides.values())):g} mm"
    return ", ".join(f"id {i} {s:g} mm" for i, s in sorted(sides.items()))


def _write_pdf(out: Path, sides: Mapping[int, float], paper: str) -> str:
    from fpdf import FPDF

    pages = layout(sides, paper)
    width, height = PAPER_MM[paper]
    pdf = FPDF(unit="mm", format=(width, height))
    pdf.set_title("Knapp table markers (ArUco DICT_4X4_50)")
    pdf.set_creator("knapp vision markers")
    pdf.set_auto_page_break(False)
    for number, placements in enumerate(pages, start=1):
        pdf.add_page()
        _header(pdf, number, len(pages), paper)
        for placement in placements:
            _marker(pdf, placement)
    try:
        pdf.output(str(out))
    except OSError as exc:
        raise MarkerPrintError(f"cannot write {out}: {exc.strerror or exc}") from None
    return (f"{out}: markers {', '.join(str(i) for i in sorted(sides))} at "
            f"{_sizes_text(sides)} on {len(pages)} {paper.upper()} page(s); "
            "print at 100 % / actual size and check the 100 mm ruler")


def _header(pdf: FPDF, number: int, total: int, paper: str) -> None:
    x0, y0 = MARGIN_MM, MARGIN_MM
    pdf.set_text_color(0)
    pdf.set_font("Helvetica", "B", 13)
    pdf.text(x0, y0 + 4, "Knapp table markers (ArUco DICT_4X4_50)")
    pdf.set_font("Helvetica", "", 9)
    pdf.text(x0 + 120, y0 + 4, f"page {number} of {total}, {paper.upper()}")
    pdf.set_font("Helvetica", "B", 10)
    pdf.text(x0, y0 + 11, PRINT_NOTE)
    pdf.set_font("Helvetica", "", 8.5)
    pdf.text(x0, y0 + 16, "Turn off 'fit to page' / 'shrink'. If the bar is shorter or longer, "
                          "the markers are too, and the calibration will be off.")
    pdf.text(x0, y0 + 20.5, "Cut along the dashed lines; glue each marker with its top edge "
                            "(marked 'top') towards the mat's y = 0 edge (docs/camera.md).")
    # the ruler: a bar exactly RULER_MM long with a tick every mm, numbered every 10 mm
    bar_y = y0 + 36
    pdf.set_fill_color(0)
    pdf.rect(x0, bar_y, RULER_MM, 1.5, style="F")
    pdf.set_draw_color(0)
    pdf.set_line_width(0.15)
    pdf.set_font("Helvetica", "", 7)
    for mm in range(int(RULER_MM) + 1):
        tick = 5.0 if mm % 10 == 0 else 3.5 if mm % 5 == 0 else 2.0
        pdf.line(x0 + mm, bar_y, x0 + mm, bar_y - tick)
        if mm % 10 == 0:
            pdf.text(x0 + mm - pdf.get_string_width(str(mm)) / 2, bar_y - 6, str(mm))
    pdf.set_font("Helvetica", "", 8)
    pdf.text(x0 + RULER_MM + 4, bar_y + 1.2, "mm: 100 mm from the first tick to the last")


def _marker(pdf: FPDF, p: Placement) -> None:
    from fpdf.enums import PathPaintRule

    from controller.vision.aruco import marker_image

    bits = marker_image(p.marker_id, CELLS)  # one pixel per cell: 0 black, 255 white
    cell = p.side_mm / CELLS
    # One path: the black square, with each run of white cells in a row cut out of it.
    with pdf.new_path(paint_rule=PathPaintRule.FILL_EVENODD) as path:
        path.style.fill_color = "#000000"
        path.style.stroke_color = None
        path.rectangle(p.x_mm, p.y_mm, p.side_mm, p.side_mm)
        for row in range(CELLS):
            col = 0
            while col < CELLS:
                if bits[row, col] < 128:
                    col += 1
                    continue
                start = col
                while col < CELLS and bits[row, col] >= 128:
                    col += 1
                path.rectangle(p.x_mm + start * cell, p.y_mm + row * cell,
                               (col - start) * cell, cell)
    q = p.quiet_mm
    pdf.set_draw_color(120)
    pdf.set_line_width(0.2)
    with pdf.local_context():
        pdf.set_dash_pattern(dash=2, gap=1.5)
        pdf.rect(p.x_mm - q, p.y_mm - q, p.cut_mm, p.cut_mm)
    pdf.set_text_color(0)
    pdf.set_font("Helvetica", "B", 9 if p.side_mm >= 30 else 6)
    pdf.text(p.x_mm - q, p.y_mm - q - 1.5, f"id {p.marker_id}, {p.side_mm:g} mm")
    if q >= TOP_MARK_MIN_QUIET_MM:
        # kept on the cut-out piece, so its orientation is known once cut; small and
        # grey, half a border away from the black square, so detection ignores it
        pdf.set_text_color(150)
        pdf.set_font("Helvetica", "", 6)
        mark = f"top  (id {p.marker_id})"
        pdf.text(p.x_mm + (p.side_mm - pdf.get_string_width(mark)) / 2, p.y_mm - q / 2 + 1,
                 mark)


def _write_png(out: Path, sides: Mapping[int, float], dpi: int) -> str:
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    from controller.vision.aruco import marker_image

    check_sides(sides)
    lo, hi = DPI_RANGE
    if not lo <= dpi <= hi:
        raise MarkerPrintError(f"--dpi must be {lo}-{hi}, got {dpi}")
    px = {i: round(s / 25.4 * dpi) for i, s in sides.items()}
    cell = max(v + 2 * (v // CELLS) for v in px.values())
    label = max(20, cell // 12)
    ids = sorted(sides)
    cols = 2  # two by two: 50 mm markers fit an A4 page at 100 %
    rows = -(-len(ids) // cols)
    page = np.full((rows * (cell + label), cols * cell), 255, np.uint8)
    for k, marker_id in enumerate(ids):
        side, quiet = px[marker_id], px[marker_id] // CELLS
        x, y = (k % cols) * cell + quiet, (k // cols) * (cell + label) + label + quiet
        page[y:y + side, x:x + side] = marker_image(marker_id, side)
    image = Image.fromarray(page)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=label * 0.7)
    for k, marker_id in enumerate(ids):
        draw.text(((k % cols) * cell + 4, (k // cols) * (cell + label) + 2),
                  f"id {marker_id}, {sides[marker_id]:g} mm", fill=0, font=font)
    try:
        image.save(out, dpi=(dpi, dpi), optimize=True)
    except OSError as exc:
        raise MarkerPrintError(f"cannot write {out}: {exc.strerror or exc}") from None
    width_mm = page.shape[1] / dpi * 25.4
    return (f"{out}: markers {', '.join(str(i) for i in ids)} at {_sizes_text(sides)}, "
            f"{dpi} dpi ({', '.join(str(px[i]) for i in ids)} px), {width_mm:.0f} mm wide; "
            "print at 100 % scale (a .pdf carries its size and a ruler)")

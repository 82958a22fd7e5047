"""`knapp vision markers`: pages at exact scale with a ruler, read back as a printer would.

pypdf reads the page sizes, the words and the ruler's geometry from the PDF's
own content stream; pypdfium2 (PDFium, the renderer of Chromium) renders the
pages, and OpenCV finds the markers on them by id and measures their side.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image
from pypdf import PdfReader
from pypdf.generic import ContentStream

from controller.cli import main
from controller.vision.aruco import detect_markers
from controller.vision.printing import PAPER_MM, RULER_MM, layout, marker_sides

PT_PER_MM = 72 / 25.4
RENDER_DPI = 200


def _rendered_markers(path: Path) -> dict[int, tuple[int, float]]:
    """Render every page; return marker id -> (page, mean side in mm as printed)."""
    found: dict[int, tuple[int, float]] = {}
    doc = pdfium.PdfDocument(str(path))
    try:
        for number in range(len(doc)):
            bitmap = doc[number].render(scale=RENDER_DPI / 72, grayscale=True)
            grey = np.ascontiguousarray(bitmap.to_numpy().reshape(bitmap.height, -1)
                                        [:, :bitmap.width])
            for marker_id, quad in detect_markers(grey).items():
                assert marker_id not in found, f"marker {marker_id} printed twice"
                side_px = sum(math.dist(quad[k], quad[(k + 1) % 4]) for k in range(4)) / 4
                found[marker_id] = (number, side_px / RENDER_DPI * 25.4)
    finally:
        doc.close()
    return found


def _ruler(reader: PdfReader, number: int) -> tuple[float, list[float]]:
    """The ruler's filled bar width and its tick positions (x of each vertical line), in mm."""
    page = reader.pages[number]
    ops = ContentStream(page.get_contents(), reader).operations
    bars = [abs(float(args[2])) / PT_PER_MM for args, op in ops
            if op == b"re" and abs(abs(float(args[2])) - RULER_MM * PT_PER_MM) < 0.5]
    ticks: list[float] = []
    for (a, op_a), (b, op_b) in itertools.pairwise(ops):
        if op_a == b"m" and op_b == b"l" and float(a[0]) == float(b[0]):
            ticks.append(float(a[0]) / PT_PER_MM)
    return (bars[0] if len(bars) == 1 else math.nan), ticks


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_pdf_page_is_the_paper_the_markers_are_50_mm_and_the_ruler_100_mm(
        paper: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "markers.pdf"
    assert main(["vision", "markers", str(out), "--paper", paper]) == 0
    said = capsys.readouterr().out
    assert "at 50 mm on 1" in said and "check the 100 mm ruler" in said
    reader = PdfReader(out)
    assert len(reader.pages) == 1
    page = reader.pages[0]
    w_mm, h_mm = PAPER_MM[paper]
    assert float(page.mediabox.width) == pytest.approx(w_mm * PT_PER_MM, abs=0.01)
    assert float(page.mediabox.height) == pytest.approx(h_mm * PT_PER_MM, abs=0.01)
    text = page.extract_text()
    assert "Print at 100 % / actual size; this bar must measure 100 mm." in text
    for marker_id in range(4):
        assert f"id {marker_id}, 50 mm" in text and f"top  (id {marker_id})" in text
    bar, ticks = _ruler(reader, 0)
    assert bar == pytest.approx(RULER_MM, abs=0.01)
    mm_ticks = [t - ticks[0] for t in ticks[:101]]
    assert mm_ticks == pytest.approx([float(i) for i in range(101)], abs=0.01)
    # what a printer would put on paper: every marker found by id, 50 mm a side
    found = _rendered_markers(out)
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, (_page, side) in found.items():
        assert side == pytest.approx(50.0, abs=0.15), marker_id


def test_markers_take_the_table_files_size_and_need_more_pages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "table.toml"
    table.write_text("[table]\nseats = ['Ada', 'Ben']\n[camera]\ntable_mm = [900, 600]\n"
                     "[camera.markers]\nsize_mm = 70\n"
                     "centres_mm = [[60, 60], [840, 60], [840, 540], [60, 540]]\n")
    out = tmp_path / "big.pdf"
    assert main(["vision", "markers", str(out), "--config", str(table)]) == 0
    assert "at 70 mm on 2 A4 page(s)" in capsys.readouterr().out
    reader = PdfReader(out)
    assert len(reader.pages) == 2
    for number in range(2):  # every page has its own ruler to check
        bar, _ = _ruler(reader, number)
        assert bar == pytest.approx(RULER_MM, abs=0.01)
    found = _rendered_markers(out)
    assert {i: p for i, (p, _) in found.items()} == {0: 0, 1: 0, 2: 1, 3: 1}
    assert all(side == pytest.approx(70.0, abs=0.15) for _, side in found.values())


def test_layout_keeps_every_cut_square_on_the_page_and_apart() -> None:
    for paper, (w, h) in PAPER_MM.items():
        for side in (10.0, 50.0, 80.0, 135.0):
            pages = layout(dict.fromkeys(range(4), side), paper)
            assert sorted(p.marker_id for page in pages for p in page) == [0, 1, 2, 3]
            for page in pages:
                boxes = [(p.x_mm - p.quiet_mm, p.y_mm - p.quiet_mm, p.cut_mm) for p in page]
                for x, y, cut in boxes:
                    assert x >= 12 - 1e-9 and y >= 12 - 1e-9, (paper, side)
                    assert x + cut <= w - 12 + 1e-9 and y + cut <= h - 12 + 1e-9, (paper, side)
                for i, (x1, y1, c1) in enumerate(boxes):
                    for x2, y2, c2 in boxes[i + 1:]:
                        assert x1 + c1 <= x2 or x2 + c2 <= x1 or y1 + c1 <= y2 or y2 + c2 <= y1


def test_marker_sides_come_from_the_corners() -> None:
    square = ((0.0, 0.0), (40.0, 0.0), (40.0, 40.0), (0.0, 40.0))
    tilted = ((0.0, 0.0), (30.0, 40.0), (-10.0, 70.0), (-40.0, 30.0))  # 50 mm, turned
    assert marker_sides([square, tilted]) == {0: 40.0, 1: 50.0}


@pytest.mark.parametrize(("argv", "says"), [
    (["markers.txt"], "markers.txt: unknown extension '.txt'; write a .pdf"),
    (["markers"], "markers: no extension; write a .pdf"),
    (["m.pdf", "--dpi", "300"], "--dpi is for a .png"),
    (["m.png", "--paper", "a4"], "--paper is for a .pdf"),
    (["m.pdf", "--size-mm", "300"], "marker 0: 300 mm does not fit on A4 (at most 139 mm)"),
    (["m.pdf", "--size-mm", "5"], "marker 0: a side of 5 mm is outside 10-500 mm"),
    (["m.png", "--dpi", "20"], "--dpi must be 72-1200, got 20"),
    (["no-such-dir/m.pdf"], "cannot write no-such-dir/m.pdf"),
])
def test_bad_requests_are_one_clear_line_and_write_nothing(
        argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["vision", "markers", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"knapp vision markers: {captured.err.split(': ', 1)[1]}"
    assert captured.err.count("\n") == 1 and says in captured.err, captured.err
    assert list(tmp_path.iterdir()) == []


def test_config_and_size_are_one_or_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["vision", "markers", "m.pdf", "--config", "t.toml", "--size-mm", "40"])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_png_stores_its_resolution_and_fits_a4(tmp_path: Path) -> None:
    out = tmp_path / "markers.png"
    assert main(["vision", "markers", str(out), "--dpi", "200"]) == 0
    with Image.open(out) as image:
        assert image.info["dpi"] == pytest.approx((200, 200), abs=0.01)
        width_mm = image.width / 200 * 25.4
        grey = np.asarray(image.convert("L"))
    assert width_mm < 210 - 24  # two by two: fits A4 inside the margins
    found = detect_markers(grey)
    assert sorted(found) == [0, 1, 2, 3]
    side = round(50 / 25.4 * 200)
    for quad in found.values():
        assert abs(sum(math.dist(quad[k], quad[(k + 1) % 4]) for k in range(4)) / 4
                   - side) < 2


def test_printing_imports_neither_fpdf_nor_opencv_until_it_writes() -> None:
    code = ("import sys, controller.vision.printing, controller.cli.vision; "
            "print(sorted(m for m in ('fpdf', 'cv2', 'PIL') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"

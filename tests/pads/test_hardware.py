"""hardware/: the drawings are valid SVG and agree with the code, the documents
link to files that exist, and the camera figures follow from the crop."""

from __future__ import annotations

import ast
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from controller.pads.config import DEFAULT_GPIO_PINS
from controller.pads.virtual_board import firmware_dir

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"
SVG_NS = "{http://www.w3.org/2000/svg}"
SVGS = sorted(HARDWARE.glob("*.svg"))

# Raspberry Pi 40-pin header: BCM number -> physical pin.
PI_HEADER = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29,
             6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22,
             8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}
# Raspberry Pi Pico: GPn -> physical pin.
PICO = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
        13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29,
        26: 31, 27: 32, 28: 34}


def svg_text(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")]


def firmware_pins() -> dict[str, object]:
    """The pin constants at the top of firmware/main.py."""
    tree = ast.parse((firmware_dir() / "main.py").read_text())
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


@pytest.mark.parametrize("path", SVGS, ids=lambda p: p.name)
def test_drawings_are_valid_svg_with_a_title(path: Path):
    root = ET.parse(path).getroot()  # well-formed XML, or this raises
    assert root.tag == f"{SVG_NS}svg"
    w, h = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert w > 0 and h > 0
    title = root.find(f"{SVG_NS}title")
    assert title is not None and title.text
    # every text sits on the canvas
    for t in root.iter(f"{SVG_NS}text"):
        x, y = float(t.get("x")), float(t.get("y"))
        assert 0 <= x <= w and 0 <= y <= h, ("".join(t.itertext()), x, y)


def test_gpio_wiring_drawing_shows_the_codes_pin_map():
    texts = svg_text(HARDWARE / "wiring-gpio.svg")
    for figure, bcm in DEFAULT_GPIO_PINS.items():
        assert f"pin {PI_HEADER[bcm]}  GPIO{bcm}" in texts, figure
        assert any(t.startswith(f"{figure.value}: FSR divider") for t in texts)
    assert "pin 2  5V" in texts and "pin 1  3V3" in texts  # comparators on 5 V


def test_pin_map_table_uses_the_right_header_pins():
    text = (HARDWARE / "pi-pin-map.md").read_text()
    rows = re.findall(r"^\|\s*(\w+)[^|]*\|\s*GPIO(\d+)\s*\|\s*(\d+)\s*\|", text, re.M)
    assert len(rows) == len(DEFAULT_GPIO_PINS)
    for _name, bcm, phys in rows:
        assert PI_HEADER[int(bcm)] == int(phys)


def test_board_drawings_show_the_firmwares_pins():
    pins = firmware_pins()
    wiring = " | ".join(svg_text(HARDWARE / "wiring-board.svg"))
    schematic = " | ".join(svg_text(HARDWARE / "pad-board-schematic.svg"))
    s0, s1, s2 = pins["MUX_SELECT"]
    for label, gp in (("S0", s0), ("S1", s1), ("S2", s2)):
        assert f"GP{gp} (pin {PICO[gp]})" in wiring
        assert re.search(rf"{label} \d+ <- GP{gp}\b", schematic), label
    pad_adc, light_adc = pins["PAD_ADC"], pins["LIGHT_ADC"]
    assert f"GP{pad_adc} / ADC{pad_adc - 26} (pin {PICO[pad_adc]})" in wiring
    assert f"-> GP{pad_adc} / ADC{pad_adc - 26} (pin {PICO[pad_adc]})" in schematic
    assert f"GP{light_adc} / ADC{light_adc - 26} (pin {PICO[light_adc]})" in wiring
    assert f"GP{light_adc} / ADC{light_adc - 26} (pin {PICO[light_adc]})" in schematic
    led = pins["LED_PIN"]
    assert f"GP{led} (pin {PICO[led]})" in wiring and f"<- GP{led}" in schematic
    safe = pins["SAFE_MODE_PIN"]
    assert f"GP{safe} (pin {PICO[safe]})" in wiring
    assert f"GP{safe} (pin {PICO[safe]}) to GND (pin 28)" in (HARDWARE / "flashing.md").read_text()
    assert pins["NPADS"] == 5 and pins["SCAN_US"] <= 1000  # 1 kHz per pad or more


def test_flashing_copies_every_firmware_module():
    text = (HARDWARE / "flashing.md").read_text()
    (line,) = [x for x in text.splitlines() if "mpremote cp" in x and "board.py" in x]
    copied = set(line.split()[2:-1])
    modules = {p.name for p in firmware_dir().glob("*.py")} - {"main.py"}
    assert copied == modules
    assert "mpremote cp main.py :" in text


@pytest.mark.parametrize("doc", sorted(HARDWARE.glob("*.md")), ids=lambda p: p.name)
def test_hardware_documents_name_files_that_exist(doc: Path):
    text = doc.read_text()
    for target in re.findall(r"\]\(([^)#:]+)\)", text):  # markdown links
        assert (doc.parent / target).exists(), target
    for name in re.findall(r"(?<![\w./-])([\w./-]+\.(?:svg|md|py|toml|sh))\b", text):
        if name.startswith("/"):
            continue  # a path on the installed Pi (/etc/knapp/table.toml)
        if "/" in name:  # a path from the repository root or from hardware/
            assert (ROOT / name).exists() or (HARDWARE / name).exists(), name
        else:  # a bare name: a sibling, a firmware file or a doc
            assert any((base / name).exists() for base in (HARDWARE, firmware_dir(),
                                                            ROOT / "docs")), name


def crop_angle(full_deg: float, fraction: float = 2 / 3) -> float:
    return math.degrees(2 * math.atan(fraction * math.tan(math.radians(full_deg / 2))))


def test_camera_field_of_view_is_computed_for_the_crop():
    text = (HARDWARE / "camera-mount.md").read_text()
    assert "(768, 432)/3072x1728 crop" in text
    assert 3072 / 4608 == 1728 / 2592 == 2 / 3
    rows = re.findall(r"^\| (Standard|Wide)[^|]*\| (\d+)° x (\d+)° "
                      r"\| \*\*([\d.]+)° x ([\d.]+)°\*\*", text, re.M)
    assert len(rows) == 2
    crops = {}
    for lens, fh, fv, ch, cv in rows:
        assert round(crop_angle(float(fh)), 1) == float(ch), lens
        assert round(crop_angle(float(fv)), 1) == float(cv), lens
        crops[lens] = (float(ch), float(cv))
    # the heights: the lens sees at least 710 x 410 mm
    heights = dict(re.findall(r"^\| (Standard|Wide) \| \*\*(\d+) mm\*\* \|", text, re.M))
    assert set(heights) == {"Standard", "Wide"}
    for lens, (ch, cv) in crops.items():
        h = int(heights[lens])
        seen_w = 2 * h * math.tan(math.radians(ch / 2))
        seen_h = 2 * h * math.tan(math.radians(cv / 2))
        assert seen_w >= 708 and seen_h >= 408, (lens, seen_w, seen_h)
        needed = max(355 / math.tan(math.radians(ch / 2)), 205 / math.tan(math.radians(cv / 2)))
        assert h <= needed + 5, (lens, h, needed)  # no higher than needed
    drawing = " ".join(svg_text(HARDWARE / "camera-mount.svg"))
    assert f"{crops['Standard'][0]}° across" in drawing
    assert f"{heights['Standard']} lens to table" in drawing
    assert f"from {heights['Wide']} mm" in drawing

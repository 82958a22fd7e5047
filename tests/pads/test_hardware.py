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
from controller.sim.virtual_board import firmware_dir

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
    (plan_w, plan_h), = [(int(w), int(h)) for w, h in
                         re.findall(r"plan on \*\*(\d+) x (\d+) mm\*\*", text)]
    seen_rows = dict(re.findall(r"^\| (Standard|Wide) \| \*\*\d+ mm\*\* \| (\d+ x \d+) mm",
                                text, re.M))
    for lens, (fh, fv) in {"Standard": (66, 41), "Wide": (102, 67)}.items():
        h = int(heights[lens])
        # computed from the spec angles, not from the rounded crop angles in the table
        seen_w = 2 * h * (2 / 3) * math.tan(math.radians(fh / 2))
        seen_h = 2 * h * (2 / 3) * math.tan(math.radians(fv / 2))
        assert seen_w >= plan_w and seen_h >= plan_h, (lens, seen_w, seen_h)
        assert seen_rows[lens] == f"{seen_w:.0f} x {seen_h:.0f}", lens
        needed = max(plan_w / 2 / ((2 / 3) * math.tan(math.radians(fh / 2))),
                     plan_h / 2 / ((2 / 3) * math.tan(math.radians(fv / 2))))
        assert h <= needed + 5, (lens, h, needed)  # no higher than needed
    drawing = " ".join(svg_text(HARDWARE / "camera-mount.svg"))
    assert f"{crops['Standard'][0]}° across" in drawing
    assert f"{heights['Standard']} lens to table" in drawing
    assert f"from {heights['Wide']} mm it sees {seen_rows['Wide']} mm" in drawing
    assert f"{seen_rows['Standard']} seen" in drawing
    bom = (HARDWARE / "bom.md").read_text()
    assert f"lens {heights['Standard']} mm above the table" in bom


TRAY = {"width": 400, "depth": 110, "first": 50, "pitch": 75, "front": 50}  # pad-tray.svg


def test_tray_drawing_has_the_dimensions_the_camera_layout_uses():
    texts = svg_text(HARDWARE / "pad-tray.svg")
    for label in ("400", "110", "50", f"{TRAY['pitch']} pitch"):
        assert label in texts, label


def shipped_camera_config(tmp_path: Path):
    from controller.config import load_config

    text = (HARDWARE / "pi" / "table.toml").read_text()
    start = text.index("# [camera]")
    path = tmp_path / "table.toml"
    path.write_text(text[:start] + re.sub(r"^# ?", "", text[start:], flags=re.M))
    cam = (load_config(path)).camera
    assert cam is not None
    return cam


def test_shipped_camera_layout_is_the_tray_on_the_mat_the_camera_sees(tmp_path: Path):
    cam = shipped_camera_config(tmp_path)
    doc = (HARDWARE / "camera-mount.md").read_text()
    # 16:9 like the 1536x864 mode, or the picture loses its ends (camera-mount.md)
    assert cam.width * 864 == cam.height * 1536
    assert f"`width = {cam.width}`" in doc and f"`height = {cam.height}`" in doc
    # the mat of camera-mount.md, with 25 mm all round inside the planned view
    w, h = cam.table_mm
    assert f"{w:.0f} x\n{h:.0f} mm" in doc or f"{w:.0f} x {h:.0f}" in doc
    (plan_w, plan_h), = [(int(a), int(b)) for a, b in
                         re.findall(r"plan on \*\*(\d+) x (\d+) mm\*\*", doc)]
    assert (w + 50, h + 50) == (plan_w, plan_h)
    # the pads: the tray centred on the mat, pads in a row at the tray's pitch, ship first
    x0, y0 = (w - TRAY["width"]) / 2, (h - TRAY["depth"]) / 2
    expected = [(x0 + TRAY["first"] + i * TRAY["pitch"], y0 + TRAY["front"])
                for i in range(len(cam.pads))]
    assert [p for _, p in cam.pads] == expected
    assert [f.value for f, _ in cam.pads] == ["ship", "viking", "child", "chest", "dog"]
    xs = ", ".join(f"{x:.0f}" for x, _ in expected)
    assert f"`x = {xs}`" in doc.replace("\n  ", " ") and f"`y = {expected[0][1]:.0f}`" in doc
    # the markers sit on the mat, clear of the tray
    for quad in cam.marker_corners:
        for x, y in quad:
            assert 0 <= x <= w and 0 <= y <= h
            assert not (x0 <= x <= x0 + TRAY["width"] and y0 <= y <= y0 + TRAY["depth"])
    centres = [(sum(p[0] for p in q) / 4, sum(p[1] for p in q) / 4) for q in cam.marker_corners]
    assert ", ".join(f"({x:.0f}, {y:.0f})" for x, y in centres) in doc.replace("\n  ", " ")


def test_fsr_worked_example_is_computed():
    text = (HARDWARE / "fsr-divider.md").read_text()
    r = [int(v) for v in re.findall(r"R ≈ 6 kΩ·N / F[^|]*\| (\d+) kΩ \| (\d+) kΩ", text)[0]]
    volts = [float(v) for v in re.findall(r"R_M = 47 kΩ \| ([\d.]+) V \| ([\d.]+) V", text)[0]]
    counts = [int(v.replace(" ", "")) for v in
              re.findall(r"3\.3 V = 65535\) \| ([\d ]+) \| ([\d ]+) \|", text)[0]]
    exact = [3.3 * 47 / (47 + ri) for ri in r]
    assert volts == [round(v, 2) for v in exact]
    assert counts == [round(v / 3.3 * 65535, -1) for v in exact]
    # the thresholds the firmware would place around these levels
    from controller.sim.virtual_board import load_firmware

    pad = load_firmware()["pads"].Pad()
    pad.set_levels(empty=round(exact[0] / 3.3 * 65535), loaded=round(exact[1] / 3.3 * 65535))
    mid = pad.empty + (pad.loaded - pad.empty) // 2
    documented = re.findall(r"mid = ([\d ]+), lo = ([\d ]+), hi = ([\d ]+)", text)[0]
    assert [int(v.replace(" ", "")) for v in documented] == [
        round(v, -1) for v in (mid, pad.lo, pad.hi)]
    best = math.sqrt(r[0] * r[1])
    step = 3.3 * best / (best + r[1]) - 3.3 * best / (best + r[0])
    assert f"giving a {step:.2f} V step" in text
    assert f"47 kΩ gives {exact[1] - exact[0]:.2f} V" in text


def test_detector_defaults_agree_across_firmware_host_and_docs():
    from controller.pads.config import PadsConfig
    from controller.sim.virtual_board import load_firmware

    fw = load_firmware()
    pad, host = fw["pads"].Pad(), PadsConfig()
    assert round(pad.hysteresis * 100) == host.hysteresis_pct
    assert pad.confirm == host.confirm_samples
    assert pad.lockout_us * 1000 == host.debounce_ns
    assert pad.min_spread == host.min_spread
    text = " ".join((HARDWARE / "fsr-divider.md").read_text().split())
    assert f"`hysteresis_pct` (default {host.hysteresis_pct} %)" in text
    assert f"`confirm_samples` (default {host.confirm_samples})" in text
    assert f"(`debounce_ms`, default {host.debounce_ns // 1_000_000} ms)" in text
    assert f"`min_spread` (default {host.min_spread} counts)" in text
    # the light sensor's switching points
    light = fw["light"].LightSensor()
    mid, band = (light.dark + light.bright) // 2, (light.bright - light.dark) // 8
    assert f"above {round(mid + band, -2):,} counts".replace(",", " ") in text
    assert f"below {round(mid - band, -2):,}".replace(",", " ") in text


LM339_PINS = {"OUT1": 2, "IN1−": 4, "IN1+": 5, "OUT2": 1, "IN2−": 6, "IN2+": 7,
              "OUT3": 14, "IN3−": 8, "IN3+": 9, "OUT4": 13, "IN4−": 10, "IN4+": 11,
              "VCC": 3, "GND": 12}
LM393_PINS = {"OUT1": 1, "IN1−": 2, "IN1+": 3, "GND": 4, "VCC": 8}


def test_comparator_pins_are_complete_and_match_the_pin_map():
    texts = svg_text(HARDWARE / "pad-board-schematic.svg")
    for chip, pins in (("LM339N (", LM339_PINS), ("LM393P (", LM393_PINS)):
        (line,) = [t for t in texts if t.startswith(chip)]  # one line lists the chip's pins
        for name, pin in pins.items():
            assert re.search(rf"(?<![\w−+]){re.escape(name)} {pin}\b", line), (chip, name)
    rows = re.findall(r"^\| (\w+) \([^|]*\| GPIO\d+ \| \d+ \| (LM3\d\d) (OUT\d) \(pin (\d+)\) \|",
                      (HARDWARE / "pi-pin-map.md").read_text(), re.M)
    assert [r[0] for r in rows] == [f.value for f in DEFAULT_GPIO_PINS]
    for _fig, chip, out, pin in rows:
        assert (LM339_PINS if chip == "LM339" else LM393_PINS)[out] == int(pin), (chip, out)
    assert "5 V rail: comparator VCC only (LM339 3, LM393 8)" in svg_text(
        HARDWARE / "wiring-gpio.svg")


def test_led_capacitor_is_the_same_everywhere():
    bom = (HARDWARE / "bom.md").read_text()
    (cap,) = re.findall(r"\| 1 \| Capacitor (\d+ µF) \d+ V \(LED supply\)", bom)
    assert f"{cap} across" in " ".join(svg_text(HARDWARE / "wiring-board.svg"))
    assert f"{cap} across" in " ".join(svg_text(HARDWARE / "pad-board-schematic.svg"))
    assert f"capacitor is {cap}" in " ".join(bom.split())
    # the power budget quotes the firmware's brightness cap
    from controller.sim.virtual_board import load_firmware

    cap_level = load_firmware()["leds"].Leds(None, 5).max_level
    assert f"caps each colour at {cap_level} of 255" in " ".join(bom.split())
    assert any(f"caps each colour at {cap_level} of 255" in t
               for t in svg_text(HARDWARE / "wiring-board.svg"))

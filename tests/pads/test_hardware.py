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


# -- every label fits its drawing, in DejaVu Sans (the drawings' first font) or a font up to
# 10 % wider; measured with the font matplotlib ships, through Pillow
def _text_width(text: str, size: float, bold: bool) -> float:
    import matplotlib
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    font = ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)
    return float(font.getlength(text))


@pytest.mark.parametrize("path", SVGS, ids=lambda p: p.name)
def test_every_label_fits_on_its_drawing(path: Path):
    root = ET.parse(path).getroot()
    width = float(root.get("width"))
    for t in root.iter(f"{SVG_NS}text"):
        text = "".join(t.itertext())
        w = 1.1 * _text_width(text, float(t.get("font-size")), t.get("font-weight") == "bold")
        x = float(t.get("x"))
        left = {"start": x, "middle": x - w / 2, "end": x - w}[t.get("text-anchor")]
        assert left >= 0 and left + w <= width, (path.name, text, round(left), round(left + w))


# -- the perfboard layouts: the drawn wires connect exactly the schematic's nets
MUX = {"Y4": 1, "Y6": 2, "COM": 3, "Y7": 4, "Y5": 5, "E": 6, "VEE": 7, "GND": 8, "S2": 9,
       "S1": 10, "S0": 11, "Y3": 12, "Y0": 13, "Y1": 14, "Y2": 15, "VCC": 16}  # CD74HC4051
MCP6002 = {"OUTA": 1, "-INA": 2, "+INA": 3, "VSS": 4, "+INB": 5, "-INB": 6, "OUTB": 7, "VDD": 8}
AHCT125 = {"1OE": 1, "1A": 2, "1Y": 3, "2OE": 4, "2A": 5, "2Y": 6, "GND": 7, "3Y": 8, "3A": 9,
           "3OE": 10, "4Y": 11, "4A": 12, "4OE": 13, "VCC": 14}
PICO_POWER = {"3V3 OUT": 36, "VBUS": 40, "GND": (3, 8, 13, 18, 23, 28, 33, 38)}


class Board:
    """A perfboard drawing read back: pin holes, wires and the wire list."""

    def __init__(self, path: Path) -> None:
        root = ET.parse(path).getroot()
        self.holes: dict[tuple[float, float], str] = {}
        for c in root.iter(f"{SVG_NS}circle"):
            if c.get("data-pin") is not None:
                at = (float(c.get("cx")), float(c.get("cy")))
                assert at not in self.holes, (at, c.get("data-pin"), self.holes.get(at))
                self.holes[at] = c.get("data-pin")
        self.wires = [(w.get("data-from"), w.get("data-to"), w.get("points"))
                      for w in root.iter(f"{SVG_NS}polyline") if w.get("class") == "wire"]
        texts = svg_text(path)
        self.listed = [t.split(". ", 1)[1] for t in texts if re.match(r"\d+\. ", t)]
        self.labels: dict[str, str] = {}
        for (a, b, _), line in zip(self.wires, self.listed, strict=True):
            la, lb = line.split(" to ")
            for key, label in ((a, la), (b, lb)):
                assert self.labels.setdefault(key, label) == label, (key, label)
        self.parent: dict[str, str] = {}
        for a, b, _ in self.wires:
            self.parent[self.find(a)] = self.find(b)

    def find(self, x: str) -> str:
        while self.parent.get(x, x) != x:
            x = self.parent[x]
        return x

    def group(self, key: str) -> str:
        assert key in self.parent or any(key in (a, b) for a, b, _ in self.wires), \
            f"{key} has no wire"
        return self.find(key)


def _check_board(board: Board, nets: dict[str, list[str]],
                 parts: dict[str, tuple[str, str]]) -> None:
    # every wire ends on the holes it names (a rail: any hole of that rail)
    for a, b, points in board.wires:
        pts = [tuple(float(v) for v in p.split(",")) for p in points.split()]
        assert board.holes.get(pts[0]) == a and board.holes.get(pts[-1]) == b, (a, b)
    groups = {}
    for net, members in nets.items():
        found = {board.group(m) for m in members}
        assert len(found) == 1, (net, {m: board.group(m) for m in members})
        groups[net] = found.pop()
        if net in ("3V3", "5V", "GND") and f"rail:{net}" in board.parent:
            assert board.group(f"rail:{net}") == groups[net], net
    assert len(set(groups.values())) == len(groups), "two nets are wired together"
    # each two-legged part sits between the two nets the schematic puts it between
    for ref, (n1, n2) in parts.items():
        ends = {board.group(f"{ref}.1"), board.group(f"{ref}.2")}
        assert ends == {groups[n1], groups[n2]}, (ref, n1, n2)
    # and no wire goes anywhere else
    known = set(groups.values())
    for a, b, _ in board.wires:
        assert board.find(a) in known, (a, b)


def test_option_b_perfboard_wires_the_schematic_with_the_firmwares_pins():
    pins = firmware_pins()
    board = Board(HARDWARE / "perfboard-b.svg")
    s0, s1, s2 = pins["MUX_SELECT"]
    pico = {gp: f"PICO.{PICO[gp]}" for gp in PICO}
    u1 = {name: f"U1.{n}" for name, n in MUX.items()}
    u2 = {name: f"U2.{n}" for name, n in MCP6002.items()}
    u3 = {name: f"U3.{n}" for name, n in AHCT125.items()}
    nets = {
        "3V3": ["PICO.36", u1["VCC"], u2["VDD"], *(f"J{i}.1" for i in range(1, 7))],
        "5V": ["PICO.40", u3["VCC"], u3["2OE"], u3["3OE"], u3["4OE"], "J7.1"],
        "GND": ["PICO.38", u1["GND"], u1["VEE"], u1["E"], u1["Y5"], u1["Y6"], u1["Y7"],
                u2["VSS"], u3["GND"], u3["1OE"], u3["2A"], u3["3A"], u3["4A"], "J7.3"],
        "S0": [pico[s0], u1["S0"]], "S1": [pico[s1], u1["S1"]], "S2": [pico[s2], u1["S2"]],
        "COM": [u1["COM"], u2["+INA"]],
        "ADC0": [u2["OUTA"], u2["-INA"], pico[pins["PAD_ADC"]]],
        "light": ["J6.2", u2["+INB"]],
        "ADC1": [u2["OUTB"], u2["-INB"], pico[pins["LIGHT_ADC"]]],
        "LED": [pico[pins["LED_PIN"]], u3["1A"]], "LED 1Y": [u3["1Y"]], "DIN": ["J7.2"],
        "safe mode": [pico[pins["SAFE_MODE_PIN"]], "JP1.1"], "safe GND": ["JP1.2", "PICO.28"],
    }
    assert pins["NPADS"] == 5
    parts = {"R6": ("light", "GND"), "R7": ("LED 1Y", "DIN"), "C1": ("3V3", "GND"),
             "C2": ("3V3", "GND"), "C3": ("5V", "GND"), "C4": ("5V", "GND")}
    for i, fig in enumerate(DEFAULT_GPIO_PINS):  # pads in figure order on mux channels 0-4
        nets[f"pad {fig.value}"] = [f"J{i + 1}.2", u1[f"Y{i}"]]
        parts[f"R{i + 1}"] = (f"pad {fig.value}", "GND")
    _check_board(board, nets, parts)
    # the safe-mode jumper shorts GP22 to the Pico's GND pin beside it (flashing.md)
    assert 28 in PICO_POWER["GND"] and abs(PICO[pins["SAFE_MODE_PIN"]] - 28) == 1
    # C4, the LED supply's electrolytic, has its + (pin 1) on 5 V
    assert board.group("C4.1") == board.group("J7.1")
    # what a person reads in the wire list names the firmware's pins
    for gp, label in ((s0, "S0"), (s1, "S1"), (s2, "S2")):
        assert f"Pico pin {PICO[gp]} (GP{gp}) to U1 pin {MUX[label]} {label}" in board.listed
    for gp, what in ((pins["PAD_ADC"], "ADC0"), (pins["LIGHT_ADC"], "ADC1")):
        assert board.labels[pico[gp]] == f"Pico pin {PICO[gp]} (GP{gp} / {what})"
    assert board.labels[pico[pins["LED_PIN"]]] == f"Pico pin {PICO[pins['LED_PIN']]} (GP16)"
    for key, label in board.labels.items():  # every chip pin named by its datasheet
        chip, _, num = key.partition(".")
        table = {"U1": MUX, "U2": MCP6002, "U3": AHCT125}.get(chip)
        if table is not None:
            (name,) = [n for n, p in table.items() if p == int(num)]
            assert label == f"{chip} pin {num} {name}", (key, label)


def test_option_a_perfboard_wires_each_channel_to_the_pin_map():
    board = Board(HARDWARE / "perfboard-a.svg")
    rows = re.findall(r"^\| (\w+) \([^|]*\| GPIO(\d+) \| (\d+) \| (LM3\d\d) (OUT\d) "
                      r"\(pin (\d+)\) \|", (HARDWARE / "pi-pin-map.md").read_text(), re.M)
    assert [r[0] for r in rows] == [f.value for f in DEFAULT_GPIO_PINS]
    nets = {
        "3V3": ["J6.1", *(f"J{i}.1" for i in range(1, 6)), *(f"RV{i}.1" for i in range(1, 6)),
                "U2.6"],
        "5V": ["J6.2", f"U1.{LM339_PINS['VCC']}", f"U2.{LM393_PINS['VCC']}"],
        "GND": ["J6.3", f"U1.{LM339_PINS['GND']}", f"U2.{LM393_PINS['GND']}", "U2.5",
                *(f"RV{i}.3" for i in range(1, 6))],
    }
    parts = {"C1": ("5V", "GND"), "C2": ("5V", "GND")}
    for i, (fig, bcm, phys, chip, out, pin) in enumerate(rows):
        ref = "U1" if chip == "LM339" else "U2"
        table = LM339_PINS if chip == "LM339" else LM393_PINS
        ch = out[-1]
        assert table[out] == int(pin)
        nets[f"{fig} node"] = [f"J{i + 1}.2", f"{ref}.{table[f'IN{ch}−']}"]
        nets[f"{fig} wiper"] = [f"RV{i + 1}.2"]
        nets[f"{fig} IN+"] = [f"{ref}.{table[f'IN{ch}+']}"]
        nets[f"{fig} out"] = [f"{ref}.{pin}", f"J6.{4 + i}"]
        parts[f"R{i + 1}"] = (f"{fig} node", "GND")  # 47k divider
        parts[f"R{i + 6}"] = (f"{fig} wiper", f"{fig} IN+")  # 10k to the reference
        parts[f"R{i + 11}"] = (f"{fig} out", f"{fig} IN+")  # 1M hysteresis
        # J6 goes to the Pi pin of pi-pin-map.md, the default of controller/pads/config.py
        assert DEFAULT_GPIO_PINS[next(f for f in DEFAULT_GPIO_PINS if f.value == fig)] == \
            int(bcm) and PI_HEADER[int(bcm)] == int(phys)
        assert board.labels[f"J6.{4 + i}"] == f"J6 pin {4 + i} ({fig} (Pi pin {phys}, GPIO{bcm}))"
    _check_board(board, nets, parts)
    assert board.labels["J6.2"] == "J6 pin 2 (5 V (Pi pin 2))"
    assert board.labels["J6.1"] == "J6 pin 1 (3V3 (Pi pin 1))"
    # 5 V reaches the comparators' supply pins and their capacitors, nothing else
    five = board.group("J6.2")
    on_five = {k for k in board.labels if board.group(k) == five}
    assert on_five == {"J6.2", "U1.3", "U2.8", "C1.1", "C2.1"}


def test_enclosure_fits_the_board_and_its_cut_outs_sit_at_the_pico_and_the_headers():
    board = Board(HARDWARE / "perfboard-b.svg")
    root = ET.parse(HARDWARE / "perfboard-b.svg").getroot()
    xs = sorted({float(c.get("cx")) for c in root.iter(f"{SVG_NS}circle") if c.get("r") in
                 ("2.5", "3", "4")})
    ys = sorted({float(c.get("cy")) for c in root.iter(f"{SVG_NS}circle") if c.get("r") in
                 ("2.5", "3", "4")})
    cols, rows = len(xs), len(ys)
    pitch = xs[1] - xs[0]
    texts = svg_text(HARDWARE / "perfboard-b.svg")
    (w_mm, h_mm, c2, r2), = [tuple(map(int, m)) for t in texts for m in re.findall(
        r"Perfboard (\d+) x (\d+) mm, (\d+) x (\d+) holes", t)]
    assert (cols, rows) == (c2, r2)

    def mm(key: str) -> tuple[float, float]:
        (x, y), = [at for at, k in board.holes.items() if k == key]
        col, row = (x - xs[0]) / pitch, (y - ys[0]) / pitch
        return ((w_mm - (cols - 1) * 2.54) / 2 + col * 2.54,
                (h_mm - (rows - 1) * 2.54) / 2 + row * 2.54)

    # the Pico's USB end lies between its pin 1 row and pin 40 row (pin 40 is the top right)
    pin40 = mm("PICO.40")
    usb_x = pin40[0] - 7 * 2.54 / 2
    notes = " ".join(svg_text(HARDWARE / "enclosure.svg"))
    iw, idp, ih = map(int, re.search(r"Box: (\d+) x (\d+) x (\d+) mm inside", notes).groups())
    gx, gy = map(int, re.search(r"(\d+) mm from the left wall and (\d+) mm from the USB wall",
                                notes).groups())
    assert gx + w_mm <= iw and gy + h_mm <= idp  # the board fits, with room for the cables
    centre = float(re.search(r"USB cut-out 12 x 8 mm in the USB wall, centred ([\d.]+) mm",
                             notes).group(1))
    assert centre == pytest.approx(gx + usb_x, abs=0.05)
    height = float(re.search(r"USB cut-out centre ([\d.]+) above the floor", notes).group(1))
    assert height < ih - 5  # under the lid
    # the cable slot spans the pad, light and LED headers on the right edge
    slot = float(re.search(r"Cable slot 30 x 10 mm in the right wall, centred ([\d.]+) mm",
                           notes).group(1))
    header_y = [gy + mm(f"J{i}.1")[1] for i in range(1, 8)]
    assert min(header_y) >= slot - 15 - 10 and max(header_y) <= slot + 15 + 10
    assert all(mm(f"J{i}.1")[0] > w_mm - 5 for i in range(1, 8))  # on the right edge

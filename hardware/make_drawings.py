"""Draw the hardware/ SVGs: python hardware/make_drawings.py [OUT_DIR].

The SVGs are committed; rerun this after changing a drawing (a test checks
that the committed files match what this script draws).
"""
# Drawing helpers take coordinates positionally and SVG strings run long:
# ruff: noqa: PLR0917, E501
import heapq
import itertools
import math
import sys
from pathlib import Path

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'


class Svg:
    def __init__(self, w, h, title):
        self.w, self.h = w, h
        self.parts = [f'<title>{title}</title>',
                      f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>',
                      f'<text x="{w/2}" y="28" text-anchor="middle" font-size="20" font-weight="bold" {FONT}>{title}</text>']

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, t, size=13, anchor="start", weight="normal", color="#111"):
        t = t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" fill="{color}" {FONT}>{t}</text>')

    def rect(self, x, y, w, h, fill="#f4f4f4", stroke="#333", sw=1.5, rx=4):
        self.add(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')

    def line(self, pts, color="#333", sw=2, dash=None):
        d = " ".join(f"{x},{y}" for x, y in pts)
        da = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="{sw}"{da}/>')

    def dot(self, x, y, color="#333", r=3.5):
        self.add(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{color}"/>')

    def circle(self, x, y, r, fill="none", stroke="#333", sw=1.5):
        self.add(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')

    def resistor(self, x, y, horizontal=True, label="", value=""):
        # a 40 px long box resistor centred at (x, y)
        if horizontal:
            self.rect(x - 20, y - 7, 40, 14, fill="white", rx=1)
            self.text(x, y - 11, label, 11, "middle")
            self.text(x, y + 22, value, 11, "middle")
        else:
            self.rect(x - 7, y - 20, 14, 40, fill="white", rx=1)
            self.text(x + 12, y - 4, label, 11)
            self.text(x + 12, y + 10, value, 11)

    def fsr(self, x, y, label):
        self.rect(x - 7, y - 20, 14, 40, fill="#ffe9b3", rx=1)
        self.line([(x - 12, y + 14), (x + 12, y - 14)], sw=1.2)
        self.text(x + 14, y - 4, label, 11)
        self.text(x + 14, y + 10, "FSR 402", 11)

    def gnd(self, x, y):
        self.line([(x, y), (x, y + 8)])
        self.line([(x - 10, y + 8), (x + 10, y + 8)])
        self.line([(x - 6, y + 12), (x + 6, y + 12)])
        self.line([(x - 2, y + 16), (x + 2, y + 16)])

    def arrow(self, x1, y1, x2, y2, color="#333"):
        self.line([(x1, y1), (x2, y2)], color, 1.2)
        a = math.atan2(y2 - y1, x2 - x1)
        for s in (-1, 1):
            self.line([(x2, y2), (x2 - 9 * math.cos(a + s * 0.4), y2 - 9 * math.sin(a + s * 0.4))], color, 1.2)

    def dim(self, x1, y1, x2, y2, label, offset=0, size=12):
        self.arrow((x1 + x2) / 2, (y1 + y2) / 2, x1, y1, "#0a5")
        self.arrow((x1 + x2) / 2, (y1 + y2) / 2, x2, y2, "#0a5")
        if y1 == y2:
            self.text((x1 + x2) / 2, y1 - 5 + offset, label, size, "middle", color="#0a5")
        else:
            self.text(x1 + 6 + offset, (y1 + y2) / 2 + 4, label, size, color="#0a5")

    def save(self, name):
        body = "\n".join(self.parts)
        (OUT / name).write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
            f'viewBox="0 0 {self.w} {self.h}">\n{body}\n</svg>\n')


FIGS = [("ship", "blue", "#2a6fdb"), ("viking", "red", "#d33"), ("child", "green", "#2a2"),
        ("chest", "yellow", "#d9b800"), ("dog", "white", "#999")]
GPIO = [(17, 11), (27, 13), (22, 15), (23, 16), (24, 18)]
LED_CAP = "100 µF"  # on the LEDs' 5 V; bom.md says why not 1000 µF on a USB port


def wiring_gpio():
    s = Svg(1000, 720, "Option A: five FSR pads, comparators, Raspberry Pi GPIO")
    # Pi header
    s.rect(40, 70, 190, 520, fill="#e8f5e9")
    s.text(135, 92, "Raspberry Pi", 13, "middle", "bold")
    s.text(135, 108, "40-pin header", 13, "middle", "bold")
    pins = [(1, "3V3"), (2, "5V"), (6, "GND"), (9, "GND")] + [(p, f"GPIO{g}") for g, p in GPIO]
    ys = {}
    for i, (phys, name) in enumerate(pins):
        y = 130 + i * 48
        ys[name if name not in ys else name + "b"] = y
        s.circle(210, y, 7, fill="#c8a400")
        s.text(195, y + 4, f"pin {phys}  {name}", 12, "end")
    # comparator board
    s.rect(330, 70, 330, 520, fill="#e3f2fd")
    s.text(495, 95, "Comparator board (LM339 + LM393)", 13, "middle", "bold")
    s.text(495, 113, "one channel per pad: pad-board-schematic.svg (option A)", 11, "middle")
    for i, (fig, _colour, c) in enumerate(FIGS):
        y = 130 + (i + 4) * 48
        s.rect(350, y - 16, 290, 32, fill="white")
        s.text(358, y + 4, f"{fig}: FSR divider -> IN-, trimpot -> IN+, OUT", 11)
        g, phys = GPIO[i]
        s.line([(217, y), (350, y)], color=c, sw=2.5)
        s.text(290, y - 5, f"GPIO{g}", 11, "middle", color=c)
    # power rails
    s.line([(217, 130), (310, 130), (310, 140), (360, 140)], color="#d00", sw=2.5)
    s.text(365, 144, "3V3 rail: FSR dividers and trimpots", 11, color="#d00")
    s.line([(217, 178), (300, 178), (300, 180), (360, 180)], color="#e65100", sw=2.5)
    s.text(365, 184, "5 V rail: comparator VCC only (LM339 3, LM393 8)", 11,
           color="#e65100")
    s.line([(217, 226), (290, 226), (290, 220), (360, 220)], color="#000", sw=2.5)
    s.line([(217, 274), (290, 274), (290, 220)], color="#000", sw=2.5)
    s.text(365, 224, "GND rail", 11)
    # pads
    for i, (fig, colour, c) in enumerate(FIGS):
        y = 130 + (i + 4) * 48
        s.line([(640, y), (780, y)], color="#777", sw=2)
        s.circle(800, y, 20, fill="#ffe9b3")
        s.circle(800, y, 9, fill=c)
        s.text(830, y + 4, f"{fig} pad ({colour})", 12)
    s.text(760, 276, "2 wires per FSR:", 11, "middle")
    s.text(760, 291, "3V3 and divider node", 11, "middle")
    s.text(40, 620, "Comparator outputs are open collector: they only ever pull a GPIO low; the Pi's internal 3.3 V pull-ups are enabled by", 12)
    s.text(40, 638, "the software. The comparators run from 5 V because their inputs must stay 1.5-2 V below their supply (the pads sit at 1.8-2.3 V).", 12)
    s.text(40, 656, "A standing figure pulls its GPIO low (placed_when = \"low\"). Never connect 5 V to a GPIO pin or to a pull-up resistor.", 12)
    s.text(40, 674, "Switch variant: a normally-open switch from each GPIO to GND replaces that comparator channel (same pins, same software).", 12)
    s.text(40, 692, "Pin numbers are the defaults of controller/pads/config.py (DEFAULT_GPIO_PINS); pi-pin-map.md lists them.", 12)
    s.save("wiring-gpio.svg")


def wiring_board():
    s = Svg(1200, 750, "Option B: pad board (Raspberry Pi Pico) on USB")
    # Pi
    s.rect(40, 250, 160, 160, fill="#e8f5e9")
    s.text(120, 280, "Raspberry Pi", 14, "middle", "bold")
    s.text(120, 300, "USB-A port", 12, "middle")
    s.text(120, 330, "/dev/serial/by-id/", 11, "middle")
    s.text(120, 345, "usb-MicroPython_...", 11, "middle")
    s.line([(200, 330), (330, 330)], color="#555", sw=5)
    s.text(265, 320, "USB cable", 12, "middle")
    s.text(265, 350, "(data + 5 V power)", 11, "middle")
    # Pico
    s.rect(330, 150, 220, 380, fill="#fce4ec")
    s.text(440, 175, "Raspberry Pi Pico", 14, "middle", "bold")
    pico = [("GP2 (pin 4)", 210), ("GP3 (pin 5)", 240), ("GP4 (pin 6)", 270),
            ("GP26 / ADC0 (pin 31)", 320), ("GP27 / ADC1 (pin 32)", 360),
            ("GP16 (pin 21)", 400), ("GP22 (pin 29) safe-mode jumper", 430),
            ("VBUS 5 V (pin 40)", 460), ("3V3 OUT (pin 36)", 485), ("GND (pin 38)", 510)]
    for name, y in pico:
        s.circle(550, y, 6, fill="#c8a400")
        s.text(540, y + 4, name, 11, "end")
    # mux
    s.rect(640, 150, 170, 170, fill="#e3f2fd")
    s.text(725, 172, "CD74HC4051", 13, "middle", "bold")
    s.text(725, 188, "8:1 analog mux", 11, "middle")
    for name, y in (("S0 (11)", 210), ("S1 (10)", 240), ("S2 (9)", 270)):
        s.line([(556, y), (640, y)], color="#6a1b9a")
        s.text(648, y + 4, name, 11)
    s.text(725, 300, "COM (3) -> buffer", 11, "middle")
    # buffer
    s.rect(640, 340, 170, 60, fill="#fff3e0")
    s.text(725, 362, "MCP6002 follower", 12, "middle", "bold")
    s.text(725, 380, "A: pads, B: light", 11, "middle")
    s.line([(725, 320), (725, 340)], color="#333")
    s.line([(640, 370), (600, 370), (600, 320), (556, 320)], color="#333")
    s.line([(640, 390), (590, 390), (590, 360), (556, 360)], color="#a60")
    # FSRs
    for i, (fig, _colour, c) in enumerate(FIGS):
        y = 170 + i * 34
        chan = ["Y0 (13)", "Y1 (14)", "Y2 (15)", "Y3 (12)", "Y4 (1)"][i]
        s.line([(810, y), (900, y)], color=c, sw=2.5)
        s.text(815, y - 4, chan, 10)
        s.circle(925, y, 14, fill="#ffe9b3")
        s.circle(925, y, 6, fill=c)
        s.text(948, y + 4, f"{fig} FSR + 47 kΩ to GND", 11)
    s.text(960, 350, "each FSR: 3V3 -> FSR -> node", 11, "middle")
    s.text(960, 365, "node -> 47 kΩ -> GND, node -> Yn", 11, "middle")
    # light sensor
    s.circle(925, 420, 14, fill="#fffde7")
    s.text(948, 424, "TEPT5700 light sensor", 11)
    s.text(948, 439, "(taped to the screen)", 11)
    s.line([(911, 420), (820, 420), (820, 390), (810, 390)], color="#a60")
    # LEDs
    s.line([(556, 400), (620, 400), (620, 560), (700, 560)], color="#00838f", sw=2)
    s.rect(700, 540, 120, 40, fill="#e0f7fa")
    s.text(760, 565, "74AHCT125", 12, "middle", "bold")
    s.line([(820, 560), (880, 560)], color="#00838f", sw=2)
    s.text(850, 552, "330 Ω", 10, "middle")
    for i, (_fig, _colour, c) in enumerate(FIGS):
        s.rect(880 + i * 40, 545, 30, 30, fill="#fafafa")
        s.circle(895 + i * 40, 560, 8, fill=c)
    s.text(975, 535, "WS2812B, one beside each pad (optional)", 11, "middle")
    s.text(975, 595, "DIN -> DOUT chained pad to pad", 11, "middle")
    s.line([(556, 460), (600, 460), (600, 620), (1085, 620), (1085, 560), (1070, 560)], color="#d00", sw=2)
    s.text(780, 635, f"VBUS 5 V -> LEDs and 74AHCT125 VCC; {LED_CAP} across the LEDs' supply", 11, "middle", color="#d00")
    s.text(40, 665, "All analog parts run from the Pico's 3V3 OUT; ADC_VREF (pin 35) stays at its default. Grounds are common.", 12)
    s.text(40, 685, "Power: the Pico about 40 mA, the five LEDs at most about 0.1 A (the firmware caps each colour at 96 of 255): under 0.2 A from the Pi's USB port.", 12)
    s.text(40, 705, "Safe mode: a jumper from GP22 (pin 29) to GND (pin 28) at power-up stops main.py, for updating the files (flashing.md).", 12)
    s.text(40, 725, "Pin-level connections with part pin numbers: pad-board-schematic.svg. Pins in firmware/main.py; a test checks both drawings against it.", 12)
    s.save("wiring-board.svg")


def schematic():
    s = Svg(1150, 860, "Pad board schematic (option B) and comparator channel (option A)")
    # rails
    s.line([(60, 90), (700, 90)], color="#d00", sw=2)
    s.text(62, 84, "3V3 (Pico pin 36)", 11, color="#d00")
    s.line([(60, 400), (700, 400)], color="#000", sw=2)
    s.text(705, 404, "GND (Pico pins 33, 38)", 11)
    for i, (fig, _colour, c) in enumerate(FIGS):
        x = 100 + i * 110
        s.line([(x, 90), (x, 130)])
        s.fsr(x, 150, f"R{i+1}F")
        s.line([(x, 170), (x, 230)])
        s.dot(x, 230)
        s.line([(x, 230), (x, 250)])
        s.resistor(x, 270, horizontal=False, label=f"R{i+1}", value="47 kΩ")
        s.line([(x, 290), (x, 400)])
        s.line([(x, 230), (x + 40, 230), (x + 40, 470)], color=c)
        s.text(x - 6, 215, fig, 11, "end", color=c)
    # mux
    s.rect(120, 470, 520, 90, fill="#e3f2fd")
    s.text(380, 490, "U1 CD74HC4051E (DIP-16)", 13, "middle", "bold")
    for i, pin in enumerate(["Y0 13", "Y1 14", "Y2 15", "Y3 12", "Y4 1"]):
        s.text(100 + i * 110 + 40, 508, pin, 10, "middle")
    s.text(380, 530, "VCC 16 -> 3V3 (100 nF to GND)   GND 8, VEE 7, E 6 -> GND   Y5-Y7 (5, 2, 4) -> GND", 11, "middle")
    s.text(380, 548, "S0 11 <- GP2   S1 10 <- GP3   S2 9 <- GP4   COM 3 -> U2A +IN", 11, "middle")
    # buffer
    s.line([(640, 515), (720, 515)])
    s.add('<polygon points="720,480 720,560 800,520" fill="#fff3e0" stroke="#333" stroke-width="1.5"/>')
    s.text(735, 505, "+", 14)
    s.text(735, 545, "−", 14)
    s.text(700, 618, "U2A MCP6002: +IN 3, −IN 2 = OUT 1", 11)
    s.line([(800, 520), (860, 520)])
    s.dot(830, 520)
    s.line([(830, 520), (830, 600), (700, 600), (700, 540), (720, 540)])
    s.text(870, 524, "-> GP26 / ADC0 (pin 31)", 12)
    s.text(700, 636, "U2 VDD 8 -> 3V3, VSS 4 -> GND, 100 nF at pin 8", 11)
    # light sensor
    s.line([(900, 90), (1000, 90)], color="#d00", sw=2)
    s.text(902, 84, "3V3", 11, color="#d00")
    s.line([(960, 90), (960, 130)])
    s.circle(960, 150, 16, fill="#fffde7")
    s.text(982, 146, "Q1 TEPT5700", 11)
    s.text(982, 160, "C to 3V3, E to node", 11)
    s.line([(960, 166), (960, 230)])
    s.dot(960, 230)
    s.resistor(960, 270, horizontal=False, label="R6", value="10 kΩ")
    s.line([(960, 290), (960, 330)])
    s.gnd(960, 330)
    s.line([(960, 230), (900, 230), (900, 300)], color="#a60")
    s.text(850, 320, "-> U2B +IN (5); U2B OUT (7) = -IN (6) -> GP27 / ADC1 (pin 32)", 11, "middle", color="#a60")
    # LEDs
    s.rect(866, 380, 272, 112, fill="#e0f7fa")
    s.text(1002, 400, "U3 74AHCT125 (one gate)", 12, "middle", "bold")
    s.text(1002, 418, "1A (2) <- GP16, 1OE (1) -> GND", 11, "middle")
    s.text(1002, 434, "1Y (3) -> 330 Ω -> WS2812B DIN", 11, "middle")
    s.text(1002, 450, "VCC 14 -> VBUS 5 V (100 nF), GND 7", 11, "middle")
    s.text(1002, 466, "unused: OE 4, 10, 13 -> 5 V; A 5, 9, 12 -> GND", 11, "middle")
    s.text(1002, 482, f"{LED_CAP} across the LEDs' 5 V and GND", 11, "middle")
    # option A comparator channel
    s.rect(40, 660, 1070, 180, fill="#fafafa", stroke="#888")
    s.text(60, 682, "Option A, one channel of LM339N / LM393P (repeat for each pad; VCC from the Pi's 5 V, everything else 3V3):", 12, "start", "bold")
    s.text(60, 705, "FSR divider node (FSR from 3V3, 47 kΩ to GND) -> IN− (inverting input).", 12)
    s.text(60, 725, "10 kΩ trimpot between 3V3 and GND, wiper -> 10 kΩ -> IN+ ; 1 MΩ from OUT back to IN+ (hysteresis ≈ 40 mV).", 12)
    s.text(60, 745, "OUT (open collector) -> Pi GPIO, internal pull-up on. Figure standing: node above the reference -> OUT low.", 12)
    s.text(60, 765, "VCC 5 V: an LM339/LM393 input works only up to VCC − 2 V, so a 3V3 supply (1.3 V) would be below the pads' 1.8-2.3 V.", 12)
    s.text(60, 785, "Set each trimpot halfway between the node voltages with and without the figure (fsr-divider.md). 100 nF from VCC to GND per package.", 12)
    s.text(60, 805, "LM339N (ship, viking, child, chest): OUT1 2, IN1− 4, IN1+ 5; OUT2 1, IN2− 6, IN2+ 7; OUT3 14, IN3− 8, IN3+ 9; OUT4 13, IN4− 10, IN4+ 11; VCC 3, GND 12.", 12)
    s.text(60, 825, "LM393P (dog): OUT1 1, IN1− 2, IN1+ 3, GND 4, VCC 8; unused half: IN2+ (5) to GND, IN2− (6) to 3V3, OUT2 (7) open.", 12)
    s.save("pad-board-schematic.svg")


def tray():
    s = Svg(1060, 740, "Pad tray: 5 pads in an 18 mm plywood board (all sizes in mm)")
    k = 2.0  # px per mm
    x0, y0 = 100, 90
    tw, th = 400, 110  # tray width and depth, mm
    s.rect(x0, y0, tw * k, th * k, fill="#f3e5c8", rx=6)
    # optional LEDs: a recess 38 in front of each pad centre, a groove joining them
    # along the front and down the right-hand end to the back edge
    gy = y0 + 12 * k
    s.line([(x0 + 50 * k, gy), (x0 + 392 * k, gy), (x0 + 392 * k, y0 + th * k)],
           color="#80cbc4", sw=6 * k)
    for i, (fig, _colour, c) in enumerate(FIGS):
        cx = x0 + (50 + i * 75) * k
        cy = y0 + 50 * k
        s.circle(cx, cy, 16 * k, fill="#e6d3a8")      # pocket 32 dia
        s.circle(cx, cy, 9.5 * k, fill="#ffe9b3")     # FSR disc 19 dia recess
        s.circle(cx, cy, 3 * k, fill=c)               # nub
        s.rect(cx - 3.5 * k, cy + 9.5 * k, 7 * k, (th - 50 - 9.5) * k, fill="#ffe9b3", rx=1)
        s.rect(cx - 3.5 * k, y0 + (th - 20) * k, 7 * k, 20 * k, fill="#e0b050", rx=1)
        s.rect(cx - 6 * k, gy - 6 * k, 12 * k, 12 * k, fill="#b2dfdb", rx=2)  # LED recess
        s.text(cx + 20 * k, cy - 12 * k, fig, 12, "middle", color=c)
    s.dim(x0, y0 + th * k + 25, x0 + tw * k, y0 + th * k + 25, "400")
    s.dim(x0 - 30, y0, x0 - 30, y0 + th * k, "110", offset=-40)
    s.dim(x0, y0 - 12, x0 + 50 * k, y0 - 12, "50")
    c1 = x0 + 50 * k
    s.dim(c1 + 16 * k + 4, y0 + 50 * k, c1 + 75 * k - 16 * k - 4, y0 + 50 * k, "75 pitch", size=11)
    s.dim(x0 + tw * k + 20, y0, x0 + tw * k + 20, y0 + 50 * k, "50", offset=2)
    s.dim(x0 + tw * k + 20, y0 + 50 * k, x0 + tw * k + 20, y0 + th * k, "60", offset=2)
    s.text(x0 + tw * k + 20, y0 + th * k + 14, "back edge", 11, "middle")
    s.text(x0 + tw * k + 20, y0 - 6, "front", 11, "middle")
    s.text(x0, y0 + th * k + 62, "Each pad: Ø32 pocket 6 deep; in its floor a Ø19 recess 1 deep for the FSR disc; a slot 7 wide, 1 deep for the FSR tail to", 12)
    s.text(x0, y0 + th * k + 80, "the back edge, 3 deep (darker) from where the tail's tabs end to the edge, for the 2-pin crimp housing on the tabs (bom.md).", 12)
    s.text(x0, y0 + th * k + 98, "Optional LEDs (teal): a 12 x 12 recess 3 deep centred 38 in front of each pad centre, outside the pad's coloured ring", 12)
    s.text(x0, y0 + th * k + 116, "(hardware/camera/README.md), and a groove 6 wide, 3 deep for the three LED wires to the back edge. Sized for your LED board.", 12)
    # section view: y in mm below the board's top face
    sx, sy = 100, 500
    kk = 8.0  # px per mm, four times the plan's scale
    s.text(sx, sy - 46, "Section through one pad (4 x the plan's scale)", 13, "start", "bold")
    bw = 60  # section width shown, mm
    px = sx + bw / 2 * kk

    def band(x_mm, y_mm, w_mm, h_mm, fill, rx=0):
        s.rect(px + x_mm * kk, sy + y_mm * kk, w_mm * kk, h_mm * kk, fill=fill, rx=rx)

    band(-bw / 2, 0, bw, 18, "#f3e5c8")                # board
    band(-16, 0, 32, 6, "white")                       # pocket
    band(-9.5, 6, 19, 1, "white")                      # FSR recess
    band(-9.5, 6.55, 19, 0.45, "#ffe9b3")              # FSR 402, 0.45 thick
    band(-3, 4.5, 6, 2.05, "#b08a5a")                  # nub
    band(-15, -0.5, 30, 5, "#d7b98e", rx=2)            # puck, 0.5 proud
    band(-12, -0.5, 24, 4, "#8d99a6")                  # two washers
    s.line([(px - 12 * kk, sy + 1.5 * kk), (px + 12 * kk, sy + 1.5 * kk)], color="#555", sw=1)
    band(-15, -1.5, 30, 1, "#999")                     # felt
    lx = sx + bw * kk + 40
    for y_mm, x_mm, label in (
            (-1, 14, "felt 1 (optional): the figure stands here"),
            (0, 15, "puck Ø30 x 5, 0.5 proud of the board, 1 clear of the pocket wall"),
            (1.5, 10, "2 fender washers M8 (Ø24 x 2) glued in a Ø24.5 x 4 recess:"),
            (5.5, 2, "nub Ø6 x 2 (dowel) presses the FSR's centre"),
            (6.8, 8, "FSR 402 in a Ø19 x 1 recess, taped")):
        ty = sy + y_mm * kk
        row = {-1: -34, 0: -8, 1.5: 18, 5.5: 58, 6.8: 84}[y_mm]
        s.line([(px + x_mm * kk, ty), (lx - 60, ty), (lx - 6, sy + row - 4)], color="#777", sw=1)
        s.text(lx, sy + row, label, 11)
    s.text(lx, sy + 32, "about 15 g of preload on the FSR", 11)
    s.dim(px - 16 * kk, sy + 18 * kk + 20, px + 16 * kk, sy + 18 * kk + 20, "32")
    s.dim(sx - 20, sy, sx - 20, sy + 18 * kk, "18", offset=-30)
    s.dim(px - 15 * kk - 24, sy - 0.5 * kk, px - 15 * kk - 24, sy + 4.5 * kk, "5", offset=-22)
    s.dim(px + 16 * kk + 20, sy, px + 16 * kk + 20, sy + 6 * kk, "6", offset=2)
    s.text(100, 700, "The nub rests on the FSR, so the puck stands about 0.5 mm proud and 1 mm clear of the pocket wall: only the nub carries the load.", 12)
    s.text(100, 718, "Cover the tray with one felt or vinyl sheet in the mat's colour (bom.md); the FSR tails leave at the back edge.", 12)
    s.save("pad-tray.svg")


def crop_deg(full_deg):
    """A field of view of the full sensor, cut to the 1536x864 mode's 2/3 crop."""
    return math.degrees(2 * math.atan(2 / 3 * math.tan(math.radians(full_deg / 2))))


CAMERA_MM = {"Standard": 825, "Wide": 465}  # lens height above the table (camera-mount.md)
MAT_MM = (660, 360)  # the camera's mat (hardware/pi/table.toml [camera] table_mm)


def camera():
    s = Svg(1000, 650, "Camera Module 3 over the table, 1536x864 @120 fps (3072x1728 sensor crop)")
    ground = 500
    cx = 500
    h_mm = CAMERA_MM["Standard"]
    k = 0.5  # px per mm
    top = ground - h_mm * k
    hfov, vfov = crop_deg(66), crop_deg(41)
    seen = [2 * h_mm * math.tan(math.radians(a / 2)) for a in (hfov, vfov)]
    whfov, wvfov = crop_deg(102), crop_deg(67)
    wh = CAMERA_MM["Wide"]
    wseen = [2 * wh * math.tan(math.radians(a / 2)) for a in (whfov, wvfov)]
    s.line([(80, ground), (920, ground)], color="#795548", sw=6)
    s.text(90, ground + 24, "table top", 12)
    s.rect(cx - MAT_MM[0] / 2 * k, ground - 6, MAT_MM[0] * k, 3, fill="#2e7d32", stroke="#2e7d32", sw=1, rx=0)
    s.rect(cx - 200 * k, ground - 6 - 18 * k, 400 * k, 18 * k, fill="#f3e5c8", rx=1)
    s.text(cx, ground - 22, "pad tray", 11, "middle")
    s.rect(cx - 15, top - 14, 30, 14, fill="#333", rx=2)
    s.text(cx + 24, top - 4, "Camera Module 3 (SC0872), lens down", 12)
    dx = seen[0] / 2 * k
    s.line([(cx, top), (cx - dx, ground)], color="#1565c0", sw=1.5, dash="6,4")
    s.line([(cx, top), (cx + dx, ground)], color="#1565c0", sw=1.5, dash="6,4")
    s.text(cx + 60, top + 60, f"{hfov:.1f}° across (long side)", 12, color="#1565c0")
    s.text(cx + 60, top + 78, f"{vfov:.1f}° along (short side)", 12, color="#1565c0")
    s.dim(cx - 140, top, cx - 140, ground, f"{h_mm} lens to table", offset=-150)
    s.dim(cx - dx, ground + 40, cx + dx, ground + 40,
          f"{seen[0]:.0f} x {seen[1]:.0f} seen (long x short side)")
    s.dim(cx - MAT_MM[0] / 2 * k, ground + 72, cx + MAT_MM[0] / 2 * k, ground + 72,
          f"mat {MAT_MM[0]} x {MAT_MM[1]}, markers in its corners")
    s.text(80, 600, f"Standard lens. With the Wide lens (SC0874): {whfov:.1f}° x {wvfov:.1f}° in this mode; "
           f"from {wh} mm it sees {wseen[0]:.0f} x {wseen[1]:.0f} mm.", 12)
    s.text(80, 618, "Spec field of view (66° x 41°; wide 102° x 67°) scaled to the 2/3 crop, for a 16:9 picture "
           "such as 768x432: camera-mount.md.", 12)
    s.save("camera-mount.svg")


# -- perfboard layouts and the enclosure ------------------------------------------------------
# A board is drawn from the component side on the 2.54 mm grid. Every connection is an
# insulated wire from hole to hole (the rails are bare tinned wire), drawn in its net's
# colour and listed by number. Pin holes carry data-pin="REF.PIN" and wires
# data-from/data-to, so the test checks that the drawn wires connect exactly the
# schematic's nets and end on the holes they name. Wires are routed by a small
# shortest-path search on the grid (turns and running beside another wire cost extra):
# a router for twenty-odd wires on one board is shorter than the hand-placed corners.

NET_COLOURS = {"3V3": "#d00", "5V": "#e65100", "GND": "#000"}
SIGNAL_COLOURS = ["#1565c0", "#6a1b9a", "#00838f", "#2e7d32", "#ad1457", "#795548",
                  "#283593", "#00695c", "#9e9d24", "#c2185b"]


class Perfboard:
    def __init__(self, s, x0, y0, cols, rows, size_mm):
        self.s, self.x0, self.y0, self.cols, self.rows = s, x0, y0, cols, rows
        self.size_mm = size_mm
        self.p = 20  # px per hole pitch
        self.pins = {}  # "REF.PIN" -> (col, row)
        self.labels = {}  # "REF.PIN" -> what a person reads ("Pico pin 4 (GP2)")
        self.rails = {}  # net -> segments of holes
        self.parts = []  # (kind, ref, (first, last), text)
        self.blocked = set()  # cells under a chip or a part's body
        self.wires = []  # (from, to, net, corners)
        self.used = {}  # cell -> how many wires pass it

    def xy(self, c, r):
        return self.x0 + 20 + c * self.p, self.y0 + 20 + r * self.p

    def pin(self, ref, num, cell, label):
        key = f"{ref}.{num}"
        assert cell not in self.pins.values(), (key, cell)
        assert 0 <= cell[0] < self.cols and 0 <= cell[1] < self.rows, (key, cell)
        self.pins[key] = cell
        self.labels[key] = label

    def dip(self, ref, part, col, row, names):
        n = len(names)
        for i, name in enumerate(names):
            num = i + 1
            cell = (col, row + i) if num <= n // 2 else (col + 3, row + n - num)
            self.pin(ref, num, cell, f"{ref} pin {num} {name}")
        self._body(col + 1, col + 2, row, row + n // 2 - 1)
        self.parts.append(("dip", ref, ((col, row), (col + 3, row + n // 2 - 1)), part))

    def pico(self, col, row, names):
        for num in range(1, 41):
            cell = (col, row + num - 1) if num <= 20 else (col + 7, row + 40 - num)
            if num in names:
                self.pin("PICO", num, cell, f"Pico pin {num} ({names[num]})")
            else:
                self.blocked.add(cell)  # the header's other pins
        self._body(col + 1, col + 6, row - 1, row + 19)
        self.parts.append(("pico", "PICO", ((col, row), (col + 7, row + 19)), "Raspberry Pi Pico"))

    def two(self, ref, a, b, text, kind="resistor", names=("", "")):
        for num, cell, name in ((1, a, names[0]), (2, b, names[1])):
            self.pin(ref, num, cell, f"{ref} {'end' if kind in ('resistor', 'cap') else 'pin'} "
                                     f"{num}{' ' + name if name else ''}")
        if a[1] == b[1]:
            self._body(min(a[0], b[0]) + 1, max(a[0], b[0]) - 1, a[1], a[1])
        else:
            self._body(a[0], a[0], min(a[1], b[1]) + 1, max(a[1], b[1]) - 1)
        self.parts.append((kind, ref, (a, b), text))

    def header(self, ref, cells, names, text):
        for i, (cell, name) in enumerate(zip(cells, names, strict=True)):
            self.pin(ref, i + 1, cell, f"{ref} pin {i + 1} ({name})")
        self.parts.append(("header", ref, (cells[0], cells[-1]), text))

    def _body(self, c1, c2, r1, r2):
        for c in range(c1, c2 + 1):
            for r in range(r1, r2 + 1):
                self.blocked.add((c, r))

    def rail(self, net, *polylines):
        self.rails[net] = [seg for line in polylines for seg in itertools.pairwise(line)]

    def rail_cells(self, net):
        out = set()
        for (c1, r1), (c2, r2) in self.rails.get(net, ()):
            for c in range(min(c1, c2), max(c1, c2) + 1):
                for r in range(min(r1, r2), max(r1, r2) + 1):
                    out.add((c, r))
        return out

    def _targets(self, end):
        return self.rail_cells(end[5:]) if end.startswith("rail:") else {self.pins[end]}

    def wire(self, a, b, net):
        """Route a wire from pin (or rail) `a` to pin (or rail) `b`."""
        starts, goals = self._targets(a), self._targets(b)
        taken = set(self.pins.values()) | self.blocked
        bare = set().union(*(self.rail_cells(n) for n in self.rails))
        # Dijkstra over (cell, direction); a turn costs 3, a cell on another wire 4, and
        # crossing a bare rail (the wire is insulated) 6
        heap, seen, count = [], {}, 0
        for c in sorted(starts):
            heapq.heappush(heap, (0, count, c, None, (c,)))
            count += 1
        while heap:
            cost, _, cell, d, path = heapq.heappop(heap)
            if cell in goals and len(path) > 1:
                break
            if seen.get((cell, d), 1e9) <= cost:
                continue
            seen[(cell, d)] = cost
            for nd in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nxt = (cell[0] + nd[0], cell[1] + nd[1])
                if not (0 <= nxt[0] < self.cols and 0 <= nxt[1] < self.rows):
                    continue
                if nxt in taken and nxt not in goals:
                    continue
                if nxt in bare and nxt not in goals and (d is not None and nd != d):
                    continue  # a wire crosses a rail straight, never turns on it
                step = (1 + (3 if d is not None and nd != d else 0) + 4 * self.used.get(nxt, 0)
                        + (6 if nxt in bare and nxt not in goals else 0))
                heapq.heappush(heap, (cost + step, count, nxt, nd, (*path, nxt)))
                count += 1
        else:
            raise ValueError(f"no route for {a} -> {b}")
        for c in path[1:-1]:
            self.used[c] = self.used.get(c, 0) + 1
        corners = [path[0]] + [path[i] for i in range(1, len(path) - 1)
                               if (path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1])
                               != (path[i + 1][0] - path[i][0], path[i + 1][1] - path[i][1])] + [path[-1]]
        self.wires.append((a, b, net, corners))

    def draw(self, list_x, list_y, list_rows=35, list_w=360):
        s, p = self.s, self.p
        w, h = self.cols * p + 20, self.rows * p + 20
        s.rect(self.x0, self.y0, w, h, fill="#e9d7a7", stroke="#8d6e63", sw=2, rx=6)
        s.text(self.x0, self.y0 + h + 18,
               f"Perfboard {self.size_mm[0]} x {self.size_mm[1]} mm, {self.cols} x {self.rows} holes "
               "at 2.54 mm, seen from the component side.", 12)
        pins = set(self.pins.values())
        rails = set().union(*(self.rail_cells(n) for n in self.rails)) if self.rails else set()
        for c in range(self.cols):
            for r in range(self.rows):
                if (c, r) not in pins and (c, r) not in rails:
                    x, y = self.xy(c, r)
                    s.circle(x, y, 2.5, fill="#fff8e1", stroke="#b49b6a", sw=0.8)
        for kind, ref, (a, b), text in self.parts:
            self._part(kind, ref, a, b, text)
        for net, segs in self.rails.items():
            for a, b in segs:
                s.add(f'<polyline class="rail" data-net="{net}" points="{self._pts([a, b])}" '
                      f'fill="none" stroke="{NET_COLOURS[net]}" stroke-width="5" '
                      'stroke-linecap="round" opacity="0.5"/>')
            for cell in sorted(self.rail_cells(net)):
                x, y = self.xy(*cell)
                s.add(f'<circle class="pin" data-pin="rail:{net}" cx="{x}" cy="{y}" r="3" '
                      f'fill="{NET_COLOURS[net]}"/>')
        for key, cell in sorted(self.pins.items()):
            x, y = self.xy(*cell)
            s.add(f'<circle class="pin" data-pin="{key}" cx="{x}" cy="{y}" r="4" fill="#c8a400" '
                  'stroke="#6d5600" stroke-width="1"/>')
        lines, signal = [], 0
        for n, (a, b, net, pts) in enumerate(self.wires, start=1):
            colour = NET_COLOURS.get(net)
            if colour is None:
                colour = SIGNAL_COLOURS[signal % len(SIGNAL_COLOURS)]
                signal += 1
            s.add(f'<polyline class="wire" data-from="{a}" data-to="{b}" data-net="{net}" '
                  f'points="{self._pts(pts)}" fill="none" stroke="{colour}" stroke-width="2.5" '
                  'stroke-linejoin="round" opacity="0.85"/>')
            lines.append((f"{n}. {self._name(a)} to {self._name(b)}", colour, pts, n))
        for _text, colour, pts, n in lines:  # numbers on top of every line
            (x1, y1), (x2, y2) = self.xy(*pts[0]), self.xy(*pts[1])
            mx, my = x1 + (x2 - x1) * 0.5, y1 + (y2 - y1) * 0.5
            s.add(f'<circle cx="{mx}" cy="{my}" r="6.5" fill="white" stroke="{colour}" '
                  'stroke-width="1.2"/>')
            s.text(mx, my + 3, str(n), 8, "middle", "bold", colour)
        for i, (text, colour, _pts, _n) in enumerate(lines):
            col, row = divmod(i, list_rows)
            s.text(list_x + col * list_w, list_y + row * 15, text, 11, color=colour)
        for net, segs in self.rails.items():
            (c, r) = segs[0][0]
            x, y = self.xy(c, r)
            s.text(x - 9, y + 4, net, 10, "end", "bold", NET_COLOURS[net])

    def _name(self, end):
        return f"{end[5:]} rail" if end.startswith("rail:") else self.labels[end]

    def _pts(self, cells):
        return " ".join(f"{x},{y}" for x, y in (self.xy(*c) for c in cells))

    def _part(self, kind, ref, a, b, text):
        s = self.s
        (xa, ya), (xb, yb) = self.xy(*a), self.xy(*b)
        x1, x2, y1, y2 = min(xa, xb), max(xa, xb), min(ya, yb), max(ya, yb)
        cx, cy = (xa + xb) / 2, (ya + yb) / 2
        if kind == "dip":
            s.rect(x1 - 8, y1 - 9, x2 - x1 + 16, y2 - y1 + 18, fill="#37474f", stroke="#111", sw=1, rx=3)
            s.add(f'<path d="M {cx - 6},{y1 - 9} a 6 6 0 0 0 12 0" fill="#b0bec5"/>')
            s.text(cx, y1 + 8, ref, 12, "middle", "bold", "#fff")
            for k, line in enumerate(text.split("\n")):
                s.text(cx, y1 + 21 + 11 * k, line, 8, "middle", color="#fff")
            s.text(x1 - 3, y1 + 3, "1", 8, "end", "bold", "#333")
            return
        if kind == "pico":
            s.rect(x1 - 9, y1 - 26, x2 - x1 + 18, y2 - y1 + 36, fill="#2e7d32", stroke="#111", sw=1, rx=4)
            s.rect(cx - 16, y1 - 40, 32, 22, fill="#9e9e9e", stroke="#555", sw=1, rx=2)
            s.text(cx, y1 - 25, "USB", 9, "middle", "bold")
            s.text(cx, cy - 30, "Raspberry", 12, "middle", "bold", "#fff")
            s.text(cx, cy - 16, "Pi Pico", 12, "middle", "bold", "#fff")
            for k, line in enumerate(("in 2 x 20", "female", "headers;", "pin 1 is", "top left")):
                s.text(cx, cy + 4 + 13 * k, line, 10, "middle", color="#fff")
            return
        if kind == "header":
            s.rect(x1 - 8, y1 - 8, x2 - x1 + 16, y2 - y1 + 16, fill="#424242", stroke="#000", sw=1, rx=2)
        elif kind == "trimpot":
            s.rect(x1 - 9, y1 - 9, x2 - x1 + 18, y2 - y1 + 18, fill="#1e88e5", stroke="#0d47a1", sw=1, rx=3)
        else:
            s.line([(xa, ya), (xb, yb)], color="#777", sw=1.5)
            if kind == "resistor":
                if ya == yb:
                    s.rect(cx - 17, cy - 6, 34, 12, fill="#90caf9", stroke="#333", sw=1, rx=4)
                else:
                    s.rect(cx - 6, cy - 17, 12, 34, fill="#90caf9", stroke="#333", sw=1, rx=4)
            elif kind == "cap":
                s.rect(cx - 6, cy - 6, 12, 12, fill="#ffcc80", stroke="#333", sw=1, rx=5)
            else:  # electrolytic: + at pin 1
                s.circle(cx, cy, 10, fill="#5c6bc0", stroke="#1a237e")
                s.text(cx, cy + 4, "+" if ya < yb else "", 10, "middle", "bold", "#fff")
        if kind == "trimpot" or (kind == "header" and ya != yb):
            s.text(x2 + 12, cy + 4, f"{ref} {text}", 9)
        elif ya == yb:
            s.text(cx, y1 - 10, f"{ref} {text}", 9, "middle")
        else:
            s.text(x2 + 10, cy + 3, f"{ref} {text}", 9)


def build_notes(s, lines):
    for i, line in enumerate(lines):
        s.text(30, 680 + 18 * i, line, 12)


PICO_B = {4: "GP2", 5: "GP3", 6: "GP4", 21: "GP16", 28: "GND", 29: "GP22",
          31: "GP26 / ADC0", 32: "GP27 / ADC1", 36: "3V3 OUT", 38: "GND", 40: "VBUS 5 V"}
MUX_NAMES = ["Y4", "Y6", "COM", "Y7", "Y5", "E", "VEE", "GND",
             "S2", "S1", "S0", "Y3", "Y0", "Y1", "Y2", "VCC"]
MCP6002_NAMES = ["OUTA", "-INA", "+INA", "VSS", "+INB", "-INB", "OUTB", "VDD"]
AHCT125_NAMES = ["1OE", "1A", "1Y", "2OE", "2A", "2Y", "GND", "3Y", "3A", "3OE", "4Y",
                 "4A", "4OE", "VCC"]
LM339_NAMES = ["OUT2", "OUT1", "VCC", "IN1-", "IN1+", "IN2-", "IN2+", "IN3-", "IN3+",
               "IN4-", "IN4+", "GND", "OUT4", "OUT3"]
LM393_NAMES = ["OUT1", "IN1-", "IN1+", "GND", "IN2+", "IN2-", "OUT2", "VCC"]
PERF_COLS, PERF_ROWS = 34, 26  # the holes of a 90 x 70 mm board, long side across
PICO_AT = (3, 3)  # the Pico's pin 1 on the option B board (column, row)


def perfboard_b():
    s = Svg(1480, 800, "Option B: the pad board on perfboard (Pico, mux, buffers, LED driver)")
    b = Perfboard(s, 30, 90, PERF_COLS, PERF_ROWS, (90, 70))
    b.pico(*PICO_AT, PICO_B)
    b.dip("U1", "CD74HC4051E\nmux", 14, 4, MUX_NAMES)
    b.dip("U2", "MCP6002\nbuffers", 14, 16, MCP6002_NAMES)
    b.dip("U3", "74AHCT125\nLED data", 24, 16, AHCT125_NAMES)
    b.rail("3V3", ((12, 0), (33, 0)))
    b.rail("GND", ((0, 25), (33, 25)), ((13, 3), (13, 25)), ((25, 2), (25, 15), (23, 15), (23, 25)))
    b.rail("5V", ((24, 24), (33, 24)))
    fsr_rows = (3, 5, 7, 9, 11)
    for i, (fig, _colour, _c) in enumerate(FIGS):
        r = fsr_rows[i]
        b.header(f"J{i + 1}", [(33, r), (32, r)], ["3V3", f"{fig} FSR"], f"{fig} FSR")
        b.two(f"R{i + 1}", (30, r + 1), (26, r + 1), "47k")
    b.header("J6", [(33, 13), (32, 13)], ["3V3", "light sensor E"], "light sensor")
    b.two("R6", (30, 14), (26, 14), "10k")
    b.header("J7", [(33, 18), (33, 19), (33, 20)], ["5 V", "LED DIN", "GND"], "LED chain")
    b.two("R7", (30, 19), (30, 22), "330")
    b.header("JP1", [(12, 14), (12, 15)], ["GP22", "GND"], "safe mode")
    b.two("C1", (19, 2), (19, 4), "100n", "cap")
    b.two("C2", (19, 15), (21, 15), "100n", "cap")
    b.two("C3", (29, 16), (29, 18), "100n", "cap")
    b.two("C4", (31, 21), (31, 23), "100µ", "elcap", ("+", "-"))
    mux_y = [13, 14, 15, 12, 1]  # Y0..Y4 pin numbers, ship first
    # signals first: the router gives them the short paths
    b.wire("PICO.4", "U1.11", "S0")
    b.wire("PICO.5", "U1.10", "S1")
    b.wire("PICO.6", "U1.9", "S2")
    for i in range(5):
        b.wire(f"J{i + 1}.2", f"R{i + 1}.1", f"pad {i}")
        b.wire(f"R{i + 1}.1", f"U1.{mux_y[i]}", f"pad {i}")
    b.wire("U1.3", "U2.3", "COM")
    b.wire("U2.1", "U2.2", "ADC0")
    b.wire("U2.1", "PICO.31", "ADC0")
    b.wire("J6.2", "R6.1", "light")
    b.wire("R6.1", "U2.5", "light")
    b.wire("U2.7", "U2.6", "ADC1")
    b.wire("U2.7", "PICO.32", "ADC1")
    b.wire("PICO.21", "U3.2", "LED")
    b.wire("U3.3", "R7.2", "LED")
    b.wire("R7.1", "J7.2", "LED")
    b.wire("PICO.29", "JP1.1", "GP22")
    # power
    b.wire("PICO.36", "rail:3V3", "3V3")
    b.wire("U1.16", "rail:3V3", "3V3")
    b.wire("C1.1", "rail:3V3", "3V3")
    b.wire("U2.8", "C2.1", "3V3")
    b.wire("C2.1", "rail:3V3", "3V3")
    b.wire("J1.1", "rail:3V3", "3V3")
    for i in range(1, 5):
        b.wire(f"J{i + 1}.1", f"J{i}.1", "3V3")
    b.wire("J6.1", "J5.1", "3V3")
    b.wire("PICO.40", "rail:5V", "5V")
    b.wire("U3.14", "rail:5V", "5V")
    b.wire("C3.1", "U3.14", "5V")
    for pin in (4, 10, 13):  # unused gates: outputs off
        b.wire(f"U3.{pin}", "rail:5V", "5V")
    b.wire("C4.1", "rail:5V", "5V")
    b.wire("J7.1", "rail:5V", "5V")
    b.wire("PICO.38", "rail:GND", "GND")
    b.wire("JP1.2", "PICO.28", "GND")
    for pin in (2, 4, 5, 6, 7, 8):  # Y6, Y7, Y5 unused; E on; VEE and GND
        b.wire(f"U1.{pin}", "rail:GND", "GND")
    b.wire("C1.2", "rail:GND", "GND")
    b.wire("U2.4", "rail:GND", "GND")
    b.wire("C2.2", "rail:GND", "GND")
    for i in range(6):
        b.wire(f"R{i + 1}.2", "rail:GND", "GND")
    for pin in (1, 5, 7, 9, 12):  # 1OE on; unused inputs; GND
        b.wire(f"U3.{pin}", "rail:GND", "GND")
    b.wire("C3.2", "rail:GND", "GND")
    b.wire("C4.2", "rail:GND", "GND")
    b.wire("J7.3", "rail:GND", "GND")
    b.draw(770, 110)
    build_notes(s, [
        "Pins as in firmware/main.py; every connection of pad-board-schematic.svg (option B), as wires. Build in this order:",
        "(1) the three rails: bare tinned wire on the solder side along the thick lines; (2) the DIP sockets (notch up, pin 1 marked) and the Pico's",
        "two 20-pin female headers, USB end at the board's edge; (3) resistors, capacitors (C4: + to the 5V rail), pin headers; (4) the wires in",
        "the list's order, insulated, cut to the drawn length. Before fitting the chips: beep every wire with the multimeter (bring-up.md).",
    ])
    s.save("perfboard-b.svg")
    return b


COMPARATOR_CHANNELS = [  # figure -> (chip, OUT, IN-, IN+ pin numbers): pad-board-schematic.svg
    ("U1", 2, 4, 5), ("U1", 1, 6, 7), ("U1", 14, 8, 9), ("U1", 13, 10, 11), ("U2", 1, 2, 3)]


def perfboard_a():
    s = Svg(1480, 800, "Option A: the comparator board on perfboard (LM339 + LM393, trimpots)")
    b = Perfboard(s, 30, 90, PERF_COLS, PERF_ROWS, (90, 70))
    b.dip("U1", "LM339N", 10, 4, LM339_NAMES)
    b.dip("U2", "LM393P", 10, 15, LM393_NAMES)
    names = ["3V3 (Pi pin 1)", "5 V (Pi pin 2)", "GND (Pi pin 6)"] + [
        f"{fig} (Pi pin {phys}, GPIO{g})" for (fig, _c, _x), (g, phys) in zip(FIGS, GPIO, strict=True)]
    b.header("J6", [(1, 5 + i) for i in range(8)], names, "to the Pi")
    b.rail("3V3", ((17, 24), (17, 0), (33, 0)))
    b.rail("GND", ((0, 25), (33, 25)), ((25, 1), (25, 25)), ((6, 4), (6, 25)))
    b.two("C1", (8, 6), (8, 8), "100n", "cap")
    b.two("C2", (8, 16), (8, 18), "100n", "cap")
    for i, (fig, _colour, _c) in enumerate(FIGS):
        rb = 1 + 5 * i
        b.header(f"J{i + 1}", [(33, rb), (32, rb)], ["3V3", f"{fig} FSR"], f"{fig} FSR")
        b.two(f"R{i + 1}", (31, rb + 1), (27, rb + 1), "47k")
        b.header(f"RV{i + 1}", [(19, rb), (20, rb), (21, rb)], ["3V3 end", "wiper", "GND end"], "")
        b.parts[-1] = ("trimpot", f"RV{i + 1}", ((19, rb), (21, rb)), "10k trimpot")
        b.two(f"R{i + 6}", (24, rb + 2), (20, rb + 2), "10k")
        b.two(f"R{i + 11}", (20, rb + 3), (24, rb + 3), "1M")
    # the five channels: divider node to IN-, trimpot through 10k to IN+, 1M from OUT to IN+
    for i, (chip, out, inm, inp) in enumerate(COMPARATOR_CHANNELS):
        b.wire(f"J{i + 1}.2", f"R{i + 1}.1", f"node {i}")
        b.wire(f"R{i + 1}.1", f"{chip}.{inm}", f"node {i}")
        b.wire(f"RV{i + 1}.2", f"R{i + 6}.1", f"ref {i}")
        b.wire(f"R{i + 6}.2", f"R{i + 11}.1", f"ref {i}")
        b.wire(f"R{i + 11}.1", f"{chip}.{inp}", f"ref {i}")
        b.wire(f"R{i + 11}.2", f"{chip}.{out}", f"out {i}")
        b.wire(f"{chip}.{out}", f"J6.{4 + i}", f"out {i}")
    # power: 5 V to the comparators' VCC only; everything else on 3V3
    b.wire("J6.2", "U1.3", "5V")
    b.wire("U1.3", "C1.1", "5V")
    b.wire("U1.3", "U2.8", "5V")
    b.wire("U2.8", "C2.1", "5V")
    b.wire("J6.1", "rail:3V3", "3V3")
    b.wire("J6.3", "rail:GND", "GND")
    b.wire("U2.6", "rail:3V3", "3V3")  # the unused half: IN2- high, IN2+ low, OUT2 open
    b.wire("U2.5", "rail:GND", "GND")
    b.wire("U1.12", "rail:GND", "GND")
    b.wire("U2.4", "rail:GND", "GND")
    b.wire("C1.2", "rail:GND", "GND")
    b.wire("C2.2", "rail:GND", "GND")
    for i in range(5):
        b.wire(f"RV{i + 1}.1", "rail:3V3", "3V3")
        b.wire(f"RV{i + 1}.3", "rail:GND", "GND")
        b.wire(f"R{i + 1}.2", "rail:GND", "GND")
        b.wire(f"J{i + 1}.1", "rail:3V3" if i == 0 else f"J{i}.1", "3V3")
    b.draw(770, 110)
    build_notes(s, [
        "Pins as in pi-pin-map.md and controller/pads/config.py; the channels of pad-board-schematic.svg (option A). J6 goes to the Pi header",
        "with female-female jumper wires: J6 pin 1 to Pi pin 1 (3V3), pin 2 to Pi pin 2 (5 V), pin 3 to Pi pin 6 (GND), pins 4-8 to the pins named.",
        "5 V reaches only the comparators' VCC (U1 pin 3, U2 pin 8); never a GPIO. Build order as option B: rails, sockets, parts, wires in order;",
        "then set each trimpot (fsr-divider.md) with the chips in and the Pi off, measuring the wiper against GND.",
    ])
    s.save("perfboard-a.svg")
    return b


BOX = {"inner": (110, 90, 40), "wall": 6, "board_gap": (10, 4), "standoff": 10}  # mm


def board_mm(cols, rows, size_mm, cell):
    """A hole's position in mm from the board's top-left corner (holes centred on the board)."""
    mx = (size_mm[0] - (cols - 1) * 2.54) / 2
    my = (size_mm[1] - (rows - 1) * 2.54) / 2
    return mx + cell[0] * 2.54, my + cell[1] * 2.54


def enclosure(pico_at, fsr_rows):
    s = Svg(1100, 740, "Enclosure for the pad board (option B; option A fits the same box)")
    iw, idp, ih = BOX["inner"]
    t = BOX["wall"]
    gx, gy = BOX["board_gap"]
    k = 3.0  # px per mm
    x0, y0 = 120, 130
    # plan: box walls, the board, its four standoffs
    s.text(x0 - t * k, y0 - 75, "Plan (lid off), all sizes in mm", 14, "start", "bold")
    s.rect(x0 - t * k, y0 - t * k, (iw + 2 * t) * k, (idp + 2 * t) * k, fill="#d7b98e", rx=2)
    s.rect(x0, y0, iw * k, idp * k, fill="#fafafa", rx=0)
    bx, by = x0 + gx * k, y0 + gy * k
    s.rect(bx, by, 90 * k, 70 * k, fill="#e9d7a7", stroke="#8d6e63", sw=1.5, rx=2)
    s.text(bx + 62 * k, by + 35 * k, "pad board 90 x 70", 12, "middle")
    for hx, hy in ((4, 4), (86, 4), (4, 66), (86, 66)):
        s.circle(bx + hx * k, by + hy * k, 1.6 * k, fill="white", stroke="#333", sw=1)
    # the Pico's USB end: between its two pin rows, at its top end
    c1 = board_mm(PERF_COLS, PERF_ROWS, (90, 70), pico_at)
    c2 = board_mm(PERF_COLS, PERF_ROWS, (90, 70), (pico_at[0] + 7, pico_at[1]))
    usb_x = gx + (c1[0] + c2[0]) / 2
    s.rect(bx + (c1[0] - 1.6) * k, by + (c1[1] - 2.8) * k, (c2[0] - c1[0] + 3.2) * k, 51 * k,
           fill="#2e7d32", stroke="#111", sw=1, rx=2)
    s.text(bx + (c1[0] + c2[0]) / 2 * k, by + (c1[1] + 26) * k, "Pico", 12, "middle", "bold", "#fff")
    s.rect(x0 + (usb_x - 6) * k, y0 - t * k - 2, 12 * k, t * k + 4, fill="#ffcdd2", stroke="#c62828", sw=1.5, rx=1)
    s.dim(x0, y0 - t * k - 16, x0 + usb_x * k, y0 - t * k - 16, f"{usb_x:.1f}")
    s.text(x0 + usb_x * k + 26, y0 - t * k - 4, "USB cut-out 12 x 8", 12, color="#c62828")
    # the cables to the pads leave through the right wall, level with the headers
    h1 = board_mm(PERF_COLS, PERF_ROWS, (90, 70), (33, fsr_rows[0]))[1]
    h2 = board_mm(PERF_COLS, PERF_ROWS, (90, 70), (33, 20))[1]
    slot_y = gy + (h1 + h2) / 2
    s.rect(x0 + iw * k - 2, y0 + (slot_y - 15) * k, t * k + 4, 30 * k, fill="#ffcdd2", stroke="#c62828", sw=1.5, rx=1)
    s.dim(x0 + (iw + t) * k + 18, y0, x0 + (iw + t) * k + 18, y0 + slot_y * k, f"{slot_y:.1f}", offset=4)
    s.text(x0 + (iw + t) * k + 50, y0 + (slot_y + 20) * k, "cable slot 30 x 10", 12, color="#c62828")
    s.text(x0 + (iw + t) * k + 50, y0 + (slot_y + 20) * k + 16, "(5 FSR cables, light sensor,", 11)
    s.text(x0 + (iw + t) * k + 50, y0 + (slot_y + 20) * k + 30, "LED chain), with a grommet", 11)
    s.dim(x0, y0 + idp * k + t * k + 22, x0 + iw * k, y0 + idp * k + t * k + 22, f"{iw} inside")
    s.dim(x0 - t * k - 22, y0, x0 - t * k - 22, y0 + idp * k, f"{idp} inside", offset=-70)
    s.dim(x0, y0 + (gy + 35) * k, bx, y0 + (gy + 35) * k, f"{gx}", size=11)
    s.dim(bx + 20 * k, y0, bx + 20 * k, by, f"{gy}", offset=3, size=11)
    # the USB wall seen from outside: x runs as in the plan
    k2, sx, sy = 2.5, 700, 130
    s.text(sx, sy - 75, "The USB wall from outside", 14, "start", "bold")
    s.rect(sx, sy, (iw + 2 * t) * k2, (ih + 2 * t) * k2, fill="#d7b98e", rx=2)
    s.rect(sx + t * k2, sy + t * k2, iw * k2, ih * k2, fill="#fafafa", rx=0)
    floor = sy + (t + ih) * k2
    so = BOX["standoff"]
    board_top = floor - (so + 1.6) * k2
    ix = sx + t * k2  # the left inside wall
    s.rect(ix + gx * k2, board_top, 90 * k2, 1.6 * k2, fill="#e9d7a7", stroke="#8d6e63", sw=1, rx=0)
    for hx in (4, 86):
        s.rect(ix + (gx + hx - 2.5) * k2, board_top + 1.6 * k2, 5 * k2, so * k2, fill="#bdbdbd",
               stroke="#555", sw=1, rx=1)
    usb_h = so + 1.6 + 8.5 + 1.0 + 1.3  # standoff, board, female header, Pico, connector centre
    s.rect(ix + (usb_x - 10.5) * k2, board_top - 8.5 * k2, 21 * k2, 8.5 * k2, fill="#424242",
           stroke="#000", sw=1, rx=1)
    s.rect(ix + (usb_x - 10.5) * k2, board_top - 9.5 * k2, 21 * k2, 1.0 * k2, fill="#2e7d32",
           stroke="#111", sw=1, rx=0)
    cut_y = floor - usb_h * k2
    s.rect(ix + (usb_x - 6) * k2, cut_y - 4 * k2, 12 * k2, 8 * k2, fill="#ffcdd2", stroke="#c62828",
           sw=1.5, rx=1)
    s.dim(ix + iw * k2 - 30, floor, ix + iw * k2 - 30, cut_y, f"{usb_h:.1f}", offset=4)
    s.dim(sx - 16, sy + t * k2, sx - 16, floor, f"{ih} inside", offset=-62)
    s.dim(ix, sy - 14, ix + usb_x * k2, sy - 14, f"{usb_x:.1f}")
    s.text(sx, floor + t * k2 + 22, f"USB cut-out centre {usb_h:.1f} above the floor: {so} standoffs,", 11)
    s.text(sx, floor + t * k2 + 37, "1.6 board, 8.5 female headers, the Pico and half its socket", 11)
    notes = [
        f"Box: {iw} x {idp} x {ih} mm inside. From {t} mm plywood: base and lid {iw + 2 * t} x {idp + 2 * t}, long walls {iw + 2 * t} x {ih},",
        f"short walls {idp} x {ih}, glued and pinned; or any plastic project box at least this big inside (cut the holes with a step drill and a file).",
        f"Board: on four M3 x {so} mm nylon standoffs, {gx} mm from the left wall and {gy} mm from the USB wall, holes 4 mm in from the board's corners.",
        f"USB cut-out 12 x 8 mm in the USB wall, centred {usb_x:.1f} mm from the left inside wall and about {usb_h:.0f} mm above the floor: the micro-USB",
        "plug reaches the Pico through it. Measure your Pico on its headers before cutting: header heights differ by a millimetre or two.",
        f"Cable slot 30 x 10 mm in the right wall, centred {slot_y:.1f} mm from the USB wall and 5 mm above the board: the FSR, light sensor and",
        "LED cables leave through a grommet or a strip of felt glued round the slot; tie the cables to a standoff so a pull never reaches the headers.",
        "Option A: the same box; its ribbon or jumper cable to the Pi leaves through the USB cut-out, widened to 20 x 8 mm.",
    ]
    for i, line in enumerate(notes):
        s.text(60, 560 + 20 * i, line, 12)
    s.save("enclosure.svg")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    wiring_gpio()
    wiring_board()
    schematic()
    tray()
    camera()
    board_b = perfboard_b()
    perfboard_a()
    enclosure(PICO_AT, (3, 5, 7, 9, 11))

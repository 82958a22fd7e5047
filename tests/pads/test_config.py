"""The [pads] section and the documented Pi pin map."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import default_config, parse_config
from controller.errors import ConfigError
from controller.knapp.cards import Figure
from controller.pads.config import DEFAULT_GPIO_PINS

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"


def test_defaults():
    cfg = (default_config()).pads
    assert cfg.backend == "sim"
    assert dict(cfg.gpio_pins) == dict(DEFAULT_GPIO_PINS)
    assert cfg.order == tuple(Figure)


def test_a_full_section():
    cfg = (parse_config({"pads": {
        "backend": "serial", "debounce_ms": 8,
        "gpio": {"dog": 5, "placed_when": "high", "pull_up": False},
        "serial": {"port": "usb-MicroPython_Board-if00", "order": ["dog", "ship"],
                   "hysteresis_pct": 20, "confirm_samples": 4, "min_spread": 3000},
    }})).pads
    assert cfg.backend == "serial" and cfg.debounce_ns == 8_000_000
    assert cfg.gpio_pins[Figure.DOG] == 5 and not cfg.placed_when_low and not cfg.pull_up
    assert cfg.serial_port == "usb-MicroPython_Board-if00"
    assert cfg.order == (Figure.DOG, Figure.SHIP)
    assert (cfg.hysteresis_pct, cfg.confirm_samples, cfg.min_spread) == (20, 4, 3000)


def test_serial_port_defaults_to_finding_the_board():
    assert (parse_config({"pads": {"backend": "serial"}})).pads.serial_port == "auto"


@pytest.mark.parametrize(("pads", "message"), [
    ({"backend": "wifi"}, "pads.backend: must be one of gpio, serial, sim"),
    ({"gpio": {"dog": 17}}, "pads.gpio.dog: GPIO17 is already the ship pad's pin"),
    ({"gpio": {"ship": 40}}, "pads.gpio.ship: must be between 2 and 27"),
    ({"gpio": {"cat": 4}}, "pads.gpio.cat: unknown key"),
    ({"serial": {"order": ["ship", "ship"]}}, "pads.serial.order[1]: ship appears twice"),
    ({"serial": {"order": ["boat"]}}, "pads.serial.order[0]: expected one of"),
    ({"serial": {"port": "serial/by-id/x"}}, "pads.serial.port: give the /dev/serial/by-id/"),
    ({"backend": "serial", "serial": {"port": " "}},
     "pads.serial.port: backend = \"serial\" needs the board's port"),
    ({"debounse_ms": 3}, "unknown key (did you mean 'debounce_ms'?)"),
])
def test_bad_values_name_the_key(pads, message):
    with pytest.raises(ConfigError) as err:
        parse_config({"pads": pads}, "table.toml")
    assert message in str(err.value)
    assert str(err.value).startswith("table.toml: ")


def test_pin_map_document_matches_the_code():
    text = (HARDWARE / "pi-pin-map.md").read_text()
    rows = re.findall(r"^\|\s*(\w+)[^|]*\|\s*GPIO(\d+)\s*\|\s*(\d+)\s*\|", text, re.M)
    figures = {f.value for f in Figure}
    documented = {Figure(name): int(bcm) for name, bcm, _ in rows if name in figures}
    assert documented == dict(DEFAULT_GPIO_PINS)
    # the physical header pin given for each is the right one for that BCM number
    header = {17: 11, 27: 13, 22: 15, 23: 16, 24: 18}
    for name, bcm, phys in rows:
        if name in figures:
            assert header[int(bcm)] == int(phys), name


def test_committed_drawings_match_their_generator(tmp_path):
    import subprocess
    import sys

    subprocess.run([sys.executable, str(HARDWARE / "make_drawings.py"), str(tmp_path)],
                   check=True)
    for svg in tmp_path.glob("*.svg"):
        assert svg.read_text() == (HARDWARE / svg.name).read_text(), svg.name
    assert {p.name for p in tmp_path.glob("*.svg")} == {p.name for p in HARDWARE.glob("*.svg")}

"""The `[pads]` section of the table configuration file.

Example (every key optional; these are the defaults)::

    [pads]
    backend = "sim"            # "gpio", "serial" or "sim"
    debounce_ms = 10           # lockout after an edge; the first edge's time is kept

    [pads.gpio]                # switch mats or FSR comparators, one GPIO per figure (BCM)
    ship = 17
    viking = 27
    child = 22
    chest = 23
    dog = 24
    placed_when = "low"        # mats and comparators pull the pin low under a figure
    pull_up = true

    [pads.serial]              # the pad board (firmware/) on USB
    port = "auto"              # the one board under /dev/serial/by-id/, or its name there:
                               # "usb-MicroPython_Board_in_FS_mode_e6614c31dbb5a93c-if00"
    order = ["ship", "viking", "child", "chest", "dog"]              # figure on pad 0, 1, ...
    hysteresis_pct = 15        # band around the learned midpoint, % of the level spread
    confirm_samples = 3        # consecutive samples past a threshold to accept a change
    min_spread = 4000          # smallest allowed loaded-empty difference (ADC u16 counts)

The defaults of `[pads.gpio]` are `DEFAULT_GPIO_PINS`; hardware/pi-pin-map.md
documents the same map and a test checks the two agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from controller.knapp.cards import Figure
from controller.settings import Section

BACKENDS = ("gpio", "serial", "sim")

# BCM numbers. Free of I2C (2, 3), SPI0 (7-11), UART (14, 15), PCM/PWM (18-21),
# the 1-wire default (4) and the HATs' ID EEPROM pins (0, 1).
DEFAULT_GPIO_PINS: Mapping[Figure, int] = MappingProxyType({
    Figure.SHIP: 17,
    Figure.VIKING: 27,
    Figure.CHILD: 22,
    Figure.CHEST: 23,
    Figure.DOG: 24,
})
VALID_BCM = range(2, 28)


@dataclass(frozen=True)
class PadsConfig:
    """Pad settings of one table.

    Args:
        backend: which `PadSource` to build: "gpio", "serial" or "sim".
        debounce_ns: lockout after an edge (GPIO debounce, board lockout).
        gpio_pins: BCM pin per figure.
        placed_when_low: a standing figure pulls its pin low.
        pull_up: enable the internal pull-up.
        serial_port: the board's /dev/serial/by-id/ name, a path, or "auto" (the one
            MicroPython board found there; two tables' boards on one Pi need names).
        order: the figure on each board pad, pad 0 first.
        hysteresis_pct, confirm_samples, min_spread: the board's detector settings.
    """

    backend: str = "sim"
    debounce_ns: int = 10_000_000
    gpio_pins: Mapping[Figure, int] = field(default_factory=lambda: dict(DEFAULT_GPIO_PINS))
    placed_when_low: bool = True
    pull_up: bool = True
    serial_port: str = "auto"
    order: tuple[Figure, ...] = tuple(Figure)
    hysteresis_pct: int = 15
    confirm_samples: int = 3
    min_spread: int = 4000


def parse_pads(section: Section) -> PadsConfig:
    """Parse `[pads]` (called with an empty section when the file has none)."""
    section.known("backend", "debounce_ms", "gpio", "serial")
    d = PadsConfig()
    backend = section.choice("backend", d.backend, BACKENDS)
    debounce_ms = section.number("debounce_ms", d.debounce_ns / 1e6, minimum=0, maximum=200)

    gpio = section.sub("gpio").known(*(f.value for f in Figure), "placed_when", "pull_up")
    pins: dict[Figure, int] = {}
    for fig in Figure:
        pins[fig] = gpio.integer(fig.value, DEFAULT_GPIO_PINS[fig], minimum=VALID_BCM.start,
                                 maximum=VALID_BCM.stop - 1)
    used: dict[int, Figure] = {}
    for fig, pin in pins.items():
        if pin in used:
            raise gpio.error(fig.value, f"GPIO{pin} is already the {used[pin]} pad's pin")
        used[pin] = fig
    placed_when = gpio.choice("placed_when", "low", ("low", "high"))
    pull_up = gpio.take("pull_up", bool, d.pull_up)
    gpio.finish()

    ser = section.sub("serial").known("port", "order", "hysteresis_pct", "confirm_samples",
                                      "min_spread")
    port = ser.take("port", str, d.serial_port).strip()
    if "/" in port and not port.startswith("/") and "://" not in port:
        raise ser.error("port", f"give the /dev/serial/by-id/ name alone or a full path, "
                                f"got {port!r}")
    raw_order = ser.take("order", list, [f.value for f in d.order])
    order = _parse_order(ser, raw_order)
    hyst = ser.integer("hysteresis_pct", d.hysteresis_pct, minimum=2, maximum=45)
    confirm = ser.integer("confirm_samples", d.confirm_samples, minimum=1, maximum=20)
    spread = ser.integer("min_spread", d.min_spread, minimum=256, maximum=60000)
    ser.finish()
    if backend == "serial" and not port:
        raise section.error("serial.port", "backend = \"serial\" needs the board's port "
                                           "(its name under /dev/serial/by-id/, or \"auto\")")
    return PadsConfig(backend=backend, debounce_ns=round(debounce_ms * 1e6), gpio_pins=pins,
                      placed_when_low=placed_when == "low", pull_up=pull_up, serial_port=port,
                      order=order, hysteresis_pct=hyst, confirm_samples=confirm,
                      min_spread=spread)


def _parse_order(section: Section, raw: list[Any]) -> tuple[Figure, ...]:
    names = {f.value for f in Figure}
    out: list[Figure] = []
    for i, name in enumerate(raw):
        if not isinstance(name, str) or name not in names:
            raise section.error(f"order[{i}]", f"expected one of {sorted(names)}, got {name!r}")
        fig = Figure(name)
        if fig in out:
            raise section.error(f"order[{i}]", f"{name} appears twice")
        out.append(fig)
    if not out:
        raise section.error("order", "needs at least one figure")
    return tuple(out)

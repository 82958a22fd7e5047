"""Pressure pads: the referee's stopwatch.

One `PadSource` interface, three backends, all reporting `PadEvent`s on the
host CLOCK_MONOTONIC in ns with an uncertainty:

- `controller.pads.gpio.GpioPads`: switch mats or FSR comparators on GPIO (gpiozero);
- `controller.pads.serial_link.SerialPads`: the pad board (firmware/) over USB,
  speaking the protocol through `controller.pads.link.LinkSession` (no I/O);
- `controller.pads.sim.SimPads`: simulation and tests.

`build_source(cfg)` builds the one the table configuration names. The
hardware backends import their libraries only when built.
"""

from __future__ import annotations

from controller.clock import Clock
from controller.pads.config import PadsConfig
from controller.pads.events import Item, LightEvent, PadError, PadEvent, PadSource, PadStatus

__all__ = ["Item", "LightEvent", "PadError", "PadEvent", "PadSource", "PadStatus",
           "build_source"]


def build_source(cfg: PadsConfig, *, backend: str | None = None, port: str | None = None,
                 clock: Clock | None = None) -> PadSource:
    """Build the pad source the configuration (or an override) names.

    Args:
        cfg: the table's `[pads]` settings.
        backend: "gpio", "serial" or "sim" instead of cfg.backend.
        port: serial port instead of cfg.serial_port.
        clock: host clock (default: the real monotonic clock).
    """
    kind = backend or cfg.backend
    if kind == "gpio":
        from controller.pads.gpio import GpioPads

        return GpioPads(cfg.gpio_pins, clock=clock, placed_when_low=cfg.placed_when_low,
                        pull_up=cfg.pull_up, debounce_ns=cfg.debounce_ns)
    if kind == "serial":
        from controller.pads.serial_link import BoardSettings, SerialPads

        where = port or cfg.serial_port
        if not where:
            raise PadError("no serial port: pass --serial PORT or set [pads.serial] port")
        settings = BoardSettings(cfg.hysteresis_pct, cfg.confirm_samples,
                                 cfg.debounce_ns // 1_000_000, cfg.min_spread)
        return SerialPads(where, clock=clock, figures=cfg.order, settings=settings)
    if kind == "sim":
        from controller.pads.sim import SimPads

        return SimPads(clock=clock)
    raise PadError(f"unknown pad backend {kind!r}; expected gpio, serial or sim")

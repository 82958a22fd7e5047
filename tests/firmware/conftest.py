"""Firmware logic under CPython: the firmware's own modules, a tick shim that
wraps at 2**30 us like the RP2040, and a fake ADC."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from controller.sim.virtual_board import firmware_dir, load_firmware

TICKS_PERIOD = 1 << 30


class Ticks:
    """MicroPython's ticks_us(): microseconds masked to 30 bits."""

    def __init__(self, start: int = 0) -> None:
        self.us = start

    def __call__(self) -> int:
        return self.us % TICKS_PERIOD

    def advance(self, us: int) -> int:
        self.us += us
        return self()


class Adc:
    """Per-pad readings the test sets; read_pad(i) returns them."""

    def __init__(self, n: int = 5, value: int = 26000) -> None:
        self.values = [value] * n
        self.reads = 0

    def __call__(self, i: int) -> int:
        self.reads += 1
        return self.values[i]


@pytest.fixture(scope="session")
def fw() -> dict[str, ModuleType]:
    return load_firmware()


@pytest.fixture(scope="session")
def vectors() -> dict:
    return json.loads((firmware_dir() / "protocol_vectors.json").read_text())


"""The shape of controller/pads/: one interface for every backend, no sleeping in the link."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from controller.pads.events import PadSource
from controller.pads.gpio import GpioPads
from controller.pads.serial_link import SerialPads
from controller.pads.sim import SimPads

PADS = Path(__file__).resolve().parents[2] / "controller" / "pads"
# What the pads may import, and how big a module may grow, are checked for the
# whole package in tests/test_architecture.py (import-linter contracts, sizes).


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_serial_backend_does_not_sleep() -> None:
    """Back-off runs on the injected clock; waits go through the port or `wait`."""
    assert "time" not in imports(PADS / "serial_link.py")


@pytest.mark.parametrize("backend", [GpioPads, SerialPads, SimPads], ids=lambda c: c.__name__)
def test_every_backend_offers_the_whole_interface(backend: type) -> None:
    for member in ("name", "has_leds", "poll", "placed", "set_led", "close"):
        assert hasattr(backend, member), f"{backend.__name__} lacks {member}"
        assert member in vars(PadSource) or member in PadSource.__annotations__, member

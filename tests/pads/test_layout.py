"""The shape of controller/pads/: what it may import, how big its modules grow, its interface."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from controller.pads.events import PadSource
from controller.pads.gpio import GpioPads
from controller.pads.serial_link import SerialPads
from controller.pads.sim import SimPads

PADS = Path(__file__).resolve().parents[2] / "controller" / "pads"
MODULE_LINES = 400  # a longer module says why in its docstring (as tests/test_architecture.py)
REASON_MARK = "Why this module is long:"
FUNCTION_LINES = 80


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", sorted(PADS.glob("*.py")), ids=lambda p: p.name)
def test_the_pads_never_import_the_simulation(path: Path) -> None:
    assert not [m for m in imports(path) if m.startswith("controller.sim")]


@pytest.mark.parametrize("path", sorted(PADS.glob("*.py")), ids=lambda p: p.name)
def test_modules_and_functions_stay_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    if len(text.splitlines()) > MODULE_LINES:
        doc = ast.get_docstring(tree) or ""
        assert REASON_MARK in doc, f"{path.name}: over {MODULE_LINES} lines without saying why"
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= FUNCTION_LINES, f"{path.name}: {node.name} has {length} lines"


def test_the_serial_backend_does_not_sleep() -> None:
    """Back-off runs on the injected clock; waits go through the port or `wait`."""
    assert "time" not in imports(PADS / "serial_link.py")


@pytest.mark.parametrize("backend", [GpioPads, SerialPads, SimPads], ids=lambda c: c.__name__)
def test_every_backend_offers_the_whole_interface(backend: type) -> None:
    for member in ("name", "has_leds", "poll", "placed", "set_led", "close"):
        assert hasattr(backend, member), f"{backend.__name__} lacks {member}"
        assert member in vars(PadSource) or member in PadSource.__annotations__, member

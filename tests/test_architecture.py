"""The import rules of the architecture, checked on the source."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "controller"
PURE = ("knapp", "games")
FORBIDDEN_FOR_PURE = ("controller.pads", "controller.vision", "controller.referee",
                      "controller.store", "controller.web", "controller.sim", "controller.cli")


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", PURE)
def test_pure_core_imports_no_sensor_store_or_web(package: str) -> None:
    for path in (ROOT / package).rglob("*.py"):
        for name in imports(path):
            assert not name.startswith(FORBIDDEN_FOR_PURE), f"{path.name} imports {name}"


def test_sensors_never_import_the_web() -> None:
    for package in ("pads", "vision"):
        for path in (ROOT / package).rglob("*.py"):
            for name in imports(path):
                assert not name.startswith("controller.web"), f"{path.name} imports {name}"


def test_import_controller_needs_no_hardware_library() -> None:
    code = ("import sys, controller, controller.cli, controller.config;"
            "controller.cli.build_parser();"
            "bad = [m for m in ('picamera2', 'lgpio', 'RPi', 'libcamera') if m in sys.modules];"
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

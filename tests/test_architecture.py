"""The architecture's rules: import contracts (import-linter), sizes, and no hardware on import.

The import rules themselves live in `pyproject.toml` as import-linter contracts
(`make lint` runs `lint-imports`). These tests run the same contracts here and
show that each one bites: a copy of the package with one forbidden import
added must break the contract that forbids it.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "controller"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# Modules over this size in these packages need a reason in their docstring.
SIZED_PACKAGES = ("referee", "web", "pads")
MODULE_LINES = 400
REASON_MARK = "Why this module is long:"
FUNCTION_LINES = 80
# The game rule files keep a game's rules in the order of its rule book, which
# can need long functions; everywhere else a function over 80 lines is split.
RULE_FILES = {"manni.py", "pukk.py", "rommy.py", "knuff.py", "kobbla.py", "koob.py"}


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the package under `root` with the project's contracts."""
    return subprocess.run([str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"),
                           "--no-cache"], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": ""}, check=False)


def test_the_import_contracts_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("knapp/deck.py", "import controller.store", "The pure core imports no sensor"),
    ("games/base.py", "import controller.pads.events", "The pure core imports no sensor"),
    ("pads/gpio.py", "import controller.referee.fusion", "Layers"),
    ("vision/detect.py", "import controller.store", "Sensors import neither"),
    ("web/deps.py", "import controller.pads.sim", "The web reads the referee"),
    ("referee/fusion.py", "import controller.sim.bots", "Only the commands import"),
    ("knapp/cards.py", "import controller.knapp.match", "no import cycle"),
])
def test_each_contract_bites(tmp_path: Path, module: str, line: str, contract: str) -> None:
    copy = tmp_path / "controller"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n",
                      encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, f"{line} in {module} broke no contract"
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, result.stdout


def _long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > FUNCTION_LINES]


def test_no_function_over_80_lines_outside_the_game_rule_files() -> None:
    long = [f for path in sorted(PACKAGE.rglob("*.py")) if path.name not in RULE_FILES
            for f in _long_functions(path)]
    assert long == []


@pytest.mark.parametrize("package", SIZED_PACKAGES)
def test_long_modules_say_why(package: str) -> None:
    for path in sorted((PACKAGE / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MODULE_LINES:
            doc = ast.get_docstring(ast.parse(text)) or ""
            assert REASON_MARK in doc, f"{path.name} is over {MODULE_LINES} lines"


def test_import_controller_needs_no_hardware_library() -> None:
    code = ("import sys, controller, controller.cli, controller.config;"
            "controller.cli.build_parser();"
            "bad = [m for m in ('picamera2', 'lgpio', 'RPi', 'libcamera') if m in sys.modules];"
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

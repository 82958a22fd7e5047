"""The camera package's import rules: a sensor, with no store, evidence or synthetic table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "controller"
SYNTHETIC = ("controller.sim.render", "controller.sim.scenarios")


def imports(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("forbidden", ["controller.store", "controller.evidence",
                                       "controller.sim"])
def test_vision_imports_neither_the_store_nor_evidence_nor_the_simulator(forbidden: str) -> None:
    for path in _modules("vision"):
        for name in imports(path):
            assert not name.startswith(forbidden), f"{path.name} imports {name}"


def test_only_the_simulator_and_the_commands_use_the_synthetic_table() -> None:
    for path in ROOT.rglob("*.py"):
        if path.relative_to(ROOT).parts[0] in ("sim", "cli"):
            continue
        for name in imports(path):
            assert not name.startswith(SYNTHETIC), f"{path.relative_to(ROOT)} imports {name}"


def test_the_frame_types_import_no_source() -> None:
    # camera.py and sources.py import frames.py; the other way round was a cycle.
    assert not {n for n in imports(ROOT / "vision" / "frames.py")
                if n.startswith("controller.vision")}
    assert "controller.vision.sources" not in imports(ROOT / "vision" / "camera.py")


def test_evidence_never_reaches_into_the_web_or_the_referee() -> None:
    for path in _modules("evidence"):
        for name in imports(path):
            assert not name.startswith(("controller.web", "controller.referee",
                                        "controller.app")), f"{path.name} imports {name}"

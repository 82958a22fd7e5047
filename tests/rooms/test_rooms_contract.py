"""The rooms' import contract bites: a room that imports the referee, a sensor or the web
breaks it (the same check `lint-imports` runs in `make lint`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_architecture import PACKAGE, lint_imports


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("rooms/room.py", "import controller.referee.service", "Rooms play games over the store"),
    ("rooms/views.py", "import controller.web.deps", "Rooms play games over the store"),
    ("rooms/manager.py", "import controller.pads.events", "Rooms play games over the store"),
    ("games/base.py", "import controller.rooms.room", "Layers"),
])
def test_the_rooms_contract_bites(tmp_path: Path, module: str, line: str, contract: str) -> None:
    copy = tmp_path / "controller"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n",
                      encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, f"{line} in {module} broke no contract"
    assert contract in result.stdout.split("Broken contracts", 1)[-1], result.stdout

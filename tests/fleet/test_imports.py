"""paho-mqtt and psycopg load only inside the fleet, and the fleet's import rules bite."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_architecture import PACKAGE, lint_imports

FLEET_LIBS = ("paho", "psycopg")


def loaded_after(code: str) -> list[str]:
    check = (f"{code}; import sys, json; print(json.dumps(sorted("
             f"{{m.split('.')[0] for m in sys.modules}} & {set(FLEET_LIBS)!r})))")
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    names: list[str] = json.loads(out.stdout)
    return names


def test_import_controller_and_the_table_service_need_no_fleet_library(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[fleet]\nbroker = "mqtts://cafe.local"\ntable = "corner"\n'
                     'password_file = "fleet.password"\n')
    assert loaded_after(
        "import controller, controller.cli, controller.config, controller.cli.serve, "
        "controller.web.app; controller.cli.build_parser(); "
        f"controller.config.load_config({str(table)!r})") == []


def test_the_fleet_s_pure_parts_need_neither() -> None:
    assert loaded_after(
        "import controller.fleet.config, controller.fleet.wire, controller.fleet.outbox, "
        "controller.fleet.sender, controller.fleet.summaries, controller.fleet.live, "
        "controller.fleet.views, controller.fleet.league, controller.fleet.broker") == []


def test_the_links_load_them() -> None:
    assert loaded_after("import controller.fleet.table, controller.fleet.cafe") == list(
        FLEET_LIBS)


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("fleet/table.py", "import controller.pads.sim", "The fleet reads the store"),
    ("fleet/config.py", "import controller.store", "The fleet section parser"),
    ("web/deps.py", "import controller.fleet.views", "Layers"),
])
def test_each_fleet_contract_bites(tmp_path: Path, module: str, line: str,
                                   contract: str) -> None:
    copy = tmp_path / "controller"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n",
                      encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, f"{line} in {module} broke no contract"
    assert contract in result.stdout.split("Broken contracts", 1)[-1], result.stdout

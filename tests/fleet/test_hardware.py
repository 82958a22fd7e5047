"""The café's set-up files hang together: the script parses and names only real files, the
unit runs a real command, the shipped files are valid, and the broker's paths agree."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from controller.cli import build_parser
from controller.config import parse_config
from controller.fleet.config import load_cafe_config

ROOT = Path(__file__).resolve().parents[2]
FLEET = ROOT / "hardware" / "fleet"


def test_the_install_script_parses_and_names_only_files_that_exist() -> None:
    script = FLEET / "install-cafe.sh"
    subprocess.run(["sh", "-n", str(script)], check=True)
    text = script.read_text()
    refs = set(re.findall(r"hardware/[\w./-]+\.(?:sh|service|toml|md)", text))
    assert refs and all((ROOT / r).is_file() for r in refs), refs


def test_the_unit_runs_the_cafe_service_on_the_shipped_file() -> None:
    unit = (FLEET / "knapp-fleet.service").read_text()
    (line,) = [x for x in unit.splitlines() if x.startswith("ExecStart=")]
    argv = shlex.split(line.removeprefix("ExecStart="))
    assert argv[0].endswith("/knapp")
    args = build_parser().parse_args(argv[1:])
    assert (args.command, args.fleet_command, args.config) == ("fleet", "serve",
                                                               "/etc/knapp/cafe.toml")
    assert "cp \"$DEST/hardware/fleet/cafe.toml\" /etc/knapp/cafe.toml" in (
        FLEET / "install-cafe.sh").read_text()


def test_the_shipped_cafe_and_table_files_are_valid() -> None:
    cafe = load_cafe_config(FLEET / "cafe.toml")
    assert cafe.broker.tls and cafe.broker.username == "cafe"
    assert str(cafe.broker.password_file) == "/etc/knapp/fleet/cafe.password"
    import tomllib

    text = (FLEET / "table-fleet.toml").read_text()
    data = tomllib.loads(text.replace("CAFE_HOST", "cafe.local").replace("TABLE_ID", "corner"))
    fleet = parse_config(data, "table.toml").fleet
    assert fleet.enabled and fleet.table_id == "corner"


def test_the_broker_files_name_what_the_script_makes(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "controller", "fleet", "broker-config", "--out",
                    str(tmp_path)], check=True, capture_output=True)
    conf = (tmp_path / "knapp.conf").read_text()
    script = (FLEET / "install-cafe.sh").read_text()
    for path in ("/etc/mosquitto/knapp.passwd", "/etc/mosquitto/acl",
                 "/etc/mosquitto/certs/ca.pem", "/etc/mosquitto/certs/broker.pem",
                 "/etc/mosquitto/certs/broker.key"):
        assert path in conf
        name = path.rsplit("/", 1)[1]
        assert name in script, name
    assert "listener 8883" in conf and "allow_anonymous false" in conf
    assert "persistence" not in conf  # Debian's own mosquitto.conf sets it

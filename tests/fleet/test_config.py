"""The `[fleet]` section of the table file and the café's own file: every mistake named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import default_config, load_config, parse_config
from controller.errors import ConfigError
from controller.fleet.config import check_table_id, load_cafe_config, parse_cafe


def test_a_table_without_fleet_publishes_nowhere() -> None:
    assert not default_config().fleet.enabled


def test_a_fleet_section_with_relative_files(tmp_path: Path) -> None:
    f = tmp_path / "table.toml"
    f.write_text('[fleet]\nbroker = "mqtts://cafe.local"\ntable = "corner"\n'
                 'password_file = "fleet.pw"\nca_file = "/etc/knapp/ca.pem"\nwindow = 50\n')
    fleet = load_config(f).fleet
    assert fleet.enabled and fleet.table_id == "corner" and fleet.window == 50
    b = fleet.broker
    assert b is not None and (b.host, b.port, b.tls, b.username) == ("cafe.local", 8883, True,
                                                                     "corner")
    assert b.password_file == tmp_path / "fleet.pw" and b.ca_file == Path("/etc/knapp/ca.pem")
    with pytest.raises(ConfigError, match="cannot read the broker password"):
        b.password()
    (tmp_path / "fleet.pw").write_text("s3cret\nignored\n")
    assert b.password() == "s3cret"
    (tmp_path / "fleet.pw").write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        b.password()
    assert b.url == "mqtts://cafe.local:8883"


@pytest.mark.parametrize(("fleet", "key", "reason"), [
    ({"table": "corner"}, "fleet.broker", "needs the café's broker URL"),
    ({"broker": "mqtt://h", "table": "c"}, "fleet.password_file", "broker password"),
    ({"broker": "mqtt://h"}, "fleet.table", "needs this table's id"),
    ({"broker": "http://h", "table": "c"}, "fleet.broker", "expected mqtt://"),
    ({"broker": "mqtt://u:p@h", "table": "c"}, "fleet.broker", "password_file"),
    ({"broker": "mqtt://h/x", "table": "c"}, "fleet.broker", "no path"),
    ({"broker": "mqtt://h:99999", "table": "c"}, "fleet.broker", "bad port"),
    ({"broker": "mqtt://h", "table": "a/b"}, "fleet.table", "a-z, 0-9"),
    ({"broker": "mqtt://h", "table": "+"}, "fleet.table", "a-z, 0-9"),
    ({"broker": "mqtt://h", "table": "cafe"}, "fleet.table", "café service's own"),
    ({"broker": "mqtt://h", "table": "c", "ca_file": "ca.pem"}, "fleet.ca_file", "mqtts"),
    ({"broker": "mqtts://h", "table": "c", "cert_file": "c.pem"}, "fleet.cert_file", "both"),
    ({"broker": "mqtt://h", "table": "c", "window": 0}, "fleet.window", "between"),
    ({"broker": "mqtt://h", "table": "c", "tabel": "x"}, "fleet.tabel", "did you mean 'table'"),
])
def test_a_bad_fleet_section_is_named(fleet: dict[str, object], key: str, reason: str) -> None:
    if key != "fleet.password_file":
        fleet = {"password_file": "pw", **fleet}
    with pytest.raises(ConfigError) as err:
        parse_config({"fleet": fleet}, "t.toml")
    assert err.value.key == key and reason in err.value.reason, str(err.value)


def test_knapp_config_check_reads_the_fleet_section(tmp_path: Path) -> None:
    f = tmp_path / "table.toml"
    f.write_text('[fleet]\nbroker = "mqtt://cafe.local"\ntable = "Corner"\npassword_file = "p"\n')
    out = subprocess.run([sys.executable, "-m", "controller", "config", "check", str(f)],
                         capture_output=True, text=True, check=False)
    assert out.returncode != 0 and "fleet.table" in out.stderr + out.stdout


CAFE = {"cafe": {"name": "Knapp Café", "database": "dbname=knapp", "tables": ["a", "b"],
                 "port": 8081},
        "broker": {"url": "mqtts://localhost", "password_file": "cafe.pw"}}


def test_a_cafe_file(tmp_path: Path) -> None:
    f = tmp_path / "cafe.toml"
    f.write_text('[cafe]\nname = "Knapp Café"\ndatabase = "dbname=knapp"\ntables = ["a", "b"]\n'
                 '[broker]\nurl = "mqtts://localhost"\npassword_file = "cafe.pw"\n')
    cfg = load_cafe_config(f)
    assert cfg.tables == ("a", "b") and cfg.broker.username == "cafe"
    assert cfg.broker.password_file == tmp_path / "cafe.pw" and cfg.port == 8080


@pytest.mark.parametrize(("edit", "key", "reason"), [
    (lambda d: d["cafe"].pop("database"), "cafe.database", "PostgreSQL connection string"),
    (lambda d: d["cafe"].update(tables=["a", "a"]), "cafe.tables[1]", "twice"),
    (lambda d: d["cafe"].update(tables=[3]), "cafe.tables[0]", "expected a table id"),
    (lambda d: d["broker"].update(url="mqtt:/x"), "broker.url", "expected mqtt://"),
    (lambda d: d.update(extra={}), "extra", "unknown section"),
])
def test_a_bad_cafe_file_is_named(edit: object, key: str, reason: str) -> None:
    data = {k: dict(v) for k, v in CAFE.items()}
    edit(data)  # type: ignore[operator]
    with pytest.raises(ConfigError) as err:
        parse_cafe(data, "cafe.toml")
    assert err.value.key == key and reason in err.value.reason, str(err.value)
    with pytest.raises(ConfigError, match="cannot read"):
        load_cafe_config("/nonexistent/cafe.toml")


def test_table_ids() -> None:
    assert check_table_id("corner-2") is None
    assert check_table_id("x" * 33) is not None and check_table_id("") is not None

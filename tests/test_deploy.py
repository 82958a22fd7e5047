"""The Pi deployment files hang together: scripts parse, every file they name
exists, the unit starts the command the CLI really has, the shipped table
configuration is valid, and installs pin numpy/OpenCV for picamera2."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*ROOT.glob("hardware/pi/*.sh"), *ROOT.glob("hardware/camera/*.sh")])


def test_there_are_deployment_scripts() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"install.sh", "update.sh", "kiosk.sh", "pip-install.sh", "install-pi.sh"} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_parses_and_names_only_files_that_exist(script: Path) -> None:
    subprocess.run(["sh", "-n", str(script)], check=True)
    text = script.read_text()
    for ref in sorted(set(re.findall(r"hardware/[\w./-]+\.(?:sh|service|toml|txt|md)", text))):
        assert (ROOT / ref).is_file(), f"{script.name} names {ref}, which is not in the repository"


def test_every_pip_install_on_the_pi_goes_through_the_pinned_installer() -> None:
    # A bare `pip install` would put numpy 2 over Debian's and break picamera2.
    for script in SCRIPTS:
        if script.name == "pip-install.sh":
            continue
        for line in script.read_text().splitlines():
            bare = re.search(r"\bpip3?\"?\s+(-\S+\s+)*install\b(?!.*--upgrade pip)", line)
            assert not bare, (
                f"{script.name}: {line.strip()!r} bypasses hardware/pi/pip-install.sh")


def test_pinned_installer_prints_its_constraints() -> None:
    out = subprocess.run(["sh", str(ROOT / "hardware/pi/pip-install.sh"), "--print-constraints"],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    assert "opencv-python-headless>=4.7,<4.12" in out
    system = Path("/usr/bin/python3")
    probe = subprocess.run([str(system), "-c", "import numpy; print(numpy.__version__)"],
                           check=False, capture_output=True, text=True) if system.exists() else None
    if probe is not None and probe.returncode == 0:
        assert f"numpy=={probe.stdout.strip()}" in out
    else:
        assert not any(line.startswith("numpy") for line in out)


def test_pinned_installer_refuses_missing_arguments() -> None:
    r = subprocess.run(["sh", str(ROOT / "hardware/pi/pip-install.sh")],
                       check=False, capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr


def test_unit_starts_a_command_the_cli_has(capsys: pytest.CaptureFixture[str]) -> None:
    unit = (ROOT / "hardware/pi/knapp.service").read_text()
    settings = dict(line.split("=", 1) for line in unit.splitlines()
                    if "=" in line and not line.startswith("#"))
    assert settings["Type"] == "notify" and settings["Restart"] == "on-failure"
    assert int(settings["WatchdogSec"]) > 0
    assert settings["WorkingDirectory"] in settings["ReadWritePaths"].split()
    argv = shlex.split(settings["ExecStart"])
    assert Path(argv[0]).name == "knapp" and argv[1] == "serve"
    with pytest.raises(SystemExit) as exc:
        main([*argv[1:], "--help"])
    assert exc.value.code == 0
    usage = capsys.readouterr().out
    for flag in (a for a in argv[2:] if a.startswith("--")):
        assert flag in usage, f"knapp serve has no {flag}"


def test_shipped_table_configuration_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(ROOT / "hardware/pi/table.toml")]) == 0


@pytest.mark.skipif(shutil.which("systemd-analyze") is None or sys.platform != "linux",
                    reason="needs systemd-analyze")
def test_unit_passes_systemd_analyze(tmp_path: Path) -> None:
    unit = tmp_path / "knapp.service"
    # Point ExecStart at a binary that exists here; the rest is checked as written.
    unit.write_text(re.sub(r"ExecStart=\S+", f"ExecStart={sys.executable}",
                           (ROOT / "hardware/pi/knapp.service").read_text()))
    r = subprocess.run(["systemd-analyze", "verify", str(unit)],
                       check=False, capture_output=True, text=True)
    errors = [ln for ln in r.stderr.splitlines()
              if "knapp.service" in ln and "User" not in ln and "Group" not in ln
              and "RequiresMountsFor" not in ln and "Documentation" not in ln]
    assert not errors, "\n".join(errors)


def test_shipped_camera_block_is_valid_once_uncommented(tmp_path: Path) -> None:
    from controller.config import load_config

    text = (ROOT / "hardware/pi/table.toml").read_text()
    start = text.index("# [camera]")
    uncommented = text[:start] + re.sub(r"^# ?", "", text[start:], flags=re.M)
    path = tmp_path / "table.toml"
    path.write_text(uncommented)
    cam = (load_config(path)).camera
    assert cam is not None and cam.source == "picamera2"
    assert cam.seat_names() == load_config(path).seats

"""One test against the real server process: start, serve, kill -9, resume."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from tests.web.server import Server


def get(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as r:
        data: dict[str, object] = json.loads(r.read())
        return data


def test_serve_kill_and_resume(tmp_path: Path) -> None:
    server = Server(tmp_path, None, "--seed", "3").start()
    try:
        assert any("open http://localhost:" in line for line in server.output)
        health = get(server.url + "/api/health")
        assert health["ok"] is True
        first = health["match_id"]
        with urllib.request.urlopen(server.url + "/", timeout=10) as r:
            assert b"<!doctype html>" in r.read()
        before = get(server.url + f"/api/matches/{first}")
    finally:
        server.kill()  # kill -9: no clean shutdown
    again = Server(tmp_path, None, "--seed", "3").start()
    try:
        state = get(again.url + "/api/state")
        assert state["match_id"] == first
        after = get(again.url + f"/api/matches/{first}")
        # every event stored before the kill is still there
        assert after["timeline"][: len(before["timeline"])] == before["timeline"]  # type: ignore[index]
    finally:
        again.kill()


def test_a_second_server_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.web.server import free_port

    first = Server(tmp_path, None).start()
    try:
        assert first.proc is not None
        second = subprocess.run(
            [sys.executable, "-m", "controller", "serve", "--sim", "--host", "127.0.0.1",
             "--port", str(free_port()), "--data-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=60, check=False)
        assert second.returncode == 2
        [line] = second.stderr.strip().splitlines()  # one clear line, no traceback
        assert "in use by another knapp serve" in line and f"pid {first.proc.pid}" in line
        assert get(first.url + "/api/health")["ok"] is True  # the first one goes on
    finally:
        first.kill()


def test_a_full_disk_is_shown_and_the_watchdog_still_fed_while_the_table_waits(
        tmp_path: Path, monkeypatch: object) -> None:
    import socket

    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    notify = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(30)
    config = tmp_path / "table.toml"
    config.write_text("[kiosk]\ncountdown_s = 0.3\nsim_return_s = 0.2\n")
    monkeypatch.setenv("NOTIFY_SOCKET", str(notify))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")  # fed every 0.1 s
    # The database is capped at its size after its first event: SQLite's own SQLITE_FULL.
    monkeypatch.setenv("KNAPP_FAULT", "disk-full:1")
    server = Server(tmp_path / "data", config, "--seed", "5").start()
    try:
        assert sock.recv(100) == b"READY=1"
        disk: dict[str, str] = {}
        pings_after = 0
        for _ in range(1200):  # the datagrams pace the test: one per watchdog period
            msg = sock.recv(200).decode()
            if disk.get("level") == "down":
                pings_after += msg == "WATCHDOG=1"
                if pings_after == 5:
                    break
                continue
            disk = get(server.url + "/api/health")["health"]["disk"]  # type: ignore[index,assignment]
        assert disk["level"] == "down" and "full" in disk["message"]
        assert pings_after == 5  # waiting for room is not a hang: no restart
    finally:
        server.kill()
        sock.close()

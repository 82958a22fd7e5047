"""Against the real server process: start, serve, kill -9, resume; idle connections;
the host guard and the PIN on the real network stack."""

from __future__ import annotations

import contextlib
import http.client
import json
import resource
import socket
import threading
import urllib.request
from pathlib import Path

import pytest

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
    # Every seat a bot: the table plays by itself (with a person's seat it would wait
    # for Start, and write nothing).
    config.write_text('[table]\nseats = ["Ada", "Ben"]\n'
                      "[kiosk]\ncountdown_s = 0.3\nsim_return_s = 0.2\nbots = 2\n")
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


def _drain(server: Server) -> None:
    with contextlib.suppress(ValueError, OSError):
        assert server.proc is not None and server.proc.stdout is not None
        for _line in server.proc.stdout:
            pass


def test_idle_connections_do_not_starve_the_table(tmp_path: Path) -> None:
    """1,100 connections that send nothing, against the Pi's default limit of 1,024 files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2400:
        pytest.skip("this test opens 1,100 sockets itself")
    cfg = tmp_path / "table.toml"
    cfg.write_text("[kiosk]\nidle_timeout_s = 1\n")
    # The server starts with the soft limit a Pi's service gets without LimitNOFILE.
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    try:
        server = Server(tmp_path / "data", cfg)
        server.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2400), hard))
    # Out of descriptors, asyncio logs every refused accept: keep reading the server's
    # output, or a full pipe would block it for a reason of the test's own making.
    threading.Thread(target=_drain, args=(server,), daemon=True).start()
    idle: list[socket.socket] = []
    try:
        for _ in range(1100):
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=30))
        # The page and the WebSocket handshake still answer ...
        with urllib.request.urlopen(server.url + "/", timeout=60) as r:
            assert b"<!doctype html>" in r.read()
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as ws:
            ws.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                       b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
            assert ws.recv(200).startswith(b"HTTP/1.1 101")
        # ... because a connection that sends nothing is closed (recv sees the end).
        assert idle[0].recv(1) == b""
    finally:
        for s in idle:
            s.close()
        server.kill()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_real_server_guards_hosts_and_keeps_the_pin_off_the_network(tmp_path: Path) -> None:
    server = Server(tmp_path).start()
    try:
        line = next(x for x in server.output if "table PIN" in x)
        pin = line.split("table PIN: ")[1].split(",")[0]
        assert len(pin) == 8 and pin.isdigit()
        for path in ("/", "/api/state", "/setup"):
            with urllib.request.urlopen(server.url + path, timeout=10) as r:
                body = r.read().decode()
                assert pin not in body
                assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
                assert r.headers.get("Server") is None
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/state", headers={"Host": "rebound.evil.example"})
        assert conn.getresponse().status == 400
        conn.close()
    finally:
        server.kill()

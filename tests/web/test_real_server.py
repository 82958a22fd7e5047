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

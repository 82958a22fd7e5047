"""The staff pages in Chromium: `knapp fleet serve` as a process, a table publishing to it.

The pages refresh themselves (fleet.js swaps in the server's fragment), so
the browser waits for what the page shows, never for a time. Screenshots go
to artifacts/screenshots/fleet/ (reviewed copies in docs/screenshots/fleet/ for docs/fleet.md).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.fleet.local import LocalMosquitto, free_port
from tests.chromium import BROWSER_TESTS, chromium
from tests.fleet.helpers import PASSWORDS, STAFF_HASH, STAFF_PASSWORD, Table
from tests.fleet.test_end_to_end import own_leaderboard

# Fresh screenshots go to artifacts/ on every run; docs/screenshots/fleet/ holds reviewed copies.
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots" / "fleet"
pytestmark = BROWSER_TESTS
HEALTH = {"pads": {"level": "ok", "message": "clock synced, error bound 38 us"},
          "camera": {"level": "degraded", "message": "markers 2 and 3 not seen"},
          "disk": {"level": "ok", "message": ""}, "referee": {"level": "ok", "message": ""}}


def cafe_file(mq: LocalMosquitto, dsn: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cafe.password").write_text(PASSWORDS["cafe"] + "\n")
    f = folder / "cafe.toml"
    f.write_text(f'[cafe]\nname = "Café Knapp"\ndatabase = "{dsn}"\ntables = ["t1", "t2"]\n'
                 f'staff_password = "{STAFF_HASH}"\n'
                 f'[broker]\nurl = "mqtt://127.0.0.1:{mq.port}"\n'
                 'password_file = "cafe.password"\n')
    return f


@pytest.fixture
def cafe_url(mq: LocalMosquitto, dsn: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    cfg = cafe_file(mq, dsn, tmp_path / "cafe")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "controller", "fleet", "serve", "--config",
                             str(cfg), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    out = b""
    deadline = time.monotonic() + 60
    while b"knapp fleet: ready" not in out and time.monotonic() < deadline:
        if not sel.select(deadline - time.monotonic()):
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    sel.close()
    assert b"knapp fleet: ready" in out, out.decode(errors="replace")
    yield f"http://127.0.0.1:{port}", cfg
    proc.terminate()
    proc.wait(30)
    proc.stdout.close()


def test_staff_see_every_table_the_leaderboard_the_league_and_the_games(
        mq: LocalMosquitto, cafe_url: tuple[str, Path], tmp_path: Path) -> None:
    url, cfg = cafe_url
    table = Table(mq, "t1", tmp_path / "t1", health=lambda: HEALTH).start()
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        table.play(2)
        table.play_room()
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1300, "height": 820})
            blocked: list[str] = []
            page.on("console", lambda m: blocked.append(m.text)
                    if "Content Security Policy" in m.text else None)
            page.goto(url + "/")
            # Staff only: the pages send a browser without a session to the login first.
            page.wait_for_selector("input[name=password]")
            assert page.url.endswith("/login")
            page.screenshot(path=str(SHOTS / "login.png"))
            page.fill("input[name=password]", "not the password")
            page.click("button[type=submit]")
            page.wait_for_selector("text=Wrong password.")
            page.fill("input[name=password]", STAFF_PASSWORD)
            page.click("button[type=submit]")
            card = '[data-table="t1"]'
            # The table's card fills in as its records arrive (the page refreshes itself).
            page.wait_for_selector(f'{card} .verdict', timeout=60_000)
            page.wait_for_function(
                "() => /won by/.test(document.querySelector('[data-table=\"t1\"] .match')"
                "?.textContent || '')", timeout=60_000)
            assert page.get_attribute(card, "data-level") == "degraded"  # the camera
            assert "markers 2 and 3 not seen" in page.inner_text(f'{card} [data-part="camera"]')
            assert "online since" in page.inner_text(f"{card} .status")
            assert "never connected" in page.inner_text('[data-table="t2"] .problems')
            page.screenshot(path=str(SHOTS / "tables.png"))

            page.click("text=Leaderboard")
            page.wait_for_selector("#leaderboard tbody tr[data-player]")
            def cell(row: Any, name: str) -> int:
                return int(row.query_selector(name).inner_text())

            shown = {r.get_attribute("data-player"): (cell(r, ".played"), cell(r, ".won"),
                                                     cell(r, ".cards"))
                     for r in page.query_selector_all("#leaderboard tbody tr[data-player]")}
            assert shown == own_leaderboard(table.db_path)
            page.screenshot(path=str(SHOTS / "leaderboard.png"))

            # A league night planned from the command line, then played at table 1.
            planned = subprocess.run(
                [sys.executable, "-m", "controller", "fleet", "league", "--config", str(cfg),
                 "--name", "Tuesday league", "--players", "Ada,Ben,Cleo", "--tables", "t1",
                 "--group", "3", "--rounds", "1"], capture_output=True, text=True, check=True)
            assert "1 matches over 1 rounds" in planned.stdout
            page.click("text=League night")
            page.wait_for_selector("#fixtures tr.open")
            table.play(1, seed=40)
            page.wait_for_selector("#fixtures tr.played", timeout=60_000)
            points = [int(x.inner_text()) for x in page.query_selector_all("#standings .points")]
            assert sorted(points, reverse=True)[0] == 3 and sum(points) >= 3
            page.screenshot(path=str(SHOTS / "league.png"))

            page.click("text=Games")
            page.wait_for_selector("#games tr[data-room]")
            assert "kobbla" in page.inner_text("#games") and "won by" in page.inner_text("#games")

            # The table stops: its card says so on the next refresh.
            page.click("text=Tables")
            page.wait_for_selector(f'{card}[data-level="degraded"]')
            table.link.stop()
            page.wait_for_selector(f'{card}[data-level="down"]', timeout=30_000)
            assert "offline since" in page.inner_text(f"{card} .status")
            assert blocked == []
    finally:
        table.close()



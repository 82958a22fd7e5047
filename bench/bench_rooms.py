"""Game rooms: how fast every screen hears of an action, memory per room, page weight.

    .venv/bin/python bench/bench_rooms.py [--actions 400] [--game knuff] [--seats 8]

1. **Action -> every screen updated.** A real `knapp serve` (uvicorn, the WebSocket,
   the durable SQLite log) in a subprocess; a room with 8 person seats, 8 phones and
   the table screen connected over WebSockets (the `websockets` client). Each sample
   is the time from one phone sending its action to the last of the 9 screens
   receiving the view of the new step (goal: p99 <= 100 ms). The phone on turn taps
   a random legal action (seeded); rooms are started afresh when a game ends.
2. **Memory per room.** In this process (tracemalloc), rooms of each game with every
   seat a computer, played 20 steps in: the bytes one room holds.
3. **Page weight per phone.** The seat page, its style sheets and scripts (ES imports
   followed) and the first view message, uncompressed (goal <= 200 KB).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.clock import FakeClock  # noqa: E402
from controller.games import GAME_IDS, get_game  # noqa: E402
from controller.rooms.manager import RoomManager  # noqa: E402
from controller.rooms.persist import RoomStore  # noqa: E402

PIN = "97531864"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    cfg = data / "table.toml"
    cfg.write_text(f'[kiosk]\npin = "{PIN}"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "serve", "--sim", "--host", "127.0.0.1",
         "--port", str(port), "--data-dir", str(data / "data"), "--config", str(cfg)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=ROOT)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and sel.select(timeout=deadline - time.monotonic()):
        line = proc.stdout.readline()
        if not line or line.strip() == "knapp: ready":
            break
    return proc, f"http://127.0.0.1:{port}"


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
        return data


def get_text(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:
        body: bytes = r.read()
        return body


# -- 1. latency -----------------------------------------------------------------------------


async def one_room(base: str, game: str, seats: int, rng: random.Random,
                   samples: list[float], want: int) -> None:
    async with contextlib.AsyncExitStack() as stack:
        await play_room(stack, base, game, seats, rng, samples, want)


async def play_room(stack: contextlib.AsyncExitStack, base: str, game: str, seats: int,
                    rng: random.Random, samples: list[float], want: int) -> None:
    import websockets

    made = post(base + "/api/rooms", {"game": game, "seats": seats, "bot_delay_s": 0,
                                      "plan": [{"kind": "person"}] * seats})
    room = made["room"]
    ws_url = base.replace("http", "ws") + f"/rooms/{room}/ws"

    async def open_ws() -> Any:
        return await stack.enter_async_context(websockets.connect(ws_url, max_size=2**22))

    # The table screen first: it holds the join codes.
    table = await open_ws()
    await table.send(json.dumps({"type": "hello", "host": made["host"]}))
    await table.recv()
    codes = [j["url"].split("#", 1)[1] for j in json.loads(await table.recv())["joins"]]
    phones = []
    for code in codes:
        cred = post(base + f"/api/rooms/{room}/join", {"code": code})["credential"]
        ws = await open_ws()
        await ws.send(json.dumps({"type": "hello", "credential": cred}))
        await ws.recv()
        phones.append(ws)
    screens = [table, *phones]
    latest: dict[int, dict[str, Any]] = {}
    for i, ws in enumerate(screens):
        latest[i] = await last_view(ws)
    n = 0
    while len(samples) < want:
        view = latest[0]
        if view["over"]:
            break
        seat = rng.choice(view["actors"])
        mine = latest[seat + 1]
        if not mine["legal"] or mine["step"] != view["step"]:
            latest[seat + 1] = await last_view(phones[seat])
            continue
        step = mine["step"]
        t0 = time.perf_counter()
        await phones[seat].send(json.dumps({"type": "act", "seat": seat, "id": f"b{n}",
                                            "action": rng.choice(mine["legal"]),
                                            "step": step}))
        for i, ws in enumerate(screens):
            while latest[i]["step"] <= step:
                msg = json.loads(await ws.recv())
                if msg["type"] == "view":
                    latest[i] = msg
                elif msg["type"] == "refused":
                    raise RuntimeError(msg["reason"])
        samples.append(time.perf_counter() - t0)
        n += 1


async def last_view(ws: Any) -> dict[str, Any]:
    """The newest view the socket has (waiting for one if none is queued)."""
    while True:
        msg = json.loads(await ws.recv())
        if msg["type"] == "view":
            return msg


async def latency(base: str, game: str, seats: int, want: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    samples: list[float] = []
    while len(samples) < want:
        await one_room(base, game, seats, rng, samples, want)
    return samples


# -- 2. memory ------------------------------------------------------------------------------


def memory_per_room(count: int = 10, steps: int = 20) -> dict[str, float]:
    out = {}
    for gid in GAME_IDS:
        game = get_game(gid)
        level = "random" if not game.has_bots else "rule"
        manager = RoomManager(RoomStore(":memory:", durable=False), clock=FakeClock())
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for _ in range(count):
            room, _ = manager.create({"game": gid, "seats": game.default_seats, "bot_delay_s": 0,
                                      "plan": [{"kind": "bot", "level": level}]
                                      * game.default_seats})
            for _ in range(steps):
                manager._computer_move(room)
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        out[gid] = grown / count
        manager.store.close()
    return out


# -- 3. page weight -------------------------------------------------------------------------


def page_weight(base: str, game: str = "manni") -> dict[str, int]:
    """Bytes a phone loads for a seat of `game`: the page, its assets, the game's screen.

    Scripts are followed through every "/static/..." they name: static and dynamic
    imports, and the style sheets a screen adds itself.
    """
    made = post(base + "/api/rooms", {"game": game})
    html = get_text(base + f"/rooms/{made['room']}")
    assets = re.findall(rb'(?:href|src)="(/static/[^"]+)"', html)
    sizes = {"page": len(html)}
    # room.js imports the game's designed screen by name at run time.
    queue = [a.decode() for a in assets] + [f"/static/screens/{game}.js"]
    seen: set[str] = set()
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            body = get_text(base + path)
        except urllib.error.HTTPError:
            continue  # a game without a designed screen uses the generic view
        sizes[path] = len(body)
        if path.endswith(".js"):
            queue += [m.decode() for m in re.findall(rb'"(/static/[^"$]+\.(?:js|css))"', body)]
    return sizes


async def first_view_bytes(base: str) -> int:
    import websockets

    made = post(base + "/api/rooms", {"game": "manni"})
    ws_url = base.replace("http", "ws") + f"/rooms/{made['room']}/ws"
    async with websockets.connect(ws_url, max_size=2**22) as table:
        await table.send(json.dumps({"type": "hello", "host": made["host"]}))
        await table.recv()
        code = json.loads(await table.recv())["joins"][0]["url"].split("#", 1)[1]
    cred = post(base + f"/api/rooms/{made['room']}/join", {"code": code})["credential"]
    async with websockets.connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "credential": cred}))
        await ws.recv()
        return len(await ws.recv())


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=400, help="latency samples")
    ap.add_argument("--game", default="knuff", help="the game of the latency rooms")
    ap.add_argument("--seats", type=int, default=8, help="person seats (phones) per room")
    ap.add_argument("--seed", type=int, default=1, help="seed of the phones' choices")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp))
        try:
            samples = asyncio.run(latency(base, args.game, args.seats, args.actions, args.seed))
            weights = page_weight(base)
            per_game = {g: sum(page_weight(base, g).values())
                        for g in ("manni", "pukk", "rommy", "knuff", "kobbla", "koob")}
            view_bytes = asyncio.run(first_view_bytes(base))
        finally:
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
    ms = [s * 1000 for s in samples]
    print(f"action -> {args.seats} phones + table screen updated ({args.game}, "
          f"{len(ms)} actions, seed {args.seed}):")
    print(f"  p50 {pct(ms, 0.5):.1f} ms   p99 {pct(ms, 0.99):.1f} ms   "
          f"max {max(ms):.1f} ms   mean {statistics.fmean(ms):.1f} ms   (goal p99 <= 100 ms)")
    print("memory per room (tracemalloc, 20 steps in, 10 rooms each):")
    for gid, size in memory_per_room().items():
        print(f"  {gid:7} {size / 1024:8.1f} KB")
    total = sum(weights.values()) + view_bytes
    print("page weight per phone (uncompressed):")
    for name, size in sorted(weights.items()):
        print(f"  {name:28} {size / 1024:6.1f} KB")
    print(f"  {'first view message (manni)':28} {view_bytes / 1024:6.1f} KB")
    print(f"  {'total':28} {total / 1024:6.1f} KB   (goal <= 200 KB)")
    print("page weight per phone by game (page, assets and the game's screen, without the view):")
    for gid, size in per_game.items():
        print(f"  {gid:7} {size / 1024:6.1f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

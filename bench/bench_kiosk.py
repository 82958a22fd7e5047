"""Kiosk figures: verdict latency, push latency to 50 viewers, start-up time, memory.

Starts the real `knapp serve --sim` process on a free port. A grab is injected
through the simulation API; the pad lift is stamped on the server's
CLOCK_MONOTONIC, and each WebSocket client stamps the moment it receives the
state holding the verdict on the same host clock, so the difference is the
latency from pad event to page.

Run: .venv/bin/python bench/bench_kiosk.py [--rounds 30] [--viewers 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.web.server import Server


def post(url: str, body: dict[str, object]) -> None:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def viewer(url: str, ready: asyncio.Event, stop: asyncio.Event,
                 samples: list[tuple[int, int, int]], vid: int) -> None:
    async with websockets.connect(url, max_size=None) as ws:
        ready.set()
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            now = time.monotonic_ns()
            msg = json.loads(raw)
            if msg.get("type") != "state":
                continue
            rnd = msg["state"].get("round")
            v = msg["state"].get("last_verdict")
            if rnd and rnd["claims"] and v and v["provisional"] and v["round"] == rnd["index"]:
                samples.append((vid, rnd["index"], now - rnd["claims"][0]["t_ns"]))


async def run(rounds: int, viewers: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "table.toml"
        cfg.write_text('[table]\nseats = ["Ada", "Ben"]\n[match]\ntarget = 60\n'
                       '[kiosk]\ncountdown_s = 0.2\nsim_return_s = 0.1\nbots = 0\n')
        t0 = time.monotonic()
        server = Server(Path(tmp) / "data", cfg).start()
        startup = time.monotonic() - t0
        base = server.url
        ws_url = base.replace("http", "ws") + "/ws"
        try:
            samples: list[tuple[int, int, int]] = []
            stop = asyncio.Event()
            readies = [asyncio.Event() for _ in range(viewers)]
            tasks = [asyncio.create_task(viewer(ws_url, readies[i], stop, samples, i))
                     for i in range(viewers)]
            await asyncio.gather(*(r.wait() for r in readies))
            done = 0
            last_index = -1
            t_end = time.monotonic() + rounds * 5
            while done < rounds and time.monotonic() < t_end:
                with urllib.request.urlopen(base + "/api/state", timeout=10) as r:
                    state = json.loads(r.read())
                rnd = state.get("round")
                if state["phase"] == "open" and rnd and rnd["index"] != last_index \
                        and not rnd["claims"]:
                    await asyncio.to_thread(post, base + "/api/sim/grab",
                                            {"seat": "Ada", "figure": rnd["answer"]})
                    last_index = rnd["index"]
                    done += 1
                    print(f"\rrounds {done}/{rounds}", end="", file=sys.stderr)
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.5)
            stop.set()
            await asyncio.gather(*tasks)
            print(file=sys.stderr)
            memory = rss_mb(server.proc.pid)  # type: ignore[union-attr]
        finally:
            server.kill()
    first_per_round: dict[int, int] = {}
    for _vid, idx, lat in samples:
        first_per_round[idx] = min(lat, first_per_round.get(idx, lat))
    all_lat = sorted(lat / 1e6 for _v, _i, lat in samples)
    first = sorted(v / 1e6 for v in first_per_round.values())

    def pct(xs: list[float], p: float) -> float:
        return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")

    print(f"rounds measured                      {len(first)}")
    print(f"verdict latency, pad event -> page   p50 {pct(first, 50):6.1f} ms   "
          f"p99 {pct(first, 99):6.1f} ms   (goal p99 <= 50 ms)")
    print(f"push latency, {viewers} viewers             p50 {pct(all_lat, 50):6.1f} ms   "
          f"p99 {pct(all_lat, 99):6.1f} ms   (goal p99 <= 50 ms; {len(all_lat)} samples)")
    print(f"service start to ready               {startup:6.2f} s")
    print(f"resident memory (simulation mode)    {memory:6.1f} MB   (goal < 200 MB)")
    if first:
        print(f"mean verdict latency                 {statistics.mean(first):6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--viewers", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.viewers))


if __name__ == "__main__":
    main()

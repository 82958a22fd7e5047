"""The café fleet's figures: records per second, table -> staff page delay, an hour's backlog.

Real Mosquitto and a real PostgreSQL (fsync on, as a café's server runs it),
both throwaway (controller.fleet.local), the real table link and café
service in this process, every record signed by its table's key and
verified by the café, the staff pages' own data (`/api/status` over HTTP
from a real uvicorn server, logged in as staff):

- drain: one table offline for an hour (an hour of simulated play: about
  the `--per-hour` records `knapp serve --sim` writes in an hour, measured
  as ~2 records/s per table) comes back; time until the café has confirmed
  every record, and records per second;
- three tables back at once with an hour each;
- delay: a match's records appended one by one (`--gap-ms` apart) on a
  connected table; per record, from the table's commit to the café holding
  it in PostgreSQL, and to the staff page's data (`/api/status`) showing it.
  The page itself refreshes every 2 s (fleet.js), which adds up to that.

Run: .venv/bin/python bench/bench_fleet.py [--per-hour N] [--samples N] [--seed S]
Prints one line per figure; nothing here is asserted. Needs the Debian packages
mosquitto and postgresql (`make test` installs them as root).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from controller.clock import MonotonicClock
from controller.evidence.signing import TableKey
from controller.fleet.cafe import CafeService
from controller.fleet.config import BrokerConfig, CafeConfig, FleetConfig, hash_password
from controller.fleet.local import LocalMosquitto, LocalPostgres, LocalServerError, free_port
from controller.fleet.table import TableLink
from controller.knapp.events import Event
from controller.sim.driver import simulate
from controller.store import EventStore

PASSWORDS = {"cafe": "bench-cafe", "t1": "bench-1", "t2": "bench-2", "t3": "bench-3"}
STAFF = "bench-staff-password"


def broker(mq: LocalMosquitto, user: str, folder: Path) -> BrokerConfig:
    folder.mkdir(parents=True, exist_ok=True)
    pw = folder / f"{user}.pw"
    pw.write_text(PASSWORDS[user])
    return BrokerConfig("127.0.0.1", mq.port, username=user, password_file=pw)


def fill(path: Path, records: int, seed: int) -> int:
    """Simulated matches into a table store until it holds `records`; return the count."""
    store = EventStore(path, durable=False)
    i = 0
    while sum(m.events for m in store.matches()) < records:
        simulate(3, 5, seed + i, store=store, seats=("Ada", "Ben", "Cleo"))
        i += 5
    n = sum(m.events for m in store.matches())
    store.close()
    return n


def held(cafe: CafeService, table: str) -> int:
    counts = cafe.read(lambda db: db.counts()) or {}
    return sum(n for (t, _s), n in counts.items() if t == table)


def drain(mq: LocalMosquitto, cafe: CafeService, work: Path, tables: list[str], per_hour: int,
          seed: int) -> None:
    total = 0
    paths = {}
    for i, t in enumerate(tables):
        paths[t] = work / t / "knapp.db"
        paths[t].parent.mkdir(parents=True, exist_ok=True)
        total += fill(paths[t], per_hour, seed + 100 * i)
    start = time.perf_counter()
    links = [TableLink(FleetConfig(t, broker(mq, t, work / t)), paths[t],
                       signer=TableKey.load_or_create(work / t), poll_s=0.05).start()
             for t in tables]
    for link in links:
        assert link.wait_confirmed(lambda lk: lk.connected and lk.sender.backlog() == 0, 1800)
    took = time.perf_counter() - start
    for link in links:
        link.stop(drain_s=0)
    what = "one table" if len(tables) == 1 else f"{len(tables)} tables"
    print(f"backlog drain, {what} back after an hour offline ({total} records): "
          f"{took:.1f} s, {total / took:.0f} records/s confirmed end to end")


def delay(mq: LocalMosquitto, cafe: CafeService, work: Path, samples: int, gap_ms: float,
          seed: int) -> None:
    import uvicorn

    from controller.cli.fleet import cafe_app  # only here: the bench serves the pages

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(cafe_app(cafe), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    # The pages are for staff: log in once, as a staff device does, and keep the cookie.
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    opener.open(urllib.request.Request(f"http://127.0.0.1:{port}/login", method="POST",
                                       data=f"password={STAFF}".encode()))
    scratch = EventStore(":memory:", durable=False)
    events: list[Event] = []
    while len(events) < samples:
        simulate(3, 1, seed + len(events), store=scratch)
        events += scratch.events(scratch.matches()[0].id)
    path = work / "live" / "knapp.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    store = EventStore(path)  # durable, as on a table
    link = TableLink(FleetConfig("t1", broker(mq, "t1", work / "live")), path,
                     signer=TableKey.load_or_create(work / "live")).start()
    assert link.wait_confirmed(lambda lk: lk.connected, 30)
    clock = MonotonicClock()
    to_db: list[float] = []
    to_page: list[float] = []
    mid = ""
    for i, ev in enumerate(events[:samples]):
        if ev.kind == "started":
            mid = store.create_match(first=ev)
        else:
            store.append(mid, ev)
        t0 = clock.now_ns()
        link.wake()
        want = i + 1
        cafe.wait_until(lambda c, w=want: c.totals["accepted"] >= w, 30)
        to_db.append((clock.now_ns() - t0) / 1e6)
        while True:
            with opener.open(f"http://127.0.0.1:{port}/api/status") as r:
                status = json.loads(r.read())
            t1 = next((t for t in status["tables"] if t["table"] == "t1"), None)
            if t1 is not None and t1["records"] >= want:
                break
        to_page.append((clock.now_ns() - t0) / 1e6)
        time.sleep(gap_ms / 1000)
    link.stop()
    store.close()
    server.should_exit = True
    for name, values in (("table commit -> café database", to_db),
                         ("table commit -> staff page data (/api/status)", to_page)):
        q = statistics.quantiles(values, n=100)
        print(f"delay {name}: p50 {statistics.median(values):.1f} ms, p99 {q[98]:.1f} ms "
              f"({len(values)} records, {gap_ms:g} ms apart)")
    print("  (the staff page's own refresh adds up to 2 s on top: fleet.js fetches every 2 s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-hour", type=int, default=7500,
                    help="records a table writes in an hour (default 7500: ~2/s)")
    ap.add_argument("--samples", type=int, default=300, help="records timed for the delay")
    ap.add_argument("--gap-ms", type=float, default=20.0, help="between timed records")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    try:
        pg = LocalPostgres(fsync=True).start()
    except LocalServerError as exc:
        print(f"skipped: {exc}")
        return
    mq = LocalMosquitto(PASSWORDS)
    try:
        mq.start()
        with tempfile.TemporaryDirectory(prefix="knapp-bench-fleet-") as tmp:
            work = Path(tmp)
            for label, tables in (("one", ["t1"]), ("three", ["t1", "t2", "t3"])):
                dsn = pg.create_database(f"bench_{label}")
                cafe = CafeService(CafeConfig("bench", dsn, broker(mq, "cafe", work / "cafe"),
                                              tables=tuple(tables))).start()
                try:
                    drain(mq, cafe, work / label, tables, args.per_hour, args.seed)
                finally:
                    cafe.stop()
            dsn = pg.create_database("bench_delay")
            cafe = CafeService(CafeConfig("bench", dsn, broker(mq, "cafe", work / "cafe"),
                                          tables=("t1",), staff_password=hash_password(STAFF))
                               ).start()
            try:
                delay(mq, cafe, work, args.samples, args.gap_ms, args.seed)
            finally:
                cafe.stop()
    finally:
        mq.close()
        pg.close()


if __name__ == "__main__":
    main()

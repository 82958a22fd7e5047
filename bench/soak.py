"""Soak: hours of unattended play in simulated time, with everything a café does to a table.

Run: .venv/bin/python bench/soak.py [--hours H] [--seed S] [--bots N]
     (`make soak` runs the default: 4 simulated hours, seed 1)

A simulated table (`controller.sim.table.simulated_service`: bots grab through
the simulated pads, figures go back) plays on a `FakeClock` in 20 ms ticks,
match after match. At seeded random moments, all at once:

- kills: the service is dropped and started again from the same store (a
  `kill -9` and a restart on the same boot, with the same clock);
- power cuts: the same, on a new boot id with the clock starting again near
  zero, as CLOCK_MONOTONIC does after a reboot;
- a filling disk: the database is capped at its size and its free pages used
  up (SQLite's own SQLITE_FULL, as on a full SD card), for a few minutes,
  then space comes back;
- a hostile client: requests without credentials, wrong PINs, malformed and
  oversized bodies, unknown ids and odd paths against the web app
  (Starlette's TestClient), several a minute.

It prints, per simulated hour, the cards dealt, the faults so far and the
process's resident memory, then the figures:

- lost verdicts: a final verdict shown (the service's `last_verdict`) and no
  longer in the store's log after a restart (goal 0);
- stuck tables: an open card that does not settle within 2 minutes, or no new
  card for 5 minutes while the table is neither paused, nor between matches,
  nor held by a full disk (goal 0);
- hostile requests the app answered with a server error (goal 0) or obeyed;
- failed ticks: a tick that raised (the referee loop, `TableService.step`,
  logs it and goes on; goal 0);
- RSS growth from the first simulated hour to the last (goal: flat).

Everything is seeded, so a run replays; only the RSS and the wall time depend
on the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from controller.clock import FakeClock
from controller.config import TableConfig, parse_config
from controller.knapp.match import Phase
from controller.pads.sim import SimPads
from controller.referee.service import TableService
from controller.rng import Rng
from controller.sim.table import SimulatedTable
from controller.store import EventStore
from controller.web.app import create_app
from controller.web.auth import PinGuard

S = 1_000_000_000
MINUTE = 60 * S
STEP_NS = 20_000_000
OPEN_LIMIT_NS = 2 * MINUTE
IDLE_LIMIT_NS = 5 * MINUTE
REMATCH_AFTER_NS = 10 * S
PIN = "24681357"


@dataclass
class Figures:
    """What the soak counts."""

    cards: int = 0
    matches: int = 0
    kills: int = 0
    power_cuts: int = 0
    disk_fills: int = 0
    shown: dict[tuple[str, int], tuple[str | None, str | None]] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    hostile: int = 0
    server_errors: list[str] = field(default_factory=list)
    obeyed: list[str] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    failed_ticks: list[str] = field(default_factory=list)


def rss_mb() -> float:
    """This process's resident memory now (Linux /proc)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def table_config(data: Path, bots: int) -> TableConfig:
    seats = ["Ada", "Ben", "Cleo", "Dan"][:max(2, bots)]
    return parse_config({"table": {"seats": seats}, "match": {"target": 8},
                         "kiosk": {"countdown_s": 2, "sim_return_s": 1, "pin": PIN,
                                   "data_dir": str(data), "evidence": False,
                                   "allowed_hosts": ["testserver"]}})


class Table:
    """One service instance at a time on the same store file, and its web app."""

    def __init__(self, data: Path, cfg: TableConfig, bots: int, seed: int) -> None:
        self.data, self.cfg, self.bots, self.seed = data, cfg, bots, seed
        self.boot = str(uuid.UUID(int=seed))
        self.clock = FakeClock(10 * S)
        self.svc = self._start()

    def _start(self) -> TableService:
        # Not durable (no fsync per event): the kills and power cuts here happen
        # inside one process, so the OS keeps every write either way, and fsync
        # would only measure the disk. The store's own tests cover synchronous=FULL.
        store = EventStore(self.data / "knapp.db", durable=False)
        # What controller.sim.table.simulated_service builds, on this boot's id
        # (it takes none: a power cut needs one).
        svc = TableService(self.cfg, store=store, clock=self.clock, seed=self.seed,
                           boot_id=self.boot)
        assert isinstance(svc.pads, SimPads)
        svc.simulate(SimulatedTable(svc, svc.pads, bots=self.bots))
        self.client = TestClient(create_app(svc, PinGuard(self.data, PIN, clock=self.clock),
                                            autorun=False))
        return svc

    def restart(self, *, power_cut: bool, rng: Rng) -> None:
        """Drop the service without closing anything (a kill) and start it again."""
        old = self.svc
        if power_cut:
            self.boot = str(uuid.UUID(int=rng.randbelow(2**64)))
            self.clock = FakeClock(3 * S + rng.randbelow(20 * S))  # near zero again
        del old
        self.svc = self._start()


def check_shown(table: Table, fig: Figures) -> None:
    """Every final verdict shown so far must still be in the store's log."""
    store = table.svc.store
    for (mid, index), (outcome, winner) in fig.shown.items():
        try:
            rnd = store.open_match(mid).rounds[index]
        except (IndexError, KeyError, ValueError) as exc:
            fig.lost.append(f"{mid} round {index}: {exc}")
            continue
        got = (rnd.outcome.value if rnd.outcome is not None else None, rnd.winner)
        if got != (outcome, winner):
            fig.lost.append(f"{mid} round {index}: shown {outcome}/{winner}, stored {got}")


HOSTILE: list[tuple[str, str, dict[str, Any]]] = [
    ("post", "/api/control", {"json": {"action": "abandon"}}),
    ("post", "/api/control", {"json": {"action": "rematch"}, "headers": {"X-Knapp-Pin": "0000"}}),
    ("post", "/api/setup", {"json": {"seats": ["x"] * 500, "target": -1, "variant": "?"}}),
    ("post", "/api/pin", {"json": {"pin": "1"}}),
    ("post", "/api/session", {"json": {"pin": "00000000"}}),
    ("post", "/api/session", {"content": b"\xff\xfe{not json", "headers": {
        "content-type": "application/json"}}),
    ("post", "/api/answer", {"content": b"x" * 2_000_000}),
    ("get", "/api/matches/../../../etc/passwd", {}),
    ("get", "/api/matches/%00", {}),
    ("get", "/api/cards/" + "Q" * 5000, {}),
    ("post", "/api/matches/{mid}/corrections", {"json": {"kind": "void", "reason": "x",
                                                         "round_index": 0}}),
    ("post", "/api/matches/{mid}/evidence/../../x/hold", {"json": {"keep": False}}),
    ("get", "/api/state", {"headers": {"Host": "evil.example"}}),
    ("get", "/api/openapi.json", {}),
]


def hostile_request(table: Table, rng: Rng, fig: Figures) -> None:
    method, path, kw = HOSTILE[rng.randbelow(len(HOSTILE))]
    path = path.replace("{mid}", table.svc.match_id)
    events_before = len(table.svc.match.events)
    match_before = table.svc.match_id
    fig.hostile += 1
    try:
        res = getattr(table.client, method)(path, **kw)
    except Exception as exc:  # the app must answer, never raise into the server
        fig.server_errors.append(f"{method} {path[:60]}: {type(exc).__name__}: {exc}")
        return
    if res.status_code >= 500:
        fig.server_errors.append(f"{method} {path[:60]}: {res.status_code}")
    elif res.status_code < 300 and method == "post":
        fig.obeyed.append(f"{method} {path[:60]}: {res.status_code}")
    if table.svc.match_id != match_before or len(table.svc.match.events) < events_before:
        fig.obeyed.append(f"{method} {path[:60]} changed the match")


@contextlib.contextmanager
def full_disk(store: EventStore) -> Iterator[None]:
    """Cap the database at its size and use up its free pages; give the space back after."""
    db = store._db  # the seam test_full_disk.py fills, too
    db.execute("CREATE TABLE IF NOT EXISTS soak_filler (x BLOB)")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 1}")
    with contextlib.suppress(sqlite3.OperationalError):
        while True:
            db.execute("INSERT INTO soak_filler VALUES (zeroblob(512))")
    try:
        yield
    finally:
        db.execute("PRAGMA max_page_count = 1073741823")
        db.execute("DELETE FROM soak_filler")


class Watch:
    """Stuck-table detection over simulated time (which keeps running across reboots)."""

    def __init__(self) -> None:
        self.open_since: tuple[str, int, int] | None = None
        self.last_card_at = 0
        self.reported_idle = False

    def see(self, svc: TableService, elapsed: int, fig: Figures, *, excused: bool) -> None:
        m = svc.match
        rnd = m.current
        if rnd is not None and m.phase is Phase.OPEN:
            key = (svc.match_id, rnd.index)
            if self.open_since is None or self.open_since[:2] != key:
                self.open_since = (*key, elapsed)
                self.last_card_at = elapsed
                self.reported_idle = False
                fig.cards += 1
            elif excused:  # no grab can be saved while the disk is full: its clock waits
                self.open_since = (*key, max(self.open_since[2], elapsed))
            elif elapsed - self.open_since[2] > OPEN_LIMIT_NS:
                fig.stuck.append(f"{key[0]} round {key[1]}: open for over 2 minutes")
                self.open_since = (*key, elapsed + 10**18)  # once per card
        idle = elapsed - self.last_card_at
        if excused or svc.paused or m.phase is Phase.ENDED:
            self.last_card_at = max(self.last_card_at, elapsed - IDLE_LIMIT_NS // 2)
        elif idle > IDLE_LIMIT_NS and not self.reported_idle:
            fig.stuck.append(f"{svc.match_id}: no new card for 5 minutes at "
                             f"{elapsed / MINUTE:.0f} min ({m.phase.value})")
            self.reported_idle = True


def record_verdict(svc: TableService, fig: Figures) -> None:
    v = svc.last_verdict
    if v is not None and not v["provisional"]:
        fig.shown[(svc.match_id, v["round"])] = (v["outcome"], v["winner"])


def soak(hours: float, seed: int, bots: int, *, pace: float = 1.0) -> Figures:
    """Play `hours` of simulated time; faults come every 3-28 minutes times `pace`."""
    rng = Rng(f"soak:{seed}")

    def minutes(lo: float, spread: float) -> int:
        return round((lo + rng.random() * spread) * MINUTE * pace)

    fig = Figures()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        table = Table(data, table_config(data, bots), bots, seed)
        watch = Watch()
        end = round(hours * 60) * MINUTE
        elapsed = 0
        next_fault = minutes(0, 20)
        disk_until: int | None = None
        disk_ctx: contextlib.AbstractContextManager[None] | None = None
        ended_at: int | None = None
        next_hostile = rng.randbelow(20 * S)
        next_hour = 60 * MINUTE
        while elapsed < end:
            table.clock.advance(ns=STEP_NS)
            elapsed += STEP_NS
            table.svc.step()  # the referee loop's turn: a failing tick is logged, not raised
            if table.svc.heartbeat.error is not None:
                fig.failed_ticks.append(f"{elapsed / MINUTE:.1f} min: {table.svc.heartbeat.error}")
            record_verdict(table.svc, fig)
            watch.see(table.svc, elapsed, fig, excused=disk_until is not None)
            if table.svc.match.phase is Phase.ENDED:
                ended_at = elapsed if ended_at is None else ended_at
                if elapsed - ended_at >= REMATCH_AFTER_NS:  # staff start the next one
                    table.svc.control("rematch")
                    fig.matches += 1
                    ended_at = None
            if elapsed >= next_hostile:
                hostile_request(table, rng, fig)
                next_hostile = elapsed + 2 * S + rng.randbelow(20 * S)
            if disk_until is not None and elapsed >= disk_until:
                assert disk_ctx is not None
                disk_ctx.__exit__(None, None, None)
                disk_until = disk_ctx = None
            if elapsed >= next_fault:
                kind = rng.choice(["kill", "kill", "power", "disk"])
                if kind == "disk" and disk_until is None:
                    fig.disk_fills += 1
                    disk_ctx = full_disk(table.svc.store)
                    disk_ctx.__enter__()
                    disk_until = elapsed + minutes(1, 4)
                elif kind != "disk":
                    if disk_ctx is not None:  # the new process finds the disk as it was
                        disk_ctx.__exit__(None, None, None)
                        disk_until = disk_ctx = None
                    fig.kills += kind == "kill"
                    fig.power_cuts += kind == "power"
                    table.restart(power_cut=kind == "power", rng=rng)
                    check_shown(table, fig)
                next_fault = elapsed + minutes(3, 25)
            if elapsed >= next_hour:
                fig.rss_mb.append(rss_mb())
                print(f"  hour {len(fig.rss_mb)}: {fig.cards} cards, {fig.matches} matches, "
                      f"{fig.kills} kills, {fig.power_cuts} power cuts, {fig.disk_fills} disk "
                      f"fills, {fig.hostile} hostile requests; RSS {fig.rss_mb[-1]:.1f} MB",
                      flush=True)
                next_hour += 60 * MINUTE
        check_shown(table, fig)
        table.svc.store.close()
    return fig


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=4.0, help="simulated hours (default 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", type=int, default=4, help="simulated players (2-4)")
    ap.add_argument("--pace", type=float, default=1.0,
                    help="scale the time between faults (0.1: ten times as many)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"== soak: {args.hours:g} simulated hours, seed {args.seed}, {args.bots} bots, "
          f"fault pace {args.pace:g}")
    fig = soak(args.hours, args.seed, args.bots, pace=args.pace)
    wall = time.perf_counter() - t0
    growth = fig.rss_mb[-1] - fig.rss_mb[0] if len(fig.rss_mb) > 1 else 0.0
    print(f"== cards dealt {fig.cards}, matches {fig.matches}; faults: {fig.kills} kills, "
          f"{fig.power_cuts} power cuts, {fig.disk_fills} disk fills, "
          f"{fig.hostile} hostile requests")
    print(f"   lost verdicts        {len(fig.lost)} of {len(fig.shown)} shown (goal 0)")
    print(f"   stuck tables         {len(fig.stuck)} (goal 0)")
    print(f"   failed ticks         {len(fig.failed_ticks)} (goal 0; the loop goes on after one)")
    print(f"   hostile: server errors {len(fig.server_errors)}, obeyed {len(fig.obeyed)} "
          "(goal 0, 0)")
    print(f"   RSS per hour (MB)    {', '.join(f'{r:.1f}' for r in fig.rss_mb)}; "
          f"growth {growth:+.1f} MB from the first hour to the last")
    print(f"   wall time            {wall:.0f} s")
    for line in (fig.lost + fig.stuck + fig.failed_ticks[:5] + fig.server_errors
                 + fig.obeyed)[:20]:
        print(f"   ! {line}")
    bad = fig.lost or fig.stuck or fig.failed_ticks or fig.server_errors or fig.obeyed
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

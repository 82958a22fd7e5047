"""`knapp fleet demo`: a whole café on this machine, to look at before setting one up.

A throwaway Mosquitto and PostgreSQL (the Debian packages, in temporary
folders, removed at the end), the café service with its staff pages, and
simulated tables, each a real `TableService` with simulated players and its
own SQLite file and `[fleet]` link, in this process. The staff start the
next match a few seconds after one ends, as a person at the table would.
"""

from __future__ import annotations

import secrets
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.clock import MonotonicClock
from controller.config import parse_config
from controller.evidence.signing import TableKey
from controller.fleet.cafe import CafeService
from controller.fleet.config import BrokerConfig, CafeConfig, hash_password
from controller.fleet.local import LocalMosquitto, LocalPostgres
from controller.fleet.table import TableLink
from controller.knapp.match import Phase
from controller.sim.table import simulated_service
from controller.store import EventStore

SEATINGS = (("Ada", "Ben", "Cleo"), ("Ada", "Dan", "Eve"), ("Ben", "Dan", "Finn"),
            ("Cleo", "Eve", "Finn"), ("Ada", "Finn", "Gus"), ("Ben", "Eve", "Gus"))
REMATCH_AFTER_S = 4.0
TICK_S = 0.005


class DemoTable:
    """One simulated table with its store, its service loop and its link to the café."""

    def __init__(self, table_id: str, seats: tuple[str, ...], folder: Path, *, port: int,
                 password: str, seed: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "fleet.password").write_text(password + "\n", encoding="utf-8")
        self.config = parse_config({
            "table": {"name": f"Table {table_id}", "seats": list(seats)},
            "match": {"target": 3},
            "kiosk": {"countdown_s": 1.0, "sim_return_s": 0.6, "bots": len(seats),
                      "evidence": False, "data_dir": str(folder)},
            "fleet": {"broker": f"mqtt://127.0.0.1:{port}", "table": table_id,
                      "password_file": str(folder / "fleet.password")},
        }, f"<demo table {table_id}>")
        self.store = EventStore(folder / "knapp.db")
        self.service = simulated_service(self.config, store=self.store, clock=MonotonicClock(),
                                         seed=seed)
        self.link = TableLink(self.config.fleet, folder / "knapp.db",
                              signer=TableKey.load_or_create(folder), name=self.config.name,
                              health=lambda: self.service.snapshot()["health"])
        self.service.subscribe(self.link.wake)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"demo-{table_id}", daemon=True)

    def start(self) -> DemoTable:
        self.link.start()
        self._thread.start()
        return self

    def _run(self) -> None:
        ended_at: float | None = None
        while not self._stop.is_set():
            self.service.step()
            # As a person would: once the match is over and every figure is back.
            if self.service.match.phase is Phase.ENDED and not self.service.fusion.off_pad:
                ended_at = ended_at or time.monotonic()
                if time.monotonic() - ended_at >= REMATCH_AFTER_S:
                    self.service.control("rematch", "the next match")
                    ended_at = None
            self._stop.wait(TICK_S)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.link.stop()
        self.service.close()
        self.store.close()


class Demo:
    """A café: broker, database, café service and `tables` simulated tables.

    Args:
        tables: how many (1 to 6).
        folder: where the tables' files go (a temporary folder when None).
        postgres: a running throwaway cluster to use (None: one of its own).
    """

    def __init__(self, tables: int = 3, folder: Path | None = None, *,
                 postgres: LocalPostgres | None = None) -> None:
        if not 1 <= tables <= len(SEATINGS):
            raise ValueError(f"a demo café has 1 to {len(SEATINGS)} tables, got {tables}")
        self._tmp = None if folder is not None else tempfile.TemporaryDirectory(
            prefix="knapp-fleet-demo-")
        self.folder = folder or Path(self._tmp.name)  # type: ignore[union-attr]
        self.ids = [f"t{i}" for i in range(1, tables + 1)]
        self.passwords = {name: secrets.token_urlsafe(12) for name in ["cafe", *self.ids]}
        self.staff_password = secrets.token_urlsafe(9)  # printed for whoever runs the demo
        self._own_pg = postgres is None
        self.pg = postgres or LocalPostgres()
        self.mq = LocalMosquitto(self.passwords)
        self.cafe: CafeService | None = None
        self.tables: list[DemoTable] = []

    def start(self) -> Demo:
        """Start everything; returns when the café service is up (the tables connect)."""
        if self._own_pg:
            self.pg.start()
        self.mq.start()
        dsn = self.pg.create_database(f"cafe_{secrets.token_hex(4)}")
        pw = self.folder / "cafe.password"
        pw.write_text(self.passwords["cafe"] + "\n", encoding="utf-8")
        broker = BrokerConfig("127.0.0.1", self.mq.port, username="cafe", password_file=pw)
        self.cafe = CafeService(CafeConfig("Demo café", dsn, broker, tables=tuple(self.ids),
                                           staff_password=hash_password(self.staff_password))
                                ).start()
        for i, table_id in enumerate(self.ids):
            self.tables.append(DemoTable(table_id, SEATINGS[i], self.folder / table_id,
                                         port=self.mq.port, password=self.passwords[table_id],
                                         seed=i + 1).start())
        return self

    def stop(self) -> None:
        """Stop the tables, the café service and the servers; remove the folders."""
        for t in self.tables:
            t.stop()
        if self.cafe is not None:
            self.cafe.stop()
        self.mq.close()
        if self._own_pg:
            self.pg.close()
        if self._tmp is not None:
            self._tmp.cleanup()


def run(args: Any, make_app: Any) -> int:
    """`knapp fleet demo`: serve the staff pages (`make_app(cafe)`, as `knapp fleet serve`
    builds them) until interrupted."""
    import asyncio

    import uvicorn

    demo = Demo(args.tables).start()
    try:
        assert demo.cafe is not None
        app = make_app(demo.cafe)
        print(f"knapp fleet demo: {len(demo.tables)} simulated tables, broker on port "
              f"{demo.mq.port}, PostgreSQL on port {demo.pg.port}", flush=True)
        print(f"knapp fleet demo: staff pages on http://{args.host}:{args.port}/ "
              f"(staff password {demo.staff_password}; Ctrl-C stops and removes everything)",
              flush=True)
        server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port,
                                               log_level="warning"))
        asyncio.run(server.serve())
    finally:
        demo.stop()
    return 0

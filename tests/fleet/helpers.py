"""Pieces the fleet tests share: a café on a throwaway broker and database, tables, counts."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.clock import FakeClock
from controller.evidence.signing import TableKey
from controller.fleet.cafe import CafeService
from controller.fleet.config import BrokerConfig, CafeConfig, FleetConfig, hash_password
from controller.fleet.local import LocalMosquitto
from controller.fleet.summaries import stream_over
from controller.fleet.table import TableLink
from controller.rooms.manager import RoomManager
from controller.rooms.persist import RoomStore
from controller.sim.driver import simulate
from controller.store import EventStore

TABLES = ("t1", "t2", "t3")
PASSWORDS = {"cafe": "cafe-secret", "t1": "pw-one", "t2": "pw-two", "t3": "pw-three"}
STAFF_PASSWORD = "staff-secret-42"
STAFF_HASH = hash_password(STAFF_PASSWORD, salt=b"fixed test salt!")  # once: scrypt is slow
WAIT_S = 60.0  # a deadline for a condition, never a pause: waits end when the condition holds


def broker_config(mq: LocalMosquitto, user: str, folder: Path, *,
                  password: str | None = None) -> BrokerConfig:
    """A broker section for `user` with its password in a file under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    pw = folder / f"{user}.password"
    pw.write_text((PASSWORDS[user] if password is None else password) + "\n")
    return BrokerConfig(host="127.0.0.1", port=mq.port, username=user, password_file=pw)


def cafe_config(mq: LocalMosquitto, dsn: str, folder: Path, **kw: Any) -> CafeConfig:
    return CafeConfig(name="Test café", database=dsn, broker=broker_config(mq, "cafe", folder),
                      tables=kw.pop("tables", TABLES),
                      staff_password=kw.pop("staff_password", STAFF_HASH), **kw)


def staff_client(cafe: CafeService, password: str = STAFF_PASSWORD) -> Any:
    """A test client of the staff pages as `knapp fleet serve` runs them, logged in."""
    from fastapi.testclient import TestClient

    from controller.cli.fleet import cafe_app

    client = TestClient(cafe_app(cafe), base_url="http://localhost")
    r = client.post("/login", data={"password": password}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return client


class Table:
    """A table's store and its link to the café, played by the simulator."""

    def __init__(self, mq: LocalMosquitto, table_id: str, folder: Path, *,
                 wall: Callable[[], float] = time.time, window: int = 500,
                 resend_after_s: float = 30.0, health: Callable[[], Any] | None = None,
                 password: str | None = None, username: str | None = None) -> None:
        self.id = table_id
        self.folder = folder
        self.db_path = folder / "knapp.db"
        self.store = EventStore(self.db_path, durable=False)
        broker = broker_config(mq, table_id, folder, password=password)
        if username is not None:
            broker = BrokerConfig(host=broker.host, port=broker.port, username=username,
                                  password_file=broker.password_file)
        self.fleet = FleetConfig(table_id=table_id, broker=broker, window=window,
                                 resend_after_s=resend_after_s)
        self.key = TableKey.load_or_create(folder)
        self.link = TableLink(self.fleet, self.db_path, signer=self.key, name=f"Table {table_id}",
                              wall=wall,
                              health=health, poll_s=0.02)
        self.played = 0

    def start(self) -> Table:
        self.link.start()
        return self

    def play(self, matches: int, seed: int = 7) -> None:
        """Play whole simulated matches into the table's store."""
        simulate(3, matches, seed + self.played, store=self.store,
                 seats=("Ada", "Ben", "Cleo"))
        self.played += matches
        self.link.wake()

    def play_room(self, game: str = "kobbla", options: dict[str, Any] | None = None) -> str:
        """Play one game room between computer players to its end; return its id."""
        manager = RoomManager(RoomStore(self.db_path, durable=False), clock=FakeClock(10**9))
        room, _ = manager.create({"game": game, "seats": 2, "bot_delay_s": 0,
                                  "plan": [{"kind": "bot", "level": "rule"}] * 2,
                                  "options": options or {"max_turns": 40}})
        for _ in range(5000):
            if room.over:
                break
            manager.tick()
        assert room.over
        manager.store.close()
        self.link.wake()
        return room.room_id

    def close(self) -> None:
        self.link.stop()
        self.store.close()


def expected_counts(db_path: Path, table_id: str) -> dict[tuple[str, str], int]:
    """Records per stream, read straight from the table's files (not through the fleet)."""
    out: dict[tuple[str, str], int] = {}
    with sqlite3.connect(db_path) as db:
        for mid, n in db.execute("SELECT match_id, COUNT(*) FROM events GROUP BY match_id"):
            out[(table_id, f"match/{mid}")] = n
        has_rooms = db.execute("SELECT 1 FROM sqlite_master WHERE name='room_events'").fetchone()
        if has_rooms:
            for rid, n in db.execute("SELECT room_id, COUNT(*) FROM room_events "
                                     "GROUP BY room_id"):
                out[(table_id, f"room/{rid}")] = n
    fleet = db_path.with_name("fleet.db")
    if fleet.exists():
        with sqlite3.connect(fleet) as db:
            (n,) = db.execute("SELECT COUNT(*) FROM health").fetchone()
            if n:
                out[(table_id, "health")] = n
    return out


def table_records(db_path: Path, table_id: str) -> set[tuple[str, str, int, str]]:
    """Every record of a table as (table, stream, seq, hash), from its own files."""
    out = set()
    with sqlite3.connect(db_path) as db:
        for mid, seq, h in db.execute("SELECT match_id, seq, hash FROM events"):
            out.add((table_id, f"match/{mid}", seq, h))
        if db.execute("SELECT 1 FROM sqlite_master WHERE name='room_events'").fetchone():
            for rid, seq, h in db.execute("SELECT room_id, seq, hash FROM room_events"):
                out.add((table_id, f"room/{rid}", seq, h))
    fleet = db_path.with_name("fleet.db")
    if fleet.exists():
        with sqlite3.connect(fleet) as db:
            for seq, h in db.execute("SELECT seq, hash FROM health"):
                out.add((table_id, "health", seq, h))
    return out


def running_hidden(db_path: Path, table_id: str) -> set[tuple[str, str]]:
    """(table, stream) of every match or room still running: what the café must hold sealed."""
    out = set()
    with sqlite3.connect(db_path) as db:
        streams = [(f"match/{m}", db.execute("SELECT body FROM events WHERE match_id=? "
                                              "ORDER BY seq", (m,)).fetchall())
                   for (m,) in db.execute("SELECT DISTINCT match_id FROM events")]
        if db.execute("SELECT 1 FROM sqlite_master WHERE name='room_events'").fetchone():
            streams += [(f"room/{r}", db.execute("SELECT body FROM room_events WHERE room_id=? "
                                                 "ORDER BY seq", (r,)).fetchall())
                        for (r,) in db.execute("SELECT DISTINCT room_id FROM room_events")]
    for stream, rows in streams:
        if not stream_over(stream, [b for (b,) in rows]):
            out.add((table_id, stream))
    return out


def sealed_held(cafe: CafeService) -> set[tuple[str, str]]:
    """(table, stream) of every stream the café holds a sealed record of."""
    rows = cafe.read(lambda db: db.conn.execute(
        "SELECT DISTINCT table_id, stream FROM fleet_records WHERE sealed").fetchall())
    return {(str(t), str(s)) for t, s in rows or []}


def held(cafe: CafeService) -> dict[tuple[str, str], int]:
    """Records the café's database holds per (table, stream) ({} while it is down)."""
    return cafe.read(lambda db: db.counts()) or {}


def holds_all(cafe: CafeService, *tables: Table | tuple[Path, str]) -> bool:
    """Every record of `tables`, and sealed exactly where a match or room still runs."""
    want: dict[tuple[str, str], int] = {}
    running: set[tuple[str, str]] = set()
    ids = set()
    for t in tables:
        path, tid = (t.db_path, t.id) if isinstance(t, Table) else t
        want |= expected_counts(path, tid)
        running |= running_hidden(path, tid)
        ids.add(tid)
    have = held(cafe)
    if not all(have.get(k) == n for k, n in want.items()):
        return False
    return {k for k in sealed_held(cafe) if k[0] in ids} == running


def wait_for(cafe: CafeService, predicate: Callable[[], bool], what: str,
             timeout_s: float = WAIT_S) -> None:
    """Wait (on the café's change notices) until `predicate()` holds, or fail naming `what`."""
    assert cafe.wait_until(lambda _c: predicate(), timeout_s), f"timed out waiting for {what}"

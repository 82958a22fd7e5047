"""A simulated table on a fake clock, and its web app, for in-process tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.clock import FakeClock
from controller.config import parse_config
from controller.referee.service import TableService
from controller.sim.table import simulated_service
from controller.store import EventStore
from controller.web.app import create_app
from controller.web.auth import PinGuard

PIN = "2468"


def make_service(tmp_path: Path, *, bots: int = 0, seats: tuple[str, ...] = ("Ada", "Ben", "Cleo"),
                 target: int = 5, clock: FakeClock | None = None,
                 store: EventStore | None = None) -> TableService:
    cfg = parse_config({"table": {"seats": list(seats)}, "match": {"target": target},
                        "kiosk": {"countdown_s": 1, "sim_return_s": 1,
                                  "data_dir": str(tmp_path),
                                  # Starlette's TestClient calls itself "testserver".
                                  "allowed_hosts": ["testserver"]}})
    return simulated_service(cfg, store=store or EventStore(tmp_path / "knapp.db"),
                             clock=clock or FakeClock(1_000_000_000), bots=bots, seed=11)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    svc = make_service(tmp_path)
    yield svc
    svc.store.close()


@pytest.fixture
def client(service: TableService, tmp_path: Path) -> Iterator[TestClient]:
    pin = PinGuard(tmp_path, PIN, clock=service.clock)  # type: ignore[arg-type]
    with TestClient(create_app(service, pin, autorun=False)) as c:
        yield c


def run_until(svc: TableService, predicate: object, *, step_s: float = 0.01,
              limit_s: float = 600.0) -> None:
    """Advance the fake clock and tick until predicate(svc) holds."""
    clock = svc.clock
    assert isinstance(clock, FakeClock)
    waited = 0.0
    svc.tick()
    while not predicate(svc):  # type: ignore[operator]
        clock.advance(step_s)
        svc.tick()
        waited += step_s
        assert waited < limit_s, "condition never reached"

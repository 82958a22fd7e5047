"""In-process clients in each role: a phone (viewer), the table screen (loopback), staff."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.clock import FakeClock
from controller.referee.service import TableService
from controller.web.app import create_app
from controller.web.auth import PinGuard
from tests.web.conftest import make_service

PIN = "73019468"
PHONE = ("192.168.1.50", 50001)
STAFF = ("192.168.1.7", 50002)
PI = ("127.0.0.1", 50003)


@dataclass
class Table:
    """A simulated table on a fake clock, its app, and a client per role."""

    service: TableService
    app: FastAPI
    pin: PinGuard
    phone: TestClient
    screen: TestClient
    staff: TestClient

    @property
    def clock(self) -> FakeClock:
        clock = self.service.clock
        assert isinstance(clock, FakeClock)
        return clock

    def client(self, address: tuple[str, int] = PHONE, **kw: Any) -> TestClient:
        return TestClient(self.app, client=address, raise_server_exceptions=False, **kw)

    def state(self) -> object:
        """Everything a change could touch, to compare before and after a request."""
        svc = self.service
        return (svc.match_id, svc.match.to_json(), svc.paused, svc.config,
                sorted(svc.evidence.held()))


def make_table(tmp_path: Path, *, pin: str = PIN, login: bool = True,
               **service_kw: Any) -> Table:
    service = make_service(tmp_path, **service_kw)
    guard = PinGuard(tmp_path, pin, clock=service.clock)
    app = create_app(service, guard, autorun=False)

    def client(address: tuple[str, int]) -> TestClient:
        return TestClient(app, client=address, raise_server_exceptions=False)

    screen = client(PI)
    assert screen.get("/").status_code == 200  # the Pi's own browser gets its credential
    staff = client(STAFF)
    if login:
        assert staff.post("/api/session", json={"pin": guard.pin}).status_code == 200
    return Table(service, app, guard, client(PHONE), screen, staff)

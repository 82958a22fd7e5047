"""Fixtures of the fleet tests: a real PostgreSQL cluster and a real Mosquitto, throwaway.

PostgreSQL refuses to run as root; as root (CI runs `make test` as root) the
cluster is made and run as `nobody` (controller.fleet.local). Without the
Debian packages the tests skip, naming the package; `make test` installs them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("paho.mqtt", reason="needs paho-mqtt (pip install '.[fleet]')")
pytest.importorskip("psycopg", reason="needs psycopg (pip install '.[fleet]')")

from controller.fleet.cafe import CafeService
from controller.fleet.local import (
    LocalMosquitto,
    LocalPostgres,
    LocalServerError,
    mosquitto_binary,
    pg_binary,
)
from tests.fleet.helpers import PASSWORDS, cafe_config


def _require(find: object, name: str) -> None:
    try:
        find(name)  # type: ignore[operator]
    except LocalServerError as exc:
        pytest.skip(str(exc) + "; `make test` as root installs it")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[LocalPostgres]:
    _require(pg_binary, "initdb")
    server = LocalPostgres().start()
    yield server
    server.close()


@pytest.fixture
def dsn(pg_server: LocalPostgres) -> str:
    """An empty database of its own for each test."""
    return pg_server.create_database(f"t_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def mq() -> Iterator[LocalMosquitto]:
    _require(mosquitto_binary, "mosquitto")
    broker = LocalMosquitto(PASSWORDS).start()
    yield broker
    broker.close()


@pytest.fixture
def cafe(mq: LocalMosquitto, dsn: str, tmp_path: Path) -> Iterator[CafeService]:
    service = CafeService(cafe_config(mq, dsn, tmp_path / "cafe")).start()
    yield service
    service.stop()

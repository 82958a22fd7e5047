"""Keeping an unattended table honest: a store that refuses writes, a loop that fails.

- `StoreGuard`: once the disk refuses a write (full, I/O error), the table
  stops taking events and says so; the pads' and camera's inputs wait in
  their queues, and once a second a small probe write tries again. When it
  goes through, the waiting inputs are judged in time order as usual.
  Nothing is applied in memory that is not stored (the match applies an
  event only after the store took it), so a restart loses nothing the
  table showed.
- `Heartbeat`: the referee loop beats after every tick that finished; the
  systemd watchdog is fed only while the beat is recent, so a loop that died
  or keeps failing is restarted, and one that is only waiting for disk
  space is not.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from controller.errors import StoreUnavailable
from controller.referee.health import Health, Level
from controller.store import EventStore

log = logging.getLogger("knapp.referee")

RETRY_NS = 1_000_000_000


class StoreGuard:
    """Whether the event store takes writes, and when to try again after it refused.

    Args:
        store: the event store.
    """

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.error: str | None = None
        self._retry_ns = 0

    @property
    def down(self) -> bool:
        """True while the store refuses writes."""
        return self.error is not None

    def may_write(self, now_ns: int) -> bool:
        """True when the table may go on: the store is up, or a retry is due and passed."""
        if self.error is None:
            return True
        if now_ns < self._retry_ns:
            return False
        self._retry_ns = now_ns + RETRY_NS
        try:
            self.store.set_table_state("probe", now_ns)
        except StoreUnavailable:
            return False
        return True

    def failed(self, exc: StoreUnavailable, now_ns: int) -> list[str]:
        """The store refused a write; return the message for the table (once per outage)."""
        first = self.error is None
        self.error = str(exc.__cause__ or exc)
        self._retry_ns = now_ns + RETRY_NS
        if not first:
            return []
        log.error("event store refused a write: %s", exc)
        return [f"cannot save events ({self.error}): the table waits and goes on once "
                "there is room"]

    def passed(self) -> list[str]:
        """A whole tick went through after an outage; return the message (once)."""
        if self.error is None:
            return []
        self.error = None
        log.warning("event store takes writes again")
        return ["events are saved again"]

    @property
    def health(self) -> Health:
        """The disk's health as the event log sees it."""
        if self.error is None:
            return Health(Level.OK, "")
        return Health(Level.DOWN, f"cannot save events ({self.error}); no new card until "
                                  "there is room")


@dataclass
class Heartbeat:
    """When the referee loop last finished a tick, and what last went wrong in it."""

    beat_ns: int | None = None
    error: str | None = None
    failures: int = 0

    def beat(self, now_ns: int) -> None:
        """A tick finished."""
        self.beat_ns = now_ns
        self.error = None

    def failed(self, exc: BaseException) -> str:
        """A tick raised something unexpected; log it with its traceback, return the message."""
        self.failures += 1
        self.error = f"{type(exc).__name__}: {exc}"
        log.error("referee tick failed", exc_info=exc)
        return f"referee error ({self.error}); the table goes on"

    def alive(self, now_ns: int, within_ns: int) -> bool:
        """True when a tick finished within `within_ns` of `now_ns`."""
        return self.beat_ns is not None and now_ns - self.beat_ns <= within_ns

    @property
    def health(self) -> Health:
        """The referee loop's health."""
        if self.error is None:
            return Health(Level.OK, "")
        return Health(Level.DEGRADED, f"the last tick failed: {self.error}")

"""What the café knows as it happens: its own parts, and each table as the broker tells it.

Plain data, no broker or database library, so the staff page's reading of
it (`controller.fleet.views`) is tested on its own.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

CLOCK_SAMPLES = 50


@dataclass(slots=True)
class Part:
    """One part of the café (broker, database): a level, a sentence, since when."""

    level: str = "down"
    message: str = "not started"
    since: float = 0.0

    def set(self, level: str, message: str, now: float) -> bool:
        """Change it; True when the level or sentence changed."""
        if (level, message) == (self.level, self.message):
            return False
        self.level, self.message, self.since = level, message, now
        return True

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"level": self.level, "message": self.message, "since": self.since}


@dataclass(slots=True)
class TableLive:
    """What the café knows of a table from the broker, as it happens."""

    table: str
    name: str = ""
    online: bool | None = None  # None: never heard of
    reason: str = ""
    since: float = 0.0
    epoch: str = ""
    software: str = ""
    offsets: deque[float] = field(default_factory=lambda: deque(maxlen=CLOCK_SAMPLES))
    last_message: float | None = None  # the café's clock when a record last arrived
    last_heard: float | None = None  # ... when anything last arrived
    bad_messages: int = 0
    last_bad: str = ""

    def clock_offset(self) -> float | None:
        """How far the table's clock is ahead of the café's (s; negative: behind).

        Each message says when the table sent it; the delay until it arrives is
        never negative, so the largest `sent - received` of the recent ones is
        the closest estimate (a backlog delivered late only makes it smaller).
        """
        return max(self.offsets) if self.offsets else None

"""The one clock: host CLOCK_MONOTONIC in integer nanoseconds.

Every timestamp in the project is on this clock. Code takes a `Clock` as a
keyword argument so tests pass a `FakeClock` and advance it instead of sleeping.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol, runtime_checkable

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000

# Linux draws a new random id at every boot; CLOCK_MONOTONIC starts again near
# zero at every boot, so a time is only comparable with times of the same boot.
BOOT_ID_PATH = Path("/proc/sys/kernel/random/boot_id")


def read_boot_id(path: Path = BOOT_ID_PATH) -> str:
    """This boot's id (Linux), or '' where the system does not tell one."""
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


@runtime_checkable
class Clock(Protocol):
    """Anything that tells host monotonic time in ns."""

    def now_ns(self) -> int:
        """Return the current time in CLOCK_MONOTONIC nanoseconds."""
        ...


class MonotonicClock:
    """The real host clock (Linux CLOCK_MONOTONIC)."""

    def now_ns(self) -> int:
        """Return the current time in CLOCK_MONOTONIC nanoseconds."""
        return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class FakeClock:
    """A manual clock for tests and simulation; time moves only when told.

    Args:
        start_ns: the initial reading.
    """

    def __init__(self, start_ns: int = 0) -> None:
        self._t = start_ns

    def now_ns(self) -> int:
        """Return the current fake time."""
        return self._t

    def advance(self, seconds: float = 0.0, *, ns: int = 0) -> int:
        """Move time forward by `seconds` plus `ns`; return the new reading."""
        step = round(seconds * NS_PER_S) + ns
        if step < 0:
            raise ValueError("a monotonic clock cannot go backwards")
        self._t += step
        return self._t

    def set(self, t_ns: int) -> None:
        """Jump to `t_ns`, which must not be in the past."""
        if t_ns < self._t:
            raise ValueError(f"a monotonic clock cannot go backwards ({t_ns} < {self._t})")
        self._t = t_ns

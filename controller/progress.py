"""A small progress bar on stderr for long work.

Own code instead of tqdm: it is twenty lines, and it must draw nothing when
stderr is not a terminal (CI logs, `--json` pipes) so output stays clean.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Draws `label [#####-----] n/total` on a terminal; silent elsewhere.

    Args:
        total: the amount of work.
        label: what is being done.
        stream: where to draw (stderr by default).
        enabled: force on or off; by default on only for a terminal.
    """

    def __init__(self, total: int, label: str, *, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._last = 0.0
        self.done = 0

    def update(self, done: int) -> None:
        """Report `done` units finished (redraws at most 10 times a second)."""
        self.done = done
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = int(width * done / self.total)
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        """Finish the line."""
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

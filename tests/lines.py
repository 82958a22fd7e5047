"""Lines from a child process's pipe, with a deadline.

`select()` on a text pipe is not enough: `readline()` may pull several lines
into the wrapper's buffer, and `select()` then reports nothing to read although
a whole line is waiting. A thread reads every line into a queue instead.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import IO


class LineReader:
    """Every line a stream gives, in order; `get` waits for the next one up to a deadline."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._lines.put(line)
        except (OSError, ValueError):
            pass  # the stream was closed under us: the process is gone
        self._lines.put(None)

    def get(self, deadline: float) -> str:
        """The next line; AssertionError if none comes before `deadline` (monotonic s)."""
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError("timed out waiting for output") from None
        if line is None:
            self._lines.put(None)
            raise AssertionError("the process closed its output")
        return line

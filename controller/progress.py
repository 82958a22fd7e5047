"""A progress bar on stderr for long work, drawn by tqdm.

A thin wrapper so callers report absolute progress (`update(done)`) and the bar
stays silent when stderr is not a terminal (CI logs, `--json` pipes).
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm


class Progress:
    """`label: 40%|####      | n/total [elapsed<left]` on a terminal; silent elsewhere.

    Args:
        total: the amount of work.
        label: what is being done.
        stream: where to draw (stderr by default).
        enabled: force on or off; by default on only for a terminal.
    """

    def __init__(self, total: float, label: str, *, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done: float = 0
        self._bar = tqdm(total=max(total, 1), desc=label, file=self.stream,
                         disable=not self.enabled, mininterval=0.1, dynamic_ncols=True)

    def update(self, done: float) -> None:
        """Report `done` units finished so far."""
        self._bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        """Finish the bar's line."""
        self._bar.close()

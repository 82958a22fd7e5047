"""The table PIN: who may change the table (setup, corrections, control)."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from controller.clock import Clock
from controller.errors import KnappError


class PinError(KnappError, PermissionError):
    """A change was asked for without the table PIN (or with a wrong one)."""


class PinGuard:
    """The table PIN: configured, or generated once and kept in the data directory.

    Args:
        data_dir: where a generated PIN is kept (mode 0600).
        configured: the PIN from the configuration, if any.
        clock: for the lockout after repeated wrong PINs.
    """

    MAX_FAILURES = 5
    LOCKOUT_NS = 30_000_000_000

    def __init__(self, data_dir: Path, configured: str = "", *, clock: Clock) -> None:
        self.clock = clock
        self.generated = False
        if configured:
            self.pin = configured
        else:
            path = data_dir / "pin"
            if path.exists():
                self.pin = path.read_text().strip()
            else:
                self.pin = f"{secrets.randbelow(10**4):04d}"
                data_dir.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write(self.pin + "\n")
            self.generated = True
        self.shown = not self.generated
        self._failures = 0
        self._locked_until = 0

    def check(self, candidate: str | None) -> None:
        """Raise `PinError` unless `candidate` is the PIN."""
        now = self.clock.now_ns()
        if now < self._locked_until:
            raise PinError("too many wrong PINs; try again in a few seconds")
        if candidate is None or not hmac.compare_digest(candidate.strip(), self.pin):
            self._failures += 1
            if self._failures >= self.MAX_FAILURES:
                self._failures = 0
                self._locked_until = now + self.LOCKOUT_NS
            raise PinError("this needs the table PIN" if not candidate else "wrong PIN")
        self._failures = 0
        self.shown = True

    @property
    def hint(self) -> str | None:
        """The generated PIN while it has not been used yet (shown on the table screen)."""
        return self.pin if not self.shown else None

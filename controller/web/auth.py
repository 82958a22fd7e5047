"""Who may change the table: the table PIN, staff sessions and the table screen's credential.

Three roles (docs/kiosk.md, "Roles"):

- the **table screen**, the Pi's own browser: a random credential kept in the
  data directory, handed out only to a browser on the Pi itself (loopback);
- **staff**: whoever entered the table PIN once on their device; the device
  keeps a signed session cookie, so the PIN is not typed again;
- everyone else (players' and spectators' phones) only watches.

Wrong PINs are counted per client address, so one stranger's guesses slow only
that stranger down; a staff session already open is never affected by anyone's
failures.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.clock import Clock
from controller.errors import KnappError
from controller.signed_tokens import SignedTokens

PIN_DIGITS = 8  # a generated PIN: 10^8 candidates (the arithmetic is in docs/kiosk.md)
SESSION_S = 30 * 24 * 3600  # a staff device stays logged in for 30 days
_SKEW_S = 300  # a session stamped this far in the future (wall clock set back) still counts


class PinError(KnappError, PermissionError):
    """A change was asked for without staff rights (no session, no PIN, or a wrong PIN)."""


class PinThrottled(PinError):
    """This client gave too many wrong PINs; it may try again in `retry_after_s`."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"too many wrong PINs from this device; try again in {retry_after_s} s")
        self.retry_after_s = retry_after_s


def client_key(host: str | None) -> str:
    """The unit wrong PINs are counted by: an IPv4 address, or an IPv6 /64 network.

    One device can take any address of its /64 (privacy addresses), so counting
    per IPv6 address would hand it billions of fresh counters.
    """
    if not host:
        return "?"
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


def is_loopback(host: str | None) -> bool:
    """True when a connection comes from the machine itself."""
    try:
        addr = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


class Throttle:
    """Wrong PINs per client: a few free tries, then a wait that doubles with each failure.

    Written here rather than with a rate-limit library: the waits run on the
    injected clock (tests advance a FakeClock), and the rule is one dict.
    """

    FREE = 3  # typing slips cost nothing
    FIRST_WAIT_NS = 1_000_000_000
    MAX_WAIT_NS = 15 * 60 * 1_000_000_000
    MAX_CLIENTS = 4096  # memory bound; the least recently failing client is forgotten first

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._clients: OrderedDict[str, tuple[int, int]] = OrderedDict()  # failures, until_ns

    def wait_ns(self, client: str) -> int:
        """How long `client` must wait before its next try (0: it may try now)."""
        _, until = self._clients.get(client, (0, 0))
        return max(0, until - self.clock.now_ns())

    def failed(self, client: str) -> None:
        """Count one wrong PIN from `client`."""
        failures = self._clients.pop(client, (0, 0))[0] + 1
        wait = 0
        if failures > self.FREE:
            wait = min(self.MAX_WAIT_NS, self.FIRST_WAIT_NS << min(failures - self.FREE - 1, 40))
        self._clients[client] = (failures, self.clock.now_ns() + wait)
        while len(self._clients) > self.MAX_CLIENTS:
            self._clients.popitem(last=False)

    def succeeded(self, client: str) -> None:
        """`client` gave the right PIN: its count starts again."""
        self._clients.pop(client, None)


def _secret_file(path: Path, make: Callable[[], str]) -> str:
    """Read a secret kept in `path`, or create it (mode 0600) with `make()`."""
    if path.exists():
        return path.read_text().strip()
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value + "\n")
    return value


def _new_pin() -> str:
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


class PinGuard:
    """The table PIN: configured, or generated once and kept in the data directory.

    Args:
        data_dir: where a generated PIN, the "PIN used" mark and the session key are kept.
        configured: the PIN from the configuration, if any (checked by `[kiosk]`).
        clock: for the per-client waits after wrong PINs.
    """

    def __init__(self, data_dir: Path, configured: str = "", *, clock: Clock) -> None:
        self.clock = clock
        self.data_dir = data_dir
        self.throttle = Throttle(clock)
        self.generated = not configured
        self._used_mark = data_dir / "pin-used"
        if configured:
            self.pin = configured
        else:
            path = data_dir / "pin"
            pin = _secret_file(path, _new_pin)
            if len(pin) < PIN_DIGITS or not pin.isdigit():
                # A short PIN from an older version: replace it and show the new one.
                path.unlink()
                self._used_mark.unlink(missing_ok=True)
                pin = _secret_file(path, _new_pin)
            self.pin = pin
        self._pin_bytes = self.pin.encode()
        self.shown = not self.generated or self._used_mark.exists()

    def check(self, candidate: str | None, client: str) -> None:
        """Raise `PinError` unless `candidate` is the PIN (`PinThrottled` while `client` waits).

        Args:
            candidate: the PIN given, if any; a missing one is not counted as a guess.
            client: who asks (`client_key` of the address): failures count per client.
        """
        wait = self.throttle.wait_ns(client)
        if wait:
            raise PinThrottled(-(-wait // 1_000_000_000))
        if not candidate:
            raise PinError("this needs staff: log in with the table PIN")
        # Bytes, so any text a header or body brings compares (no TypeError on non-ASCII).
        given = candidate.strip().encode("utf-8", "replace")
        if not hmac.compare_digest(given, self._pin_bytes):
            self.throttle.failed(client)
            raise PinError("wrong PIN")
        self.throttle.succeeded(client)
        self.mark_used()

    def mark_used(self) -> None:
        """The PIN was used: the table screen stops showing it, also after a restart."""
        if self.shown:
            return
        self.shown = True
        # A read-only data directory: shown again after a restart, nothing worse.
        with contextlib.suppress(OSError):
            self._used_mark.touch()

    @property
    def hint(self) -> str | None:
        """The generated PIN until first used (shown on the table screen only)."""
        return self.pin if not self.shown else None


class Sessions:
    """Staff sessions: a cookie value signed with a key kept in the data directory.

    The signing key is derived from the kept secret and the PIN, so changing
    the PIN logs every device out (signing and ageing: `SignedTokens`).

    Args:
        guard: the PIN guard (its data directory and PIN).
        wall: wall-clock seconds (sessions outlive restarts, so not the monotonic clock).
    """

    def __init__(self, guard: PinGuard, *, wall: Callable[[], float] = time.time) -> None:
        secret = _secret_file(guard.data_dir / "session-key", lambda: secrets.token_hex(32))
        key = hmac.new(bytes.fromhex(secret), b"staff:" + guard.pin.encode(),
                       hashlib.sha256).digest()
        self._tokens = SignedTokens(key, max_age_s=SESSION_S, skew_s=_SKEW_S, wall=wall)

    def issue(self) -> str:
        """A new session cookie value."""
        return self._tokens.issue()

    def valid(self, token: str | None) -> bool:
        """True for a cookie value this table issued within the last `SESSION_S`."""
        return self._tokens.valid(token)


class TableScreen:
    """The table screen's credential: a random token, given only to a browser on the Pi.

    Kept in the data directory, so the screen's cookie survives restarts.
    """

    def __init__(self, data_dir: Path) -> None:
        self.token = _secret_file(data_dir / "table-token", lambda: secrets.token_urlsafe(32))

    def valid(self, token: str | None) -> bool:
        """True for the table screen's own cookie."""
        return bool(token) and hmac.compare_digest((token or "").encode(), self.token.encode())


@dataclass(frozen=True)
class Access:
    """What one request may do: `table` (the Pi's own screen), `staff` (logged in)."""

    table: bool = False
    staff: bool = False

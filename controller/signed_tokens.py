"""Session cookie values signed with HMAC, aged by an injected wall clock.

Shared by the table's staff sessions (`web/auth.py`) and the café's
(`fleet/web.py`), which may not import each other. Written with `hmac` rather
than a signing library: the age check needs the injected wall clock, and it is
a few lines.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

MAX_TOKEN = 200  # longer is never one of ours: refused before any hashing


class SignedTokens:
    """Issue `stamp.random.mac` values and tell ours, younger than `max_age_s`, apart.

    Args:
        key: the signing key.
        max_age_s: how long a value counts.
        skew_s: how far in the future a stamp may lie (a wall clock set back).
        wall: wall-clock seconds (sessions outlive restarts, so not the monotonic clock).
    """

    def __init__(self, key: bytes, *, max_age_s: int, skew_s: int = 0,
                 wall: Callable[[], float] = time.time) -> None:
        self._key = key
        self.max_age_s = max_age_s
        self.skew_s = skew_s
        self.wall = wall

    def _mac(self, body: str) -> str:
        return hmac.new(self._key, body.encode(), hashlib.sha256).hexdigest()

    def issue(self) -> str:
        """A new signed value."""
        body = f"{int(self.wall())}.{secrets.token_hex(8)}"
        return f"{body}.{self._mac(body)}"

    def valid(self, token: str | None) -> bool:
        """True for a value signed with this key within the last `max_age_s`."""
        if not token or len(token) > MAX_TOKEN:
            return False
        body, _, mac = token.rpartition(".")
        stamp = body.partition(".")[0]
        if not stamp.isdigit() or not hmac.compare_digest(mac.encode(), self._mac(body).encode()):
            return False
        return -self.skew_s <= self.wall() - int(stamp) <= self.max_age_s

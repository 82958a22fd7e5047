"""Seat credentials, table tokens and one-time join codes.

A credential is made when a device takes a seat (never before: boardgame.io
#429 leaked credentials made up front), handed to that device once, and kept
on the server only as a hash. The tokens are 192 random bits from `secrets`,
not passwords a person chose, so one SHA-256 is enough: there is nothing to
guess from the hash (a slow password hash would only cost every message time).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from controller.rooms.errors import BadCredential

TOKEN_BYTES = 24
JOIN_CODE_BYTES = 12
# token_urlsafe's alphabet; anything else (or any other length) is not one of ours.
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_token() -> str:
    """A fresh seat credential or table token (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_join_code() -> str:
    """A fresh one-time join code (carried by a seat's QR code)."""
    return secrets.token_urlsafe(JOIN_CODE_BYTES)


def token_hash(token: str) -> str:
    """The hash the server keeps instead of `token`."""
    return hashlib.sha256(f"knapp-room-token:{token}".encode()).hexdigest()


def check_token_text(token: object, what: str = "credential") -> str:
    """Return `token` if it looks like one of ours, else raise `BadCredential` naming `what`."""
    if not isinstance(token, str) or not _TOKEN_RE.fullmatch(token):
        raise BadCredential(f"malformed {what}: expected 16-64 URL-safe characters")
    return token


def same_hash(token: str, digest: str) -> bool:
    """Does `token` hash to `digest`? (constant time)"""
    return hmac.compare_digest(token_hash(token), digest)

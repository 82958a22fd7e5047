"""The errors a room raises; each says what was wrong, and nothing changed."""

from __future__ import annotations

from controller.errors import KnappError


class RoomError(KnappError, ValueError):
    """A room request that cannot be done (bad input); the room is unchanged."""


class NoSuchRoom(RoomError, LookupError):
    """There is no room with that id."""


class BadCredential(RoomError, PermissionError):
    """A seat credential, join code or table token that is unknown, used up or forged."""


class SeatTaken(RoomError):
    """The seat already has a holder (or is played by the computer by design)."""


class StaleAction(RoomError):
    """An action sent against an older step of the game than the current one."""


class RoomStoreError(KnappError, RuntimeError):
    """The rooms' log is unreadable, does not replay, or failed its hash chain."""

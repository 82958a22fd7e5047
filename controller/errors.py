"""One error base for the whole project.

Each error is also a builtin (`ValueError`, `LookupError`, ...) so callers that
do not know our hierarchy still catch it sensibly, as gpiozero's `exc.py` does.
"""

from __future__ import annotations


class KnappError(Exception):
    """Base class of every error this project raises on purpose."""


class ConfigError(KnappError, ValueError):
    """A table configuration file is unreadable or holds a bad key or value."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {reason}")


class MalformedCard(KnappError, ValueError):
    """A card's text form cannot be parsed."""


class InvalidCard(KnappError, ValueError):
    """A card is well formed but has no unique correct figure."""


class IllegalEvent(KnappError, ValueError):
    """An event that the match referee rejects; the match is unchanged."""


class StoreError(KnappError, RuntimeError):
    """The event store is unreadable, corrupt or was tampered with."""


class StoreUnavailable(StoreError, OSError):
    """The disk refused a write (full, I/O error, read-only); nothing was written."""


class NoSuchMatch(StoreError, LookupError):
    """The store holds no match with that id."""


class IllegalAction(KnappError, ValueError):
    """A game action the rules do not allow; the game is unchanged.

    Args:
        rule: short name of the rule that forbids the action.
        message: what was wrong, for the person who tried it.
    """

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{message} (rule: {rule})")

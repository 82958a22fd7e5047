"""Reading one TOML section: typed keys, ranges, and an error for every unknown key.

Shared by the table configuration (`controller.config`) and the packages that own
a section of it (`controller.pads.config`, `controller.vision.config`,
`controller.kiosk`), so each parses its own section into its own dataclass
without importing the file loader (which imports them).
"""

from __future__ import annotations

import difflib
from typing import Any, TypeVar

from controller.errors import ConfigError

T = TypeVar("T")

MAX_SEATS = 8
MIN_SEATS = 2
SEAT_NAME_MAX = 24  # characters; the pages lay a name out in this much room
MAX_TARGET = 60  # cards to win; 0 plays the whole deck


class SeatsError(ValueError):
    """What is wrong with a list of seat names: `key` (`seats` or `seats[i]`) and `reason`."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


def validate_seats(raw: list[Any]) -> tuple[str, ...]:
    """Seat names, stripped: 2 to 8, unique, 1 to 24 characters each.

    Raises:
        SeatsError: naming the seat and what is wrong with it.
    """
    if not MIN_SEATS <= len(raw) <= MAX_SEATS:
        raise SeatsError("seats", f"needs {MIN_SEATS} to {MAX_SEATS} seats, got {len(raw)}")
    seats: list[str] = []
    for i, seat in enumerate(raw):
        if not isinstance(seat, str):
            raise SeatsError(f"seats[{i}]", f"expected a name (string), got {type_name(seat)}")
        name = seat.strip()
        if not name or len(name) > SEAT_NAME_MAX:
            raise SeatsError(f"seats[{i}]", f"a seat name needs 1 to {SEAT_NAME_MAX} characters")
        if name in seats:
            raise SeatsError(f"seats[{i}]", f"duplicate seat name {name!r}")
        seats.append(name)
    return tuple(seats)


class Section:
    """Typed reader over one TOML table that reports unknown keys.

    Subsystems parse their own section with this: `take`, `number`, `integer`,
    `choice`, `sub`, then `finish()` to reject anything left over.
    """

    def __init__(self, source: str, name: str, data: Any) -> None:
        self.source = source
        self.name = name
        if not isinstance(data, dict):
            raise ConfigError(source, name, f"must be a table, got {type_name(data)}")
        self._data: dict[str, Any] = dict(data)

    def key(self, key: str) -> str:
        return f"{self.name}.{key}" if self.name else key

    def error(self, key: str, reason: str) -> ConfigError:
        return ConfigError(self.source, self.key(key), reason)

    def take(self, key: str, kind: type[T] | tuple[type, ...], default: T) -> T:
        if key not in self._data:
            return default
        value = self._data.pop(key)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # bool is an int in Python; a `true` where a number belongs is a mistake.
        if isinstance(value, bool) and bool not in kinds:
            raise self.error(key, f"expected {_kinds_name(kinds)}, got a boolean")
        if not isinstance(value, kinds):
            raise self.error(key, f"expected {_kinds_name(kinds)}, got {type_name(value)}")
        return value  # type: ignore[return-value]

    def number(self, key: str, default: float, *, minimum: float, maximum: float) -> float:
        value = float(self.take(key, (int, float), default))
        if not minimum <= value <= maximum:
            raise self.error(key, f"must be between {minimum:g} and {maximum:g}, got {value:g}")
        return value

    def integer(self, key: str, default: int, *, minimum: int, maximum: int) -> int:
        value = self.take(key, int, default)
        if not minimum <= value <= maximum:
            raise self.error(key, f"must be between {minimum} and {maximum}, got {value}")
        return value

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.take(key, str, default)
        if value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def sub(self, key: str) -> Section:
        return Section(self.source, self.key(key), self._data.pop(key, {}))

    def has(self, key: str) -> bool:
        return key in self._data

    def known(self, *keys: str) -> Section:
        """Declare the section's keys, for 'did you mean' hints."""
        self._known = keys
        return self

    def finish(self) -> None:
        """Reject whatever keys were not consumed."""
        if self._data:
            unknown = sorted(self._data)
            what = "unknown section" if not self.name else "unknown key"
            raise self.error(unknown[0], what + _did_you_mean(unknown[0], self._known))

    _known: tuple[str, ...] = ()


def _did_you_mean(key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def type_name(value: Any) -> str:
    """A value's TOML kind in words, for error messages."""
    return {
        str: "a string", int: "an integer", float: "a number", bool: "a boolean",
        list: "an array", dict: "a table",
    }.get(type(value), type(value).__name__)


def _kinds_name(kinds: tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
             list: "an array", dict: "a table"}
    if set(kinds) == {int, float}:
        return "a number"
    return " or ".join(names.get(k, k.__name__) for k in kinds)

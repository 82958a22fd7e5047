"""The table configuration file: one TOML file per table.

Read with the standard library's `tomllib`. Every section is parsed by a
`Section` reader that consumes known keys and rejects the rest, so a typo
(`targte = 5`) is an error naming the file, the key and the reason instead of a
silently ignored setting. Later subsystems add their own sections here
(`pads`, `camera`, `kiosk`).

Example::

    [table]
    name = "Café corner"
    seats = ["Ada", "Ben", "Cleo"]

    [match]
    variant = "standard"      # or "unruly"
    target = 5                # cards to win; 0 plays until the deck is used up

    [timing]
    anticipation_ms = 250
"""

from __future__ import annotations

import dataclasses
import importlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from controller.errors import ConfigError
from controller.knapp.match import MatchRules, TieRule, Variant

T = TypeVar("T")

MAX_SEATS = 8
MIN_SEATS = 2


class Section:
    """Typed reader over one TOML table that reports unknown keys.

    Subsystems parse their own section with this: `take`, `number`, `integer`,
    `choice`, `sub`, then `finish()` to reject anything left over.
    """

    def __init__(self, source: str, name: str, data: Any) -> None:
        self.source = source
        self.name = name
        if not isinstance(data, dict):
            raise ConfigError(source, name, f"must be a table, got {_type_name(data)}")
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
            raise self.error(key, f"expected {_kinds_name(kinds)}, got {_type_name(value)}")
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
    import difflib

    close = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _type_name(value: Any) -> str:
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


@dataclass(frozen=True)
class TableConfig:
    """A whole table's configuration.

    Args:
        name: the table's display name.
        seats: the players' names, in seating order (2 to 8, unique).
        rules: the match rules (variant, target, timing limits).
        first_turner: index of the seat that turns the first card.
        source: where the configuration came from, for messages.
    """

    name: str = "Knapp table"
    seats: tuple[str, ...] = ("Ada", "Ben", "Cleo")
    rules: MatchRules = field(default_factory=MatchRules)
    first_turner: int = 0
    seed: int | None = None
    source: str = "<defaults>"
    sections: Mapping[str, Any] = field(default_factory=dict)


# Sections owned by subsystems: name -> "module:function". The function is
# called as f(section, config) with the parsed core config, also with an empty
# section when the file omits it, so each subsystem keeps its own defaults. Its
# result is stored in `TableConfig.sections[name]`; the subsystem offers a typed
# accessor (e.g. `controller.pads.config.pads_config(cfg)`).
SUBSYSTEM_SECTIONS: dict[str, str] = {
    "camera": "controller.vision.config:parse_camera",
    "pads": "controller.pads.config:parse_pads",
    "kiosk": "controller.kiosk:parse_kiosk",
}

_CORE_SECTIONS = ("table", "match", "timing")


def parse_config(data: dict[str, Any], source: str = "<string>") -> TableConfig:
    """Validate a parsed TOML document and build a `TableConfig`.

    Raises:
        ConfigError: naming the source, the key and the reason.
    """
    root = Section(source, "", data).known(*_CORE_SECTIONS, *SUBSYSTEM_SECTIONS)

    table = root.sub("table").known("name", "seats", "first_turner")
    name = table.take("name", str, TableConfig.name).strip()
    if not name:
        raise table.error("name", "must not be empty")
    raw_seats = table.take("seats", list, list(TableConfig.seats))
    seats = _parse_seats(table, raw_seats)
    first = table.take("first_turner", str, seats[0])
    if first not in seats:
        raise table.error("first_turner", f"{first!r} is not one of the seats {list(seats)}")
    table.finish()

    match = root.sub("match").known("variant", "target", "seed")
    variant = Variant(match.choice("variant", "standard", tuple(v.value for v in Variant)))
    target = match.integer("target", 5, minimum=0, maximum=60)
    seed: int | None = None
    if match.has("seed"):
        seed = match.take("seed", int, 0)
        if seed < 0:
            raise match.error("seed", f"must be 0 or more, got {seed}")
    match.finish()

    timing = root.sub("timing").known(
        "anticipation_ms", "anticipation_is_wrong", "tie_min_ms", "tie_rule",
        "collection_window_ms", "card_timeout_s",
    )
    defaults = MatchRules()
    anticipation_ms = timing.number("anticipation_ms", defaults.anticipation_ns / 1e6,
                                    minimum=0, maximum=2000)
    anticipation_is_wrong = timing.take("anticipation_is_wrong", bool,
                                        defaults.anticipation_is_wrong)
    tie_min_ms = timing.number("tie_min_ms", defaults.tie_min_ns / 1e6, minimum=0, maximum=1000)
    tie_rule = TieRule(timing.choice("tie_rule", defaults.tie_rule.value,
                                     tuple(r.value for r in TieRule)))
    window_ms = timing.number("collection_window_ms", defaults.collection_window_ns / 1e6,
                              minimum=0, maximum=5000)
    timeout_s = timing.number("card_timeout_s", defaults.card_timeout_ns / 1e9,
                              minimum=1, maximum=600)
    timing.finish()

    rules = MatchRules(
        variant=variant,
        target=target,
        anticipation_ns=round(anticipation_ms * 1e6),
        anticipation_is_wrong=anticipation_is_wrong,
        tie_min_ns=round(tie_min_ms * 1e6),
        tie_rule=tie_rule,
        collection_window_ns=round(window_ms * 1e6),
        card_timeout_ns=round(timeout_s * 1e9),
    )
    core = TableConfig(name=name, seats=seats, rules=rules, first_turner=seats.index(first),
                       seed=seed, source=source)
    sections: dict[str, Any] = {}
    for section_name, target_fn in SUBSYSTEM_SECTIONS.items():
        module_name, _, fn_name = target_fn.partition(":")
        parser = getattr(importlib.import_module(module_name), fn_name)
        section = root.sub(section_name)
        sections[section_name] = parser(section, core)
        section.finish()
    root.finish()
    return dataclasses.replace(core, sections=sections)


def _parse_seats(table: Section, raw: list[Any]) -> tuple[str, ...]:
    if not MIN_SEATS <= len(raw) <= MAX_SEATS:
        raise table.error("seats", f"needs {MIN_SEATS} to {MAX_SEATS} seats, got {len(raw)}")
    seats: list[str] = []
    for i, seat in enumerate(raw):
        if not isinstance(seat, str):
            raise table.error(f"seats[{i}]", f"expected a name (string), got {_type_name(seat)}")
        seat = seat.strip()
        if not seat or len(seat) > 24:
            raise table.error(f"seats[{i}]", "a seat name needs 1 to 24 characters")
        if seat in seats:
            raise table.error(f"seats[{i}]", f"duplicate seat name {seat!r}")
        seats.append(seat)
    return tuple(seats)


def load_config(path: str | Path) -> TableConfig:
    """Read and validate a table configuration file.

    Raises:
        ConfigError: the file is missing, not TOML, or holds a bad key or value.
    """
    p = Path(path)
    try:
        text = p.read_bytes()
    except OSError as exc:
        raise ConfigError(str(p), "", f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(str(p), "", f"not UTF-8 text: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), "", f"not valid TOML: {exc}") from exc
    return parse_config(data, str(p))


def default_config() -> TableConfig:
    """Return the embedded default: three seats, standard rules, no hardware."""
    return parse_config({}, "<defaults>")

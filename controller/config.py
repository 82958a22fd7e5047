"""The table configuration file: one TOML file per table.

Read with the standard library's `tomllib`. Every section is parsed by a
`Section` reader that consumes known keys and rejects the rest, so a typo
(`targte = 5`) is an error naming the file, the key and the reason instead of a
silently ignored setting. The packages that own a section parse it into their
own dataclass (`[pads]` in `controller.pads.config`, `[camera]` in
`controller.vision.config`, `[kiosk]` in `controller.kiosk`); this module
composes them into one typed `TableConfig`.

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
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.errors import ConfigError
from controller.fleet.config import FleetConfig, parse_fleet
from controller.kiosk import KioskConfig, parse_kiosk
from controller.knapp.match import MatchRules, TieRule, Variant
from controller.pads.config import PadsConfig, parse_pads
from controller.settings import MAX_TARGET, SeatsError, Section, validate_seats
from controller.vision.config import CameraConfig, default_layout, parse_camera


@dataclass(frozen=True)
class TableConfig:
    """A whole table's configuration.

    Args:
        name: the table's display name.
        seats: the players' names, in seating order (2 to 8, unique).
        rules: the match rules (variant, target, timing limits).
        first_turner: index of the seat that turns the first card.
        source: where the configuration came from, for messages.
        pads: the `[pads]` section.
        camera: the `[camera]` section (the default layout for the seats when None).
        kiosk: the `[kiosk]` section.
        fleet: the `[fleet]` section (the café this table publishes to, if any).
    """

    name: str = "Knapp table"
    seats: tuple[str, ...] = ("Ada", "Ben", "Cleo")
    rules: MatchRules = field(default_factory=MatchRules)
    first_turner: int = 0
    seed: int | None = None
    source: str = "<defaults>"
    pads: PadsConfig = field(default_factory=PadsConfig)
    camera: CameraConfig = None  # type: ignore[assignment]  # filled in __post_init__
    kiosk: KioskConfig = field(default_factory=KioskConfig)
    fleet: FleetConfig = field(default_factory=FleetConfig)

    def __post_init__(self) -> None:
        # The camera's default layout places a seat zone per seat, so it
        # depends on the seats and cannot be a plain default.
        given: CameraConfig | None = self.camera
        if given is None:
            object.__setattr__(self, "camera", default_layout(self.seats))


_CORE_SECTIONS = ("table", "match", "timing")
_OWNED_SECTIONS = ("pads", "camera", "kiosk", "fleet")


def parse_config(data: dict[str, Any], source: str = "<string>") -> TableConfig:
    """Validate a parsed TOML document and build a `TableConfig`.

    Raises:
        ConfigError: naming the source, the key and the reason.
    """
    root = Section(source, "", data).known(*_CORE_SECTIONS, *_OWNED_SECTIONS)

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
    target = match.integer("target", 5, minimum=0, maximum=MAX_TARGET)
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
    # Each owned section is parsed even when the file omits it, so every
    # package keeps its own defaults in one place.
    base_dir = None if source.startswith("<") else Path(source).parent
    pads = _owned(root, "pads", parse_pads)
    camera = _owned(root, "camera", lambda s: parse_camera(s, seats, base_dir=base_dir))
    kiosk = _owned(root, "kiosk", lambda s: parse_kiosk(s, seats))
    fleet = _owned(root, "fleet", lambda s: parse_fleet(s, base_dir=base_dir))
    root.finish()
    return TableConfig(name=name, seats=seats, rules=rules, first_turner=seats.index(first),
                       seed=seed, source=source, pads=pads, camera=camera, kiosk=kiosk,
                       fleet=fleet)


def _owned(root: Section, name: str, parse: Any) -> Any:
    section = root.sub(name)
    value = parse(section)
    section.finish()
    return value


def _parse_seats(table: Section, raw: list[Any]) -> tuple[str, ...]:
    try:
        return validate_seats(raw)
    except SeatsError as exc:
        raise table.error(exc.key, exc.reason) from None


def with_setup(config: TableConfig, seats: list[Any], target: int, variant: str) -> TableConfig:
    """`config` with new seats, target and variant, checked by the same rules as the file.

    Raises:
        ConfigError: naming the key (`table.seats[1]`, `match.target`) and the reason.
    """
    try:
        names = validate_seats(seats)
    except SeatsError as exc:
        raise ConfigError("setup", f"table.{exc.key}", exc.reason) from None
    if not 0 <= target <= MAX_TARGET:
        raise ConfigError("setup", "match.target",
                          f"must be between 0 and {MAX_TARGET}, got {target}")
    try:
        new_variant = Variant(variant)
    except ValueError:
        raise ConfigError("setup", "match.variant", "must be one of "
                          f"{', '.join(v.value for v in Variant)}; got {variant!r}") from None
    rules = dataclasses.replace(config.rules, target=target, variant=new_variant)
    return dataclasses.replace(config, seats=names, first_turner=0, rules=rules)


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

"""Request bodies and response models of the JSON API (validated by pydantic).

Bodies are strict: a `true` where a number belongs, a number where a name
belongs, or an unknown field is a 422. Every text field is `Text`: no lone
surrogates (they cannot be stored or sent as UTF-8) and no control characters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from controller.settings import MAX_SEATS, MAX_TARGET, MIN_SEATS, SEAT_NAME_MAX

FigureName = Literal["ship", "viking", "child", "chest", "dog"]

# Control characters (Cc), lone surrogates (Cs) and the bidirectional overrides
# that make a name display as something else (Cf, U+202A-U+202E, U+2066-U+2069).
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _printable(text: str) -> str:
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category == "Cs":
            raise ValueError(f"character {i} is a lone surrogate (U+{ord(ch):04X}), not text")
        if category == "Cc" or ch in _BIDI:
            raise ValueError(f"character {i} is a control character (U+{ord(ch):04X})")
    return text


Text = Annotated[str, AfterValidator(_printable)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


SeatName = Annotated[Text, Field(min_length=1, max_length=SEAT_NAME_MAX)]


class SimGrab(_Body):
    """A simulated grab: seat and figure."""

    seat: SeatName
    figure: FigureName


class Answer(_Body):
    """The table says who took a figure."""

    seat: SeatName
    figure: FigureName


class Control(_Body):
    """pause, resume, abandon or rematch."""

    action: Literal["pause", "resume", "abandon", "rematch"]
    reason: Annotated[Text, Field(max_length=200)] = ""


class Correction(_Body):
    """A referee correction."""

    kind: Literal["undo", "award", "void"]
    reason: Annotated[Text, Field(min_length=1, max_length=200)]
    round: Annotated[int, Field(ge=0, le=10_000)] | None = None
    seat: SeatName | None = None


class Hold(_Body):
    """Keep an evidence bundle until released (`keep`), or release it."""

    keep: bool


class Setup(_Body):
    """New players, target and variant; applied with a rematch."""

    seats: Annotated[list[SeatName], Field(min_length=MIN_SEATS, max_length=MAX_SEATS)]
    target: Annotated[int, Field(ge=0, le=MAX_TARGET)]
    variant: Literal["standard", "unruly"]


class Login(_Body):
    """A staff login: the table PIN."""

    pin: Annotated[Text, Field(min_length=1, max_length=64)]


class Done(BaseModel):
    """A change was made."""

    ok: bool = True


class MatchStarted(Done):
    """A change that may have started a new match: which one is live now."""

    match_id: str


class Viewer(BaseModel):
    """Who the asker is to the table: the table screen, staff, or neither (a viewer)."""

    table: bool
    staff: bool


class PartHealth(BaseModel):
    """One part's health: a level (ok, degraded, down, off) and a sentence."""

    level: Literal["ok", "degraded", "down", "off"]
    message: str


class TableHealth(BaseModel):
    """The health of the pads, the camera, the disk and the referee loop."""

    pads: PartHealth
    camera: PartHealth
    disk: PartHealth
    referee: PartHealth


class HealthReport(BaseModel):
    """`/api/health`: is the referee loop ticking (`ok`), which match, and how its parts are."""

    ok: bool
    match_id: str
    phase: str
    version: int
    health: TableHealth


class Calibration(BaseModel):
    """The camera calibration's status for the setup page (the path only for staff)."""

    configured: bool
    file: str | None
    exists: bool | None = None
    detail: str
    preview_url: str | None


class GameCard(BaseModel):
    """A companion game on the Other games page."""

    id: str
    name: str
    summary: str
    seats: tuple[int, int] | None
    status: Literal["coming", "ready"]


# -- validation errors in words ------------------------------------------------------------

# What a field counts, for the sentences below: a list's unit and one item's name.
_UNITS: dict[str, tuple[str, str]] = {"seats": ("players", "player"), "target": ("cards", "")}

_TYPES = {"int_type": "must be a whole number", "int_parsing": "must be a whole number",
          "int_from_float": "must be a whole number", "float_type": "must be a number",
          "float_parsing": "must be a number", "string_type": "must be text",
          "list_type": "must be a list", "bool_type": "must be true or false",
          "bool_parsing": "must be true or false", "dict_type": "must be an object",
          "model_type": "must be an object", "missing": "is required",
          "extra_forbidden": "is not a field this request takes",
          "json_invalid": "is not valid JSON", "json_type": "is not valid JSON"}


def field_name(loc: Sequence[str | int]) -> str:
    """A field's name in words: `("body", "seats", 1)` is "seats, player 2"."""
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)
    words: list[str] = []
    for i, part in enumerate(parts):
        if isinstance(part, int):
            noun = _UNITS.get(str(parts[i - 1]), ("", "item"))[1] if i else "item"
            words.append(f"{noun or 'item'} {part + 1}")
        else:
            words.append(str(part))
    return ", ".join(words) or "the body"


def rule_text(err: Mapping[str, Any]) -> str:
    """The rule a value broke, in words: "at least 2 players", "at most 60 cards"."""
    kind = str(err.get("type", ""))
    ctx: Mapping[str, Any] = err.get("ctx") or {}
    loc = tuple(err.get("loc", ()))
    unit = _UNITS.get(loc[-1], ("", ""))[0] if loc and isinstance(loc[-1], str) else ""
    is_list = ctx.get("field_type") == "List"
    if kind in ("too_short", "too_long"):
        n = ctx.get("min_length" if kind == "too_short" else "max_length")
        if kind == "too_short" and n == 1 and not is_list:
            return "must not be empty"
        what = (unit or "items") if is_list else "characters"
        return f"{'at least' if kind == 'too_short' else 'at most'} {n} {what}"
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"{words} {ctx.get(key)}" + (f" {unit}" if unit else "")
    if kind == "literal_error":
        return f"must be {str(ctx.get('expected', '')).replace(chr(39), '')}"
    if kind in _TYPES:
        return _TYPES[kind]
    msg = str(err.get("msg", "is not valid"))
    return msg.removeprefix("Value error, ")


def error_sentence(err: Mapping[str, Any]) -> str:
    """One validation error as a sentence naming the field and the rule."""
    return f"{field_name(list(err.get('loc', ())))}: {rule_text(err)}"

"""Request bodies and response models of the JSON API (validated by pydantic).

Bodies are strict: a `true` where a number belongs, a number where a name
belongs, or an unknown field is a 422. Every text field is `Text`: no lone
surrogates (they cannot be stored or sent as UTF-8) and no control characters.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

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

"""Request bodies and response models of the JSON API (validated by pydantic)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.settings import MAX_SEATS, MAX_TARGET, MIN_SEATS, SEAT_NAME_MAX

FigureName = Literal["ship", "viking", "child", "chest", "dog"]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SimGrab(_Body):
    """A simulated grab: seat and figure."""

    seat: str = Field(min_length=1, max_length=SEAT_NAME_MAX)
    figure: FigureName


class Answer(_Body):
    """The table says who took a figure."""

    seat: str = Field(min_length=1, max_length=SEAT_NAME_MAX)
    figure: FigureName


class Control(_Body):
    """pause, resume, abandon or rematch."""

    action: Literal["pause", "resume", "abandon", "rematch"]
    reason: str = Field(default="", max_length=200)


class Correction(_Body):
    """A referee correction."""

    kind: Literal["undo", "award", "void"]
    reason: str = Field(min_length=1, max_length=200)
    round: int | None = Field(default=None, ge=0, le=10_000)
    seat: str | None = Field(default=None, min_length=1, max_length=SEAT_NAME_MAX)


class Hold(_Body):
    """Keep an evidence bundle until released (`keep`), or release it."""

    keep: bool


class Setup(_Body):
    """New players, target and variant; applied with a rematch."""

    seats: list[str] = Field(min_length=MIN_SEATS, max_length=MAX_SEATS)
    target: int = Field(ge=0, le=MAX_TARGET)
    variant: Literal["standard", "unruly"]


class Done(BaseModel):
    """A change was made."""

    ok: bool = True


class MatchStarted(Done):
    """A change that may have started a new match: which one is live now."""

    match_id: str


class PartHealth(BaseModel):
    """One part's health: a level (ok, degraded, down, off) and a sentence."""

    level: Literal["ok", "degraded", "down", "off"]
    message: str


class TableHealth(BaseModel):
    """The health of the pads, the camera and the disk."""

    pads: PartHealth
    camera: PartHealth
    disk: PartHealth


class HealthReport(BaseModel):
    """`/api/health`: is the service up, which match, and how its parts are."""

    ok: bool
    match_id: str
    phase: str
    version: int
    health: TableHealth


class Calibration(BaseModel):
    """The camera calibration's status for the setup page."""

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

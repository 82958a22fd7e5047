"""Pad events and statuses, and the one `PadSource` interface every backend offers.

>>> e = PadEvent(Figure.DOG, "lift", 1_500_000, 120_000, "serial")
>>> e.to_json()
{'figure': 'dog', 'kind': 'lift', 't_ns': 1500000, 'uncertainty_ns': 120000, 'source': 'serial'}
>>> PadEvent.from_json(e.to_json()) == e
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from controller.errors import KnappError
from controller.knapp.cards import Figure

Kind = Literal["lift", "place"]
KINDS: tuple[Kind, ...] = ("lift", "place")

# Status words a kiosk can show; `detail` says more in words.
STATUSES = ("connected", "synced", "disconnected", "busy", "rebooted", "bad_frame",
            "lost_frames", "duplicate", "notice", "levels", "selftest", "wrapped", "version",
            "unsynced")


class PadError(KnappError, RuntimeError):
    """A pad source cannot be built or used (bad pin, missing port, no pin factory)."""


@dataclass(frozen=True)
class PadEvent:
    """A figure left or reached its pad.

    Args:
        figure: which figure's pad.
        kind: "lift" (figure left the pad) or "place" (figure set down).
        t_ns: when, on host CLOCK_MONOTONIC in ns.
        uncertainty_ns: half-width of the interval the true time lies in.
        source: "gpio", "serial" or "sim".
    """

    figure: Figure
    kind: Kind
    t_ns: int
    uncertainty_ns: int
    source: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"pad event kind must be lift or place, got {self.kind!r}")
        if self.uncertainty_ns < 0:
            raise ValueError(f"uncertainty must be >= 0, got {self.uncertainty_ns}")

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object `knapp pads monitor --json` prints."""
        return {"figure": self.figure.value, "kind": self.kind, "t_ns": self.t_ns,
                "uncertainty_ns": self.uncertainty_ns, "source": self.source}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PadEvent:
        """Rebuild an event from `to_json` output."""
        kind = data["kind"]
        if kind not in KINDS:
            raise ValueError(f"pad event kind must be lift or place, got {kind!r}")
        return cls(Figure(data["figure"]), kind, int(data["t_ns"]),
                   int(data["uncertainty_ns"]), str(data["source"]))


@dataclass(frozen=True)
class PadStatus:
    """A change in a pad source's condition, for logs and the kiosk.

    Args:
        status: one of STATUSES (connected, synced, disconnected, busy, rebooted,
            bad_frame, ...).
        detail: a sentence saying what happened.
    """

    status: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object `knapp pads monitor --json` prints."""
        return {"status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class LightEvent:
    """The display light sensor saw the screen get brighter (a card appeared) or darker.

    Args:
        brighter: True when the screen got brighter.
        t_ns: host CLOCK_MONOTONIC ns; uncertainty_ns: half-width of the interval.
    """

    brighter: bool
    t_ns: int
    uncertainty_ns: int
    level: int

    def to_json(self) -> dict[str, Any]:
        """Return a JSON object with the photon time."""
        return {"light": "brighter" if self.brighter else "darker", "t_ns": self.t_ns,
                "uncertainty_ns": self.uncertainty_ns, "level": self.level}


Item = PadEvent | PadStatus | LightEvent


@runtime_checkable
class PadSource(Protocol):
    """Anything that reports pad events on the host clock.

    Backends: `GpioPads` (gpiozero), `SerialPads` (the pad board over USB),
    `SimPads` (simulation and tests). Each takes its clock as a keyword argument.

    Attributes:
        name: the backend, as in `PadEvent.source`.
    """

    name: str

    @property
    def has_leds(self) -> bool:
        """Whether `set_led` lights LEDs a player can see (the pad board's).

        The GPIO and simulated backends have none; they record the colours.
        """
        ...

    def poll(self, timeout_s: float = 0.0) -> list[Item]:
        """Return what happened since the last call, waiting up to `timeout_s` for it."""
        ...

    def placed(self) -> dict[Figure, bool | None]:
        """Return which figures stand on their pads now (None: not known yet)."""
        ...

    def set_led(self, figure: Figure | None, rgb: tuple[int, int, int]) -> None:
        """Show `rgb` under `figure`'s pad (None: every pad)."""
        ...

    def close(self) -> None:
        """Release pins or ports; idempotent."""
        ...

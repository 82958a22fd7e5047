"""What the pad board says about itself, and the settings the host sends it.

Levels and self-test verdicts arrive as LEVELS and SELFTEST frames, the
protocol version in every HELLO; `BoardSettings` goes out as SETUP after each
hello (firmware/PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.pads import protocol as wire
from controller.pads.events import PadStatus


@dataclass(frozen=True)
class Levels:
    """A pad's learned levels and thresholds as the board reports them (ADC u16)."""

    empty: int
    loaded: int
    lo: int
    hi: int
    value: int
    placed: bool


@dataclass(frozen=True)
class SelfTestResult:
    """One pad's self-test verdict from the board."""

    ok: bool
    code: int
    minimum: int
    maximum: int
    noise: int

    @property
    def reason(self) -> str:
        return wire.SELFTEST_CODES.get(self.code, f"code {self.code}")


@dataclass(frozen=True)
class BoardSettings:
    """Detector settings sent to the board (SETUP frame) after every hello."""

    hysteresis_pct: int = 15
    confirm_samples: int = 3
    lockout_ms: int = 10
    min_spread: int = 4000


def hello_version(frame: wire.Frame) -> tuple[int, int, int] | None:
    """The protocol version a HELLO of any layout announces (bytes 4-6 of its body)."""
    if frame.type != wire.HELLO or len(frame.body) < 7:
        return None
    return frame.body[4], frame.body[5], frame.body[6]


def version_status(version: tuple[int, int, int]) -> PadStatus:
    """The `version` status for a board that speaks another protocol version."""
    theirs = ".".join(map(str, version))
    ours = ".".join(map(str, wire.PROTOCOL_VERSION))
    return PadStatus("version", f"the pad board speaks protocol {theirs}, this host "
                                f"{ours}: flash the firmware from this checkout "
                                "(hardware/flashing.md)")

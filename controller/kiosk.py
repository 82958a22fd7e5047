"""The `[kiosk]` section of the table configuration file: the service and its screens.

Example (every key optional; these are the defaults)::

    [kiosk]
    host = "127.0.0.1"        # "0.0.0.0" on a Pi so phones on the café network can watch
    port = 8000
    allowed_hosts = []        # host names besides localhost, this machine's and IP addresses
    idle_timeout_s = 10       # a connection must send its request head within this
    data_dir = ""             # "" = $XDG_DATA_HOME/knapp (~/.local/share/knapp)
    pin = ""                  # "" = 8 digits generated at first start, shown on the Pi's
                              # own screen and printed at start; else 6 to 20 digits
    countdown_s = 3           # figures home -> next card
    sim_return_s = 2          # simulation: verdict -> figures put back
    evidence = true           # false: keep no camera frames (pads-only verdicts)
    clips = true              # false: keep no labelled clips of settled rounds (hands, arms)
    retention_days = 30       # evidence older than this is deleted, oldest first
    retention_mb = 2000       # ... and beyond this size
    bots = 0                  # simulated players filling seats in simulation mode

    [kiosk.handicaps_ms]      # added to a seat's grab times (adults against children)
    Ada = 300
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from controller.settings import Section

PIN_MIN_DIGITS = 6  # a configured PIN; docs/kiosk.md has the guessing arithmetic
PIN_MAX_DIGITS = 20


def default_data_dir() -> Path:
    """Per-user data directory: $XDG_DATA_HOME/knapp or ~/.local/share/knapp."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "knapp"


@dataclass(frozen=True)
class KioskConfig:
    """Settings of the kiosk service."""

    host: str = "127.0.0.1"
    port: int = 8000
    allowed_hosts: tuple[str, ...] = ()
    idle_timeout_s: float = 10.0
    data_dir: str = ""
    pin: str = ""
    countdown_ns: int = 3_000_000_000
    sim_return_ns: int = 2_000_000_000
    evidence: bool = True
    clips: bool = True
    retention_days: int = 30
    retention_mb: int = 2000
    bots: int = 0
    handicaps_ns: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def data_path(self) -> Path:
        """Where the database and evidence live."""
        return Path(self.data_dir).expanduser() if self.data_dir else default_data_dir()


def parse_kiosk(section: Section, seats: tuple[str, ...]) -> KioskConfig:
    """Parse `[kiosk]` (called with an empty section when the file has none)."""
    section.known("host", "port", "allowed_hosts", "idle_timeout_s", "data_dir", "pin",
                  "countdown_s", "sim_return_s", "evidence", "clips", "retention_days",
                  "retention_mb", "bots", "handicaps_ms")
    host = section.take("host", str, KioskConfig.host).strip()
    if not host:
        raise section.error("host", "must not be empty")
    port = section.integer("port", KioskConfig.port, minimum=1, maximum=65535)
    allowed = _allowed_hosts(section)
    idle = section.number("idle_timeout_s", KioskConfig.idle_timeout_s, minimum=1, maximum=300)
    data_dir = section.take("data_dir", str, "")
    pin = _pin(section)
    countdown = section.number("countdown_s", 3.0, minimum=0, maximum=30)
    sim_return = section.number("sim_return_s", 2.0, minimum=0, maximum=30)
    evidence = section.take("evidence", bool, True)
    clips = section.take("clips", bool, True)
    days = section.integer("retention_days", 30, minimum=1, maximum=3650)
    mb = section.integer("retention_mb", 2000, minimum=10, maximum=1_000_000)
    bots = section.integer("bots", 0, minimum=0, maximum=len(seats))
    handicaps: dict[str, int] = {}
    hsec = section.sub("handicaps_ms")
    for seat in seats:
        if hsec.has(seat):
            handicaps[seat] = round(hsec.number(seat, 0, minimum=0, maximum=2000) * 1e6)
    hsec.known(*seats)
    hsec.finish()
    return KioskConfig(host=host, port=port, allowed_hosts=allowed, idle_timeout_s=idle,
                       data_dir=data_dir, pin=pin,
                       countdown_ns=round(countdown * 1e9), sim_return_ns=round(sim_return * 1e9),
                       evidence=evidence, clips=clips, retention_days=days, retention_mb=mb,
                       bots=bots,
                       handicaps_ns=MappingProxyType(handicaps))


def _allowed_hosts(section: Section) -> tuple[str, ...]:
    hosts = section.take("allowed_hosts", list, [])
    out = []
    for i, h in enumerate(hosts):
        if not isinstance(h, str) or not h.strip() or not h.isascii() or any(
                c in h for c in " /:@[]"):
            raise section.error(f"allowed_hosts[{i}]", "must be a host name such as "
                                "'table.cafe.lan' (no port, no scheme)")
        out.append(h.strip().lower())
    return tuple(out)


def _pin(section: Section) -> str:
    pin = section.take("pin", str, "").strip()
    if not pin:
        return ""
    if not pin.isascii() or not pin.isdigit() or not PIN_MIN_DIGITS <= len(pin) <= PIN_MAX_DIGITS:
        raise section.error("pin", f"must be {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits "
                            "(or empty: a generated 8-digit PIN)")
    if len(set(pin)) == 1 or pin in "01234567890123456789" or pin in "98765432109876543210":
        raise section.error("pin", "must not be one digit repeated or a run like 123456: "
                            "those are guessed first")
    return pin

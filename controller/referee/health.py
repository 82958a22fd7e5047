"""Health of the table's parts as data: a level and a sentence, never a string to parse.

The pads, the camera and the disk each report one `Health`; the pages choose
banners by `level` and show `message` as it is, so no screen reads meaning
out of wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.pads.events import PadStatus


class Level(StrEnum):
    """How well a part of the table works."""

    OK = "ok"              # working
    DEGRADED = "degraded"  # working with a fault the table should know about
    DOWN = "down"          # not working; the referee goes on without it
    OFF = "off"            # not part of this table (no camera configured)


@dataclass(frozen=True, slots=True)
class Health:
    """One part's condition: `level`, and a sentence for people."""

    level: Level
    message: str = ""

    @property
    def usable(self) -> bool:
        """True when the referee may rely on this part."""
        return self.level in (Level.OK, Level.DEGRADED)

    def to_json(self) -> dict[str, Any]:
        """JSON form for the pages and `/api/health`."""
        return {"level": self.level.value, "message": self.message}


# Pad statuses that mean the board or pins work as they should; the ones that
# mean no lift can arrive; everything else is a fault worth a banner.
_PADS_OK = frozenset({"connected", "synced"})
_PADS_DOWN = frozenset({"disconnected", "busy", "version"})


def pad_health(status: PadStatus | None) -> Health:
    """The health a pad source's latest status stands for (None: nothing reported yet)."""
    if status is None:
        return Health(Level.OK, "")
    if status.status in _PADS_OK:
        return Health(Level.OK, status.detail)
    if status.status in _PADS_DOWN:
        return Health(Level.DOWN, f"{status.status}: {status.detail}")
    return Health(Level.DEGRADED, f"{status.status}: {status.detail}")


NO_CAMERA = Health(Level.OFF, "no camera")

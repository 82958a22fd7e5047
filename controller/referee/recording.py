"""When the table records evidence: photo-finish bundles after a verdict, and retention.

A bundle is written once the frames after the lift are in the camera's ring
(`EVIDENCE_DELAY_NS` after the lift), and only while the disk has room.
Retention runs every ten minutes on the service's clock; its file ages come
from wall-clock time, the one thing the monotonic clock cannot tell.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controller.errors import KnappError
from controller.evidence.retention import (
    RetentionReport,
    disk_has_room,
    enforce,
    held,
    hold,
    release,
)
from controller.kiosk import KioskConfig
from controller.knapp.cards import Figure
from controller.knapp.match import Match
from controller.referee.attribution import CameraAttribution
from controller.referee.camera import EVIDENCE_DELAY_NS

RETENTION_EVERY_NS = 600 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class _Due:
    at_ns: int
    round: int
    figure: Figure


class EvidenceRecorder:
    """Schedules and writes a table's evidence and keeps its folder within bounds.

    Args:
        kiosk: the evidence settings (on/off, retention days and size, data folder).
        now_ns: the service's clock, for the first retention run.
        wall: wall-clock seconds, only for evidence file ages.
    """

    def __init__(self, kiosk: KioskConfig, *, now_ns: int, wall: Callable[[], float]) -> None:
        self.kiosk = kiosk
        self.wall = wall
        self.directory = kiosk.data_path / "evidence"
        self.disk_ok = True
        self.retention_report: RetentionReport | None = None
        self._next_retention_ns = now_ns
        self._due: list[_Due] = []

    @property
    def recording(self) -> bool:
        """True when evidence is on and the disk has room for it."""
        return self.kiosk.evidence and self.disk_ok

    @property
    def pending(self) -> int:
        """How many bundles are scheduled but not yet written."""
        return len(self._due)

    def housekeeping(self, now_ns: int) -> list[str]:
        """Run retention when it is due; return messages for the table."""
        if now_ns < self._next_retention_ns:
            return []
        self._next_retention_ns = now_ns + RETENTION_EVERY_NS
        k = self.kiosk
        self.retention_report = enforce(self.directory, max_age_s=k.retention_days * 86_400.0,
                                        max_bytes=k.retention_mb * 1024 * 1024,
                                        now_s=self.wall())
        self.disk_ok = disk_has_room(k.data_path)
        if not self.disk_ok:
            return ["the disk is almost full: keeping events only, no evidence"]
        return []

    def held(self) -> set[str]:
        """The bundles kept until released (disputed rounds)."""
        return set(held(self.directory))

    def hold(self, ref: str, *, keep: bool) -> None:
        """Keep bundle `ref` past retention (`keep=False` releases it)."""
        (hold if keep else release)(self.directory, ref)

    def schedule(self, camera: CameraAttribution, round_index: int) -> None:
        """A round's verdict is final: its lifts' frames are due for a bundle."""
        for figure, d in camera.lifts_of_round(round_index):
            assert d.lift_ns is not None
            self._due.append(_Due(d.lift_ns + EVIDENCE_DELAY_NS, round_index, figure))

    def write_due(self, now_ns: int, camera: CameraAttribution, match: Match,
                  match_id: str) -> list[str]:
        """Write the bundles whose frames are in; log each in the match; return messages."""
        due = [e for e in self._due if e.at_ns <= now_ns]
        if not due:
            return []
        self._due = [e for e in self._due if e.at_ns > now_ns]
        messages: list[str] = []
        for item in due:
            decision = camera.decisions.get((item.round, item.figure))
            if decision is None or not self.recording:
                continue
            from controller.evidence.bundles import write_bundle

            name = f"{match_id}-{item.round:03d}-{item.figure.value}"
            link = camera.link
            try:
                frames = link.frames_around(decision.lift_ns or decision.decided_ns)
                bundle = write_bundle(self.directory / name, decision, frames,
                                      view=link.analyser.view,
                                      origin_ns=match.rounds[item.round].reveal_ns, fps=link.fps)
                match.evidence(item.round, bundle.sha256, "photo-finish", name)
            except OSError as exc:
                self.disk_ok = False
                messages.append(f"evidence not saved ({exc.strerror or exc}): "
                                "keeping events only")
            except KnappError as exc:
                messages.append(f"evidence not saved: {exc}")
        return messages

"""When the table records evidence: photo-finish bundles after a verdict, and retention.

A bundle is due once the frames after the lift are in the camera's ring
(`EVIDENCE_DELAY_NS` after the lift), and is written only while the disk has
room. Decoding the frames and encoding the clip take far longer than a tick,
so they run on one worker thread, off the referee loop and its lock; the
service logs each finished bundle's `evidenced` event (`collect`) on its next
tick, in the match the bundle belongs to. Retention runs every ten minutes on
the service's clock; its file ages come from wall-clock time, the one thing
the monotonic clock cannot tell.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from controller.referee.camera import CameraLink
    from controller.vision.track import Decision

RETENTION_EVERY_NS = 600 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class _Due:
    at_ns: int
    round: int
    figure: Figure


@dataclass(frozen=True, slots=True)
class Written:
    """A bundle the worker finished: the `evidenced` event it calls for."""

    match_id: str
    round: int
    sha256: str
    ref: str


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
        self._writing: list[tuple[str, int, str, Future[str]]] = []
        self._worker: ThreadPoolExecutor | None = None

    @property
    def recording(self) -> bool:
        """True when evidence is on and the disk has room for it."""
        return self.kiosk.evidence and self.disk_ok

    @property
    def scheduled(self) -> int:
        """How many bundles wait for their frames (not yet handed to the worker)."""
        return len(self._due)

    @property
    def pending(self) -> int:
        """How many bundles are scheduled or being written but not yet logged."""
        return len(self._due) + len(self._writing)

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
        """Hand the bundles whose frames are in to the worker; return messages."""
        due = [e for e in self._due if e.at_ns <= now_ns]
        if not due:
            return []
        self._due = [e for e in self._due if e.at_ns > now_ns]
        for item in due:
            decision = camera.decisions.get((item.round, item.figure))
            if decision is None or not self.recording:
                continue
            name = f"{match_id}-{item.round:03d}-{item.figure.value}"
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1,
                                                  thread_name_prefix="evidence")
            job = self._worker.submit(self._write, camera.link, decision, name,
                                      match.rounds[item.round].reveal_ns)
            self._writing.append((match_id, item.round, name, job))
        return []

    def _write(self, link: CameraLink, decision: Decision, name: str, origin_ns: int) -> str:
        """On the worker: decode the frames, write the bundle; return its hash."""
        from controller.evidence.bundles import write_bundle

        frames = link.frames_around(decision.lift_ns or decision.decided_ns)
        bundle = write_bundle(self.directory / name, decision, frames,
                              view=link.analyser.view, origin_ns=origin_ns, fps=link.fps)
        return bundle.sha256

    def collect(self) -> tuple[list[Written], list[str]]:
        """The bundles finished since the last call, and messages for the ones that failed."""
        done: list[Written] = []
        messages: list[str] = []
        still: list[tuple[str, int, str, Future[str]]] = []
        for match_id, rnd, name, job in self._writing:
            if not job.done():
                still.append((match_id, rnd, name, job))
                continue
            try:
                done.append(Written(match_id, rnd, job.result(), name))
            except OSError as exc:
                self.disk_ok = False
                messages.append(f"evidence not saved ({exc.strerror or exc}): "
                                "keeping events only")
            except Exception as exc:  # an encoder's own error must not stop the referee
                messages.append(f"evidence not saved: {exc}")
        self._writing = still
        return done, messages

    def wait(self, timeout_s: float | None = None) -> None:
        """Block until the bundles being written are finished (then `collect` them)."""
        wait([job for *_, job in self._writing], timeout=timeout_s)

    def close(self) -> None:
        """Finish the bundles in hand and stop the worker."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)

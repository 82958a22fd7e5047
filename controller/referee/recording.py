"""When the table records evidence: photo-finish bundles after a verdict, and retention.

A bundle is due once the frames after the lift are in the camera's ring
(`EVIDENCE_DELAY_NS` after the lift), and is written only while the disk has
room. Decoding the frames and encoding the clip take far longer than a tick,
so they run on one worker thread, off the referee loop and its lock; the
service logs each finished bundle's `evidenced` event (`collect`) on its next
tick, in the match the bundle belongs to. Retention runs every ten minutes on
the service's clock; its file ages come from wall-clock time, the one thing
the monotonic clock cannot tell.

At a table with pads the recorder also keeps each settled round as a labelled
clip (`controller.evidence.clips`): the frames around its lifts, and a label
whose truth the match log gives (the pads' lift times, the accepted seats).
The clip is derived data: when a correction changes a round of the live match
its label is derived again (a voided or taken-back round loses its clip). It
is kept only while evidence is (the same privacy switch, `[kiosk] evidence`),
under the same retention limits, and never at a camera-only table, whose lift
times are the camera's own.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.evidence.clips import (
    CLIP_AFTER_S,
    CLIP_BEFORE_S,
    TrueGrab,
    camera_section,
    clip_name,
    clips_dir,
    enforce_clips,
    round_truth,
)
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
class _Clip:
    name: str
    grabs: tuple[TrueGrab, ...]
    at_ns: int
    recorded: dict[str, object]  # where the truth came from, for the label


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
        clips: keep labelled clips (None: whenever evidence is kept; never without it).
    """

    def __init__(self, kiosk: KioskConfig, *, now_ns: int, wall: Callable[[], float],
                 clips: bool | None = None) -> None:
        self.kiosk = kiosk
        self.wall = wall
        self.directory = kiosk.data_path / "evidence"
        self.clips_directory = clips_dir(kiosk.data_path)
        self.clips = kiosk.evidence and (clips is None or clips)
        self.disk_ok = True
        self.retention_report: RetentionReport | None = None
        self.clips_report: RetentionReport | None = None
        self._clips_due: list[int] = []
        self._clips_waiting: list[_Clip] = []
        self._clip_jobs: list[tuple[str, Future[Path | None]]] = []
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
        self.clips_report = enforce_clips(self.clips_directory, holds=self.held(),
                                          max_age_s=k.retention_days * 86_400.0,
                                          max_bytes=k.retention_mb * 1024 * 1024,
                                          now_s=self.wall())
        self.disk_ok = disk_has_room(k.data_path)
        if not self.disk_ok:
            return ["the disk is almost full: keeping events only, no evidence"]
        return []

    def camera_accuracy(self) -> dict[str, Any] | None:
        """The camera's accuracy measured on this table's clips, or None before any.

        `knapp vision eval CLIPS --save` measures it (`controller.vision.evaluate.read_scores`
        gives the fields).
        """
        from controller.vision.evaluate import read_scores

        return read_scores(self.clips_directory)

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
        if self.clips and not camera.camera_only and round_index not in self._clips_due:
            self._clips_due.append(round_index)

    def write_due(self, now_ns: int, camera: CameraAttribution, match: Match,
                  match_id: str) -> list[str]:
        """Hand the bundles and clips whose frames are in to the worker; return messages."""
        self._clips(now_ns, camera, match, match_id)
        due = [e for e in self._due if e.at_ns <= now_ns]
        if not due:
            return []
        self._due = [e for e in self._due if e.at_ns > now_ns]
        for item in due:
            decision = camera.decisions.get((item.round, item.figure))
            if decision is None or not self.recording:
                continue
            name = f"{match_id}-{item.round:03d}-{item.figure.value}"
            job = self._pool().submit(self._write, camera.link, decision, name,
                                      match.rounds[item.round].reveal_ns)
            self._writing.append((match_id, item.round, name, job))
        return []

    def _pool(self) -> ThreadPoolExecutor:
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evidence")
        return self._worker

    def _clips(self, now_ns: int, camera: CameraAttribution, match: Match,
               match_id: str) -> None:
        """Rounds settled since the last tick: a clip once its frames are in, or a new label.

        The rounds are those of the live match (`match`): a verdict of a past match's
        correction only makes the live round of that index be derived again, which
        changes nothing.
        """
        for index in self._clips_due:
            if index >= len(match.rounds):
                continue
            name = clip_name(match_id, index)
            grabs = round_truth(match.rounds[index])
            self._clips_waiting = [c for c in self._clips_waiting if c.name != name]
            if (self.clips_directory / (name + ".json")).exists():
                self._clip_jobs.append((name, self._pool().submit(self._relabel, name, grabs)))
            elif grabs:
                rnd = match.rounds[index]
                last = max([g.lift_ns for g in grabs] + [
                    d.lift_ns for _, d in camera.lifts_of_round(index) if d.lift_ns is not None])
                recorded: dict[str, object] = {
                    "match": match_id, "round": index, "card": str(rnd.card),
                    "outcome": rnd.outcome.value if rnd.outcome else None,
                    "sources": [c.source for c in rnd.claims]}
                self._clips_waiting.append(_Clip(name, tuple(grabs), last + EVIDENCE_DELAY_NS,
                                                 recorded))
        self._clips_due = []
        # A clip waiting for its frames needs nothing more of the match: the table may
        # have gone on to the next one meanwhile.
        ready = [c for c in self._clips_waiting if c.at_ns <= now_ns]
        self._clips_waiting = [c for c in self._clips_waiting if c.at_ns > now_ns]
        for clip in ready:
            if self.clips and self.recording:
                self._clip_jobs.append((clip.name, self._pool().submit(
                    self._write_clip, camera.link, clip)))

    def _write_clip(self, link: CameraLink, clip: _Clip) -> Path | None:
        """On the worker: the frames around the round's lifts as a labelled clip."""
        from controller.evidence.clips import write_clip

        first = min(g.lift_ns for g in clip.grabs)
        last = max(g.lift_ns for g in clip.grabs)
        frames = link.frames_around(first, before_s=CLIP_BEFORE_S,
                                    after_s=(last - first) / 1e9 + CLIP_AFTER_S)
        if not frames:
            return None  # the camera gave no frames then (lost): nothing to measure it on
        view = link.analyser.view
        return write_clip(self.clips_directory, clip.name, frames, clip.grabs, fps=link.fps,
                          camera=camera_section(view.cam), seats=view.cam.seat_names(),
                          calibration=view.cal.to_json(), recorded=clip.recorded)

    def _relabel(self, name: str, grabs: list[TrueGrab] | None) -> Path | None:
        """On the worker: derive a clip's label again (a correction); no truth, no clip."""
        from controller.evidence.clips import relabel

        return relabel(self.clips_directory, name, grabs)

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
        clips: list[tuple[str, Future[Path | None]]] = []
        for name, clip_job in self._clip_jobs:
            if not clip_job.done():
                clips.append((name, clip_job))
                continue
            try:
                clip_job.result()
            except Exception as exc:  # a clip is for measuring the camera: never stop a table
                messages.append(f"labelled clip {name} not saved: {exc}")
        self._clip_jobs = clips
        return done, messages

    def wait(self, timeout_s: float | None = None) -> None:
        """Block until the bundles and clips being written are finished (then `collect`)."""
        jobs: list[Future[Any]] = [job for *_, job in self._writing]
        wait(jobs + [job for _, job in self._clip_jobs], timeout=timeout_s)

    def close(self) -> None:
        """Finish the bundles in hand and stop the worker."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)

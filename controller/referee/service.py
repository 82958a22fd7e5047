"""The table service: sequences one table's round flow on the injected clock.

`TableService.tick()` is the whole round flow as one step function: run
retention when due, take the camera's decisions, let a simulation act, drain
the pads, settle what is due, count down and reveal the next card, write the
evidence that is due. The asyncio runner (`run`) calls `step` (a tick that
never stops the loop, and the heartbeat the watchdog reads) every few
milliseconds; tests call it after advancing a `FakeClock`, so nothing here
sleeps. The steps themselves live with their concern: the fusion of lifts and
attributions (`fusion`), camera decisions (`attribution`), evidence
(`recording`), resuming and what the table remembers (`matches`), a store that
refuses writes and the heartbeat (`durability`), the history pages
(`history`); this class only orders them and owns the lock, the verbs and the
subscribers.

Why this module is long: it is the one place that orders the round flow and
owns the table's lock, and the verbs the pages call must run under that same
lock; every step's logic lives in its own module (listed above), and what is
left here is the order of the steps, the restart and full-disk paths through
them, and the verbs.

The web reads the state (`snapshot()`, `views`) and calls the verbs; it never
reaches into a sensor.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from controller.clock import Clock, MonotonicClock, read_boot_id
from controller.config import TableConfig, with_setup
from controller.errors import IllegalEvent, KnappError, StoreUnavailable
from controller.evidence.signing import SigningError, TableKey
from controller.kiosk import KioskConfig
from controller.knapp.cards import Card, Figure, solve
from controller.knapp.match import Match, Phase, Verdict
from controller.pads.events import Item, LightEvent, PadEvent, PadSource, PadStatus
from controller.pads.sim import SimPads
from controller.referee import matches
from controller.referee.attribution import CameraAttribution
from controller.referee.camera import CameraLink
from controller.referee.corrections import apply_correction
from controller.referee.durability import Heartbeat, StoreGuard
from controller.referee.fusion import Attribution, Fusion, figure_named
from controller.referee.health import NO_CAMERA, Health, Level, pad_health
from controller.referee.history import History, summarise
from controller.referee.recording import EvidenceRecorder, Written
from controller.referee.reveal import paint_report_counts, photon_is_for
from controller.referee.simulation import Simulation
from controller.referee.views import match_view, table_state
from controller.store import EventStore

TICK_S = 0.005
CORRECT_LED = (0, 160, 40)
MESSAGES_KEPT = 50


class TableService:
    """One table: its match, its sensors, its store.

    Args:
        config: the table configuration.
        store: the event store.
        clock: host clock (a `FakeClock` in tests).
        pads: the pad source; None gives simulated pads nobody touches.
        seed: seeds new matches' decks; None draws one per match.
        wall: wall-clock seconds, only for evidence file ages (retention).
        boot_id: this boot's id (None reads Linux's; tests fake a reboot with another).
    """

    def __init__(self, config: TableConfig, *, store: EventStore, clock: Clock | None = None,
                 pads: PadSource | None = None, seed: int | None = None,
                 wall: Callable[[], float] = time.time, boot_id: str | None = None) -> None:
        self.file_config = config
        self.store = store
        self.clock = clock or MonotonicClock()
        self.boot_id = read_boot_id() if boot_id is None else boot_id
        self.pads: PadSource = pads if pads is not None else SimPads(clock=self.clock)
        self.seed = seed if seed is not None else config.seed
        self.paused = False
        self.countdown_until: int | None = None
        self.pads_health: Health = pad_health(None)
        self.camera: CameraAttribution | None = None
        self._no_camera = NO_CAMERA
        self.simulation: Simulation | None = None
        self.messages: deque[str] = deque(maxlen=MESSAGES_KEPT)
        self.version = 0
        self.last_verdict: dict[str, Any] | None = None
        self.restart: dict[str, Any] | None = None
        self.misplaced: list[Figure] = []
        self.guard = StoreGuard(store)
        self.heartbeat = Heartbeat()
        self.history = History(store)
        self._pad_backlog: list[Item] = []
        self._written: list[Written] = []
        self.table_key = self._table_key(config)
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[], None]] = []
        self.config = matches.table_config(store, config, self.messages)
        self.evidence = EvidenceRecorder(config.kiosk, now_ns=self.clock.now_ns(), wall=wall,
                                         clips=config.kiosk.clips)
        self.match_id, self.match = self._resume_or_start()
        # The match resumed at start and how many cards it had then (the table screen
        # says so until the next card is dealt).
        self._resumed_at = (None if self._resumed is None
                            else (self._resumed.match_id, len(self.match.rounds)))
        self.fusion = Fusion(self.match, handicaps_ns=self.kiosk.handicaps_ns)
        self.fusion.off_pad = {f for f, on in self.pads.placed().items() if on is False}

    def _table_key(self, config: TableConfig) -> TableKey | None:
        try:
            return TableKey.load_or_create(config.kiosk.data_path)
        except SigningError as exc:
            self.messages.append(f"exports cannot be signed: {exc}")
            return None

    @property
    def kiosk(self) -> KioskConfig:
        """The kiosk settings in force."""
        return self.config.kiosk

    @property
    def camera_health(self) -> Health:
        """The camera's health (OFF when there is none)."""
        return self.camera.health if self.camera is not None else self._no_camera

    def now_ns(self) -> int:
        """The service's clock (host CLOCK_MONOTONIC ns)."""
        return self.clock.now_ns()

    # -- wiring -----------------------------------------------------------------------

    def attach_camera(self, camera: CameraLink, *, camera_only: bool = False) -> None:
        """Use a camera for attribution (and, with `camera_only`, for lift times too)."""
        with self._lock:
            self.camera = CameraAttribution(camera, camera_only=camera_only)

    def camera_unavailable(self, reason: str) -> None:
        """The configured camera could not be opened; say why on the pages."""
        with self._lock:
            self._no_camera = Health(Level.DOWN, reason)

    def simulate(self, simulation: Simulation) -> None:
        """Let simulated people play at this table (simulation mode)."""
        with self._lock:
            self.simulation = simulation

    # -- match lifecycle --------------------------------------------------------------

    def _resume_or_start(self) -> tuple[str, Match]:
        now = self.clock.now_ns()
        self._resumed = matches.resume_match(self.store, self.config, self.messages,
                                             boot=self.boot_id, now_ns=now)
        if self._resumed is None:
            return self._new_match()
        self.paused = self._resumed.paused
        verdict = matches.last_verdict(self._resumed.match)
        self._set_last_verdict(verdict)
        try:
            self._finish_boot()
        except StoreUnavailable as exc:
            self.messages.extend(self.guard.failed(exc, now))
        return self._resumed.match_id, self._resumed.match

    def _finish_boot(self) -> None:
        """Log a resumed match's `booted` event (again, after the disk refused it)."""
        r = self._resumed
        if r is None or r.boot is None:
            return
        r.booted()
        self.restart = r.notice
        if r.notice is not None:
            self.messages.append(r.notice["message"])
        for v in r.verdicts:
            self._set_last_verdict(v)

    def _new_match(self) -> tuple[str, Match]:
        return matches.new_match(self.store, self.config, self.seed, boot=self.boot_id)

    def _start_next_match(self, reason: str) -> None:
        if self.match.phase is not Phase.ENDED:
            self.match.abandon(reason)
        self.match_id, self.match = self._new_match()
        self.fusion = Fusion(self.match, handicaps_ns=self.kiosk.handicaps_ns)
        self.last_verdict = None
        self.restart = None
        self._set_paused(False)

    def _set_paused(self, paused: bool) -> None:
        self.paused = paused
        matches.remember_pause(self.store, self.match_id, paused, self.messages)

    # -- the step function --------------------------------------------------------------

    def _fingerprint(self) -> tuple[object, ...]:
        return (len(self.match.events), self.paused, self.countdown_until,
                self.evidence.disk_ok, self.pads_health, self.camera_health,
                len(self.fusion.off_pad), len(self.fusion.pending), self.guard.error,
                self.heartbeat.error)

    def tick(self) -> bool:
        """Do everything due now; return True when the state changed.

        While the store refuses writes nothing is taken from the sensors (their
        inputs wait) and no card is shown; a probe write once a second tells
        when to go on.
        """
        with self._lock:
            before = self._fingerprint()
            now = self.clock.now_ns()
            self.messages.extend(self.evidence.housekeeping(now))
            if self.guard.may_write(now):
                try:
                    self._play(now)
                except StoreUnavailable as exc:
                    self.messages.extend(self.guard.failed(exc, now))
                else:
                    self.messages.extend(self.guard.passed())
            if self.guard.down:
                self.countdown_until = None  # no card comes while nothing can be saved
            changed = self._fingerprint() != before
            if changed:
                self._changed()
            return changed

    def _play(self, now: int) -> None:
        self._finish_boot()
        self._drain_camera()
        if self.simulation is not None:
            self.simulation.act(now)
        self._drain_pads()
        self._settle(now)
        self._count_down(now)
        if self.camera is not None:
            self.messages.extend(self.evidence.write_due(now, self.camera, self.match,
                                                         self.match_id))
        self._log_evidence()

    def _drain_camera(self) -> None:
        cam = self.camera
        if cam is None:
            return
        health = cam.refresh_health()
        if health is not None and health.level is not Level.OK:
            self.messages.append(f"camera: {health.message}; refereeing from the pads, "
                                 "the table says who took the figure")
        self._publish(cam.drain(self.fusion, self.config.seats))

    def _drain_pads(self) -> None:
        items = self._pad_backlog + self.pads.poll(0.0)
        self._pad_backlog = []
        for n, item in enumerate(items):
            # What the fusion holds is restored when the store refuses the grab,
            # so the item is judged again, whole, once there is room.
            early, pending = list(self.fusion.early), list(self.fusion.pending)
            try:
                self._pad_item(item)
            except StoreUnavailable:
                self.fusion.early, self.fusion.pending = early, pending
                self._pad_backlog = items[n:]
                raise

    def _pad_item(self, item: Item) -> None:
        if isinstance(item, PadEvent):
            if item.kind == "lift":
                self._publish(self.fusion.lift(item.figure, item.t_ns, item.uncertainty_ns,
                                               item.source))
            else:
                self._publish(self.fusion.place(item.figure, item.t_ns))
        elif isinstance(item, PadStatus):
            self.pads_health = pad_health(item)
        elif isinstance(item, LightEvent) and item.brighter:
            self._photon(item)

    def _photon(self, light: LightEvent) -> None:
        rnd = self.match.current
        if rnd is None or not photon_is_for(rnd, light.t_ns):
            return
        try:
            self._publish(self.match.reveal_time(light.t_ns, uncertainty_ns=light.uncertainty_ns,
                                                 measure="photon", round_index=rnd.index))
        except IllegalEvent as exc:
            self.messages.append(str(exc))

    def _settle(self, now: int) -> None:
        due = self.match.due_ns()
        if due is not None and now >= due:
            self._publish(self.match.advance(due))
        self._publish(self.fusion.maybe_home())  # after a restart or a correction

    def _count_down(self, now: int) -> None:
        self.misplaced = self.camera.misplaced(self.fusion) if self.camera is not None else []
        waiting = self.simulation is not None and self.simulation.waiting
        if self.misplaced or self.match.phase is not Phase.READY or self.paused or waiting:
            # No card until every figure stands on its own pad (and, in simulation,
            # until someone is at the table).
            self.countdown_until = None
            return
        if self.countdown_until is None:
            self.countdown_until = now + self.kiosk.countdown_ns
        if now >= self.countdown_until:
            card = self.match.next_card
            assert card is not None
            self.countdown_until = None
            self._light(None)
            self._publish(self.match.reveal(card, now))
            self.restart = None

    def _log_evidence(self) -> None:
        """Log the bundles the worker finished, each in its own match."""
        done, messages = self.evidence.collect()
        self.messages.extend(messages)
        self._written += done
        while self._written:
            w = self._written[0]
            self.open_match(w.match_id).evidence(w.round, w.sha256, "photo-finish", w.ref)
            self._written.pop(0)

    def _light(self, figure: Figure | None) -> None:
        """Pad LEDs: all dark for a new card; the correct figure glows after a verdict."""
        try:
            self.pads.set_led(None, (0, 0, 0))
            if figure is not None:
                self.pads.set_led(figure, CORRECT_LED)
        except (KnappError, OSError) as exc:
            self.messages.append(f"pad LEDs: {exc}")

    def _set_last_verdict(self, v: Verdict | None) -> None:
        if v is None:
            return
        data = v.to_json()
        data["explanation"] = solve(Card.parse(v.card)).explanation
        self.last_verdict = data

    def _publish(self, verdicts: list[Verdict]) -> None:
        """Show each verdict; a final one lights its figure and schedules its evidence."""
        for v in verdicts:
            self._set_last_verdict(v)
            if v.provisional:
                continue
            self._light(Figure(v.answer))
            if self.camera is not None:
                self.evidence.schedule(self.camera, v.round)

    # -- subscribers ------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` (from any thread) whenever the state changes; return unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _changed(self) -> None:
        self.version += 1
        for cb in list(self._subscribers):
            cb()

    # -- verbs: attribution sources --------------------------------------------------------

    def attribute(self, figure: Figure, claims: list[Attribution]) -> None:
        """Who took `figure` (a camera-like source); waits for the lift if it has not come."""
        with self._lock:
            self._publish(self.fusion.attribute_claims(figure, claims))

    def contact(self, seat: str, figure: Figure, t_ns: int, uncertainty_ns: int,
                source: str) -> None:
        """A second hand on a figure already off its pad: a claim at its contact time."""
        with self._lock:
            self._publish(self.fusion.contact(seat, figure, t_ns, uncertainty_ns, source))

    # -- verbs for the web ---------------------------------------------------------------

    def sim_grab(self, seat: str, figure: Figure | str) -> None:
        """Simulation: `seat` grabs `figure` now."""
        fig = figure if isinstance(figure, Figure) else figure_named(figure)
        with self._lock:
            if self.simulation is None:
                raise IllegalEvent("simulated grabs only in simulation mode")
            if seat not in self.config.seats:
                raise IllegalEvent(f"unknown seat {seat!r}")
            self.simulation.grab(seat, fig, self.clock.now_ns())
            if not self.guard.down:  # else the lift waits with the others
                try:
                    self._drain_pads()
                except StoreUnavailable as exc:
                    self.messages.extend(self.guard.failed(exc, self.clock.now_ns()))
            self._changed()

    def sim_start(self) -> None:
        """Simulation: someone is at the table; the first card may come."""
        with self._lock:
            if self.simulation is None:
                raise IllegalEvent("start is for the simulated table (a real table deals "
                                   "when every figure stands on its pad)")
            self.simulation.start()
            self._changed()

    def photo_finish(self, ref: str) -> bytes | None:
        """The strip of a photo-finish bundle the live match logged (None: no such strip)."""
        with self._lock:
            known = {e.get("ref") for r in self.match.rounds for e in r.evidence}
        if ref not in known:
            return None
        try:
            return (self.evidence.directory / ref / "strip.jpg").read_bytes()
        except OSError:
            return None  # removed by retention meanwhile

    def resumed_words(self) -> str | None:
        """'Resumed the unfinished match: ...' until the resumed match deals its next card."""
        at = self._resumed_at
        if at is None or at[0] != self.match_id or len(self.match.rounds) != at[1]:
            return None
        scores = ", ".join(f"{seat} {n}" for seat, n in self.match.scores().items())
        cards = "1 card" if at[1] == 1 else f"{at[1]} cards"
        return f"Resumed the unfinished match after a restart: {cards} played, {scores}"

    def answer(self, figure: str, seat: str) -> None:
        """The table says who took a figure (no camera)."""
        with self._lock:
            self._publish(self.fusion.answer(figure, seat))
            self._changed()

    def control(self, action: str, reason: str = "") -> None:
        """pause, resume, abandon or rematch (a pause is remembered across restarts)."""
        with self._lock:
            if action in ("pause", "resume"):
                self._set_paused(action == "pause")
            elif action == "abandon":
                self.match.abandon(reason or "abandoned at the table")
            elif action == "rematch":
                self._start_next_match(reason or "rematch")
            else:
                raise IllegalEvent(f"unknown action {action!r} (pause, resume, abandon, rematch)")
            self._changed()

    def correct(self, match_id: str, kind: str, reason: str, round_index: int | None = None,
                seat: str | None = None) -> None:
        """A referee correction on a match (the live one or a past one; see `corrections`)."""
        with self._lock:
            match = self.open_match(match_id)
            live = match is self.match
            self._publish(apply_correction(match, kind, reason, round_index, seat, live=live))
            if live:  # a taken-back winning card reopens the match
                self._publish(self.fusion.maybe_home())
            self._changed()

    def painted(self, round_index: int, t_ns: int, uncertainty_ns: int) -> None:
        """The table display reports when it painted a card (server clock)."""
        with self._lock:
            if not paint_report_counts(self.match, round_index, t_ns):
                return
            self._publish(self.match.reveal_time(t_ns, uncertainty_ns=uncertainty_ns,
                                                 measure="paint", round_index=round_index))
            self._changed()

    def setup(self, seats: list[str], target: int, variant: str) -> None:
        """New players, target and variant (kept across restarts); a new match starts."""
        config = with_setup(self.config, seats, target, variant)
        with self._lock:
            matches.remember_setup(self.store, self.file_config, config.seats, target, variant)
            self.config = config
            if self.simulation is not None:
                self.simulation.reseat(config.seats)
            self.control("rematch", "new setup")

    # -- reads for the pages -----------------------------------------------------------------

    def open_match(self, match_id: str) -> Match:
        """The live match, or a stored one replayed from its log."""
        if match_id == self.match_id:
            return self.match
        return self.store.open_match(match_id)

    def has_match(self, match_id: str) -> bool:
        """True when the store holds a match with this id."""
        return self.store.has_match(match_id)

    def snapshot(self) -> dict[str, Any]:
        """The public state for every screen (no secrets).

        Beyond the views' state: `health.disk` is DOWN while the event log cannot
        be written, `health.referee` says whether the last tick failed, and
        `restart` says what a restart on a new boot did (until the next card).
        """
        with self._lock:
            snap = table_state(self)
            if self.guard.down:
                snap["health"]["disk"] = self.guard.health.to_json()
            snap["health"]["referee"] = self.heartbeat.health.to_json()
            snap["restart"] = self.restart
            return snap

    def review(self, match_id: str) -> dict[str, Any]:
        """A whole match, rounds and timeline, for the dispute review.

        Also the numbers an exported bundle must match: `records` (how many),
        `head` (the head hash) and `table_key` (the fingerprint of the key that
        signs exports; None when the table has none).
        """
        with self._lock:
            match = self.open_match(match_id)
            view = match_view(match_id, match, held=self.evidence.held())
            matches.one_time_line(view["timeline"], match.events)
            info = self.store.info(match_id)
            view.update(records=info.events, head=info.head,
                        table_key=self.table_key.fingerprint if self.table_key else None)
            return view

    def hold_evidence(self, match_id: str, ref: str, *, keep: bool) -> None:
        """Keep a round's evidence bundle until released (a dispute), or release it."""
        with self._lock:
            match = self.open_match(match_id)
            if not any(e.get("ref") == ref for r in match.rounds for e in r.evidence):
                raise IllegalEvent(f"match {match_id} logged no evidence {ref!r}")
            self.evidence.hold(ref, keep=keep)
            self._changed()

    def match_list(self) -> list[dict[str, Any]]:
        """Stored matches, newest first (summaries kept by head hash)."""
        with self._lock:
            live_id, live = self.match_id, summarise(self.match)
        return self.history.match_list(live_id, live)

    def stats(self) -> dict[str, Any]:
        """Players' statistics across every stored match."""
        return self.history.stats()

    # -- the runner --------------------------------------------------------------------------

    def step(self) -> None:
        """One turn of the referee loop: a tick that never stops the loop.

        A bad event is a message. Anything unexpected is logged with its
        traceback and shown, and the loop goes on; the heartbeat beats only
        after a tick that finished, so a table that keeps failing stops
        feeding the watchdog and is restarted.
        """
        try:
            self.tick()
        except KnappError as exc:  # never let one bad event stop the table
            self.messages.append(str(exc))
        except Exception as exc:
            with self._lock:
                self.messages.append(self.heartbeat.failed(exc))
                self._changed()
            return
        self.heartbeat.beat(self.clock.now_ns())

    def alive(self, within_s: float = 10.0) -> bool:
        """True while the referee loop finished a tick within `within_s` (the watchdog asks)."""
        return self.heartbeat.alive(self.clock.now_ns(), round(within_s * 1e9))

    def settle_evidence(self, timeout_s: float | None = None) -> None:
        """Wait for the bundles being written, then log them (tests; shutdown)."""
        self.evidence.wait(timeout_s)
        with self._lock:
            self._log_evidence()

    def close(self) -> None:
        """Finish the evidence in hand and log it; the store stays open for the caller."""
        self.evidence.close()
        with contextlib.suppress(KnappError), self._lock:
            self._log_evidence()

    async def run(self, stop: asyncio.Event) -> None:
        """Step until `stop` is set."""
        while not stop.is_set():
            self.step()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TICK_S)

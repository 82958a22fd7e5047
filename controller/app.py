"""The table service: wires pads, camera, fusion, the match referee and the store.

`TableService.tick()` is the whole round flow as one step function on the
injected clock: drain the pads, let simulated players act, settle what is due,
bring the figures home, count down and reveal the next card. The asyncio
runner (`run`) calls it every few milliseconds; tests call it after advancing a
`FakeClock`, so nothing here sleeps.

The web layer only reads `snapshot()` and calls the public verbs; it never
reaches into a sensor.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.clock import Clock, MonotonicClock
from controller.config import TableConfig
from controller.errors import IllegalEvent, KnappError
from controller.kiosk import KioskConfig
from controller.knapp.cards import Card, Figure, solve
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import Revealed
from controller.knapp.match import Match, Outcome, Phase, Round, Verdict
from controller.pads.events import LightEvent, PadEvent, PadSource, PadStatus
from controller.pads.sim import SimPads
from controller.referee.camera import CameraLink
from controller.referee.fusion import Attribution, Fusion, misplaced
from controller.retention import RetentionReport, disk_has_room, enforce
from controller.rng import Rng
from controller.sim.bots import make_profiles, plan_round
from controller.store import EventStore

TICK_S = 0.005
RETENTION_EVERY_NS = 600 * 1_000_000_000


class PinError(KnappError, PermissionError):
    """A change was asked for without the table PIN (or with a wrong one)."""


@dataclass(frozen=True, slots=True)
class _BotLift:
    t_ns: int  # delay after the reveal
    seat: str
    figure: Figure


class TableService:
    """One table: its match, its sensors, its store.

    Args:
        config: the table configuration.
        store: the event store.
        clock: host clock (a `FakeClock` in tests).
        pads: the pad source; None builds simulated pads.
        sim: simulation mode (simulated pads, bots, auto-return of figures).
        bots: how many seats simulated players take (the last seats).
        seed: seeds new matches' decks and the bots; None draws one per match.
        wall: wall-clock seconds, only for evidence file ages (retention).
    """

    def __init__(self, config: TableConfig, *, store: EventStore, clock: Clock | None = None,
                 pads: PadSource | None = None, sim: bool = True, bots: int | None = None,
                 seed: int | None = None, wall: Callable[[], float] = time.time) -> None:
        self.config = config
        self.kiosk: KioskConfig = config.kiosk
        self.store = store
        self.clock = clock or MonotonicClock()
        self.sim = sim
        self.pads: PadSource = pads if pads is not None else SimPads(clock=self.clock)
        n_bots = self.kiosk.bots if bots is None else bots
        self.bot_seats = tuple(config.seats[len(config.seats) - n_bots:]) if n_bots else ()
        self.seed = seed if seed is not None else config.seed
        self.paused = False
        self.countdown_until: int | None = None
        self.return_at: int | None = None
        self.pad_status: dict[str, str] = {}
        self.camera_status = "none"
        self.messages: list[str] = []
        self.version = 0
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[], None]] = []
        self._bot_lifts: list[_BotLift] = []
        self._planned_round: int | None = None
        self._sim_claims: dict[Figure, str] = {}
        self.last_verdict: dict[str, Any] | None = None
        self.wall = wall
        self.evidence_dir = self.kiosk.data_path / "evidence"
        self.disk_ok = True
        self.retention_report: RetentionReport | None = None
        self._next_retention_ns = self.clock.now_ns()
        self.camera: CameraLink | None = None
        self.camera_only = False
        self._decisions: dict[tuple[int, Figure], Any] = {}
        self._evidence_due: list[tuple[int, int, Figure]] = []
        self.misplaced: list[Figure] = []
        self.match_id, self.match = self._resume_or_start()
        self.fusion = Fusion(self.match, handicaps_ns=self.kiosk.handicaps_ns)

    # -- match lifecycle --------------------------------------------------------------

    def _resume_or_start(self) -> tuple[str, Match]:
        for info in self.store.matches():
            if info.events == 0:
                continue
            try:
                match = self.store.open_match(info.id)
            except KnappError as exc:
                self.messages.append(f"match {info.id} cannot be resumed: {exc}")
                continue
            if match.phase is not Phase.ENDED and match.seats == self.config.seats:
                self.messages.append(f"resumed match {info.id}")
                return info.id, match
            break  # only the newest match is a candidate for resuming
        return self._new_match()

    def _new_match(self) -> tuple[str, Match]:
        seed = self.seed if self.seed is not None else secrets.randbelow(2**31)
        index = len(self.store.matches())
        deck = shuffled_deck(f"{seed}:{index}")
        mid, match = self.store.new_match(self.config.seats, deck, rules=self.config.rules,
                                          first_turner=self.config.first_turner, seed=seed,
                                          label=self.config.name)
        return mid, match

    @property
    def bot_profiles(self) -> list[Any]:
        """The simulated players' profiles."""
        return make_profiles(self.bot_seats, Rng(self.match.seed or 0).fork("players"))

    # -- the step function ----------------------------------------------------------------

    def tick(self) -> bool:
        """Do everything due now; return True when the state changed."""
        with self._lock:
            before = (len(self.match.events), self.paused, self.countdown_until, self.disk_ok,
                      tuple(sorted(self.pad_status.items())), len(self.fusion.off_pad),
                      len(self.fusion.pending))
            now = self.clock.now_ns()
            self._housekeeping(now)
            self._drain_camera()
            self._drain_pads()
            self._bots_act(now)
            self._settle(now)
            self._return_figures(now)
            self._count_down(now)
            self._write_evidence(now)
            after = (len(self.match.events), self.paused, self.countdown_until, self.disk_ok,
                     tuple(sorted(self.pad_status.items())), len(self.fusion.off_pad),
                     len(self.fusion.pending))
            changed = after != before
            if changed:
                self._changed()
            return changed

    def _housekeeping(self, now: int) -> None:
        if now < self._next_retention_ns:
            return
        self._next_retention_ns = now + RETENTION_EVERY_NS
        k = self.kiosk
        self.retention_report = enforce(self.evidence_dir, max_age_s=k.retention_days * 86_400.0,
                                        max_bytes=k.retention_mb * 1024 * 1024,
                                        now_s=self.wall())
        self.disk_ok = disk_has_room(self.kiosk.data_path)
        if not self.disk_ok:
            self.messages.append("the disk is almost full: keeping events only, no evidence")

    def attach_camera(self, camera: CameraLink, *, camera_only: bool = False) -> None:
        """Use a camera for attribution (and, with `camera_only`, for lift times too)."""
        with self._lock:
            self.camera = camera
            self.camera_only = camera_only
            self.camera_status = camera.status()

    def _drain_camera(self) -> None:
        cam = self.camera
        if cam is None:
            return
        status = cam.status()
        if status != self.camera_status:
            self.camera_status = status
            if not status.startswith("ok"):
                self.messages.append(f"camera: {status}; refereeing from the pads, "
                                     "the table says who took the figure")
        for d in cam.poll():
            if d.kind != "grab" or d.seat is None or d.seat not in self.config.seats:
                continue
            touch = d.touch_ns if d.touch_ns is not None else d.lift_ns
            claims = [Attribution(d.figure, d.seat, d.confidence, touch or 0, d.uncertainty_ns,
                                  "camera")]
            claims += [Attribution(d.figure, c.seat, 0.0, c.touch_ns, c.uncertainty_ns, "camera")
                       for c in d.other_claims
                       if c.touch_ns is not None and c.seat in self.config.seats]
            rnd = self.match.current
            if rnd is not None:
                self._decisions[(rnd.index, d.figure)] = d
            if self.camera_only and d.lift_ns is not None:
                self._record(self.fusion.lift(d.figure, d.lift_ns, d.uncertainty_ns, "camera",
                                              claims))
            else:
                self._record(self.fusion.attribute_claims(d.figure, claims))

    def _write_evidence(self, now: int) -> None:
        """Write photo-finish bundles once the frames after the lift are in the ring."""
        cam = self.camera
        if cam is None or not self._evidence_due:
            return
        due = [e for e in self._evidence_due if e[0] <= now]
        for item in due:
            self._evidence_due.remove(item)
            _, rnd_index, figure = item
            decision = self._decisions.get((rnd_index, figure))
            if decision is None or not self.kiosk.evidence or not self.disk_ok:
                continue
            from controller.vision.evidence import write_bundle

            name = f"{self.match_id}-{rnd_index:03d}-{figure.value}"
            try:
                frames = cam.frames_around(decision.lift_ns or decision.decided_ns)
                bundle = write_bundle(self.evidence_dir / name, decision, frames,
                                      view=cam.analyser.view,
                                      origin_ns=self.match.rounds[rnd_index].reveal_ns,
                                      fps=cam.fps)
                self.match.evidence(rnd_index, bundle.sha256, "photo-finish", name)
            except OSError as exc:
                self.disk_ok = False
                self.messages.append(f"evidence not saved ({exc.strerror or exc}): "
                                     "keeping events only")
            except KnappError as exc:
                self.messages.append(f"evidence not saved: {exc}")

    def _drain_pads(self) -> None:
        for item in self.pads.poll(0.0):
            if isinstance(item, PadEvent):
                self._on_pad(item)
            elif isinstance(item, PadStatus):
                self.pad_status[self.pads.name] = f"{item.status}: {item.detail}"
            elif isinstance(item, LightEvent) and item.brighter:
                rnd = self.match.current
                if rnd is not None and item.t_ns >= rnd.reveal_ns - 200_000_000:
                    try:
                        self._record(self.match.reveal_time(
                            item.t_ns, uncertainty_ns=item.uncertainty_ns, measure="photon",
                            round_index=rnd.index))
                    except IllegalEvent as exc:
                        self.messages.append(str(exc))

    def _on_pad(self, ev: PadEvent) -> None:
        if ev.kind == "lift":
            seat = self._sim_claims.pop(ev.figure, None)
            claims = [Attribution(ev.figure, seat, 1.0, ev.t_ns, 0, "sim")] if seat else []
            self._record(self.fusion.lift(ev.figure, ev.t_ns, ev.uncertainty_ns, ev.source,
                                          claims))
        else:
            self._record(self.fusion.place(ev.figure, ev.t_ns))

    def _bots_act(self, now: int) -> None:
        rnd = self.match.current
        if rnd is None or not self.sim:
            return
        if self._planned_round != rnd.index:
            self._planned_round = rnd.index
            self._bot_lifts = []
            if self.bot_seats:
                rng = Rng(self.match.seed or 0).fork(f"kiosk-round:{rnd.index}")
                for g in plan_round(rnd.card, self.bot_profiles, rng):
                    self._bot_lifts.append(_BotLift(g.delay_ns, g.seat, g.figure))
        # Delays count from the best reveal time known now: a simulated player
        # cannot react before the display actually painted the card.
        while self._bot_lifts and rnd.reveal_ns + self._bot_lifts[0].t_ns <= now:
            lift = self._bot_lifts.pop(0)
            if self.match.current is rnd and lift.seat not in rnd.locked and \
                    all(c.seat != lift.seat for c in rnd.claims):
                self._sim_grab(lift.seat, lift.figure, rnd.reveal_ns + lift.t_ns)

    def _sim_grab(self, seat: str, figure: Figure, t_ns: int) -> None:
        if not isinstance(self.pads, SimPads):
            raise IllegalEvent("simulated grabs need simulated pads")
        rnd = self.match.current
        if rnd is None:
            raise IllegalEvent("no card is open")
        if seat in rnd.locked or any(c.seat == seat for c in rnd.claims):
            raise IllegalEvent(f"{seat} already grabbed on this card")
        if figure in self.fusion.off_pad or self.pads.placed().get(figure) is False:
            # A second hand on a figure already off its pad: a camera-style claim.
            self._record(self.fusion.contact(seat, figure, t_ns, 8_000_000, "sim contact"))
            return
        self._sim_claims[figure] = seat
        self.pads.lift(figure, t_ns)
        self._drain_pads()

    def _settle(self, now: int) -> None:
        due = self.match.due_ns()
        if due is not None and now >= due:
            self._record(self.match.advance(due))

    def _return_figures(self, now: int) -> None:
        m = self.match
        if m.phase is not Phase.CLEARING and not (m.phase is Phase.ENDED and self.fusion.off_pad):
            self.return_at = None
            return
        if not self.sim or not isinstance(self.pads, SimPads):
            return
        if self.return_at is None:
            self.return_at = now + self.kiosk.sim_return_ns
        if now >= self.return_at:
            for fig in sorted(self.fusion.off_pad, key=lambda f: f.value):
                if self.pads.placed().get(fig) is False:
                    self.pads.place(fig, now)
            self._drain_pads()
            self.fusion.off_pad.clear()
            if m.phase is Phase.CLEARING:
                self._record(self.fusion.maybe_home())
            self.return_at = None

    def _check_pads(self) -> None:
        """With a camera: point out a figure standing on another figure's pad."""
        cam = self.camera
        det = cam.analyser.last if cam is not None and cam.status().startswith("ok") else None
        if det is None or det.status != "ok" or self.match.phase is Phase.OPEN:
            self.misplaced = []
            return
        states = {f: r.state for f, r in det.pads.items()}
        self.misplaced = misplaced(states, self.fusion.off_pad, bool(det.arms))

    def _light(self, figure: Figure | None) -> None:
        """Pad LEDs (pad board only): the correct figure glows green after a verdict."""
        set_led: Any = getattr(self.pads, "set_led", None)
        if set_led is None:
            return
        try:
            set_led(None, (0, 0, 0))
            if figure is not None:
                set_led(figure, (0, 160, 40))
        except (KnappError, OSError) as exc:
            self.messages.append(f"pad LEDs: {exc}")

    def _count_down(self, now: int) -> None:
        self._check_pads()
        if self.misplaced:
            self.countdown_until = None  # no card until every figure is on its own pad
            return
        if self.match.phase is not Phase.READY or self.paused:
            self.countdown_until = None
            return
        if self.countdown_until is None:
            self.countdown_until = now + self.kiosk.countdown_ns
        if now >= self.countdown_until:
            card = self.match.next_card
            assert card is not None
            self.countdown_until = None
            self._light(None)
            self._record(self.match.reveal(card, now))

    def _record(self, verdicts: list[Verdict]) -> None:
        for v in verdicts:
            data = v.to_json()
            data["explanation"] = solve(Card.parse(v.card)).explanation
            self.last_verdict = data
            if not v.provisional:
                self._light(Figure(v.answer))
            if not v.provisional and self.camera is not None:
                for (rnd_index, figure), d in self._decisions.items():
                    if rnd_index == v.round and d.lift_ns is not None:
                        self._evidence_due.append((d.lift_ns + 600_000_000, rnd_index, figure))

    # -- verbs for the web ---------------------------------------------------------------

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

    def sim_grab(self, seat: str, figure: Figure | str) -> None:
        """Simulation: `seat` grabs `figure` now."""
        fig = figure if isinstance(figure, Figure) else _figure(figure)
        with self._lock:
            if not self.sim:
                raise IllegalEvent("simulated grabs only in simulation mode")
            if seat not in self.config.seats:
                raise IllegalEvent(f"unknown seat {seat!r}")
            self._sim_grab(seat, fig, self.clock.now_ns())
            self._changed()

    def answer(self, figure: str, seat: str) -> None:
        """The table says who took a figure (no camera)."""
        with self._lock:
            self._record(self.fusion.answer(_figure(figure), seat))
            self._changed()

    def control(self, action: str, reason: str = "") -> None:
        """pause, resume, abandon or rematch."""
        with self._lock:
            if action == "pause":
                self.paused = True
            elif action == "resume":
                self.paused = False
            elif action == "abandon":
                self.match.abandon(reason or "abandoned at the table")
            elif action == "rematch":
                if self.match.phase is not Phase.ENDED:
                    self.match.abandon(reason or "rematch")
                self.match_id, self.match = self._new_match()
                self.fusion = Fusion(self.match, handicaps_ns=self.kiosk.handicaps_ns)
                self.last_verdict = None
                self.paused = False
            else:
                raise IllegalEvent(f"unknown action {action!r} (pause, resume, abandon, rematch)")
            self._changed()

    def correct(self, match_id: str, kind: str, reason: str, round_index: int | None = None,
                seat: str | None = None) -> None:
        """A referee correction on a match (the live one or a past one)."""
        with self._lock:
            live = match_id == self.match_id
            match = self.match if live else self.store.open_match(match_id)
            if kind == "undo":
                self._record(match.undo(reason))
            elif kind == "award":
                if round_index is None or seat is None:
                    raise IllegalEvent("award needs a round and a seat")
                self._record(match.award(round_index, seat, reason))
            elif kind == "void":
                if round_index is None:
                    raise IllegalEvent("void needs a round")
                self._record(match.void(round_index, reason))
            else:
                raise IllegalEvent(f"unknown correction {kind!r} (undo, award, void)")
            self._changed()

    def painted(self, round_index: int, t_ns: int, uncertainty_ns: int) -> None:
        """The table display reports when it painted a card (server clock)."""
        with self._lock:
            if not 0 <= round_index < len(self.match.rounds):
                raise IllegalEvent(f"no round {round_index}")
            rnd = self.match.rounds[round_index]
            if rnd.reveal_measure.label != "shown":
                return  # the first report (or a light sensor) already measured it
            if not 0 <= t_ns - rnd.reveal_ns <= 1_000_000_000:
                raise IllegalEvent("a paint time must come within 1 s after the reveal")
            if any(c.t_ns < t_ns for c in rnd.claims):
                raise IllegalEvent("a paint time after a grab cannot be when the card appeared")
            self._record(self.match.reveal_time(t_ns, uncertainty_ns=uncertainty_ns,
                                                measure="paint", round_index=round_index))
            self._changed()

    def setup(self, seats: list[str], target: int, variant: str) -> None:
        """New players, target and variant; the running match is abandoned and a new one starts."""
        from controller.config import parse_config

        names = [s.strip() for s in seats]
        data = {"table": {"name": self.config.name, "seats": names},
                "match": {"target": target, "variant": variant}}
        new_core = parse_config(data, "setup")  # the same validation as the file
        with self._lock:
            self.config = dataclasses.replace(
                self.config, seats=new_core.seats, first_turner=0,
                rules=dataclasses.replace(self.config.rules, target=new_core.rules.target,
                                          variant=new_core.rules.variant))
            n_bots = len(self.bot_seats)
            self.bot_seats = tuple(self.config.seats[len(self.config.seats) - n_bots:]) \
                if n_bots else ()
            self.control("rematch", "new setup")

    def calibration(self) -> dict[str, Any]:
        """The camera calibration's status and where its preview picture is."""

        cam = self.config.camera
        if cam.calibration is None:
            return {"configured": False, "file": None, "preview": None,
                    "detail": "no calibration file in [camera]; run `knapp calibrate`"}
        path = Path(cam.calibration)
        preview = path.with_suffix(".preview.png")
        return {"configured": True, "file": str(path), "exists": path.is_file(),
                "preview": str(preview) if preview.is_file() else None,
                "detail": "calibrated" if path.is_file() else "the calibration file is missing"}

    def match_list(self) -> list[dict[str, Any]]:
        """Stored matches, newest first, for the review page."""
        out = []
        for info in self.store.matches():
            item: dict[str, Any] = {"match_id": info.id, "created_utc": info.created_utc,
                                    "label": info.label, "events": info.events,
                                    "live": info.id == self.match_id}
            try:
                m = self.match if info.id == self.match_id else Match.replay(
                    self.store.events(info.id))
                item.update(seats=list(m.seats), scores=m.scores(), winners=list(m.winners),
                            phase=m.phase.value, rounds=len(m.rounds), abandoned=m.abandoned)
            except KnappError as exc:
                item["error"] = str(exc)
            out.append(item)
        return out

    def games(self) -> list[dict[str, Any]]:
        """The companion games for the home screen; their screens are still to come."""
        from controller.games import GAME_IDS, get_game

        out: list[dict[str, Any]] = []
        for gid in GAME_IDS:
            try:
                g = get_game(gid)
                out.append({"id": gid, "name": g.name, "summary": g.summary,
                            "seats": [g.min_seats, g.max_seats], "status": "coming"})
            except (ImportError, AttributeError, KnappError):
                out.append({"id": gid, "name": gid, "summary": "", "seats": None,
                            "status": "coming"})
        return out

    # -- views -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The public state for every screen (no secrets)."""
        with self._lock:
            m = self.match
            rnd = m.current or (m.rounds[-1] if m.rounds else None)
            now = self.clock.now_ns()
            return {
                "version": self.version,
                "server_ns": now,
                "table": self.config.name,
                "sim": self.sim,
                "match_id": self.match_id,
                "seats": list(m.seats),
                "bots": list(self.bot_seats),
                "scores": m.scores(),
                "target": m.rules.target,
                "variant": m.rules.variant.value,
                "phase": m.phase.value,
                "paused": self.paused,
                "countdown_ms": (None if self.countdown_until is None
                                 else max(0, (self.countdown_until - now) // 1_000_000)),
                "turner": m.turner,
                "pile": len(m.pile),
                "boxed": len(m.boxed),
                "winners": list(m.winners),
                "abandoned": m.abandoned,
                "round": round_view(rnd) if rnd is not None else None,
                "open": m.current is not None,
                "last_verdict": self.last_verdict,
                "prompt": self.fusion.prompt(),
                "off_pad": sorted(f.value for f in self.fusion.off_pad),
                "misplaced": [f.value for f in self.misplaced],
                "health": {"pads": dict(self.pad_status) or {self.pads.name: "ok"},
                           "camera": self.camera_status, "disk_ok": self.disk_ok},
                "evidence": {"enabled": self.kiosk.evidence,
                             "recording": self.kiosk.evidence and self.disk_ok
                             and self.camera_status not in ("none", "lost"),
                             "retention_days": self.kiosk.retention_days,
                             "retention_mb": self.kiosk.retention_mb},
                "messages": self.messages[-5:],
            }

    # -- the runner --------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Tick until `stop` is set."""
        while not stop.is_set():
            try:
                self.tick()
            except KnappError as exc:  # never let one bad event stop the table
                self.messages.append(str(exc))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TICK_S)


def _figure(text: str) -> Figure:
    try:
        return Figure(text)
    except ValueError:
        raise IllegalEvent(f"unknown figure {text!r} (ship, viking, child, chest, dog)") from None


def round_view(rnd: Round) -> dict[str, Any]:
    """A round as the screens show it."""
    return {
        "index": rnd.index,
        "card": str(rnd.card),
        "answer": rnd.answer.value,
        "answer_title": rnd.answer.title,
        "true_colour": rnd.card.true_colour,
        "explanation": rnd.explanation,
        "turner": rnd.turner,
        "reveal_ns": rnd.reveal_ns,
        "reveal_measure": rnd.reveal_measure.label,
        "claims": [{"seat": c.seat, "figure": c.figure.value,
                    "reaction_ms": round(c.reaction_ns / 1e6, 1),
                    "t_ns": c.t_ns, "uncertainty_ms": round(c.uncertainty_ns / 1e6, 3),
                    "correct": c.correct, "anticipation": c.anticipation,
                    "counted": c.counted, "source": c.source} for c in rnd.claims],
        "locked": sorted(rnd.locked),
        "outcome": rnd.outcome.value if rnd.outcome else None,
        "winner": rnd.winner,
        "reason": rnd.reason,
        "margin_ms": None if rnd.margin_ns is None else round(rnd.margin_ns / 1e6, 3),
        "uncertainty_ms": (None if rnd.uncertainty_ns is None
                           else round(rnd.uncertainty_ns / 1e6, 3)),
        "too_close": rnd.too_close,
        "corrections": rnd.corrections,
        "evidence": rnd.evidence,
    }


def match_view(match_id: str, match: Match) -> dict[str, Any]:
    """A whole match for the dispute review: rounds and the event timeline."""
    first = match.rounds[0].reveal_ns if match.rounds else 0
    timeline = []
    for i, ev in enumerate(match.events):
        data = ev.to_json()
        t = data.get("t_ns")
        if isinstance(t, int):
            data["ms"] = round((t - first) / 1e6, 3)
        data["seq"] = i
        if isinstance(ev, Revealed):
            data["answer"] = solve(Card.parse(ev.card)).answer.value
        timeline.append(data)
    return {
        "match_id": match_id,
        "seats": list(match.seats),
        "scores": match.scores(),
        "winners": list(match.winners),
        "abandoned": match.abandoned,
        "phase": match.phase.value,
        "rules": match.rules.to_json(),
        "rounds": [round_view(r) for r in match.rounds],
        "timeline": timeline,
    }


def stats_view(store: EventStore) -> dict[str, Any]:
    """Players' statistics across every stored match."""
    players: dict[str, dict[str, Any]] = {}
    for info in store.matches():
        try:
            match = Match.replay(store.events(info.id))
        except KnappError:
            continue
        for seat in match.seats:
            p = players.setdefault(seat, {"matches": 0, "wins": 0, "cards": 0, "direct": [],
                                          "indirect": [], "wrong": 0, "anticipations": 0})
            p["matches"] += 1
            p["wins"] += seat in match.winners
            p["cards"] += match.scores()[seat]
        for rnd in match.rounds:
            if rnd.outcome is Outcome.VOID:
                continue
            for c in rnd.claims:
                p = players[c.seat]
                if c.correct:
                    p["direct" if rnd.card.true_colour else "indirect"].append(c.reaction_ns)
                elif c.counted:
                    p["wrong"] += 1
                p["anticipations"] += c.anticipation
    out = {}
    for seat, p in sorted(players.items()):
        out[seat] = {
            "matches": p["matches"], "wins": p["wins"], "cards": p["cards"],
            "wrong_grabs": p["wrong"], "anticipations": p["anticipations"],
            "true_colour": _summary(p["direct"]), "wrong_colour": _summary(p["indirect"]),
        }
    return {"players": out}


def _summary(values: list[int]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "median_ms": None, "best_ms": None}
    s = sorted(values)
    return {"n": len(s), "median_ms": round(s[len(s) // 2] / 1e6), "best_ms": round(s[0] / 1e6)}


class PinGuard:
    """The table PIN: configured, or generated once and kept in the data directory.

    Args:
        data_dir: where a generated PIN is kept (mode 0600).
        configured: the PIN from the configuration, if any.
        clock: for the lockout after repeated wrong PINs.
    """

    MAX_FAILURES = 5
    LOCKOUT_NS = 30_000_000_000

    def __init__(self, data_dir: Path, configured: str = "", *, clock: Clock) -> None:
        self.clock = clock
        self.generated = False
        if configured:
            self.pin = configured
        else:
            path = data_dir / "pin"
            if path.exists():
                self.pin = path.read_text().strip()
            else:
                self.pin = f"{secrets.randbelow(10**4):04d}"
                data_dir.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write(self.pin + "\n")
            self.generated = True
        self.shown = not self.generated
        self._failures = 0
        self._locked_until = 0

    def check(self, candidate: str | None) -> None:
        """Raise `PinError` unless `candidate` is the PIN."""
        now = self.clock.now_ns()
        if now < self._locked_until:
            raise PinError("too many wrong PINs; try again in a few seconds")
        if candidate is None or not hmac.compare_digest(candidate.strip(), self.pin):
            self._failures += 1
            if self._failures >= self.MAX_FAILURES:
                self._failures = 0
                self._locked_until = now + self.LOCKOUT_NS
            raise PinError("this needs the table PIN" if not candidate else "wrong PIN")
        self._failures = 0
        self.shown = True

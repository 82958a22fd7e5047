"""The whole table, end to end: pads, camera and display around the real service.

`play_table(seed, rounds)` runs the real `TableService` for `rounds` cards with
everything around it simulated on one `FakeClock`:

- the pads: the virtual pad board (the firmware's own code) behind a pty, read
  by the real `SerialPads` driver (`controller.sim.virtual_table`);
- the camera: a camera-world table (`world_scenes.world_round` draws the table,
  its pads, lamp and lens) whose people reach for the figures the simulated
  players chose (`bots.plan_round`, for the card the service actually shows),
  rendered by `WorldRenderer` and analysed by the real vision pipeline through
  a `CameraLink`, frame by frame as the clock passes each frame's time;
- the display: the kiosk's paint report (`TableService.painted`) a few display
  refreshes after the service revealed the card; the players react to the
  painted card;
- the people at the table: they answer "who took it?" with the truth when the
  camera is unsure, and put the figures back after each verdict.

The bridge from plans to the camera world (`round_world`): each player who
acts before the card is decided reaches with the world's own reach model
(`world_scenes._people`), timed so that the figure leaves its pad at the
planned moment; of several hands on one figure the first to touch it takes it
and the others close on it and withdraw (a race), as the world draws races.

Every verdict is then checked against the scene's ground truth (`classify`):
the seat that truly lifted the answer first, and how far behind a rival hand
truly was. A true gap inside the tie band is a near-tie: it must be called too
close (or left to the table), never guessed.

What is simplified, on purpose: each card is a fresh scene of the same table
(new draws of the people, the same table, lens and light), the camera is
calibrated from each card's first frames as `bench/bench_vision.py` does, and
frames are rendered only from just before the first hand moves until the last
is back (the table is still in between: nothing there for the camera to see).
The world draws no hands putting figures back: after each card the camera sees
a short still of every figure home. When it still reads a figure put back as
something else on its pad, the service holds the next card back (as it would
at a real table); after 3 s the harness restarts the camera's analysis from a
still picture and counts the card as `held_back`.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.clock import FakeClock
from controller.config import parse_config
from controller.errors import IllegalEvent, KnappError
from controller.knapp.cards import Card, Figure, solve
from controller.knapp.events import MatchRules
from controller.knapp.match import Outcome, Phase, Round
from controller.referee.camera import CameraLink
from controller.referee.service import TableService
from controller.rng import Rng
from controller.sim.bots import PlannedGrab, PlayerProfile, make_profiles, plan_round
from controller.sim.virtual_table import HOST_POLL_NS, VirtualTable
from controller.sim.world import World
from controller.sim.world_render import WorldRenderer
from controller.sim.world_scenes import Action, _people, world_round
from controller.store import EventStore
from controller.vision.analyze import FrameAnalyser, calibrate_from, calibration_frames
from controller.vision.calibrate import Calibration, CalibrationError
from controller.vision.frames import Frame
from controller.vision.ring import FrameRing

S = 1_000_000_000
MS = 1_000_000
PAINT_LATENCY_NS = (17 * MS, 50 * MS)   # reveal -> the display has painted it (1-3 refreshes)
PAINT_UNCERTAINTY_NS = 8 * MS           # what the kiosk says its paint time is good to
PAINT_REPORT_DELAY_NS = 60 * MS         # its report reaches the server this much later
CAMERA_LATENCY_NS = 12 * MS             # a frame reaches the referee this long after exposure
ANSWER_DELAY_NS = 1_500 * MS            # the table taps "who took it?" this long after asked
LEAD_S = 0.8                            # frames drawn before the first hand moves
TAIL_S = 1.0                            # and after the last event
HOME_S = 0.5                            # frames of the figures back home after each card
RETURN_NS = 1_000 * MS                  # verdict -> the figures go back, one by one
RETURN_STEP_NS = 150 * MS
STEP_NS = 200 * MS                      # the harness advances the board in steps of this
HELD_BACK_NS = 3 * S                    # the camera holds the next card back this long: rearm
ROUND_LIMIT_NS = 60 * S                 # a card that takes longer than this is a harness bug
Planner = Callable[[Card, list[PlayerProfile], Rng], list[PlannedGrab]]
VERDICTS = ("right", "wrong", "too_close", "too_close_clear", "near_tie_asked",
            "near_tie_guessed")


# -- the truth and the checker ------------------------------------------------------------------


@dataclass(frozen=True)
class TrueRound:
    """What really happened on one card (host ns).

    Args:
        answer: the card's answer.
        taker: the seat that lifted the answer figure (None: nobody did in time).
        lift_ns, touch_ns: when the taker's figure left its pad and their hand touched it.
        rival: another seat whose hand was on the answer before it left, if any.
        gap_ns: the rival's touch minus the taker's (>= 0), if any.
        band_ns: the tie band for this pair (two camera frames, at least the rules').
        lifts: every figure that left its pad: (seat, figure, lift ns).
    """

    answer: Figure
    taker: str | None
    lift_ns: int | None
    touch_ns: int | None
    rival: str | None
    gap_ns: int | None
    band_ns: int
    lifts: tuple[tuple[str, Figure, int], ...] = ()

    @property
    def near_tie(self) -> bool:
        """True when the rival was truly within the tie band: only "too close" is right."""
        return self.gap_ns is not None and self.gap_ns < self.band_ns


def classify(truth: TrueRound, outcome: str | None, winner: str | None, *,
             asked: bool = False) -> str:
    """Judge one final verdict against the truth.

    Args:
        truth: what happened.
        outcome, winner: the service's final verdict.
        asked: the table was asked who took the answer figure (the camera was unsure).

    Returns one of:
        "right": the true first taker won (or nobody did and the card was boxed);
        "wrong": another seat (or nobody) given the card outside the tie band;
        "too_close": a true near-tie called too close;
        "too_close_clear": too close called on a clear gap (cautious, not wrong);
        "near_tie_asked": a true near-tie the camera did not decide: the table said who;
        "near_tie_guessed": a true near-tie given to a seat by the referee itself.
    """
    if outcome == Outcome.REDEAL.value or (outcome == Outcome.BOXED.value and truth.near_tie):
        return "too_close" if truth.near_tie else "too_close_clear"
    if truth.near_tie:
        return "near_tie_asked" if asked else "near_tie_guessed"
    if truth.taker is None:
        return "right" if outcome == Outcome.BOXED.value else "wrong"
    return "right" if outcome == Outcome.WON.value and winner == truth.taker else "wrong"


@dataclass
class RoundRecord:
    """One card: the plans, the truth and the service's verdict.

    Args:
        index: the round's index in its match; `match` the match's number.
        card: the card; `answer` its answer.
        plans: (seat, figure, ms after the paint, acted) per player.
        truth: what happened.
        outcome, winner, too_close: the service's final verdict.
        claims: the claims it judged: (seat, figure, ms after its reveal, uncertainty ms, source).
        paint_ns: when the display truly painted the card; `reveal_ns` the service's
            reveal time (its paint report, when the service took it).
        provisional: the winners its provisional verdicts named, in order.
        asked: figures the table was asked "who took it?" about.
        verdict: the checker's word (`classify`).
        frames: camera frames drawn for the card; `calibrated` False when it failed.
        held_back: after the card the camera held the next one back (it read a figure
            put back as something else on its pad) until its analysis was restarted.
    """

    match: int
    index: int
    card: str
    answer: str
    plans: list[tuple[str, str, float, bool]]
    truth: TrueRound
    outcome: str | None = None
    winner: str | None = None
    too_close: bool = False
    claims: list[tuple[str, str, float, float, str]] = field(default_factory=list)
    provisional: list[str | None] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    verdict: str = ""
    frames: int = 0
    calibrated: bool = True
    held_back: bool = False
    paint_ns: int = 0
    reveal_ns: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        t = self.truth
        return {"match": self.match, "index": self.index, "card": self.card,
                "answer": self.answer,
                "plans": [{"seat": s, "figure": f, "ms": ms, "acted": a}
                          for s, f, ms, a in self.plans],
                "truth": {"taker": t.taker, "rival": t.rival,
                          "gap_ms": None if t.gap_ns is None else round(t.gap_ns / MS, 1),
                          "band_ms": round(t.band_ns / MS, 1), "near_tie": t.near_tie,
                          "lifts": [[s, f.value, t_ns] for s, f, t_ns in t.lifts]},
                "outcome": self.outcome, "winner": self.winner, "too_close": self.too_close,
                "claims": [list(c) for c in self.claims], "provisional": self.provisional,
                "asked": self.asked, "verdict": self.verdict, "frames": self.frames,
                "calibrated": self.calibrated, "held_back": self.held_back,
                "paint_ns": self.paint_ns, "reveal_ns": self.reveal_ns}


@dataclass
class E2ESummary:
    """The figures of one end-to-end run.

    Args:
        seed: the run's seed; `players`, `fps`, `size` the table's.
        records: one per card, in play order.
        cpu_s: CPU seconds of the whole run; `render_s` drawing frames, `camera_s`
            the vision pipeline (calibration included).
        frames: camera frames drawn.
        messages: the service's messages at the end (the last 50).
    """

    seed: str
    players: int
    fps: float
    size: tuple[int, int]
    records: list[RoundRecord] = field(default_factory=list)
    cpu_s: float = 0.0
    render_s: float = 0.0
    camera_s: float = 0.0
    frames: int = 0
    messages: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Rounds per verdict class, near-ties, races, asked rounds, the cards whose taker
        the camera named itself (and how many of those were right), failed calibrations
        and cards the camera held back."""
        out = dict.fromkeys(VERDICTS, 0)
        for r in self.records:
            out[r.verdict] += 1
        out["rounds"] = len(self.records)
        out["near_ties"] = sum(r.truth.near_tie for r in self.records)
        out["races"] = sum(r.truth.rival is not None for r in self.records)
        out["asked"] = sum(bool(r.asked) for r in self.records)
        # Cards whose taker the camera named itself (the answer figure was not asked).
        named = [r for r in self.records if r.truth.taker is not None and r.answer not in r.asked]
        out["camera_named"] = len(named)
        out["camera_named_right"] = sum(r.verdict == "right" for r in named)
        out["calibration_failed"] = sum(not r.calibrated for r in self.records)
        out["held_back"] = sum(r.held_back for r in self.records)
        return out

    def to_json(self, *, rounds: bool = True) -> dict[str, Any]:
        """JSON form (with the per-round records unless `rounds` is False)."""
        n = max(len(self.records), 1)
        data: dict[str, Any] = {
            "seed": self.seed, "players": self.players, "fps": self.fps,
            "size": list(self.size), "counts": self.counts(),
            "cpu_s": round(self.cpu_s, 3), "render_s": round(self.render_s, 3),
            "camera_s": round(self.camera_s, 3), "frames": self.frames,
            "cpu_s_per_round": round(self.cpu_s / n, 3)}
        if rounds:
            data["records"] = [r.to_json() for r in self.records]
        return data


# -- from the bots' plans to a camera-world scene ------------------------------------------------


@dataclass(frozen=True)
class RoundScene:
    """One card's scene: the world to draw, when its frame 0 is, and the truth."""

    world: World
    origin_ns: int
    truth: TrueRound
    acted: tuple[PlannedGrab, ...]
    lifts: tuple[tuple[str, Figure, int], ...]   # what the pads will feel: (seat, figure, ns)


def table_world(seed: str, players: int, *, fps: float,
                size: tuple[int, int] | None = None) -> World:
    """A camera-world table with `players` seats (its table file, pads, look and lens).

    Draws `world_scenes.world_round` rounds from labels of `seed` until one has
    that many players; its people are replaced card by card (`round_world`).
    """
    if not 2 <= players <= 6:
        raise ValueError(f"the camera world seats 2 to 6 players, got {players}")
    kind = "six" if players == 6 else "grab"
    for attempt in range(400):
        world = world_round(f"e2e:{seed}:{attempt}", kind, fps=fps, size=size)
        if len(world.players) == players:
            return world
    raise ValueError(f"no camera-world table with {players} players from seed {seed!r}")


def acting(plans: Sequence[PlannedGrab], answer: Figure, paint_ns: int,
           rules: MatchRules) -> list[PlannedGrab]:
    """The plans carried out: those due before the card is decided (players see the verdict).

    The card is decided a collection window after the first correct lift; with
    none it times out.
    """
    correct = [paint_ns + p.delay_ns for p in plans if p.figure is answer]
    close = (min(correct) + rules.collection_window_ns if correct
             else paint_ns + rules.card_timeout_ns)
    return [p for p in plans if paint_ns + p.delay_ns <= close]


def round_world(table: World, card: Card, plans: Sequence[PlannedGrab], paint_ns: int, *,
                rules: MatchRules, rng: Rng, frame_ns: int) -> RoundScene:
    """The camera-world scene of one card from the players' plans.

    Each acting player's figure leaves its pad at paint + the planned delay: the
    reach (the world's own model, `world_scenes._people`) starts early enough for
    that. Of several hands on one figure the first to touch takes it; the others
    close on it at their own planned moment and withdraw (a feint in the world's
    terms; a rival claim when it came before the figure left).
    """
    answer = solve(card).answer
    acted = acting(plans, answer, paint_ns, rules)
    kind = "sleeves" if rng.random() < 0.3 else "grab"   # the people's clothes
    people_rng = rng.fork("people")
    cam = table.camera
    homes = dict(table.homes)
    # A probe: every reach started at 0 gives each hand's touch and lift offsets (the
    # same stream draws the same reach, whenever it starts).
    probe = _people(cam, homes, [Action(p.seat, p.figure, "take", 0.0) for p in acted],
                    kind, people_rng)[2]
    offset = {e.seat: (e.touch_s or 0.0, e.lift_s or 0.0) for e in probe}
    lift_at = {p.seat: paint_ns + p.delay_ns for p in acted}
    touch_at = {p.seat: lift_at[p.seat] - round((offset[p.seat][1] - offset[p.seat][0]) * S)
                for p in acted}
    starts = {p.seat: lift_at[p.seat] - round(offset[p.seat][1] * S) for p in acted}
    origin = (min(starts.values()) if starts else paint_ns) - round(LEAD_S * S)
    actions: list[Action] = []
    takers: dict[Figure, str] = {}
    for p in sorted(acted, key=lambda p: (touch_at[p.seat], p.seat)):
        kind_of_hand = "feint" if p.figure in takers else "take"
        takers.setdefault(p.figure, p.seat)
        actions.append(Action(p.seat, p.figure, kind_of_hand, (starts[p.seat] - origin) / S))
    players, carries, truth = _people(cam, homes, actions, kind, people_rng)
    last = max([e.lift_s or e.touch_s or 0.0 for e in truth] + [0.0])
    world = dataclasses.replace(table, players=players, carries=carries, truth=truth,
                                duration_s=math.ceil((last + TAIL_S) * 10) / 10, kind=kind)
    lifts = tuple(sorted(((takers[f], f, lift_at[takers[f]]) for f in takers),
                         key=lambda x: x[2]))
    band = max(2 * frame_ns, rules.tie_min_ns)
    taker = takers.get(answer)
    rival = gap = None
    if taker is not None:
        rivals = [(touch_at[p.seat] - touch_at[taker], p.seat) for p in acted
                  if p.figure is answer and p.seat != taker
                  and touch_at[p.seat] < lift_at[taker]]
        if rivals:
            gap, rival = min(rivals)
    true = TrueRound(answer, taker, lift_at.get(taker) if taker else None,
                     touch_at.get(taker) if taker else None, rival, gap, band, lifts)
    return RoundScene(world, origin, true, tuple(acted), lifts)


# -- the camera of one card ------------------------------------------------------------------------


class _SceneSource:
    """A `FrameSource` over one card's scene, drawn by the table's renderer.

    The renderer (its table texture, lens rays and light) is made once per table;
    only the people change from card to card. After the scene come a few frames
    of the figures back home (`home`), from when the last one was put back: the
    world draws no hands putting them back, and a camera that never saw them
    return would hold the next card back (a figure missing from its pad).
    """

    def __init__(self, renderer: WorldRenderer, scene: RoundScene, cost: list[float]) -> None:
        renderer.world = scene.world
        renderer.frame_count = scene.world.frame_count
        self.renderer = renderer
        self.scene = scene
        self.fps = scene.world.fps
        self.origin = scene.origin_ns
        self.count = scene.world.frame_count
        self.cached: list[Frame] = []
        self.index = 0
        self.home_at: int | None = None
        self._cost = cost

    def home(self, t_ns: int) -> None:
        """The figures are all back from `t_ns`: show them home for `HOME_S`."""
        self.home_at = t_ns
        self.count = self.scene.world.frame_count + math.ceil(HOME_S * self.fps)

    def frame_ns(self, i: int) -> int:
        """When frame `i` is exposed (past the scene: after `home`)."""
        n = self.scene.world.frame_count
        if i < n:
            return self.origin + round(i * S / self.fps)
        assert self.home_at is not None
        return self.home_at + round((i - n) * S / self.fps)

    @property
    def done(self) -> bool:
        """True when every frame there is to show has been read."""
        return self.index >= self.count

    def due(self, now_ns: int) -> bool:
        """True when the next frame has reached the referee by `now_ns`."""
        if self.index >= self.count:
            return False
        return self.frame_ns(self.index) + CAMERA_LATENCY_NS <= now_ns

    def _draw(self, i: int) -> Frame:
        t0 = time.process_time()
        if i == self.scene.world.frame_count:
            self.renderer.world = dataclasses.replace(self.scene.world, carries=())
        img = self.renderer.render(i)
        self._cost[0] += time.process_time() - t0
        return Frame(img, self.frame_ns(i), i, True)

    def first(self, n: int) -> list[Frame]:
        """The first `n` frames (drawn once, served again by `read`)."""
        while len(self.cached) < min(n, self.count):
            self.cached.append(self._draw(len(self.cached)))
        return list(self.cached)

    def read(self) -> Frame | None:
        """The next frame (never None: the harness pumps only `count` frames)."""
        i = self.index
        self.index += 1
        return self.cached[i] if i < len(self.cached) else self._draw(i)

    def close(self) -> None:
        """Nothing to release."""


class _StillSource:
    """The table at rest with every figure home, from `start_ns` (restarting the camera)."""

    def __init__(self, renderer: WorldRenderer, start_ns: int, fps: float,
                 cost: list[float]) -> None:
        renderer.world = dataclasses.replace(renderer.world, carries=())
        self.renderer = renderer
        self.fps = fps
        self.start = start_ns
        self.index = 0
        self._cost = cost

    def read(self) -> Frame | None:
        """The next still frame."""
        t0 = time.process_time()
        img = self.renderer.render(self.renderer.world.frame_count + self.index)
        self._cost[0] += time.process_time() - t0
        frame = Frame(img, self.start + round(self.index * S / self.fps), self.index, True)
        self.index += 1
        return frame

    def close(self) -> None:
        """Nothing to release."""


# -- the table ----------------------------------------------------------------------------------


@dataclass
class _Card:
    """The harness's state for the card being played."""

    record: RoundRecord
    scene: RoundScene
    source: _SceneSource | None
    link: CameraLink | None
    paint_ns: int
    calibration: Calibration | None = None
    reported: bool = False
    answers: dict[Figure, int | None] = field(default_factory=dict)  # when to answer; None: done
    placed: bool = False


class E2ETable:
    """The service, the virtual pad board, the camera world and the display on one clock.

    Args:
        seed: seeds everything (table, players, decks, board, scenes).
        players: seats at the table (2 to 6).
        fps: the camera's frame rate.
        size: the camera's picture size (None: the camera world's default for the table).
        data_dir: where the service keeps its key (a temporary folder by default).
        countdown_s: figures home -> the next card.
        target: cards to win a match (0: the whole deck); the next match follows.
        planner: the players' grabs for a card (`bots.plan_round` by default; tests
            plant races with their own).
    """

    def __init__(self, seed: str, *, players: int = 3, fps: float = 30.0,
                 size: tuple[int, int] | None = None, data_dir: Path | None = None,
                 countdown_s: float = 2.0, target: int = 0,
                 planner: Planner = plan_round) -> None:
        self.planner = planner
        self.seed = seed
        self.rng = Rng(f"table-e2e:{seed}")
        self.table = table_world(seed, players, fps=fps, size=size)
        self.seats = tuple(self.table.camera.seat_names())
        self.fps = fps
        self.frame_ns = round(S / fps)
        self.clock = FakeClock(S)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if data_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="knapp-e2e-")
            data_dir = Path(self._tmp.name)
        self.config = parse_config({
            "table": {"seats": list(self.seats)}, "match": {"target": target},
            "kiosk": {"countdown_s": countdown_s, "data_dir": str(data_dir),
                      "evidence": False, "clips": False}})
        self.vt = VirtualTable(seed=f"{seed}:board", clock=self.clock)
        self.vt.start()
        self.store = EventStore(":memory:", durable=False)
        self.service = TableService(self.config, store=self.store, clock=self.clock,
                                    pads=self.vt.pads,
                                    seed=self.rng.fork("decks").randbelow(1 << 31))
        self.profiles: list[PlayerProfile] = make_profiles(self.seats, self.rng.fork("players"))
        self.renderer = WorldRenderer(self.table)
        self.summary = E2ESummary(seed, players, fps, self.table.lens.size)
        self._cost = [0.0, 0.0]   # render, camera
        self.card: _Card | None = None
        self._calibration: Calibration | None = None
        self.matches = 0
        self._published: Callable[[], None] = self.service.subscribe(self._on_change)
        self._last_verdict: dict[str, Any] | None = None

    # -- observing the service -------------------------------------------------------------------

    def _on_change(self) -> None:
        v = self.service.last_verdict
        if v is None or v is self._last_verdict or self.card is None:
            return
        self._last_verdict = v
        if v.get("provisional") and v.get("round") == self.card.record.index:
            self.card.record.provisional.append(v.get("winner"))

    # -- one card ----------------------------------------------------------------------------------

    def _deal(self, rnd: Round) -> None:
        """The service showed a card: plan the players' grabs, draw its scene.

        Planned once the card is shown (a countdown can be held back meanwhile):
        the scene's first frames, before any hand moves, may lie a little in the
        past and reach the referee at once.
        """
        m = self.service.match
        card, index = rnd.card, rnd.index
        r = self.rng.fork(f"match:{self.matches}:round:{index}")
        lo, hi = PAINT_LATENCY_NS
        paint = rnd.reveal_ns + lo + r.randbelow(hi - lo)
        plans = self.planner(card, self.profiles, r.fork("plans"))
        scene = round_world(self.table, card, plans, paint, rules=m.rules, rng=r.fork("scene"),
                            frame_ns=self.frame_ns)
        acted = set(scene.acted)
        record = RoundRecord(self.matches, index, str(card), scene.truth.answer.value,
                             [(p.seat, p.figure.value, round(p.delay_ns / MS, 1), p in acted)
                              for p in plans], scene.truth, paint_ns=paint)
        source = _SceneSource(self.renderer, scene, self._cost)
        link, cal = None, None
        t0, r0 = time.process_time(), self._cost[0]
        try:
            cal = calibrate_from(source.first(calibration_frames(self.fps)), self.table.camera)
        except CalibrationError:
            record.calibrated = False
        else:
            link = CameraLink(source, FrameAnalyser(self.table.camera, cal, fps=self.fps),
                              FrameRing(4.0))
            self.service.attach_camera(link)
        self._cost[1] += time.process_time() - t0 - (self._cost[0] - r0)
        board = self.vt.board
        for _seat, figure, t_ns in scene.lifts:
            board.lift(figure, t_ns)
        self.card = _Card(record, scene, source if link else None, link, paint,
                          cal if link else None)

    def _rearm(self) -> None:
        """The camera holds the card back (a figure back home read as something else):
        start its analysis afresh from a still picture of the figures home, as an
        installer restarting the camera would."""
        last = self.summary.records[-1] if self.summary.records else None
        if last is not None:
            last.held_back = True
        cal = self._calibration
        if cal is None:
            return
        src = _StillSource(self.renderer, self.clock.now_ns(), self.fps, self._cost)
        link = CameraLink(src, FrameAnalyser(self.table.camera, cal, fps=self.fps),
                          FrameRing(4.0))
        t0 = time.process_time()
        link.pump(3)
        self._cost[1] += time.process_time() - t0
        self.service.attach_camera(link)

    def _pump_camera(self, now: int) -> None:
        c = self.card
        if c is None or c.link is None or c.source is None:
            return
        src, link = c.source, c.link
        while src.due(now):
            t0 = time.process_time()
            r0 = self._cost[0]
            link.pump(1)
            self._cost[1] += time.process_time() - t0 - (self._cost[0] - r0)
            c.record.frames += 1
            self.summary.frames += 1

    def _scene_end_ns(self) -> int:
        c = self.card
        assert c is not None
        return c.scene.origin_ns + round(c.scene.world.duration_s * S)

    def _table_acts(self, now: int) -> None:
        """The display's report, the table's answers, figures going back."""
        svc, c = self.service, self.card
        if c is None:
            return
        rnd = svc.match.rounds[c.record.index] if c.record.index < len(svc.match.rounds) \
            else None
        if rnd is None:
            return
        if not c.reported and now >= c.paint_ns + PAINT_REPORT_DELAY_NS:
            c.reported = True
            try:
                svc.painted(rnd.index, c.paint_ns, PAINT_UNCERTAINTY_NS)
            except IllegalEvent as exc:   # a grab came first: the kiosk's report is refused
                svc.messages.append(str(exc))
        for p in svc.fusion.prompt():
            fig = Figure(p["figure"])
            if p["round"] == rnd.index and fig not in c.answers:
                c.answers[fig] = now + ANSWER_DELAY_NS
        for fig, due in list(c.answers.items()):
            if due is not None and now >= due:
                c.answers[fig] = None
                seat = next((s for s, f, _ in c.scene.lifts if f is fig), None)
                if seat is not None:
                    try:
                        svc.answer(fig.value, seat)
                    except IllegalEvent:
                        continue   # the camera decided (or the card settled) meanwhile
                    c.record.asked.append(fig.value)
        if rnd.settled and not c.placed:
            c.placed = True
            at = max(now + RETURN_NS, self._scene_end_ns() + 100 * MS)
            for i, (_s, fig, _t) in enumerate(c.scene.lifts):
                self.vt.board.place(fig, at + i * RETURN_STEP_NS)
            if c.source is not None:
                c.source.home(at + len(c.scene.lifts) * RETURN_STEP_NS)

    def _host(self) -> None:
        now = self.clock.now_ns()
        self._pump_camera(now)
        try:
            self.service.tick()
        except KnappError as exc:   # as the service's own loop does: a message, go on
            self.service.messages.append(str(exc))
        self._table_acts(now)

    def _run_until(self, t_ns: int) -> None:
        pads = self.vt.pads
        self.vt.board.run_until(t_ns, self._host, host_poll_ns=HOST_POLL_NS,
                                counters=lambda: (pads.rx_bytes, pads.tx_bytes))

    def check(self, record: RoundRecord) -> str:
        """Read the service's verdict on `record`'s card now and judge it against the truth.

        Fills in the record's outcome, winner, claims and verdict, and returns the verdict.
        """
        m = self.service.match if record.match == self.matches else None
        if m is None:
            raise ValueError(f"match {record.match} is no longer the table's")
        rnd: Round = m.rounds[record.index]
        record.outcome = rnd.outcome.value if rnd.outcome else None
        record.winner, record.too_close = rnd.winner, rnd.too_close
        record.reveal_ns = rnd.reveal_ns
        record.claims = [(cl.seat, cl.figure.value, round(cl.reaction_ns / MS, 3),
                          round(cl.uncertainty_ns / MS, 3), cl.source) for cl in rnd.claims]
        correct = sorted((cl for cl in rnd.claims if cl.correct), key=lambda cl: cl.ranked_ns)
        if len(correct) > 1:   # the band the referee used for this pair
            band = max(correct[0].uncertainty_ns + correct[1].uncertainty_ns,
                       m.rules.tie_min_ns)
            record.truth = dataclasses.replace(record.truth, band_ns=band)
        record.verdict = classify(record.truth, record.outcome, record.winner,
                                  asked=record.truth.answer.value in record.asked)
        return record.verdict

    def _finish_card(self) -> None:
        c = self.card
        assert c is not None
        self.check(c.record)
        if c.calibration is not None:
            self._calibration = c.calibration
        self.summary.records.append(c.record)
        self.card = None

    def play_card(self) -> RoundRecord:
        """Play the service's next card to its verdict and the figures' return."""
        svc = self.service
        if svc.match.phase is Phase.ENDED:
            self.matches += 1
            svc.control("rematch", "the next match")
        start = held = self.clock.now_ns()
        while self.card is None:
            rnd = svc.match.current
            if rnd is not None:
                self._deal(rnd)
                break
            if not (svc.match.phase is Phase.READY and svc.misplaced):
                held = self.clock.now_ns()
            elif self.clock.now_ns() - held > HELD_BACK_NS:
                self._rearm()
                held = self.clock.now_ns()
            if self.clock.now_ns() - start > ROUND_LIMIT_NS:
                raise RuntimeError(f"no card dealt in {ROUND_LIMIT_NS / S:g} s: "
                                   f"{list(svc.messages)[-5:]}")
            self._run_until(self.clock.now_ns() + STEP_NS)
        c = self.card
        assert c is not None
        while True:
            rounds = svc.match.rounds
            if (len(rounds) > c.record.index and rounds[c.record.index].settled and c.placed
                    and svc.match.phase is not Phase.CLEARING
                    and self.clock.now_ns() >= self._scene_end_ns()
                    and (c.source is None or (c.placed and c.source.done))):
                break
            if self.clock.now_ns() - start > ROUND_LIMIT_NS:
                raise RuntimeError(f"card {c.record.index} not settled in "
                                   f"{ROUND_LIMIT_NS / S:g} s: {list(svc.messages)[-5:]}")
            self._run_until(self.clock.now_ns() + STEP_NS)
        record = c.record
        self._finish_card()
        return record

    def close(self) -> None:
        """Close the service, the board and the store."""
        self._published()
        self.summary.messages = list(self.service.messages)
        self.service.close()
        self.vt.close()
        self.store.close()
        if self._tmp is not None:
            self._tmp.cleanup()


def play_table(seed: str | int, rounds: int, *, players: int = 3, fps: float = 30.0,
               size: tuple[int, int] | None = None, planner: Planner = plan_round,
               progress: Callable[[int, int], None] | None = None) -> E2ESummary:
    """Play `rounds` cards at one simulated table end to end and check every verdict.

    Args:
        seed: seeds the table, its players, decks, board and scenes (deterministic).
        rounds: how many cards to play (matches follow each other).
        players: seats at the table (2 to 6).
        fps: the camera's frame rate.
        size: the camera's picture size, e.g. (320, 240) (None: the world's default).
        planner: the players' grabs for a card (`bots.plan_round` by default).
        progress: called with (cards played, rounds) after each card.
    """
    t0 = time.process_time()
    table = E2ETable(str(seed), players=players, fps=fps, size=size, planner=planner)
    try:
        for i in range(rounds):
            table.play_card()
            if progress is not None:
                progress(i + 1, rounds)
    finally:
        table.close()
    s = table.summary
    s.render_s, s.camera_s = table._cost
    s.cpu_s = time.process_time() - t0
    return s

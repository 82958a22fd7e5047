"""From per-frame detections to decisions: who took which figure, and who only feinted.

The `Tracker` keeps, per seat, the arm's current trip over the table (when it
first touched each figure, how close it came, how deep it reached frame by
frame) and, per figure, whether it is on its pad. When a pad goes from figure
to empty (and stays empty, so an arm merely covering it is not a lift) the
lift is attributed:

- the candidates are the seats whose arm touched the figure on this trip and
  is still over the table;
- the figure's colour is then looked for at each candidate's fingertips in the
  following frames: the seat whose arm carries it away wins, with a confidence
  from how consistently it was seen there;
- the figure itself is followed from its pad, whatever the arms over it look
  like: a hand pulls what it took back toward its own seat, so a clear bearing
  toward one seat counts as several frames in that seat's hand (this decides
  when arms lie over arms and the holder's hand was never told apart);
- the other candidates are reported as rival claims with their first-touch times;
- a figure not exactly home is also followed by its own picture
  (`vision.follow`), from its pad, frame to frame: when it moves away in one
  hand with every other hand well away from it, that hand took it, however
  many hands touched it (a rival's touch no longer makes the table ask), and
  when it moves away in a hand other than the one named, the table is asked;
- (`CARRIED_SEATS`) a figure so followed to the table's edge in
  front of one seat was carried there by that seat's player, and a grab the
  table would otherwise be asked about waits for that;
- (`FIST_SEATS`) once the figure's picture is lost in the fist that closed on
  it, that fist is followed on by the points that move with it
  (`follow.Fist`), and where it arrives within a carry's time names the seat
  in the same way.

A pad that reads empty is a lift only once it lies still with the table
around it clear and no hand touching it, or once the figure has been followed
off it by its picture: a dark hand passing over a dark pad, or an arm resting
across one, reads as the pad's colour too.

Lift times from the camera alone come from the pad when it watched the figure
leave (a start from rest's time to move the figure unnoticed before the pad's
change); when hands hid the pad, from how far the figure has moved in its
first frames off it (a start from rest: `vision.lift`), or from when the
taking hand started back from its deepest reach. Each is clamped to the
interval between the last frame that showed the figure on its pad and the
first that showed the pad empty. The reported uncertainty reaches from the
slowest such start before that interval to its end; when hands hid the pad
it spans the whole window.

A trip that ends without lifting or rivalling a lift, and came within a hand's
breadth of a figure, is a feint.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from controller.knapp.cards import Figure
from controller.vision import follow
from controller.vision.confidence import ASK_BELOW, calibrated
from controller.vision.config import Point, perimeter_at, perimeter_point
from controller.vision.detect import (
    PAD_DISC,
    Arm,
    Detection,
    PadReading,
    PadTemplate,
    TableView,
    find_figure,
    locate_figure,
)
from controller.vision.frames import Image
from controller.vision.lift import start_from_rest, time_to_move

CONFIRM_S = 0.25          # an empty pad must stay empty this long to be a lift
QUIET_S = 0.1             # ... and lie still this long, unless the figure is seen off it
CLEAR_AROUND = 0.75       # ... with this much of the table around it as first seen
PLACE_S = 0.2             # a figure must stand this long to be back home
ATTRIBUTE_S = 0.3         # how long to watch a lifted figure leave
ARM_GONE_FRAMES = 2
NEAR_LIFT_MM = 60.0       # a hand this near a lifted figure's outline may have taken it
PARK_S = 1.0              # how long a trip may wait for a hidden pad to show again
FEINT_REACH_MM = 45.0     # beyond the figure's outline
FIT_FRAMES = 3            # the first positions of a lifted figure that time its lift
PATH_FRAMES = 8           # how many positions of a lifted figure to follow
SEARCH_MM = 60.0          # how far from its last position to look for a lifted figure
CARRY_MM_S = 1500.0       # how fast a hand carries a figure off, for the search window
BEARING_MIN_MM = 45.0     # a figure this far from its pad shows where it is going
BEARING_DEG = 30.0        # within this of the bearing to a seat, it goes to that seat
BEARING_VOTES = 3
HEADING_CONFIDENCE = 0.5  # a seat named only by where the figure went
HOLD_MM = 15.0            # a holding hand's tip stays this close to its deepest reach
REACH_KEEP = 240          # frames of an arm's reach kept (4 s at 60 fps): an arm may rest
CROWD_MM = 160.0          # another hand's tip this near a figure's pad could have taken it
TANGLED_CONFIDENCE = 0.8  # at most this sure when arms were one region around the lift
RECENT_S = 2.0            # how long an ended trip is kept for that
TANGLE_S = 0.3            # ... from this long before the figure was last seen home
SOLE_CONFIDENCE = 0.95    # the only hand that touched a figure, none other near it, took it
FULL = 0.85               # a pad reading this much figure has it squarely on
VISIBLE_SHARE = 0.08      # of a figure's picture matching at home: some of it shows there
KEEP_SHARE = 0.8          # of the last frames' share: still standing
UNNOTICED_PX = 1.5        # a figure read by its picture moves this far before it shows
MOVED_MM = 1.5            # a figure's picture found this far off its pad has moved
HELD_FROM_MM = 45.0       # a figure followed this far from its pad is in a hand
HELD_NEAR_MM = 60.0       # ... the hand whose tip is this near it
HELD_APART_MM = 120.0     # ... while every other tip is at least this far from it
HELD_FRAMES = 3           # frames of that, for one seat and no other, to name the holder
HELD_CONFIDENCE = 0.95    # the figure seen off its pad in one hand, no other hand with it
BUSY_CLEAR_MM = 40.0      # a hand whose tip stayed this far outside a pad's rim was never at it
TIP_SPEED_MM_S = 3000.0   # no hand moves faster (fast aimed reaches peak at 1.0-2.6 m/s) ...
TIP_JUMP_MM = 90.0        # ... give or take a hand's breadth: which finger is farthest
UNSEEN_REACH_MM = 60.0    # an arm whose tip came this much nearer the figure was reaching
UNSEEN_REACH_S = 0.5      # ... within this long before the figure was last seen home
UNSEEN_AFTER_S = 0.1      # ... or this long after it was first seen gone
LEAP_S = 1.0              # a tip's leap this long before the lift is no part of the reach
AWAY_S = 0.1              # a hand's tip seen this long before the lift, or after, is at it
LEAP_SEEN_S = 0.25        # a tip a hand could have brought from where it was this lately
# Where the figure went names its taker. On since the ninth session's held-out
# heldout:1856-1955 (35.16 % seats against 32.81 % without, no wrong one either way);
# first tried with a wrong race on heldout:1756-1855, traced (that set is tuning since)
# to the stall and two-places guards below: docs/camera.md, "Benchmark".
# `bench_vision.py --no-carried-seats` compares.
CARRIED_SEATS = True
# A figure followed by its own picture this far from its pad, to within `EDGE_NEAR_MM`
# of the table's edge, has been carried to the player sitting there: a taker pulls a
# figure back in front of themselves within 0.28-0.55 s of the lift (people.CARRY_S).
CARRIED_MM = 150.0
EDGE_NEAR_MM = 150.0
ZONE_CLEAR_MM = 60.0      # ... with the edge this far either side in the same seat's zone
CARRIED_CONFIDENCE = 0.95
# A carry is one movement: a picture that stopped on its way (within `STALL_MM` for
# `STALL_S`), well off the pad and short of the edge, had slid onto something lying
# there: a pale forearm across the pads (heldout:1785, tune:1478: the white dog's
# picture leapt 80 mm onto it and rested there while the figure left in another hand).
STALL_MM = 15.0
STALL_S = 0.15
# Where the hand the figure was last found in went names its taker too
# (`Tracker._fist_to`): the picture of a small figure is lost in the fist that closes on
# it, within a few millimetres of its pad in crowds (docs/camera.md, "Attribution").
# `bench_vision.py --no-fist-seats` compares.
FIST_SEATS = True
FIST_NAMING_POINTS = 8    # points on the fist in every frame of its way, at least ...
FIST_TOGETHER = 0.8       # ... this share of them moving as one hand (fewer than
#                           follow.FIST_MIN_POINTS: the fist is lost altogether)
CARRY_SLOW_S = 0.55       # the slowest carry back to the taker (people.CARRY_S)
CARRY_WATCH_S = 1.0       # how long after the lift a grab the table would be asked waits
CARRY_SEEN_S = 0.15       # ... while its figure is followed (found this lately)


@dataclass(frozen=True)
class Claim:
    """A seat's claim on a figure: when its arm first touched it."""

    seat: str
    touch_ns: int | None
    uncertainty_ns: int


@dataclass(frozen=True)
class Decision:
    """A grab or a feint, as decided by the camera.

    Args:
        kind: "grab" or "feint".
        seat: the seat that took (or feinted at) the figure; None when no arm was seen.
        figure: the figure.
        touch_ns: when the seat's arm first touched it (None: never touched).
        lift_ns: when it left its pad (None for a feint).
        uncertainty_ns: the uncertainty of both times (one frame).
        confidence: 0 to 1, how sure the attribution is.
        other_claims: other seats whose arms were on the figure when it left.
        lift_index: the frame index of the lift (or of the end of the feint).
        decided_ns: the time of the frame at which this was decided.
    """

    kind: str
    seat: str | None
    figure: Figure
    touch_ns: int | None
    lift_ns: int | None
    uncertainty_ns: int
    confidence: float
    other_claims: tuple[Claim, ...] = ()
    lift_index: int = 0
    decided_ns: int = 0

    def to_json(self, origin_ns: int = 0) -> dict[str, Any]:
        """Return the `knapp vision analyze --json` object; times in ms from `origin_ns`."""

        def ms(t: int | None) -> float | None:
            return None if t is None else round((t - origin_ns) / 1e6, 1)

        return {
            "kind": self.kind, "seat": self.seat, "figure": self.figure.value,
            "touch_ms": ms(self.touch_ns), "lift_ms": ms(self.lift_ns),
            "uncertainty_ms": round(self.uncertainty_ns / 1e6, 1),
            "confidence": round(self.confidence, 3),
            "other_claims": [{"seat": c.seat, "touch_ms": ms(c.touch_ns),
                              "uncertainty_ms": round(c.uncertainty_ns / 1e6, 1)}
                             for c in self.other_claims],
        }


@dataclass
class _Trip:
    start_ns: int
    first_touch: dict[Figure, int] = field(default_factory=dict)
    involved: set[Figure] = field(default_factory=set)   # grabbed, rivalled or placed
    depth: float = -1.0                   # the tip's farthest distance from the edge so far
    aim: tuple[Figure, float] | None = None   # the figure nearest the tip at that moment
    missing: int = 0
    arm: Arm | None = None
    closest: dict[Figure, float] = field(default_factory=dict)   # the tip's nearest to each pad
    # When its arm was one region with another's, or joined across a gap (the last seconds).
    shared: deque[int] = field(default_factory=lambda: deque(maxlen=REACH_KEEP))
    # When its tip moved faster than a hand: another arm's piece joined its region.
    jumps: deque[int] = field(default_factory=lambda: deque(maxlen=REACH_KEEP))
    # (t, the tip's distance from the edge): the last few seconds, to time a hidden lift.
    reach: deque[tuple[int, float]] = field(default_factory=lambda: deque(maxlen=REACH_KEEP))
    # (t, where the tip was): which way the arm was heading.
    tips: deque[tuple[int, Point]] = field(default_factory=lambda: deque(maxlen=REACH_KEEP))
    # When its hand last touched each figure (a seat's two hands are one arm with one
    # tip, that of the larger: the tip alone may be the other hand's).
    touched: dict[Figure, int] = field(default_factory=dict)


@dataclass
class _Lift:
    figure: Figure
    index: int
    last_present_ns: int
    first_absent_ns: int
    candidates: dict[str, int | None]
    score: dict[str, int] = field(default_factory=dict)
    path: list[tuple[int, Point]] = field(default_factory=list)   # where the figure was seen
    # Every arm's trip at the time, kept for timing: a trip may end before the decision.
    trips: dict[str, _Trip] = field(default_factory=dict)
    frames: int = 0
    exact: bool = False
    share: float = 1.0
    # The figure followed by its own picture, and the frames it was seen in one hand alone.
    follower: follow.Follow | None = None
    held: dict[str, int] = field(default_factory=dict)
    # The first frame the pad read empty: hands may have hidden the figure from
    # `first_absent_ns` (when it stopped showing where it stood) until then.
    empty_ns: int = 0


@dataclass
class _Pad:
    home: bool = True
    last_present_ns: int = 0
    absent_since: tuple[int, int] | None = None   # (frame index, t_ns) of the first empty frame
    present_since: int | None = None
    state: str = "figure"                         # the latest reading
    # The share of the figure's picture matching at home in the last frames it was
    # partly hidden, and the first frame after `last_present_ns` it was not seen there.
    shares: deque[float] = field(default_factory=lambda: deque(maxlen=3))
    gone_ns: int | None = None
    exact: bool = False       # `last_present_ns` was read against the figure's picture
    # ... and the share of that picture matching there (squarely on: `FULL` or more)
    share: float = 1.0
    # While arms hide the pad: where its figure was seen off it, in case it is leaving.
    shadow: list[tuple[int, Point]] = field(default_factory=list)


class Tracker:
    """Turn a stream of `Detection`s into `Decision`s.

    Args:
        view: the calibrated table.
        fps: the nominal frame rate (refined from the frames' timestamps).
    """

    def __init__(self, view: TableView, *, fps: float = 30.0) -> None:
        self.view = view
        self.period_ns = round(1e9 / fps)
        self._pads = {f: _Pad() for f in Figure}
        self._trips: dict[str, _Trip] = {}
        self._lifts: list[_Lift] = []
        # Trips that ended while a figure they touched was hidden under other arms:
        # a feint or a grab, to be told when that pad is seen again.
        self._parked: list[tuple[str, _Trip, int]] = []
        # Trips ended lately: a hand that was at a figure just before it left counts.
        self._ended: list[tuple[str, _Trip, int]] = []
        self._last_t: int | None = None
        self._steps: list[int] = []
        self.status = "ok"
        self.decisions: list[Decision] = []
        self._templates: dict[Figure, PadTemplate] = {}
        # Figures followed by their own pictures: from the first frame one is not
        # exactly home until its lift is decided or it stands still again.
        self._follows: dict[Figure, tuple[follow.Follow, dict[str, int]]] = {}
        # The last frame (time, image, its greyscale once made): fists are followed
        # from one frame to the next. Kept by reference: a source hands in a new array
        # each frame (`sources.py`, picamera2's capture_array) and nothing writes to it.
        self._prev: tuple[int, Image, Image | None] | None = None

    @property
    def hints(self) -> dict[str, tuple[float, float]]:
        """Seat -> its arm's last tip in pixels (for `detect`, to bound touching arms' tips)."""
        return {s: t.arm.tip_px for s, t in self._trips.items() if t.arm is not None}

    @property
    def vacated(self) -> frozenset[Figure]:
        """Figures currently off their pads (for `detect`)."""
        return frozenset(f for f, p in self._pads.items() if not p.home)

    def _frame_period(self, t_ns: int) -> None:
        if self._last_t is not None and t_ns > self._last_t:
            self._steps.append(t_ns - self._last_t)
            if len(self._steps) > 30:
                self._steps.pop(0)
            self.period_ns = int(statistics.median(self._steps))
        self._last_t = t_ns

    def update(self, det: Detection, image: Image | None = None,
               templates: dict[Figure, PadTemplate] | None = None,
               table: Image | None = None) -> list[Decision]:
        """Take one frame's detection (and its image, the figures' pictures learned on
        their pads and the empty table at half resolution, to follow lifted figures)."""
        self.status = det.status
        if det.status != "ok":
            return []
        if templates is not None:
            self._templates = templates
        self._frame_period(det.t_ns)
        t = det.t_ns
        arms = _one_per_seat(det.arms)
        out: list[Decision] = []
        self._follow_trips(arms, t)
        self._read_pads(det, arms, t)
        if image is not None:
            grey = self._follow_figures(arms, image, det.gain, table)
            self._watch_lifts(arms, image, det.gain)
            self._watch_hidden(image, det.gain)
            self._prev = (t, image, grey)
        out.extend(self._resolve_lifts(arms, t, force=False))
        out.extend(self._end_trips(arms, det.index, t))
        self.decisions.extend(out)
        return out

    def finish(self) -> list[Decision]:
        """Decide everything still open (end of a video)."""
        t = self._last_t or 0
        out = self._resolve_lifts({}, t, force=True)
        out.extend(self._end_trips({}, -1, t, force=True))
        self.decisions.extend(out)
        return out

    # -- arms ------------------------------------------------------------------------

    def _follow_trips(self, arms: dict[str, Arm], t: int) -> None:
        r = self.view.cam.figure_radius_mm
        for seat, arm in arms.items():
            trip = self._trips.get(seat)
            if trip is None:
                trip = self._trips[seat] = _Trip(t)
            trip.missing = 0
            if arm.shared:
                trip.shared.append(t)
            if self._jumped(trip, arm, t):
                trip.jumps.append(t)
            trip.arm = arm
            for figure in arm.touching:
                trip.touched[figure] = t
                if self._pads[figure].home and figure not in trip.first_touch:
                    # Contact happened between the previous frame and this one.
                    trip.first_touch[figure] = t - self.period_ns // 2
            depth = math.dist(arm.tip_mm, arm.entry_mm)
            trip.reach.append((t, depth))
            trip.tips.append((t, arm.tip_mm))
            for f, pos in self.view.cam.pads:
                d = math.dist(arm.tip_mm, pos)
                if d < trip.closest.get(f, math.inf):
                    trip.closest[f] = d
            if depth > trip.depth:
                trip.depth = depth
                home = [(max(0.0, math.dist(arm.tip_mm, pos) - r), f)
                        for f, pos in self.view.cam.pads if self._pads[f].home]
                if home:
                    d, f = min(home)
                    trip.aim = (f, d)

    @staticmethod
    def _jumped(trip: _Trip, arm: Arm, t: int) -> bool:
        """Whether the arm's tip moved faster than a hand can: a piece of another arm (its
        hand, seen where its arm is not) joined this region.

        A tip a hand could have brought from any of the trip's tips of the last
        `LEAP_SEEN_S`, or in over the edge since the last frame, did not leap: an arm
        found in pieces, or missed for a frame, shows one or another of them in turn.
        Nor did a tip at a hand found apart from the arm, beyond its end and in its
        line (`Arm.joined`): that is the arm's own hand, not a piece of another's
        (the sleeve seen, the forearm the table's colour, the hand far out at once).
        """
        if not trip.tips or arm.joined:
            return False

        def reachable(since_ns: int) -> float:
            return TIP_JUMP_MM + TIP_SPEED_MM_S * since_ns / 1e9

        if math.dist(arm.tip_mm, arm.entry_mm) <= reachable(t - trip.tips[-1][0]):
            return False
        for x, tip in reversed(trip.tips):
            if t - x > LEAP_SEEN_S * 1e9:
                break
            if math.dist(arm.tip_mm, tip) <= reachable(t - x):
                return False
        return True

    def _end_trips(self, arms: dict[str, Arm], index: int, t: int,
                   force: bool = False) -> list[Decision]:
        out: list[Decision] = []
        for seat in list(self._trips):
            trip = self._trips[seat]
            if seat in arms:
                continue
            trip.missing += 1
            if trip.missing < ARM_GONE_FRAMES and not force:
                continue
            if any(seat in lift.candidates for lift in self._lifts) and not force:
                continue
            del self._trips[seat]
            self._ended.append((seat, trip, t))
            self._ended = [x for x in self._ended if t - x[2] <= RECENT_S * 1e9]
            if trip.involved:
                continue
            hidden = [f for f in trip.first_touch
                      if self._pads[f].home and self._pads[f].state == "covered"]
            if hidden and not force:
                self._parked.append((seat, trip, t))
                continue
            out.extend(self._feint(seat, trip, index, t))
        keep = []
        for seat, trip, since in self._parked:
            seen = all(self._pads[f].state == "figure" for f in trip.first_touch
                       if self._pads[f].home)
            if trip.involved:
                continue
            if force or seen or t - since > PARK_S * 1e9:
                out.extend(self._feint(seat, trip, index, t))
            else:
                keep.append((seat, trip, since))
        self._parked = keep
        return out

    def _feint(self, seat: str, trip: _Trip, index: int, t: int) -> list[Decision]:
        if trip.aim is None or trip.aim[1] > FEINT_REACH_MM:
            return []
        figure = trip.aim[0]
        touched = figure in trip.first_touch
        return [Decision("feint", seat, figure, trip.first_touch.get(figure), None,
                         self.period_ns, 0.9 if touched else 0.7, (), index, t)]

    # -- pads --------------------------------------------------------------------------

    def _read_pads(self, det: Detection, arms: dict[str, Arm], t: int) -> None:
        for figure, reading in det.pads.items():
            pad = self._pads[figure]
            state = reading.state
            pad.state = state
            if pad.home:
                if pad.absent_since is None and self._still_home(pad, reading):
                    # Squarely on its pad, or the part of it not under a hand exactly where
                    # it stood: it has not left yet.
                    pad.last_present_ns = t
                    pad.gone_ns = None
                    pad.exact = reading.exact
                    pad.share = reading.figure
                elif pad.gone_ns is None:
                    pad.gone_ns = t
                moved = reading.moved_mm is not None and reading.moved_mm >= MOVED_MM
                if moved and reading.moved_at is not None:
                    self._moved(figure, t, reading.moved_at)
                if state == "figure" and not moved:
                    pad.shadow.clear()
                    if pad.absent_since is not None:
                        pad.absent_since = None   # only covered: not a lift
                        self._lifts = [x for x in self._lifts if x.figure is not figure]
                elif state == "empty" and pad.absent_since is None:
                    pad.absent_since = (det.index, t)
                    self._start_lift(figure, det.index, pad.last_present_ns, t)
                if pad.absent_since is not None and t - pad.absent_since[1] >= CONFIRM_S * 1e9 \
                        and self._left(figure, reading, arms):
                    pad.home = False
                    pad.present_since = None
            elif state == "figure":
                if pad.present_since is None:
                    pad.present_since = t
                elif t - pad.present_since >= PLACE_S * 1e9:
                    self._placed(figure, arms)
                    self._pads[figure] = _Pad(True, t)
            else:
                pad.present_since = None

    @staticmethod
    def _still_home(pad: _Pad, reading: PadReading) -> bool:
        """Whether the pad still shows its figure exactly where it stood.

        Partly under a hand, the share of its picture that matches holds steady
        while it stands and falls as soon as it moves (a pixel or two is enough):
        a fall below `KEEP_SHARE` of the last frames' is the figure leaving.
        """
        if reading.moved_mm is not None and reading.moved_mm >= MOVED_MM:
            return False   # its picture matches better a little off its pad: it is moving
        if reading.figure >= FULL:
            pad.shares.clear()
            return True
        prev = sorted(pad.shares)
        pad.shares.append(reading.figure)
        if reading.figure < VISIBLE_SHARE:
            return False
        return not prev or reading.figure >= KEEP_SHARE * prev[len(prev) // 2]

    def _moved(self, figure: Figure, t: int, at: Point) -> None:
        """The visible part of `figure` was found off its pad by its own picture."""
        lift = next((x for x in self._lifts if x.figure is figure), None)
        trace = lift.path if lift is not None else self._pads[figure].shadow
        if len(trace) < PATH_FRAMES and (not trace or trace[-1][0] != t):
            trace.append((t, at))

    def _left(self, figure: Figure, reading: PadReading, arms: dict[str, Arm]) -> bool:
        """Whether a pad that reads empty has really lost its figure.

        A hand over a pad can read as an empty pad (dark skin near the pad's
        colour, on a table near the skin's, is not even seen as a hand), and a
        covered pad is no evidence either: the lift stands only once the pad
        reads empty with no hand on it, lies still (a hand passing over it
        moves) and has the table around it as first seen (an arm resting across
        it lies across that too), or the figure itself has been followed off the
        pad by its picture. Until then a figure seen again cancels it.
        """
        if reading.state == "empty" and reading.still_s >= QUIET_S \
                and reading.around >= CLEAR_AROUND \
                and not any(figure in a.touching for a in arms.values()):
            return True
        lift = next((x for x in self._lifts if x.figure is figure), None)
        if lift is None or lift.follower is None:
            # Without its picture there is only its colour, and a patch of that colour
            # off the pad may be a sleeve or a hand (phantom grabs, issue 11).
            return False
        home = self.view.cam.pad(figure)
        r = self.view.cam.figure_radius_mm
        # Seen off its pad by its own picture, followed from the pad.
        return sum(math.dist(p, home) > r for _, p in lift.follower.path) >= 2

    def _placed(self, figure: Figure, arms: dict[str, Arm]) -> None:
        pos = self.view.cam.pad(figure)
        for seat, trip in self._trips.items():
            arm = arms.get(seat) or trip.arm
            if arm is not None and math.dist(arm.tip_mm, pos) < 150:
                trip.involved.add(figure)

    def _start_lift(self, figure: Figure, index: int, last_present: int, t: int) -> None:
        candidates: dict[str, int | None] = {}
        pos = self.view.cam.pad(figure)
        reach = self.view.cam.figure_radius_mm + NEAR_LIFT_MM
        for seat, trip in self._trips.items():
            if trip.missing == 0 and figure in trip.first_touch:
                candidates[seat] = trip.first_touch[figure]
            elif trip.missing == 0 and trip.arm is not None \
                    and math.dist(trip.arm.tip_mm, pos) < reach:
                # A hand at the figure whose touch was hidden under other arms.
                candidates[seat] = None
        for seat, trip, _ in self._parked:
            if figure in trip.first_touch and seat not in candidates:
                # Left while the pad was hidden: may have carried it off unseen.
                candidates[seat] = trip.first_touch[figure]
                trip.involved.add(figure)
        if not candidates:
            # No hand seen at it: the nearest arm over the table, with low confidence.
            near = [(math.dist(tr.arm.tip_mm, pos), s) for s, tr in self._trips.items()
                    if tr.arm is not None and tr.missing == 0]
            if near:
                d, seat = min(near)
                if d < 200:
                    candidates[seat] = None
        trips = {s: tr for s, tr, _ in self._parked} | self._trips
        gone = self._pads[figure].gone_ns
        since = last_present or t - self.period_ns
        fol, held = self._follows.get(figure, (None, {}))
        self._lifts.append(_Lift(figure, index, since, gone if gone is not None else t,
                                 candidates, path=_departure(self._pads[figure].shadow, pos),
                                 trips=trips, exact=self._pads[figure].exact,
                                 share=self._pads[figure].share,
                                 follower=fol, held=held, empty_ns=t))

    # -- lifted figures ------------------------------------------------------------------

    def _watch_lifts(self, arms: dict[str, Arm], image: Image, gain: float) -> None:
        r = self.view.cam.figure_radius_mm
        t = self._last_t or 0
        for lift in self._lifts:
            lift.frames += 1
            pad = self.view.cam.pad(lift.figure)
            if len(lift.path) < PATH_FRAMES and not (lift.path and lift.path[-1][0] == t):
                # Follow the figure itself from its pad: where it goes does not depend on
                # telling apart the arms over it.
                since, near = ((t - lift.path[-1][0], lift.path[-1][1]) if lift.path
                               else (t - lift.last_present_ns, pad))
                reach = r + SEARCH_MM + min(CARRY_MM_S * since / 1e9, 300.0)
                pos = find_figure(image, self.view, lift.figure, near, reach, gain=gain,
                                  standing=self._standing())
                if pos is not None and math.dist(pos, pad) > 1.0:
                    lift.path.append((t, pos))
            for seat in lift.candidates:
                arm = arms.get(seat)
                if arm is None:
                    continue
                found = locate_figure(image, self.view, lift.figure, arm.tip_px, r * 2.2, gain=gain)
                if found is not None and math.dist(found, pad) > r * 0.8:
                    lift.score[seat] = lift.score.get(seat, 0) + 1

    def _follow_figures(self, arms: dict[str, Arm], image: Image, gain: float,
                        table: Image | None = None) -> Image | None:
        """Follow each figure not exactly home by its picture, and on in the hand it was
        last found in once the picture is lost; count the frames one hand alone is
        with it. Returns the frame in greyscale if it was needed.

        Two hands at a figure both touch it; once it is carried off, only the one
        that holds it stays with it, and the others are well away.
        """
        grey: Image | None = None
        t = self._last_t or 0
        lifting = {x.figure for x in self._lifts}
        touched = {f for a in arms.values() for f in a.touching}
        for figure, pad in self._pads.items():
            at_risk = pad.home and (pad.gone_ns is not None or figure in touched)
            if figure not in self._follows and at_risk and figure in self._templates:
                fol = follow.start(self._templates[figure], figure, pad.last_present_ns or t)
                if fol is not None:
                    self._follows[figure] = (fol, {})
            elif figure in self._follows and not at_risk and figure not in lifting:
                del self._follows[figure]
        standing = self._standing()
        for figure, (fol, held) in self._follows.items():
            at = follow.step(fol, image, self.view, t, gain=gain, standing=standing,
                             table=table)
            if FIST_SEATS:
                grey = self._follow_fist(fol, at, image, grey, t)
            home = self.view.cam.pad(figure)
            if at is None or fol.broken or math.dist(at, home) < HELD_FROM_MM:
                continue
            d = {s: math.dist(a.tip_mm, at) for s, a in arms.items()}
            if any(a.by_colour and d[s] < HELD_APART_MM for s, a in arms.items()):
                # A hand parted from another by colour near it: whose it is is a guess.
                continue
            near = [s for s, x in d.items() if x <= HELD_NEAR_MM]
            if len(near) == 1 and all(x >= HELD_APART_MM for s, x in d.items() if s != near[0]):
                held[near[0]] = held.get(near[0], 0) + 1
        return grey

    def _follow_fist(self, fol: follow.Follow, at: Point | None, image: Image,
                     grey: Image | None, t: int) -> Image | None:
        """Start following the fist `fol`'s figure was found in last frame and not in
        this one, and follow any fist on; returns this frame in greyscale if made."""
        if self._prev is None:
            return grey
        t0, before_image, before = self._prev
        starting = at is None and not fol.broken and bool(fol.path) and fol.path[-1][0] == t0
        if not starting and (fol.fist is None or fol.fist.lost):
            return grey
        if before is None:
            before = cv2.cvtColor(before_image, cv2.COLOR_BGR2GRAY)
            self._prev = (t0, before_image, before)
        if starting:
            ox, oy = fol.offset_px
            fol.fist = follow.fist_start(before, (fol.corner_px[0] + ox, fol.corner_px[1] + oy),
                                         self.view, t0)
        if fol.fist is None or fol.fist.lost:
            return grey
        if fol.fist.t_ns != t0:
            fol.fist.lost = True   # a frame went by unfollowed: its points are stale
            return grey
        if grey is None:
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        follow.fist_step(fol.fist, before, grey, self.view, t)
        return grey

    def _holder(self, lift: _Lift) -> str | None:
        """The seat seen alone carrying the figure away, if one clearly was."""
        if len(lift.held) != 1:
            return None
        seat, n = next(iter(lift.held.items()))
        return seat if n >= HELD_FRAMES else None

    def _watch_hidden(self, image: Image, gain: float) -> None:
        """Follow figures leaving pads that arms hide.

        When such a pad shows empty at last the figure may be long gone, and
        these traces are all there is of where it went and when it left.
        """
        r = self.view.cam.figure_radius_mm
        t = self._last_t or 0
        for figure, pad in self._pads.items():
            if not pad.home or pad.state != "covered" or len(pad.shadow) >= PATH_FRAMES:
                continue
            home = self.view.cam.pad(figure)
            since, near = ((t - pad.shadow[-1][0], pad.shadow[-1][1]) if pad.shadow
                           else (0, home))
            reach = r + SEARCH_MM + min(CARRY_MM_S * since / 1e9, 300.0)
            pos = find_figure(image, self.view, figure, near, reach, gain=gain,
                              standing=self._standing())
            if pos is None:
                continue
            if math.dist(pos, home) < (1 - PAD_DISC) * r:
                pad.shadow.clear()   # still (or back) on its pad under the hands
            elif math.dist(pos, home) > r:
                # Beyond a radius: no sliver of a figure still standing there, half
                # hidden under a hand, has its middle that far out.
                pad.shadow.append((t, pos))

    def _standing(self) -> frozenset[Figure]:
        """Figures seen on their pads now (a lifted one is never looked for there)."""
        return frozenset(f for f, p in self._pads.items() if p.home and p.state == "figure")

    def _tangled(self, lift: _Lift, seat: str, t: int) -> bool:
        """Whether the taker's arm, or another's near the figure, was one region with
        another seat's arm from just before the lift to it."""
        since = lift.last_present_ns - int(TANGLE_S * 1e9)
        until = min(t, lift.first_absent_ns + self.period_ns)
        return any(any(since <= x <= until for x in tr.shared)
                   and (s == seat or tr.closest.get(lift.figure, math.inf) < CROWD_MM)
                   for s, tr in self._near_trips(lift))

    def _two_in_hand(self, lift: _Lift, seat: str, t: int, batch: Sequence[Decision]) -> bool:
        """Whether `seat`'s hand touched another figure that left its pad around this one,
        or `seat` was lately named for another figure (`batch`: this frame's decisions).

        One hand takes one figure: named for two, it is wrong for one of them (a hand
        the table's colour, not seen at all, took the other; or another's arm was
        taken for this seat's).
        """
        if self._named_lately(seat, t, batch) - {lift.figure}:
            return True
        touched = {f for s, tr in self._near_trips(lift) if s == seat for f in tr.first_touch}
        touched.discard(lift.figure)
        gone = {x.figure for x in self._lifts if x is not lift}
        gone |= {f for f in touched if not self._pads[f].home}
        return bool(touched & gone)

    def _holds_another(self, lift: _Lift, seat: str, t: int, batch: Sequence[Decision]) -> bool:
        """Whether `seat`'s hand is known to hold another figure: named for it with
        confidence lately (`batch`: this frame's decisions), or another lifted figure
        followed to its edge.

        A picture that arrives at a seat's edge may have slid onto a hand that holds
        another figure; a hand that merely touched a neighbour (crowds brush every
        pad beside the one they take) or was named for it as a guess is no such hand.
        """
        if self._named_lately(seat, t, batch, sure=True) - {lift.figure}:
            return True
        return any(x is not lift and self._carried_to(x) == seat for x in self._lifts)

    def _named_lately(self, seat: str, t: int, batch: Sequence[Decision], *,
                      sure: bool = False) -> set[Figure]:
        """The figures `seat` was named for in the last `RECENT_S` (`batch`: this frame's
        decisions); with `sure`, only those named with confidence."""
        return {d.figure for d in [*self.decisions, *batch]
                if d.kind == "grab" and d.seat == seat and t - d.decided_ns <= RECENT_S * 1e9
                and (not sure or d.confidence >= ASK_BELOW)}

    def _crowded(self, lift: _Lift, seat: str) -> bool:
        """Whether another seat's hand came within `CROWD_MM` of the figure on this trip.

        A hand that never came over this figure's pad, touched another figure and
        took that one (it left its pad) is busy: one hand takes one figure.
        """
        return any(tr.closest.get(lift.figure, math.inf) < CROWD_MM
                   and not self._busy(lift, tr)
                   for s, tr in self._near_trips(lift) if s != seat)

    def _unseen_hand(self, lift: _Lift, seat: str) -> bool:
        """Whether a hand the camera never found with its arm may have taken the figure:
        `seat`'s tip leapt on its way (`_leapt`), was nowhere near the figure when it
        left (`_away`), or another arm reached (`_unseen_reach`).

        An arm is found where it differs from the table; where part of it does not
        (skin or a sleeve the table's colour), the piece with the hand is no arm, or
        joins the next arm that touches it, and that arm's seat is named for the grab.
        """
        return self._leapt(lift, seat) or self._away(lift, seat) \
            or self._unseen_reach(lift, seat)

    def _away(self, lift: _Lift, seat: str) -> bool:
        """Whether `seat`'s tip was seen, around the lift, only far from the figure.

        A hand that lifts a figure is at it: a seat that touched the figure earlier
        and was elsewhere when it left (an arm reaching for another figure past it, a
        sleeve the table's colour hiding the hand that took it) did not lift it. With
        no tip seen around the lift there is nothing to tell, and this says no; nor
        when the seat's arm touched the figure then (a seat's two hands are one arm
        whose tip is the larger's: the hand at the figure may be the other one).
        """
        since = lift.last_present_ns - int(AWAY_S * 1e9)
        until = lift.first_absent_ns + self.period_ns
        pad = self.view.cam.pad(lift.figure)
        trips = [tr for s, tr in self._near_trips(lift) if s == seat]
        if any(tr.touched.get(lift.figure, -1) >= since for tr in trips):
            return False
        near = [math.dist(tip, pad) for tr in trips for x, tip in tr.tips if since <= x <= until]
        return bool(near) and min(near) > CROWD_MM

    def _leapt(self, lift: _Lift, seat: str) -> bool:
        """Whether `seat`'s tip leapt faster than a hand on its way to the lift: a hand
        seen without its arm joined its region, and may be the one at the figure.

        Only leaps within `LEAP_S` of the lift count: a whole reach takes less (its
        peak speed 1-2.6 m/s over at most the table's half), and an arm resting over
        the table all session would otherwise make every later grab of its seat asked.
        """
        since = lift.last_present_ns - int(LEAP_S * 1e9)
        until = lift.first_absent_ns + self.period_ns
        return any(any(since <= x <= until for x in tr.jumps)
                   for s, tr in self._near_trips(lift) if s == seat)

    def _unseen_reach(self, lift: _Lift, seat: str) -> bool:
        """Whether another seat's arm was reaching toward the figure around the lift, its
        hand never seen near any figure (a reaching arm whose hand was never found may
        be the one that took the figure).

        Reaching is coming `UNSEEN_REACH_MM` nearer the figure's pad: a resting hand
        whose outline shifts, or an arm drawn back, is not on its way to the figure.
        """
        since = lift.last_present_ns - int(UNSEEN_REACH_S * 1e9)
        until = lift.first_absent_ns + max(self.period_ns, int(UNSEEN_AFTER_S * 1e9))
        pad = self.view.cam.pad(lift.figure)
        for s, tr in self._near_trips(lift):
            if s == seat or self._busy(lift, tr) or tr.first_touch:
                continue
            if min(tr.closest.values(), default=math.inf) < CROWD_MM:
                continue   # its hand was found: `_crowded` speaks for it
            farthest = -math.inf
            for x, tip in tr.tips:
                if since <= x <= until:
                    d = math.dist(tip, pad)
                    if farthest - d >= UNSEEN_REACH_MM:
                        return True
                    farthest = max(farthest, d)
        return False

    def _busy(self, lift: _Lift, trip: _Trip) -> bool:
        """Whether `trip`'s hand was taking another figure than `lift`'s, never over it."""
        if lift.figure in trip.first_touch \
                or trip.closest.get(lift.figure, math.inf) < self.view.cam.pad_radius(
                    lift.figure) + BUSY_CLEAR_MM:
            return False
        gone = {x.figure for x in self._lifts if x is not lift}
        gone |= {f for f, p in self._pads.items() if not p.home}
        return bool((set(trip.first_touch) - {lift.figure}) & gone)

    def _near_trips(self, lift: _Lift) -> list[tuple[str, _Trip]]:
        """Every trip over the table around `lift`: then, now, and lately ended."""
        since = lift.last_present_ns - int(TANGLE_S * 1e9)
        ended = [(s, tr) for s, tr, end in self._ended if end >= since]
        return [*lift.trips.items(), *self._trips.items(), *ended]

    def _bearing(self, lift: _Lift) -> str | None:
        """The seat the lifted figure is travelling toward, if it clearly is one.

        A hand that takes a figure pulls it back toward its own seat.
        """
        pad = self.view.cam.pad(lift.figure)
        far = [p for _, p in lift.path if math.dist(p, pad) >= BEARING_MIN_MM]
        if not far:
            return None
        x, y = far[-1]
        heading = math.atan2(y - pad[1], x - pad[0])
        off = sorted((abs(math.remainder(math.atan2(sy - pad[1], sx - pad[0]) - heading,
                                         math.tau)), seat)
                     for seat, (sx, sy) in self.view.cam.seats)
        if math.degrees(off[0][0]) > BEARING_DEG:
            return None
        if len(off) > 1 and math.degrees(off[1][0] - off[0][0]) < BEARING_DEG / 2:
            return None
        return off[0][1]

    def _lift_time(self, lift: _Lift, seat: str | None) -> tuple[int, int]:
        """Return (lift time, uncertainty).

        From the pad when it was in view as the figure left; otherwise from the
        figure's first positions off its pad, extrapolated back to the pad; with
        none (it left while hands hid it, and was gone when the pad showed
        again), from when the hand that took it started back. Clamped
        between the last frame that showed the figure squarely on its pad and
        the first that showed it gone (the pad empty, when hands hid the figure
        in between and it was not seen moving off).
        """
        lo, hi = lift.last_present_ns, lift.first_absent_ns
        seen_off = lift.path[0][0] if lift.path else None
        hidden = lift.empty_ns - hi > 2 * self.period_ns
        if hidden and not lift.path:
            # The figure stopped showing where it stood under hands, was not seen moving
            # off, and the pad read empty only later: it left at any time between (a pad
            # covered is no lift; timed from the covering, lifts were tenths of a second
            # early and their uncertainty did not hold them).
            hi = lift.empty_ns
        if not hidden and hi - lo <= 2 * self.period_ns:
            # The pad watched it leave: its change dates the lift better than the first
            # positions off it, a figure half hidden in a fist found a few millimetres
            # off each time (fitted first, 44 % of the tuning sets' lifts fell within a
            # frame; from the pad whenever it was in view, 55 %: docs/camera.md).
            est = self._from_pad(lift, lo, hi)
        else:
            est = self._lift_estimate(lift, seat, lo, hi)
        if hidden and seen_off is not None and seen_off - hi > 2 * self.period_ns:
            # Seen off its pad only well after it stopped showing there: the estimate
            # from that path stands (it mostly holds), but the figure may have left any
            # time until it was seen off its pad or the pad read empty.
            hi = min(lift.empty_ns, seen_off)
        # How long before `lo` it can have left: partly hidden, it may have slid unseen.
        _fast, slow = time_to_move(self._unnoticed_mm(lift, worst=True))
        if hi - lo <= 2 * self.period_ns:
            # The pad in view: the figure left between `lo` less the time a start from
            # rest takes to move it unnoticed (the slowest carry) and `hi` (a figure
            # pushed off at speed shows its move at once); the uncertainty reaches both
            # ends from the estimate, whether fitted or not.
            first, last = lo - slow * 1e9, hi + self.period_ns / 2
            return est, round(max(self.period_ns, est - first, last - est))
        # Hidden: the estimate is usually far better than the window, but nothing
        # saw the lift itself, so the uncertainty still spans the whole window (from
        # as long before `lo` as a move unnoticed there takes).
        return est, round(max(est - (lo - slow * 1e9), hi - est) + self.period_ns / 2)

    def _unnoticed_mm(self, lift: _Lift, *, worst: bool = False) -> float:
        """How far a figure can move before its pad reading notices (mm).

        Read against its own picture in full, a pixel; by colour, until it no
        longer covers its pad's centre disc. By the part of its picture beside a
        hand, in the `worst` case up to its radius as less of it shows (a part of
        one colour slides under the hand and still matches: the white dog, a sixth
        of it showing, read home 10 mm and three frames after it left); most such
        moves show at once, so estimates take the pixel.
        """
        if lift.exact:
            pad = self.view.pad(lift.figure)
            pixel = UNNOTICED_PX * self.view.cam.figure_radius_mm / pad.radius_px
            if worst and lift.share < FULL:
                return max(pixel, self.view.cam.figure_radius_mm * (1 - lift.share / FULL))
            return pixel
        return (1 - PAD_DISC) * self.view.cam.figure_radius_mm

    def _from_pad(self, lift: _Lift, lo: int, hi: int) -> int:
        """The lift from the pad alone: the figure stopped showing squarely on it between
        `lo` and `hi`, having started from rest as long before as a carry's start takes
        to move it unnoticed (a pad's own reading dated lifts two or three frames late)."""
        fast, slow = time_to_move(self._unnoticed_mm(lift))
        return int((lo + hi) / 2 - (fast + slow) / 2 * 1e9)

    def _lift_estimate(self, lift: _Lift, seat: str | None, lo: int, hi: int) -> int:
        pad = self.view.cam.pad(lift.figure)
        pts = [(t, math.dist(p, pad)) for t, p in lift.path[:FIT_FRAMES]]
        if len(pts) >= 2:
            ts = np.array([p[0] for p in pts], np.float64)
            ds = np.array([p[1] for p in pts], np.float64)
            # A hand starts the figure from rest and accelerates: the first positions
            # off the pad lie on a line in the root of the distance, not the distance
            # (a straight line there dated lifts about four frames late, issue 11).
            start = start_from_rest(ts - hi, ds)
            # The speed at the first position off the pad, for how early it can have left.
            slope = float((ds[-1] - ds[0]) / max(ts[-1] - ts[0], 1.0))
            fast, slow = time_to_move(self._unnoticed_mm(lift))
            if start is not None and slope > 1e-9 and lo - slow * 1e9 <= hi + start <= hi:
                # A figure still shows at home until it has moved `_unnoticed_mm`: it
                # may have left before `lo`, but not by more than that move takes. A
                # fit outside that (a path through the wrong patches) is no evidence.
                return int(hi + start)
        if len(pts) == 1 and pts[0][1] > self._unnoticed_mm(lift):
            # Seen off its pad once: started from rest as long before as the range of
            # carries takes to move it that far.
            (t1, d1), = pts
            fast, slow = time_to_move(d1)
            _f, before = time_to_move(self._unnoticed_mm(lift))
            return int(min(max(t1 - (fast + slow) / 2 * 1e9, lo - before * 1e9), hi))
        if hi - lo <= 2 * self.period_ns:
            return self._from_pad(lift, lo, hi)
        trip = (self._trips.get(seat) or lift.trips.get(seat)) if seat is not None else None
        if trip is not None and (back := _start_back(trip.reach, hi)) is not None:
            return int(min(max(back, lo), hi))
        return (lo + hi) // 2

    def _resolve_lifts(self, arms: dict[str, Arm], t: int, force: bool) -> list[Decision]:
        out: list[Decision] = []
        keep: list[_Lift] = []
        for lift in self._lifts:
            confirmed = not self._pads[lift.figure].home
            watching = t - lift.first_absent_ns < ATTRIBUTE_S * 1e9 and any(
                s in arms for s in lift.candidates)
            if not force and (not confirmed or watching or self._carrying(lift, t, out)):
                keep.append(lift)
                continue
            if force and self._pads[lift.figure].home and self._pads[lift.figure].absent_since \
                    is None:
                continue
            out.append(self._decide(lift, t, out))
            self._follows.pop(lift.figure, None)
        self._lifts = keep
        return out

    def _carrying(self, lift: _Lift, t: int, batch: Sequence[Decision]) -> bool:
        """Whether to wait for the figure to reach its taker: the table would be asked
        now, and the figure is still being followed on its way."""
        fol = lift.follower
        if not CARRIED_SEATS or fol is None or fol.broken \
                or t - lift.first_absent_ns >= CARRY_WATCH_S * 1e9 \
                or self._carried_to(lift) is not None or self._fist_to(lift) is not None:
            return False
        seen = not fol.lost and bool(fol.path) and t - fol.path[-1][0] <= CARRY_SEEN_S * 1e9
        fist = fol.fist
        in_fist = FIST_SEATS and fist is not None and not fist.lost and bool(fist.path) \
            and t - fist.path[-1][0] <= CARRY_SEEN_S * 1e9 \
            and t - lift.first_absent_ns <= CARRY_SLOW_S * 1e9
        if not (seen or in_fist):
            return False
        return self._judge(lift, t, batch)[1] < ASK_BELOW

    def _carried_to(self, lift: _Lift) -> str | None:
        """The seat in front of which the lifted figure, followed by its own picture from
        its pad, arrived (None: not followed that far, or not clearly one seat's).

        Where the figure went needs no arm told apart from another: in a crowd the
        hands over the pads are one region, and the hand that holds a small figure
        hides most of it, but the taker pulls it back in front of themselves, away
        from the others.
        """
        fol = lift.follower
        if not CARRIED_SEATS or fol is None or fol.broken or not fol.path:
            return None
        at, pad = fol.path[-1][1], self.view.cam.pad(lift.figure)
        if math.dist(at, pad) < CARRIED_MM:
            return None
        if self._from_edge(at) > EDGE_NEAR_MM or self._astray(lift):
            return None
        return self._in_front(at)

    def _astray(self, lift: _Lift) -> bool:
        """Whether what was followed from the pad was something else on its way: it
        stood still (`_stalled`), or was found well off the pad while the pad still
        showed the figure there (tune:1638, 1478)."""
        fol = lift.follower
        if fol is None:
            return False
        pad = self.view.cam.pad(lift.figure)
        return self._stalled(lift) or any(
            t < lift.last_present_ns and math.dist(p, pad) >= HELD_FROM_MM for t, p in fol.path)

    def _fist_to(self, lift: _Lift) -> str | None:
        """The seat in front of which the hand that the lifted figure was last found in
        arrived, `CARRIED_MM` or more from the pad and within `EDGE_NEAR_MM` of the
        edge, within a carry's time (`CARRY_SLOW_S`) of the lift (None: not followed
        that far, not as one hand, or not clearly one seat's).

        In a crowd the figure's picture is mostly lost in the fist that closes on it a
        few millimetres from its pad; the taker still pulls that fist back in front of
        themselves. Only a fist found where the figure itself was last found counts,
        and never one from a picture that went astray.
        """
        fol = lift.follower
        if not (FIST_SEATS and CARRIED_SEATS) or fol is None or fol.broken \
                or fol.fist is None or self._astray(lift):
            return None
        pad = self.view.cam.pad(lift.figure)
        for t, at, together, n in fol.fist.path:
            if t - lift.first_absent_ns > CARRY_SLOW_S * 1e9:
                return None
            if n < FIST_NAMING_POINTS or together < FIST_TOGETHER:
                # Too few points to tell, or points of two hands going apart (the ones
                # of one hand may be dropped on the way, and the rest look as one).
                return None
            if math.dist(at, pad) >= CARRIED_MM and self._from_edge(at) <= EDGE_NEAR_MM:
                return self._in_front(at)
        return None

    def _in_front(self, at: Point) -> str | None:
        """The one seat whose zone lies behind the table's edge nearest `at`, for
        `ZONE_CLEAR_MM` either side (None: none, or more than one)."""
        table = self.view.cam.table_mm
        s = perimeter_at(table, at)
        seats: set[str] = set()
        for ds in (-ZONE_CLEAR_MM, 0.0, ZONE_CLEAR_MM):
            (px, py), (nx, ny) = perimeter_point(table, s + ds)
            q = (px + nx * 30.0, py + ny * 30.0)   # just behind the edge
            inside = [name for name, zone in zip(self.view.seats, self.view.zones, strict=False)
                      if cv2.pointPolygonTest(zone, q, False) >= 0]
            if len(inside) != 1:
                return None
            seats.add(inside[0])
        return seats.pop() if len(seats) == 1 else None

    def _stalled(self, lift: _Lift) -> bool:
        """Whether the followed picture stood still on its way: off its pad
        (`HELD_FROM_MM`) and short of the edge (`EDGE_NEAR_MM`), it stayed within
        `STALL_MM` for `STALL_S`."""
        if lift.follower is None:
            return False
        pad = self.view.cam.pad(lift.figure)
        way = [(t, p) for t, p in lift.follower.path
               if math.dist(p, pad) >= HELD_FROM_MM and self._from_edge(p) > EDGE_NEAR_MM]
        start = 0
        for t, p in way:
            while math.dist(way[start][1], p) > STALL_MM:
                start += 1
            if t - way[start][0] >= STALL_S * 1e9:
                return True
        return False

    def _from_edge(self, p: Point) -> float:
        """How far `p` (mm) is from the table's edge."""
        table = self.view.cam.table_mm
        return math.dist(p, perimeter_point(table, perimeter_at(table, p))[0])

    def _decide(self, lift: _Lift, t: int, batch: Sequence[Decision]) -> Decision:
        seat, confidence, cands = self._judge(lift, t, batch)
        for s in cands:
            trip = self._trips.get(s)
            if trip is not None:
                trip.involved.add(lift.figure)
        for s, trip, _ in self._parked:
            if s == seat:
                trip.involved.add(lift.figure)
        lift_ns, unc = self._lift_time(lift, seat)
        touch = cands.get(seat) if seat is not None else None
        if touch is None and seat is not None:
            touch = lift.last_present_ns
        others = tuple(sorted((Claim(s, v, self.period_ns) for s, v in cands.items()
                               if s != seat and v is not None), key=lambda c: c.touch_ns or 0))
        return Decision("grab", seat, lift.figure, touch, lift_ns, unc,
                        round(calibrated(confidence), 4), others, lift.index, t)

    def _judge(self, lift: _Lift, t: int, batch: Sequence[Decision]
               ) -> tuple[str | None, float, dict[str, int | None]]:
        """Who took `lift`'s figure, how sure (uncalibrated), and every candidate."""
        cands = lift.candidates
        seat: str | None
        score = dict(lift.score)
        heading = self._bearing(lift)
        if heading is not None and heading not in cands and heading not in lift.trips \
                and heading not in self._trips:
            heading = None   # no arm of that seat was over the table: it took nothing
        if heading is not None:
            # Where the figure went counts as several frames of it seen in that seat's
            # hand: when arms lie over arms the hand that holds it may not be told
            # apart, or may not have been seen touching it at all.
            score[heading] = score.get(heading, 0) + BEARING_VOTES
            cands = {**cands, heading: cands.get(heading)}
        if score:
            seat = max(score, key=lambda s: (score[s], -(cands.get(s) or 0)))
            # Where the figure went chooses the seat but proves nothing (its colour's path
            # may be a sleeve's or a neighbour's): counted as frames in the hand, three
            # votes of it alone gave 0.875, and one frame of the figure at a fingertip
            # more named a seat with confidence (docs/camera.md, "Attribution").
            seen = lift.score
            best = seen.get(seat, 0)
            total = sum(seen.values()) + (BEARING_VOTES if heading not in (None, seat) else 0)
            confidence = best / total * (1 - 0.5 ** best) if best else HEADING_CONFIDENCE
        elif cands:
            touched = {s: v for s, v in cands.items() if v is not None}
            pool = touched or cands
            seat = min(pool, key=lambda s: pool[s] or 0)
            confidence = 0.5 / len(pool)
        else:
            seat, confidence = None, 0.0
        unseen = seat is not None and self._unseen_hand(lift, seat)
        if seat is not None and set(cands) == {seat} and lift.candidates.get(seat) is not None \
                and not self._crowded(lift, seat) and not unseen:
            # One hand touched it and no other came near it: nobody else can have taken it.
            confidence = max(confidence, SOLE_CONFIDENCE)
        holder = self._holder(lift)
        if holder is not None and holder == seat and heading in (None, seat) \
                and not self._two_in_hand(lift, seat, t, batch) and not unseen \
                and not self._stalled(lift):
            # Seen carrying it off with no other hand near it: whoever else touched it
            # did not take it.
            confidence = max(confidence, HELD_CONFIDENCE)
        elif holder is not None:
            # The figure moved away in another seat's hand, or in this seat's hand but
            # toward another seat, or this seat is named for two figures, or a hand
            # never found may be the one in this seat's region, or what was followed
            # stood still on its way (a hand resting over the pads, the picture slid
            # onto it from a figure still under it: heldout:1810): ask.
            confidence = min(confidence, TANGLED_CONFIDENCE)
        elif seat is not None and (self._tangled(lift, seat, t) or self._crowded(lift, seat)
                                   or self._two_in_hand(lift, seat, t, batch) or unseen):
            # Arms that were one region around the lift may have been told apart wrongly,
            # another hand at the figure may be the one that took it (and the figure was
            # not seen leaving in one hand alone: too small, inside a fist), this hand
            # is named for two figures, or another arm reached whose hand was never
            # found: ask rather than name a seat with confidence.
            confidence = min(confidence, TANGLED_CONFIDENCE)
        carried = self._carried_to(lift) or self._fist_to(lift)
        if carried is not None and any(s == carried for s, _ in self._near_trips(lift)) \
                and not self._holds_another(lift, carried, t, batch):
            # Followed by its own picture from its pad to the edge in front of one seat,
            # whose arm was over the table: that player took it, whatever the arms
            # over the pads looked like. (A seat known to hold another figure may be
            # holding that one, the picture having slid onto its hand: ask.)
            if carried != seat:
                cands = {**cands, carried: cands.get(carried)}
            seat, confidence = carried, max(confidence if seat == carried else 0.0,
                                            CARRIED_CONFIDENCE)
        return seat, confidence, cands


def _departure(shadow: list[tuple[int, Point]], home: Point) -> list[tuple[int, Point]]:
    """Return a hidden figure's traces if they look like it leaving, else none.

    Leaving is two traces or more, each farther from its pad than the last: a
    single patch of its colour may be a sleeve.
    """
    d = [math.dist(p, home) for _, p in shadow]
    if len(d) >= 2 and all(b > a for a, b in itertools.pairwise(d)):
        return list(shadow)
    return []


def _start_back(reach: Sequence[tuple[int, float]], before: int) -> float | None:
    """When a hand that held still at its deepest reach started back (None: unclear).

    A hand that lifts a figure pulls it back at once, so this is when the figure
    left. The hold is where the tip stays within `HOLD_MM` of its deepest
    point; the way back, fitted from its second frame on (the first is often
    still half on a neighbour's arm), meets the hold's depth at the moment the
    hand started back.
    """
    if len(reach) < 5:
        return None
    ts = np.array([t for t, _ in reach], np.float64)
    raw = np.array([d for _, d in reach], np.float64)
    # A median of three: one frame's tip slipping onto a neighbour's arm is not a move.
    ds = raw.copy()
    ds[1:-1] = np.median(np.stack([raw[:-2], raw[1:-1], raw[2:]]), axis=0)
    upto = np.flatnonzero(ts <= before)
    if len(upto) == 0:
        return None
    peak = int(upto[np.argmax(ds[upto])])
    first = last = peak
    while first > 0 and ds[first - 1] >= ds[peak] - HOLD_MM:
        first -= 1
    while last + 1 < len(ds) and ds[last + 1] >= ds[peak] - HOLD_MM:
        last += 1
    level = float(np.median(ds[first:last + 1]))
    back = [j for j in range(last + 1, len(ds)) if ds[j] < ds[peak] - HOLD_MM][1:FIT_FRAMES + 1]
    if len(back) < 2:
        return None
    slope, icpt = np.polyfit(ts[back] - ts[last], ds[back], 1)
    if slope >= -1e-12:
        return None
    t0 = ts[last] + (level - icpt) / slope
    return float(min(max(t0, ts[first]), ts[back[0]]))


def _one_per_seat(arms: tuple[Arm, ...]) -> dict[str, Arm]:
    """Merge a seat's two hands into one arm (the larger, touching what either touches)."""
    out: dict[str, Arm] = {}
    for arm in arms:
        prev = out.get(arm.seat)
        if prev is None:
            out[arm.seat] = arm
        else:
            big, small = (arm, prev) if arm.area_px >= prev.area_px else (prev, arm)
            out[arm.seat] = Arm(big.seat, big.entry_mm, big.tip_mm, big.tip_px,
                                big.touching | small.touching, big.area_px + small.area_px,
                                big.shared or small.shared, big.by_colour or small.by_colour,
                                big.joined)
    return out

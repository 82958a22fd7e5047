"""Pair pad lifts (when) with attributions (who) and feed grabs to the match.

- A lift with an attribution becomes `grab(seat, figure, lift time, pad
  uncertainty)`.
- When the camera saw two arms on the figure it reports several claims, each
  with its first-contact time and one frame of uncertainty; each becomes a
  grab at that contact time, so the referee orders them or calls it too close.
- Without a camera (or while it is lost) a lift waits for the table to say who
  took the figure (`answer`); its time is still the pad's.
- Places are counted; when every figure stands again the match hears
  `figures_home` with the time of the last place.
- A lift, or a camera decision, timed wholly before the open card was dealt
  belongs to an earlier card (it arrived late): it is kept with that card
  (`late`) and logged, never used for the open one.

Pure logic with no I/O and no clock of its own: every input carries its host
CLOCK_MONOTONIC time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.errors import IllegalEvent
from controller.knapp.cards import Figure
from controller.knapp.events import Revealed
from controller.knapp.match import Match, Phase, Round, Verdict


@dataclass(frozen=True, slots=True)
class Attribution:
    """Who took a figure, as the camera (or simulation) saw it.

    Args:
        figure: the figure taken.
        seat: the seat whose arm took it.
        confidence: 0 to 1.
        touch_ns: when that arm first touched the figure (host ns).
        uncertainty_ns: uncertainty of `touch_ns` (one frame for a camera).
        source: "camera", "sim", ...
    """

    figure: Figure
    seat: str
    confidence: float
    touch_ns: int
    uncertainty_ns: int
    source: str = "camera"


@dataclass(slots=True)
class PendingLift:
    """A lift that waits to be told who took the figure."""

    figure: Figure
    t_ns: int
    uncertainty_ns: int
    source: str
    round: int

    def to_json(self) -> dict[str, Any]:
        """JSON form for the 'who took it?' prompt."""
        return {"figure": self.figure.value, "t_ns": self.t_ns,
                "uncertainty_ns": self.uncertainty_ns, "source": self.source,
                "round": self.round}


@dataclass
class Fusion:
    """Turns lifts, places and attributions into match events.

    Args:
        match: the match to feed.
        handicaps_ns: per-seat delay added when claims are ranked (e.g. adults
            against children); logged as the grab's own `handicap_ns`, so its
            `t_ns` stays the measured time.
    """

    match: Match
    handicaps_ns: Mapping[str, int] = field(default_factory=dict)
    off_pad: set[Figure] = field(default_factory=set)
    pending: list[PendingLift] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    last_place_ns: int = 0
    # Camera decisions that arrived before their pad lift: (round, figure, claims).
    early: list[tuple[int, Figure, tuple[Attribution, ...]]] = field(default_factory=list)
    # Decisions that came after their card was settled or the next one dealt:
    # (the card they belong to, figure, claims); kept, never used for another card.
    late: list[tuple[int | None, Figure, tuple[Attribution, ...]]] = field(
        default_factory=list)

    def card_at(self, t_ns: int) -> int | None:
        """The card that was showing at `t_ns`: the last one dealt by then (None: none)."""
        dealt = [e.t_ns for e in self.match.events if isinstance(e, Revealed)]
        for index in range(len(dealt) - 1, -1, -1):
            if dealt[index] <= t_ns:
                return index
        return None

    def _before(self, rnd: Round, t_ns: int) -> bool:
        """True when `t_ns` lies before `rnd` was dealt (its first reveal, not a later
        paint report), so whatever happened then belongs to an earlier card."""
        dealt = [e.t_ns for e in self.match.events if isinstance(e, Revealed)]
        return rnd.index < len(dealt) and t_ns < dealt[rnd.index]

    def lift(self, figure: Figure, t_ns: int, uncertainty_ns: int, source: str,
             claims: Sequence[Attribution] = ()) -> list[Verdict]:
        """A figure left its pad at `t_ns`; `claims` say who took it, if known."""
        self.off_pad.add(figure)
        rnd = self.match.current
        if rnd is None:
            self.log.append(f"{figure.value} lifted while no card is open: ignored")
            return []
        if self._before(rnd, t_ns + uncertainty_ns):
            self.log.append(f"{figure.value} lifted before card {rnd.index} was dealt (a late "
                            "report): not counted for it")
            return []
        if not claims:
            for item in self.early:
                if item[0] == rnd.index and item[1] is figure:
                    self.early.remove(item)
                    claims = item[2]
                    break
        if not claims:
            self.pending.append(PendingLift(figure, t_ns, uncertainty_ns, source, rnd.index))
            return []
        return self._grab_claims(figure, t_ns, uncertainty_ns, source, claims)

    def _grab_claims(self, figure: Figure, t_ns: int, uncertainty_ns: int, source: str,
                     claims: Sequence[Attribution]) -> list[Verdict]:
        verdicts: list[Verdict] = []
        if len(claims) == 1:
            c = claims[0]
            verdicts += self._grab(c.seat, figure, t_ns, uncertainty_ns,
                                   f"{source}+{c.source}")
        else:
            for c in sorted(claims, key=lambda c: c.touch_ns):
                verdicts += self._grab(c.seat, figure, c.touch_ns, c.uncertainty_ns,
                                       f"{c.source} contact")
        return verdicts

    def _grab(self, seat: str, figure: Figure, t_ns: int, unc: int, source: str) -> list[Verdict]:
        try:
            return self.match.grab(seat, figure, t_ns, unc, source,
                                   handicap_ns=self.handicaps_ns.get(seat, 0))
        except IllegalEvent as exc:
            # A second hand after a lockout, a grab after the card settled: the
            # table's business, not a crash. Kept for the log.
            self.log.append(f"grab not counted: {exc}")
            return []

    def contact(self, seat: str, figure: Figure, t_ns: int, uncertainty_ns: int,
                source: str) -> list[Verdict]:
        """A second hand on a figure already off its pad: a claim at its contact time."""
        return self._grab(seat, figure, t_ns, uncertainty_ns, source)

    def attribute(self, attribution: Attribution) -> list[Verdict]:
        """The camera says who took a figure that is waiting in the prompt."""
        return self.attribute_claims(attribution.figure, [attribution])

    def attribute_claims(self, figure: Figure, claims: Sequence[Attribution], *,
                         lift_ns: int | None = None) -> list[Verdict]:
        """The camera's claims on a lifted figure (the taker first, then rival arms).

        Resolves the figure's pending lift; a decision that comes before its pad
        lift waits for it (on the same card). A decision whose lift (`lift_ns`, else
        the latest contact, with its uncertainty) lies before the open card was
        dealt, or that comes while no card is open, belongs to an earlier card: it
        is kept in `late` with that card and resolves nothing.
        """
        rnd = self.match.current
        t = None
        if claims:
            t = lift_ns if lift_ns is not None else max(c.touch_ns for c in claims)
            t += claims[0].uncertainty_ns
        if rnd is None:
            self.late.append((None if t is None else self.card_at(t), figure, tuple(claims)))
            self.log.append(f"attribution of {figure.value} while no card is open: ignored")
            return []
        if t is not None and self._before(rnd, t):
            owner = self.card_at(t)
            self.late.append((owner, figure, tuple(claims)))
            self.log.append(f"attribution of {figure.value} to {claims[0].seat} came after "
                            f"card {rnd.index} was dealt: kept with card {owner}, not used")
            return []
        for p in self.pending:
            if p.figure is figure and self._is_current(p):
                self.pending.remove(p)
                return self._grab_claims(p.figure, p.t_ns, p.uncertainty_ns, p.source, claims)
        self.early.append((rnd.index, figure, tuple(claims)))
        self.log.append(f"attribution of {figure.value} to {claims[0].seat if claims else '?'} "
                        "matches no pending lift yet")
        return []

    def answer(self, figure: Figure | str, seat: str) -> list[Verdict]:
        """The table says who took a figure waiting in the 'who took it?' prompt."""
        fig = figure if isinstance(figure, Figure) else figure_named(figure)
        if seat not in self.match.seats:
            raise IllegalEvent(f"unknown seat {seat!r} (seats: {', '.join(self.match.seats)})")
        for p in self.pending:
            if p.figure is fig and self._is_current(p):
                self.pending.remove(p)
                return self._grab(seat, fig, p.t_ns, p.uncertainty_ns, f"{p.source}+table")
        raise IllegalEvent(f"no lift of the {fig.value} is waiting to be attributed")

    def _is_current(self, p: PendingLift) -> bool:
        rnd = self.match.current
        return rnd is not None and rnd.index == p.round

    def place(self, figure: Figure, t_ns: int) -> list[Verdict]:
        """A figure was set back on its pad."""
        self.off_pad.discard(figure)
        self.last_place_ns = max(self.last_place_ns, t_ns)
        return self.maybe_home()

    def maybe_home(self) -> list[Verdict]:
        """Tell the match the figures are home when they are and it is waiting."""
        m = self.match
        if self.off_pad or m.phase is not Phase.CLEARING:
            return []
        self.pending = [p for p in self.pending if self._is_current(p)]
        t = max(self.last_place_ns, m.last_t_ns or 0)
        return m.figures_home(t)

    def prompt(self) -> list[dict[str, Any]]:
        """The lifts the table must attribute now."""
        return [p.to_json() for p in self.pending if self._is_current(p)]


def figure_named(text: str) -> Figure:
    """A figure from its name, or an `IllegalEvent` naming the five."""
    try:
        return Figure(text)
    except ValueError:
        raise IllegalEvent(f"unknown figure {text!r} (ship, viking, child, chest, dog)") from None


def misplaced(pad_states: Mapping[Figure, str], off_pad: set[Figure],
              arms_over_table: bool) -> list[Figure]:
    """Figures whose pad reports a figure but whose camera view shows something else.

    Args:
        pad_states: per figure, what the camera sees on its pad: "figure" (its own
            colour), "empty" or "covered" (something else on it).
        off_pad: figures the pads report as lifted.
        arms_over_table: an arm over the table can cover a pad; then nothing is judged.
    """
    if arms_over_table:
        return []
    return sorted((f for f, state in pad_states.items()
                   if f not in off_pad and state == "covered"), key=lambda f: f.value)

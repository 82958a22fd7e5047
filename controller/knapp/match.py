"""The match referee: an event-sourced state machine for one match.

Feed it events (`reveal`, `grab`, `advance`, `figures_home`, corrections); it
validates each one fully before anything changes, hands it to an optional sink
(the event store) and only then applies it, so a rejected or unpersisted event
leaves the match exactly as it was. `Match.replay(events)` rebuilds the same
state from a stored log.

Decisions (docs/referee.md explains each with its source):

- A grab is a seat taking a figure, with the time the figure left its pad and
  that time's uncertainty. Time order decides, never arrival order: every
  correct claim within the collection window after the first correct one is
  compared before the final verdict.
- Two correct claims closer than max(sum of their uncertainties, tie_min)
  are too close to call and are settled by the table's tie rule.
- A wrong grab locks the seat out until the next card. A wrong grab timed after
  the winning claim does not count (the round was already over), so it carries
  no penalty in the unruly variant; a returned card goes to the box.
- When every seat is locked out the card goes to the box; so does a card nobody
  takes before the timeout.
- A grab sooner than the anticipation limit after the reveal is flagged; it
  counts as wrong only when the rules say so. A better reveal measure arriving
  while the card is open judges the claims already made again.
- The pile running out ends the match: most cards wins, ties shared.
- An undo names the round it takes back, which must be the last verdict.
- A `booted` event (the table came back on a new boot, its clock restarted)
  interrupts an open card, which is dealt again, and later times are ordered
  after it only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.errors import IllegalEvent, InvalidCard, MalformedCard
from controller.knapp.cards import Card, Figure, solve
from controller.knapp.events import (
    Abandoned,
    Awarded,
    Booted,
    Event,
    Evidenced,
    FiguresHome,
    Grabbed,
    MatchRules,
    Revealed,
    RevealMeasure,
    RevealTimed,
    Settled,
    Started,
    TieRule,
    Undone,
    Variant,
    Voided,
)

__all__ = [
    "Claim",
    "Match",
    "MatchRules",
    "Outcome",
    "Phase",
    "Round",
    "TieRule",
    "Variant",
    "Verdict",
]


class Phase(enum.Enum):
    """Where the match is between events."""

    READY = "ready"  # figures home, waiting for the next reveal
    OPEN = "open"  # a card is showing and grabs count
    CLEARING = "clearing"  # the card is settled; waiting for every figure to be back
    ENDED = "ended"


class Outcome(enum.Enum):
    """How a round ended."""

    WON = "won"
    BOXED = "boxed"
    REDEAL = "redeal"  # too close to call; the card is shown again
    UNDONE = "undone"  # verdict taken back; the card is shown again
    VOID = "void"  # does not count; the card is in the box
    INTERRUPTED = "interrupted"  # the table restarted while it was open; dealt again


@dataclass(slots=True)
class Claim:
    """One grab within a round, as the referee judged it."""

    seat: str
    figure: Figure
    t_ns: int
    uncertainty_ns: int
    source: str
    correct: bool
    anticipation: bool
    reaction_ns: int
    counted: bool = True  # False when timed after the winning claim
    handicap_ns: int = 0

    @property
    def ranked_ns(self) -> int:
        """The time claims are ranked and judged by: measured time plus the seat's handicap."""
        return self.t_ns + self.handicap_ns

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "seat": self.seat, "figure": self.figure.value, "t_ns": self.t_ns,
            "uncertainty_ns": self.uncertainty_ns, "source": self.source,
            "correct": self.correct, "anticipation": self.anticipation,
            "reaction_ns": self.reaction_ns, "counted": self.counted,
            "handicap_ns": self.handicap_ns,
        }


@dataclass(slots=True)
class Round:
    """One shown card and everything that happened to it."""

    index: int
    card: Card
    answer: Figure
    explanation: str
    reveal_ns: int
    reveal_uncertainty_ns: int
    reveal_measure: RevealMeasure
    turner: str
    claims: list[Claim] = field(default_factory=list)
    locked: set[str] = field(default_factory=set)
    outcome: Outcome | None = None
    winner: str | None = None
    reason: str = ""
    margin_ns: int | None = None
    uncertainty_ns: int | None = None
    too_close: bool = False
    settled_ns: int | None = None
    penalised: list[str] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, str]] = field(default_factory=list)

    @property
    def settled(self) -> bool:
        """True once the round has a final outcome."""
        return self.outcome is not None

    def first_correct(self) -> Claim | None:
        """The earliest correct claim by time, if any."""
        best = None
        for c in self.claims:
            if c.correct and (best is None or c.ranked_ns < best.ranked_ns):
                best = c
        return best

    def to_json(self) -> dict[str, Any]:
        """JSON form, for the dispute screen and state comparison."""
        return {
            "index": self.index, "card": str(self.card), "answer": self.answer.value,
            "explanation": self.explanation, "reveal_ns": self.reveal_ns,
            "reveal_uncertainty_ns": self.reveal_uncertainty_ns,
            "reveal_measure": self.reveal_measure.label, "turner": self.turner,
            "claims": [c.to_json() for c in self.claims], "locked": sorted(self.locked),
            "outcome": self.outcome.value if self.outcome else None, "winner": self.winner,
            "reason": self.reason, "margin_ns": self.margin_ns,
            "uncertainty_ns": self.uncertainty_ns, "too_close": self.too_close,
            "settled_ns": self.settled_ns,
            "penalised": list(self.penalised), "corrections": list(self.corrections),
            "evidence": list(self.evidence),
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the table is told after a grab or when a card is settled.

    Args:
        round: the round's index.
        card: the card's text form.
        answer: the correct figure.
        outcome: won, boxed, redeal, or None while provisional.
        winner: the seat that won the card, if any.
        provisional: True for the instant verdict before the window closes.
        margin_ns: time from the winning claim to the next claim, if any.
        uncertainty_ns: the timing uncertainty of that margin.
        reason: a sentence for the screen.
    """

    round: int
    card: str
    answer: str
    outcome: str | None
    winner: str | None
    provisional: bool
    margin_ns: int | None
    uncertainty_ns: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {k: getattr(self, k) for k in self.__slots__}


Sink = Callable[[Event], None]


class Match:
    """One match of Knapp daneben, derived from its events.

    Create with `Match.new(...)` or `Match.replay(events)`; do not mutate the
    attributes directly.
    """

    def __init__(self, start: Started, *, sink: Sink | None = None) -> None:
        self._check_start(start)
        self.rules = start.rules
        self.seats: tuple[str, ...] = start.seats
        self.seed = start.seed
        self.events: list[Event] = [start]
        self._deck: tuple[Card, ...] = tuple(Card.parse(c) for c in start.deck)
        self.pile: list[Card] = list(self._deck)
        self.rounds: list[Round] = []
        self.holdings: dict[str, list[Card]] = {s: [] for s in self.seats}
        self.boxed: list[Card] = []
        self.turner = self.seats[start.first_turner]
        self._first_turner = self.seats[start.first_turner]
        self.figures_home_ = True
        self.winners: tuple[str, ...] = ()
        self.abandoned: str | None = None
        self.last_t_ns: int | None = None
        self._sink = sink

    # -- construction -------------------------------------------------------------

    @classmethod
    def new(
        cls,
        seats: Sequence[str],
        deck: Sequence[Card],
        *,
        rules: MatchRules | None = None,
        first_turner: int = 0,
        seed: int | None = None,
        sink: Sink | None = None,
    ) -> Match:
        """Start a match; the `Started` event goes to the sink first."""
        start = Started(tuple(seats), rules or MatchRules(), tuple(str(c) for c in deck),
                        first_turner, seed)
        cls._check_start(start)
        if sink is not None:
            sink(start)
        return cls(start, sink=sink)

    @classmethod
    def replay(cls, events: Iterable[Event], *, sink: Sink | None = None) -> Match:
        """Rebuild a match from its log; `sink` receives only new events."""
        it = iter(events)
        first = next(it, None)
        if not isinstance(first, Started):
            raise IllegalEvent("a match log must begin with a 'started' event")
        match = cls(first)
        for event in it:
            match.apply(event)
        match._sink = sink
        return match

    def attach(self, sink: Sink | None) -> None:
        """Send every later event to `sink` before it is applied (None detaches)."""
        self._sink = sink

    @staticmethod
    def _check_start(start: Started) -> None:
        seats = start.seats
        if not 2 <= len(seats) <= 8:
            raise IllegalEvent(f"a match needs 2 to 8 seats, got {len(seats)}")
        if len(set(seats)) != len(seats) or not all(isinstance(s, str) and s for s in seats):
            raise IllegalEvent(f"seat names must be unique, non-empty text: {list(seats)}")
        if not 0 <= start.first_turner < len(seats):
            raise IllegalEvent(f"first_turner {start.first_turner} is not a seat index")
        if not start.deck:
            raise IllegalEvent("the deck is empty")
        for text in start.deck:
            try:
                solve(Card.parse(text))
            except (MalformedCard, InvalidCard) as exc:
                raise IllegalEvent(f"the deck holds an unusable card: {exc}") from exc
        if start.rules.target < 0:
            raise IllegalEvent(f"target must be 0 (whole deck) or more, got {start.rules.target}")

    # -- derived views ------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The current phase."""
        if self.winners or self.abandoned is not None:
            return Phase.ENDED
        if self.rounds and not self.rounds[-1].settled:
            return Phase.OPEN
        return Phase.READY if self.figures_home_ else Phase.CLEARING

    @property
    def current(self) -> Round | None:
        """The open round, if a card is showing."""
        if self.rounds and not self.rounds[-1].settled:
            return self.rounds[-1]
        return None

    @property
    def next_card(self) -> Card | None:
        """The card on top of the pile."""
        return self.pile[0] if self.pile else None

    def scores(self) -> dict[str, int]:
        """Cards held per seat."""
        return {s: len(cards) for s, cards in self.holdings.items()}

    def due_ns(self) -> int | None:
        """When `advance` will next settle something, if a card is open."""
        rnd = self.current
        if rnd is None:
            return None
        first = rnd.first_correct()
        if first is not None:
            return first.ranked_ns + self.rules.collection_window_ns
        return rnd.reveal_ns + self.rules.card_timeout_ns

    def to_json(self) -> dict[str, Any]:
        """The whole derived state as JSON; equal states give equal JSON."""
        return {
            "seats": list(self.seats), "rules": self.rules.to_json(), "phase": self.phase.value,
            "pile": [str(c) for c in self.pile],
            "holdings": {s: [str(c) for c in cs] for s, cs in self.holdings.items()},
            "boxed": [str(c) for c in self.boxed], "turner": self.turner,
            "figures_home": self.figures_home_, "winners": list(self.winners),
            "abandoned": self.abandoned,
            "rounds": [r.to_json() for r in self.rounds], "events": len(self.events),
        }

    # -- the public verbs -----------------------------------------------------------

    def reveal(self, card: Card | str, t_ns: int, *, uncertainty_ns: int = 0,
               measure: RevealMeasure | str = RevealMeasure.SHOWN) -> list[Verdict]:
        """The top card of the pile is shown at `t_ns`."""
        m = measure if isinstance(measure, RevealMeasure) else RevealMeasure.parse(measure)
        return self.apply(Revealed(str(card), t_ns, uncertainty_ns, m.label))

    def reveal_time(self, t_ns: int, *, uncertainty_ns: int = 0,
                    measure: RevealMeasure | str = RevealMeasure.PAINT,
                    round_index: int | None = None) -> list[Verdict]:
        """Record a better measure of when a card became visible."""
        m = measure if isinstance(measure, RevealMeasure) else RevealMeasure.parse(measure)
        idx = round_index if round_index is not None else len(self.rounds) - 1
        return self.apply(RevealTimed(idx, t_ns, uncertainty_ns, m.label))

    def grab(self, seat: str, figure: Figure | str, t_ns: int, uncertainty_ns: int = 0,
             source: str = "sim", *, handicap_ns: int = 0) -> list[Verdict]:
        """Seat `seat` took `figure` at `t_ns` (measured); `handicap_ns` is added when ranking."""
        fig = figure.value if isinstance(figure, Figure) else figure
        return self.apply(Grabbed(seat, fig, t_ns, uncertainty_ns, source, handicap_ns))

    def advance(self, t_ns: int) -> list[Verdict]:
        """Tell the referee the time; settles a card whose window or timeout ran out.

        Logs a `Settled` event only when something was settled.
        """
        if self.current is None:
            return []
        due = self.due_ns()
        if due is None or t_ns < due:
            return []
        return self.apply(Settled(t_ns))

    def figures_home(self, t_ns: int) -> list[Verdict]:
        """Every figure is back on its pad."""
        return self.apply(FiguresHome(t_ns))

    def undo(self, reason: str, round_index: int | None = None) -> list[Verdict]:
        """Take back the last verdict (round `round_index`); its card goes back on the pile."""
        return self.apply(Undone(reason, round_index))

    def undo_target(self) -> int:
        """The round an undo would take back now.

        Raises:
            IllegalEvent: there is no verdict to take back.
        """
        return self._last_settled("undo").index

    def booted(self, boot: str, t_ns: int) -> list[Verdict]:
        """The table resumed this match on a new boot whose clock reads `t_ns`."""
        return self.apply(Booted(boot, t_ns))

    def award(self, round_index: int, seat: str, reason: str) -> list[Verdict]:
        """Give round `round_index`'s card to `seat`."""
        return self.apply(Awarded(round_index, seat, reason))

    def void(self, round_index: int, reason: str) -> list[Verdict]:
        """Round `round_index` does not count; its card goes to the box."""
        return self.apply(Voided(round_index, reason))

    def abandon(self, reason: str) -> list[Verdict]:
        """Stop the match without a winner; an open card goes to the box."""
        return self.apply(Abandoned(reason))

    def evidence(self, round_index: int, sha256: str, name: str, ref: str = "") -> list[Verdict]:
        """Record that evidence for a round was saved, with its SHA-256."""
        return self.apply(Evidenced(round_index, sha256, name, ref))

    def apply(self, event: Event) -> list[Verdict]:
        """Validate, persist (sink), then apply one event.

        Raises:
            IllegalEvent: the event is not allowed now; nothing changed.
        """
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise IllegalEvent(f"a match cannot take a {type(event).__name__} event here")
        check, do = handler
        check(self, event)
        if self._sink is not None:
            self._sink(event)
        self.events.append(event)
        return do(self, event)

    # -- checks (raise, never mutate) -----------------------------------------------

    def _not_ended(self, what: str) -> None:
        if self.winners:
            raise IllegalEvent(f"{what}: the match has ended "
                               f"(won by {', '.join(self.winners)})")
        if self.abandoned is not None:
            raise IllegalEvent(f"{what}: the match was abandoned ({self.abandoned})")

    def _check_time(self, what: str, t_ns: int) -> None:
        if not isinstance(t_ns, int) or isinstance(t_ns, bool) or t_ns < 0:
            raise IllegalEvent(f"{what}: t_ns must be a non-negative integer, got {t_ns!r}")

    def _check_reason(self, what: str, reason: str) -> None:
        if not isinstance(reason, str) or not reason.strip():
            raise IllegalEvent(f"{what}: a correction needs a reason")

    def _check_seat(self, what: str, seat: str) -> None:
        if seat not in self.holdings:
            raise IllegalEvent(f"{what}: unknown seat {seat!r} (seats: {', '.join(self.seats)})")

    def _check_round(self, what: str, idx: int) -> Round:
        if not isinstance(idx, int) or not 0 <= idx < len(self.rounds):
            raise IllegalEvent(f"{what}: no round {idx!r} (rounds 0 to {len(self.rounds) - 1})")
        return self.rounds[idx]

    def _check_reveal(self, ev: Revealed) -> None:
        self._not_ended("reveal")
        self._check_time("reveal", ev.t_ns)
        RevealMeasure.parse(ev.measure)
        if self.current is not None:
            raise IllegalEvent(f"reveal: round {self.current.index} ({self.current.card}) "
                               "is still open")
        if not self.figures_home_:
            raise IllegalEvent("reveal: not every figure is back on its pad")
        if not self.pile:
            raise IllegalEvent("reveal: the pile is empty")
        try:
            card = Card.parse(ev.card)
        except MalformedCard as exc:
            raise IllegalEvent(f"reveal: {exc}") from exc
        if card != self.pile[0]:
            raise IllegalEvent(f"reveal: {card} is not the top card of the pile ({self.pile[0]})")
        if self.last_t_ns is not None and ev.t_ns < self.last_t_ns:
            raise IllegalEvent(f"reveal: t_ns {ev.t_ns} is before the previous event "
                               f"({self.last_t_ns})")

    def _check_reveal_timed(self, ev: RevealTimed) -> None:
        self._not_ended("reveal_timed")
        self._check_time("reveal_timed", ev.t_ns)
        self._check_round("reveal_timed", ev.round)
        RevealMeasure.parse(ev.measure)
        if ev.uncertainty_ns < 0:
            raise IllegalEvent("reveal_timed: uncertainty_ns must not be negative")

    def _check_grab(self, ev: Grabbed) -> None:
        self._not_ended("grab")
        self._check_time("grab", ev.t_ns)
        self._check_seat("grab", ev.seat)
        try:
            Figure(ev.figure)
        except ValueError:
            raise IllegalEvent(f"grab: unknown figure {ev.figure!r} (expected one of "
                               f"{', '.join(f.value for f in Figure)})") from None
        if not isinstance(ev.uncertainty_ns, int) or ev.uncertainty_ns < 0:
            raise IllegalEvent("grab: uncertainty_ns must be a non-negative integer")
        if not isinstance(ev.handicap_ns, int) or isinstance(ev.handicap_ns, bool) \
                or ev.handicap_ns < 0:
            raise IllegalEvent("grab: handicap_ns must be a non-negative integer")
        rnd = self.current
        if rnd is None:
            if not self.rounds:
                raise IllegalEvent("grab: no card has been revealed yet")
            raise IllegalEvent(f"grab: no card is open (round {self.rounds[-1].index} is "
                               "settled; the next card has not been revealed)")
        if ev.seat in rnd.locked:
            raise IllegalEvent(f"grab: {ev.seat} is locked out until the next card "
                               "(wrong grab on this card)")
        if any(c.seat == ev.seat for c in rnd.claims):
            raise IllegalEvent(f"grab: {ev.seat} already holds a figure on this card")
        # Time order decides, never arrival order: a grab timed when the card
        # was already due to settle must not count just because `advance`
        # has not been called yet.
        due = self.due_ns()
        if due is not None and ev.t_ns + ev.handicap_ns >= due:
            what = ("the claim window closed" if rnd.first_correct() is not None
                    else "the card timed out")
            raise IllegalEvent(f"grab: timed at {ev.t_ns + ev.handicap_ns} ns, when {what} "
                               f"({due} ns); "
                               "it does not count")

    def _check_settled(self, ev: Settled) -> None:
        self._check_time("settled", ev.t_ns)
        if self.current is None:
            raise IllegalEvent("settled: no card is open")
        due = self.due_ns()
        if due is None or ev.t_ns < due:
            raise IllegalEvent(f"settled: nothing is due before {due}")

    def _check_home(self, ev: FiguresHome) -> None:
        self._not_ended("figures_home")
        self._check_time("figures_home", ev.t_ns)
        if self.current is not None:
            raise IllegalEvent("figures_home: a card is still open")
        if self.figures_home_:
            raise IllegalEvent("figures_home: the figures are already home")

    def _last_settled(self, what: str) -> Round:
        for rnd in reversed(self.rounds):
            if rnd.outcome in (Outcome.WON, Outcome.BOXED, Outcome.REDEAL):
                return rnd
        raise IllegalEvent(f"{what}: there is no verdict to take back")

    def _check_undo(self, ev: Undone) -> None:
        self._check_reason("undo", ev.reason)
        if self.current is not None:
            raise IllegalEvent("undo: a card is open; void or settle it first")
        rnd = self._last_settled("undo")
        if ev.round is not None and (not isinstance(ev.round, int) or isinstance(ev.round, bool)
                                     or ev.round != rnd.index):
            raise IllegalEvent(f"undo: round {ev.round!r} is not the last verdict; only round "
                               f"{rnd.index}'s can be taken back")
        if rnd is not self.rounds[-1]:
            raise IllegalEvent(f"undo: only the last round can be undone (round {rnd.index} "
                               "has a later round after it)")

    def _check_award(self, ev: Awarded) -> None:
        self._check_reason("award", ev.reason)
        self._check_seat("award", ev.seat)
        rnd = self._check_round("award", ev.round)
        if rnd.outcome not in (Outcome.WON, Outcome.BOXED, Outcome.VOID):
            state = rnd.outcome.value if rnd.outcome else "open"
            raise IllegalEvent(f"award: round {rnd.index} is {state}; only a won, boxed or "
                               "voided card can be given to a seat")
        if rnd.outcome is Outcome.WON and rnd.winner == ev.seat:
            raise IllegalEvent(f"award: {ev.seat} already holds round {rnd.index}'s card")

    def _check_void(self, ev: Voided) -> None:
        self._check_reason("void", ev.reason)
        rnd = self._check_round("void", ev.round)
        if rnd.outcome is Outcome.VOID:
            raise IllegalEvent(f"void: round {rnd.index} is already void")
        if rnd.outcome in (Outcome.REDEAL, Outcome.UNDONE, Outcome.INTERRUPTED):
            raise IllegalEvent(f"void: round {rnd.index}'s card went back to the pile")

    def _check_abandon(self, ev: Abandoned) -> None:
        self._not_ended("abandon")
        self._check_reason("abandon", ev.reason)

    def _apply_abandon(self, ev: Abandoned) -> list[Verdict]:
        rnd = self.current
        self.abandoned = ev.reason.strip()
        if rnd is not None:
            rnd.outcome = Outcome.VOID
            rnd.reason = f"match abandoned: {self.abandoned}"
            rnd.settled_ns = self.last_t_ns
            self._rederive()
        return []

    def _check_booted(self, ev: Booted) -> None:
        self._not_ended("booted")
        self._check_time("booted", ev.t_ns)
        if not isinstance(ev.boot, str):
            raise IllegalEvent(f"booted: boot must be text, got {ev.boot!r}")

    def _apply_booted(self, ev: Booted) -> list[Verdict]:
        # The old boot's times say nothing about the new clock: order restarts here.
        self.last_t_ns = ev.t_ns
        rnd = self.current
        if rnd is None:
            return []
        rnd.outcome = Outcome.INTERRUPTED
        rnd.winner = None
        rnd.reason = ("interrupted: the table restarted (power cut) while the card was open; "
                      "the card is dealt again")
        rnd.settled_ns = ev.t_ns
        self.figures_home_ = False
        self._rederive()
        return [self._verdict(rnd)]

    def _check_evidence(self, ev: Evidenced) -> None:
        self._check_round("evidence", ev.round)
        digest = ev.sha256
        if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
            raise IllegalEvent(f"evidence: sha256 must be 64 lower-case hex digits, got {digest!r}")
        if not ev.name.strip():
            raise IllegalEvent("evidence: needs a name")

    # -- effects (only after the check passed) --------------------------------------

    def _apply_reveal(self, ev: Revealed) -> list[Verdict]:
        card = self.pile.pop(0)
        sol = solve(card)
        self.rounds.append(Round(
            index=len(self.rounds), card=card, answer=sol.answer, explanation=sol.explanation,
            reveal_ns=ev.t_ns, reveal_uncertainty_ns=ev.uncertainty_ns,
            reveal_measure=RevealMeasure.parse(ev.measure), turner=self.turner,
        ))
        self.last_t_ns = ev.t_ns
        return []

    def _apply_reveal_timed(self, ev: RevealTimed) -> list[Verdict]:
        rnd = self.rounds[ev.round]
        measure = RevealMeasure.parse(ev.measure)
        # A better (or equally good, newer) measure replaces the old one.
        if measure < rnd.reveal_measure:
            return []
        rnd.reveal_ns = ev.t_ns
        rnd.reveal_uncertainty_ns = ev.uncertainty_ns
        rnd.reveal_measure = measure
        for c in rnd.claims:
            c.reaction_ns = c.t_ns - rnd.reveal_ns
        if rnd.settled:
            return []  # the verdict stands; a referee correction can change it
        # While the card is open, the claims already made are judged again.
        was = rnd.first_correct()
        for c in rnd.claims:
            c.correct, c.anticipation = self._judge(rnd, c.figure, c.ranked_ns)
        rnd.locked = {c.seat for c in rnd.claims if not c.correct}
        first = rnd.first_correct()
        if first is None and len(rnd.locked) == len(self.seats):
            return self._settle(rnd, self.last_t_ns or ev.t_ns)
        if first is not None and first is not was:
            return [self._provisional(rnd, first)]
        return []

    def _judge(self, rnd: Round, figure: Figure, t_ns: int) -> tuple[bool, bool]:
        """(correct, anticipation) of a grab of `figure` at `t_ns` in `rnd`."""
        anticipation = t_ns - rnd.reveal_ns < self.rules.anticipation_ns
        correct = figure == rnd.answer and not (anticipation and self.rules.anticipation_is_wrong)
        return correct, anticipation

    def _apply_grab(self, ev: Grabbed) -> list[Verdict]:
        rnd = self.current
        assert rnd is not None
        figure = Figure(ev.figure)
        reaction = ev.t_ns - rnd.reveal_ns
        correct, anticipation = self._judge(rnd, figure, ev.t_ns + ev.handicap_ns)
        rnd.claims.append(Claim(ev.seat, figure, ev.t_ns, ev.uncertainty_ns, ev.source,
                                correct, anticipation, reaction, handicap_ns=ev.handicap_ns))
        self.last_t_ns = max(self.last_t_ns or 0, ev.t_ns)
        if not correct:
            rnd.locked.add(ev.seat)
            if rnd.first_correct() is None and len(rnd.locked) == len(self.seats):
                return self._settle(rnd, ev.t_ns)
            return []
        first = rnd.first_correct()
        assert first is not None
        return [self._provisional(rnd, first)]

    def _provisional(self, rnd: Round, first: Claim) -> Verdict:
        return Verdict(rnd.index, str(rnd.card), rnd.answer.value, None, first.seat, True,
                       None, first.uncertainty_ns, f"{first.seat} took the {rnd.answer.title}")

    def _apply_settled(self, ev: Settled) -> list[Verdict]:
        rnd = self.current
        assert rnd is not None
        self.last_t_ns = max(self.last_t_ns or 0, ev.t_ns)
        return self._settle(rnd, ev.t_ns)

    def _settle(self, rnd: Round, t_ns: int) -> list[Verdict]:
        rules = self.rules
        rnd.settled_ns = t_ns
        correct = sorted((c for c in rnd.claims if c.correct), key=lambda c: c.ranked_ns)
        if not correct:
            rnd.outcome = Outcome.BOXED
            everyone = len(rnd.locked) == len(self.seats)
            rnd.reason = ("every seat grabbed a wrong figure" if everyone
                          else "nobody took the card in time")
        else:
            first = correct[0]
            rival = correct[1] if len(correct) > 1 else None
            later = sorted((c for c in rnd.claims
                            if c is not first and c.ranked_ns >= first.ranked_ns),
                           key=lambda c: c.ranked_ns)
            nxt = later[0] if later else None
            if nxt is not None:
                rnd.margin_ns = nxt.ranked_ns - first.ranked_ns
                rnd.uncertainty_ns = first.uncertainty_ns + nxt.uncertainty_ns
            else:
                rnd.uncertainty_ns = first.uncertainty_ns
            band = 0
            if rival is not None:
                band = max(first.uncertainty_ns + rival.uncertainty_ns, rules.tie_min_ns)
            if rival is not None and rival.ranked_ns - first.ranked_ns < band:
                gap_ms = (rival.ranked_ns - first.ranked_ns) / 1e6
                rnd.too_close = True
                text = (f"{first.seat} and {rival.seat} were {gap_ms:.1f} ms apart, "
                        f"inside the {band / 1e6:.1f} ms tie band: too close to call")
                if rules.tie_rule is TieRule.REDEAL:
                    rnd.outcome = Outcome.REDEAL
                    rnd.reason = text + "; the card is dealt again"
                elif rules.tie_rule is TieRule.BOX:
                    rnd.outcome = Outcome.BOXED
                    rnd.reason = text + "; the card goes to the box"
                else:
                    rnd.outcome = Outcome.WON
                    rnd.winner = first.seat
                    rnd.reason = (text + f"; by the table's rule the earlier claim "
                                  f"({first.seat}) wins")
            else:
                rnd.outcome = Outcome.WON
                rnd.winner = first.seat
                rnd.reason = f"{first.seat} took the {rnd.answer.title} first"
            for c in rnd.claims:
                # The round was over once the winning figure left its pad.
                c.counted = c.ranked_ns <= first.ranked_ns or c.correct
        if rules.variant is Variant.UNRULY:
            rnd.penalised = [c.seat for c in sorted(rnd.claims, key=lambda c: c.ranked_ns)
                             if not c.correct and c.counted]
        self.figures_home_ = False
        self._rederive()
        return [self._verdict(rnd)]

    def _verdict(self, rnd: Round) -> Verdict:
        return Verdict(rnd.index, str(rnd.card), rnd.answer.value,
                       rnd.outcome.value if rnd.outcome else None, rnd.winner, False,
                       rnd.margin_ns, rnd.uncertainty_ns, rnd.reason)

    def _apply_home(self, ev: FiguresHome) -> list[Verdict]:
        self.figures_home_ = True
        self.last_t_ns = max(self.last_t_ns or 0, ev.t_ns)
        return []

    def _apply_undo(self, ev: Undone) -> list[Verdict]:
        rnd = self._last_settled("undo")
        rnd.corrections.append({"kind": "undone", "reason": ev.reason,
                                "was": rnd.outcome.value if rnd.outcome else None,
                                "winner": rnd.winner})
        rnd.outcome = Outcome.UNDONE
        rnd.winner = None
        rnd.penalised = []
        rnd.reason = f"verdict taken back by the referee: {ev.reason}"
        self._rederive()
        return [self._verdict(rnd)]

    def _apply_award(self, ev: Awarded) -> list[Verdict]:
        rnd = self.rounds[ev.round]
        rnd.corrections.append({"kind": "awarded", "reason": ev.reason, "seat": ev.seat,
                                "was": rnd.outcome.value if rnd.outcome else None,
                                "winner": rnd.winner})
        rnd.outcome = Outcome.WON
        rnd.winner = ev.seat
        rnd.reason = f"given to {ev.seat} by the referee: {ev.reason}"
        self._rederive()
        return [self._verdict(rnd)]

    def _apply_void(self, ev: Voided) -> list[Verdict]:
        rnd = self.rounds[ev.round]
        rnd.corrections.append({"kind": "voided", "reason": ev.reason,
                                "was": rnd.outcome.value if rnd.outcome else None,
                                "winner": rnd.winner})
        if rnd.outcome is None:  # voiding the open card settles it
            rnd.settled_ns = self.last_t_ns
            self.figures_home_ = False
        rnd.outcome = Outcome.VOID
        rnd.winner = None
        rnd.penalised = []
        rnd.reason = f"voided by the referee: {ev.reason}"
        self._rederive()
        return [self._verdict(rnd)]

    def _apply_evidence(self, ev: Evidenced) -> list[Verdict]:
        self.rounds[ev.round].evidence.append({"sha256": ev.sha256, "name": ev.name,
                                               "ref": ev.ref})
        return []

    def _rederive(self) -> None:
        """Recompute pile, holdings, box, turner and winners from the rounds."""
        deck = self._deck
        holdings: dict[str, list[Card]] = {s: [] for s in self.seats}
        boxed: list[Card] = []
        turner = self._first_turner
        winners: tuple[str, ...] = ()
        target = self.rules.target
        pile = list(deck)
        for rnd in self.rounds:
            pile.remove(rnd.card)  # a shown card leaves the pile ...
            if rnd.outcome in (Outcome.REDEAL, Outcome.UNDONE, Outcome.INTERRUPTED):
                pile.insert(0, rnd.card)  # ... and these put it back on top
                continue
            if rnd.outcome is None:
                continue
            for seat in rnd.penalised:
                if holdings[seat]:
                    boxed.append(holdings[seat].pop())
            if rnd.outcome is Outcome.WON and rnd.winner is not None:
                holdings[rnd.winner].append(rnd.card)
                turner = rnd.winner
            else:
                boxed.append(rnd.card)
            if not winners and target > 0:
                reached = tuple(s for s in self.seats if len(holdings[s]) >= target)
                if reached:
                    winners = reached
        if not winners and not pile and (not self.rounds or self.rounds[-1].settled):
            best = max(len(h) for h in holdings.values())
            winners = tuple(s for s in self.seats if len(holdings[s]) == best)
        self.pile = pile
        self.holdings = holdings
        self.boxed = boxed
        self.turner = turner
        self.winners = winners

    @property
    def _start(self) -> Started:
        first = self.events[0]
        assert isinstance(first, Started)
        return first


_HANDLERS: dict[type[Event], tuple[Callable[[Match, Any], None],
                                   Callable[[Match, Any], list[Verdict]]]] = {
    Revealed: (Match._check_reveal, Match._apply_reveal),
    RevealTimed: (Match._check_reveal_timed, Match._apply_reveal_timed),
    Grabbed: (Match._check_grab, Match._apply_grab),
    Settled: (Match._check_settled, Match._apply_settled),
    FiguresHome: (Match._check_home, Match._apply_home),
    Undone: (Match._check_undo, Match._apply_undo),
    Awarded: (Match._check_award, Match._apply_award),
    Voided: (Match._check_void, Match._apply_void),
    Evidenced: (Match._check_evidence, Match._apply_evidence),
    Abandoned: (Match._check_abandon, Match._apply_abandon),
    Booted: (Match._check_booted, Match._apply_booted),
}

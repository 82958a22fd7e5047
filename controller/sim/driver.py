"""Drive whole matches with simulated players through the real referee and store.

The driver is a pure function of the match's state and the seed: each `step`
looks at the replayed match and applies the one event that comes next, so a
process killed at any instant resumes exactly where the store left off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.clock import NS_PER_S
from controller.knapp.cards import Card
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import MatchRules
from controller.knapp.match import Match, Outcome, Phase, Round, Verdict
from controller.rng import Rng
from controller.sim.bots import PlannedGrab, PlayerProfile, make_profiles, plan_round
from controller.store import EventStore

COUNTDOWN_NS = 3 * NS_PER_S // 2  # figures home -> next card
RETURN_NS = 2 * NS_PER_S  # verdict -> every figure back on its pad
START_NS = 10 * NS_PER_S

SEAT_NAMES = ("Ada", "Ben", "Cleo", "Dag", "Eir", "Finn", "Gro", "Hal")


@dataclass(frozen=True, slots=True)
class MeasuredGrab:
    """A grab as a sensor reports it: host time and its uncertainty."""

    seat: str
    figure: str
    t_ns: int
    uncertainty_ns: int
    source: str


Measure = Callable[[Round, list[PlannedGrab]], list[MeasuredGrab]]


def exact_measure(rnd: Round, plans: list[PlannedGrab]) -> list[MeasuredGrab]:
    """Perfect sensors: the grab happens exactly when planned."""
    return [MeasuredGrab(p.seat, p.figure.value, rnd.reveal_ns + p.delay_ns, 0, "sim")
            for p in plans]


class Driver:
    """Plays one match step by step.

    Args:
        match: the match (usually opened from the store).
        profiles: one simulated player per seat.
        rng: the match's generator; rounds fork from it by index.
        measure: turns planned grabs into measured ones (pads backends plug in here).
    """

    def __init__(self, match: Match, profiles: list[PlayerProfile], rng: Rng,
                 measure: Measure = exact_measure) -> None:
        self.match = match
        self.profiles = profiles
        self.rng = rng
        self.measure = measure
        self._measured: dict[int, list[MeasuredGrab]] = {}

    def grabs_for(self, rnd: Round) -> list[MeasuredGrab]:
        """The measured grabs of a round, computed once."""
        if rnd.index not in self._measured:
            plans = plan_round(rnd.card, self.profiles, self.rng.fork(f"round:{rnd.index}"))
            self._measured[rnd.index] = sorted(self.measure(rnd, plans),
                                               key=lambda g: (g.t_ns, g.seat))
        return self._measured[rnd.index]

    def step(self) -> list[Verdict]:
        """Apply the next event; return its verdicts. Raises when the match has ended."""
        m = self.match
        phase = m.phase
        t = m.last_t_ns if m.last_t_ns is not None else START_NS
        if phase is Phase.ENDED:
            raise RuntimeError("the match has ended")
        if phase is Phase.CLEARING:
            return m.figures_home(t + RETURN_NS)
        if phase is Phase.READY:
            card = m.next_card
            assert card is not None
            return m.reveal(card, t + COUNTDOWN_NS)
        rnd = m.current
        assert rnd is not None
        claimed = {c.seat for c in rnd.claims}
        for g in self.grabs_for(rnd):
            due = m.due_ns()
            if due is None or g.t_ns >= due:
                break
            if g.seat in claimed or g.seat in rnd.locked:
                continue
            return m.grab(g.seat, g.figure, g.t_ns, g.uncertainty_ns, g.source)
        due = m.due_ns()
        assert due is not None
        return m.advance(due)

    def run(self, on_step: Callable[[Driver, list[Verdict]], None] | None = None) -> None:
        """Play to the end."""
        while self.match.phase is not Phase.ENDED:
            verdicts = self.step()
            if on_step is not None:
                on_step(self, verdicts)


@dataclass
class MatchSummary:
    """Figures of one finished match.

    `boxed` counts the cards in the box at the end: cards nobody won, and in the
    unruly variant the won cards given back for wrong grabs.
    """

    match_id: str
    winners: list[str]
    cards_shown: int
    won: int
    boxed: int
    redeals: int
    too_close: int
    anticipations: int
    wrong_grabs: int
    scores: dict[str, int]

    @classmethod
    def of(cls, match_id: str, match: Match) -> MatchSummary:
        """Summarise a match."""
        rounds = match.rounds
        return cls(
            match_id=match_id,
            winners=list(match.winners),
            cards_shown=len(rounds),
            won=sum(r.outcome is Outcome.WON for r in rounds),
            boxed=len(match.boxed),
            redeals=sum(r.outcome is Outcome.REDEAL for r in rounds),
            too_close=sum(r.too_close for r in rounds),
            anticipations=sum(c.anticipation for r in rounds for c in r.claims),
            wrong_grabs=sum(not c.correct for r in rounds for c in r.claims),
            scores=match.scores(),
        )


@dataclass
class SimulationSummary:
    """Figures over many matches."""

    players: list[dict[str, Any]]
    matches: int
    seed: int
    win_share: dict[str, float]
    cards_per_match: float
    boxed_per_match: float
    boxed_cards: int
    ties: int
    shared_wins: int
    redeals: int
    anticipation_flags: int
    wrong_grabs: int
    per_match: list[MatchSummary] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form (without the per-match list)."""
        return {
            "players": self.players, "matches": self.matches, "seed": self.seed,
            "win_share": {k: round(v, 4) for k, v in self.win_share.items()},
            "cards_per_match": round(self.cards_per_match, 3),
            "boxed_per_match": round(self.boxed_per_match, 3),
            "boxed_cards": self.boxed_cards,
            "ties": self.ties, "redeals": self.redeals, "shared_wins": self.shared_wins,
            "anticipation_flags": self.anticipation_flags, "wrong_grabs": self.wrong_grabs,
        }


def match_rng(seed: int, index: int) -> Rng:
    """The generator of match `index` in a simulation run seeded `seed`."""
    return Rng(seed).fork(f"match:{index}")


def start_match(store: EventStore, seats: tuple[str, ...], rules: MatchRules, seed: int,
                index: int, *, match_id: str | None = None,
                first_turner: int = 0) -> tuple[str, Match]:
    """Create match `index` of a run in the store, with its seeded deck."""
    deck: list[Card] = shuffled_deck(f"{seed}:{index}")
    return store.new_match(seats, deck, rules=rules, first_turner=first_turner, seed=seed,
                           match_id=match_id, label=f"simulation seed {seed} match {index}")


def play_match(store: EventStore, match_id: str, profiles: list[PlayerProfile], rng: Rng,
               measure: Measure = exact_measure) -> MatchSummary:
    """Open (or resume) a stored match and play it to the end."""
    match = store.open_match(match_id)
    Driver(match, profiles, rng, measure).run()
    return MatchSummary.of(match_id, match)


def simulate(players: int, matches: int, seed: int, *, store: EventStore | None = None,
             rules: MatchRules | None = None, seats: tuple[str, ...] | None = None,
             measure: Measure = exact_measure,
             progress: Callable[[int, int], None] | None = None) -> SimulationSummary:
    """Play `matches` whole matches between `players` simulated players."""
    names = seats or SEAT_NAMES[:players]
    if not 2 <= len(names) <= 8:
        raise ValueError(f"a match needs 2 to 8 players, got {len(names)}")
    rules = rules or MatchRules()
    own_store = store is None
    db = store or EventStore(":memory:", durable=False)
    profiles = make_profiles(names, Rng(seed).fork("players"))
    per_match = []
    try:
        for i in range(matches):
            mid, _ = start_match(db, tuple(names), rules, seed, i, first_turner=i % len(names))
            per_match.append(play_match(db, mid, profiles, match_rng(seed, i), measure))
            if progress is not None:
                progress(i + 1, matches)
    finally:
        if own_store:
            db.close()
    share = dict.fromkeys(names, 0.0)
    for ms in per_match:
        for w in ms.winners:
            share[w] += 1.0 / len(ms.winners)
    n = max(matches, 1)
    return SimulationSummary(
        players=[p.to_json() for p in profiles], matches=matches, seed=seed,
        win_share={k: v / n for k, v in share.items()},
        cards_per_match=sum(m.cards_shown for m in per_match) / n,
        boxed_per_match=sum(m.boxed for m in per_match) / n,
        boxed_cards=sum(m.boxed for m in per_match),
        ties=sum(m.too_close for m in per_match),
        shared_wins=sum(len(m.winners) > 1 for m in per_match),
        redeals=sum(m.redeals for m in per_match),
        anticipation_flags=sum(m.anticipations for m in per_match),
        wrong_grabs=sum(m.wrong_grabs for m in per_match),
        per_match=per_match,
    )

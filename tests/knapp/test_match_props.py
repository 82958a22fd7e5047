"""Property tests: any sequence of events, legal or not, keeps the match sound."""

from __future__ import annotations

import contextlib
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import IllegalEvent
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import MatchRules, TieRule, Variant
from controller.knapp.match import Match, Phase

SEATS = ("A", "B", "C")
MS = 1_000_000

step = st.one_of(
    st.tuples(st.just("reveal"), st.integers(0, 3000)),
    st.tuples(st.just("grab"), st.sampled_from([*SEATS, "Z"]),
              st.sampled_from(["ship", "viking", "child", "chest", "dog", "answer", "answer"]),
              st.integers(-500, 3000), st.integers(0, 5)),
    st.tuples(st.just("advance"), st.integers(0, 12000)),
    st.tuples(st.just("home"), st.integers(0, 3000)),
    st.tuples(st.just("undo")),
    st.tuples(st.just("award"), st.integers(0, 8), st.sampled_from(SEATS)),
    st.tuples(st.just("void"), st.integers(0, 8)),
    st.tuples(st.just("paint"), st.integers(0, 100)),
    st.tuples(st.just("photon"), st.integers(0, 400)),
    # A whole round at once, so that sequences get far into a match.
    st.tuples(st.just("round"), st.lists(
        st.tuples(st.sampled_from(SEATS), st.sampled_from(["answer", "answer", "ship", "dog"]),
                  st.integers(100, 2500), st.integers(0, 3)), max_size=4)),
    st.tuples(st.just("round"), st.lists(
        st.tuples(st.sampled_from(SEATS), st.sampled_from(["answer", "answer", "ship", "dog"]),
                  st.integers(100, 2500), st.integers(0, 3)), max_size=4)),
)


def play_round(m: Match, grabs: list[tuple[str, str, int, int]], clock: list[int]) -> None:
    if m.phase is Phase.CLEARING:
        m.figures_home((m.last_t_ns or 0) + 500 * MS)
    if m.current is None:
        card = m.next_card
        clock[0] = max(clock[0], m.last_t_ns or 0) + 1000 * MS
        m.reveal(card if card is not None else "ship:blue/red+green", clock[0])
    rnd = m.current
    assert rnd is not None
    for seat, fig, delay, unc in grabs:
        with contextlib.suppress(IllegalEvent):
            m.grab(seat, rnd.answer.value if fig == "answer" else fig,
                   rnd.reveal_ns + delay * MS, unc * MS)
    due = m.due_ns()
    if due is not None:
        m.advance(due)


def run_step(m: Match, s: tuple, clock: list[int]) -> None:  # type: ignore[type-arg]
    kind = s[0]
    base = clock[0]
    if kind == "round":
        play_round(m, s[1], clock)
    elif kind == "reveal":
        card = m.next_card
        clock[0] = max(clock[0], (m.last_t_ns or 0)) + s[1] * MS
        m.reveal(card if card is not None else "ship:blue/red+green", clock[0])
    elif kind == "grab":
        rnd = m.current
        fig = s[2]
        if fig == "answer":
            fig = rnd.answer.value if rnd else "dog"
        reveal = rnd.reveal_ns if rnd else base
        m.grab(s[1], fig, max(0, reveal + s[3] * MS), s[4] * MS)
    elif kind == "advance":
        m.advance(base + s[1] * MS if m.current is None else m.current.reveal_ns + s[1] * MS)
    elif kind == "home":
        m.figures_home((m.last_t_ns or 0) + s[1] * MS)
    elif kind == "undo":
        m.undo("property test")
    elif kind == "award":
        m.award(s[1], s[2], "property test")
    elif kind == "void":
        m.void(s[1], "property test")
    elif kind in ("paint", "photon"):
        # A later, better measure: while the card is open it judges the claims again.
        rnd = m.current
        m.reveal_time((rnd.reveal_ns if rnd else 0) + s[1] * MS, measure=kind,
                      round_index=rnd.index if rnd else 0)


def check_invariants(m: Match, deck_size: int) -> None:
    open_card = [m.current.card] if m.current else []
    held = [c for cards in m.holdings.values() for c in cards]
    everywhere = Counter(map(str, [*m.pile, *held, *m.boxed, *open_card]))
    assert sum(everywhere.values()) == deck_size
    assert max(everywhere.values()) == 1
    if m.phase is Phase.ENDED:
        assert m.winners
    rnd = m.current
    if rnd is not None:  # an open card is judged against its best reveal time
        for c in rnd.claims:
            assert c.reaction_ns == c.t_ns - rnd.reveal_ns
            assert c.anticipation == (c.reaction_ns < m.rules.anticipation_ns)
            assert c.correct == (c.figure is rnd.answer and not (
                c.anticipation and m.rules.anticipation_is_wrong))
        assert rnd.locked == {c.seat for c in rnd.claims if not c.correct}
    if m.rules.target and not m.pile and m.current is None:
        assert m.phase is Phase.ENDED


@settings(max_examples=250)
@given(st.lists(step, max_size=60), st.sampled_from(list(Variant)),
       st.sampled_from(list(TieRule)), st.integers(0, 3), st.booleans())
def test_random_event_sequences(steps: list[tuple], variant: Variant, tie: TieRule,  # type: ignore[type-arg]
                                target: int, wrong_anticipation: bool) -> None:
    deck = shuffled_deck(7)[:8]
    m = Match.new(SEATS, deck, rules=MatchRules(variant=variant, tie_rule=tie, target=target,
                                                anticipation_is_wrong=wrong_anticipation))
    clock = [1_000 * MS]
    for s in steps:
        before = m.to_json()
        n = len(m.events)
        try:
            run_step(m, s, clock)
        except IllegalEvent:
            assert m.to_json() == before, f"rejected {s} changed the match"
            assert len(m.events) == n
        check_invariants(m, len(deck))
    replayed = Match.replay(m.events)
    assert replayed.to_json() == m.to_json()

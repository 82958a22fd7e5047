"""Exact pins of the referee's verdicts, reasons and bookkeeping (mutation survivors).

Each test pins one behaviour exactly that a looser test let a mutant of
controller/knapp/match.py change unnoticed (docs/mutation.md lists which).
Times are plain integers: the referee takes its clock from the events.
"""

from __future__ import annotations

import pytest

from controller.errors import IllegalEvent
from controller.knapp.cards import Card, Figure
from controller.knapp.events import Grabbed, MatchRules, Revealed, Started, TieRule, Variant
from controller.knapp.match import Match, Outcome, Phase, Verdict

MS = 1_000_000
S = 1_000_000_000

# Answers: ship:yellow/red+green -> dog; viking:red/blue+white -> viking.
DOG_CARD = Card.parse("ship:yellow/red+green")
VIKING_CARD = Card.parse("viking:red/blue+white")
SEATS = ("Ada", "Ben", "Cleo")


def new(cards: list[Card], **rules: object) -> Match:
    return Match.new(SEATS, cards, rules=MatchRules(**rules))  # type: ignore[arg-type]


def test_equal_times_keep_the_claim_that_came_first() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 900 * MS)
    v = m.grab("Ben", "dog", S + 900 * MS)
    assert v[0].winner == "Ada"
    rnd = m.current
    assert rnd is not None
    first = rnd.first_correct()
    assert first is not None and first.seat == "Ada"


def test_the_seed_and_the_first_turner_are_kept() -> None:
    m = Match.new(SEATS, [DOG_CARD, VIKING_CARD], seed=7, first_turner=1)
    assert m.seed == 7
    start = m.events[0]
    assert isinstance(start, Started) and start.seed == 7
    assert Match.new(SEATS, [DOG_CARD]).turner == "Ada"  # first_turner defaults to 0
    # A boxed card leaves the turn where it was: with the first turner.
    m.reveal(DOG_CARD, S)
    m.advance(S + 10 * S)
    assert m.rounds[0].outcome is Outcome.BOXED
    assert m.turner == "Ben"


def test_a_reveal_is_logged_and_kept_exactly() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, 2 * S)
    assert m.events[-1] == Revealed(str(DOG_CARD), 2 * S, 0, "shown")
    assert m.last_t_ns == 2 * S
    rnd = m.rounds[0]
    assert rnd.reveal_uncertainty_ns == 0
    assert rnd.explanation != "" and isinstance(rnd.explanation, str)
    m2 = new([DOG_CARD, VIKING_CARD])
    m2.reveal(DOG_CARD, 2 * S, uncertainty_ns=3 * MS, measure="paint")
    assert m2.events[-1] == Revealed(str(DOG_CARD), 2 * S, 3 * MS, "paint")
    assert m2.rounds[0].reveal_uncertainty_ns == 3 * MS
    assert m2.to_json()["rounds"][0]["reveal_measure"] == "paint"


def test_a_grab_is_logged_with_text_and_the_defaults() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", Figure.DOG, S + 900 * MS)
    assert m.events[-1] == Grabbed("Ben", "dog", S + 900 * MS, 0, "sim", 0)
    claim = m.rounds[0].claims[0]
    assert (claim.uncertainty_ns, claim.source) == (0, "sim")


def test_an_event_a_match_cannot_take_is_named() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    with pytest.raises(IllegalEvent, match=r"^a match cannot take a Started event here$"):
        m.apply(m.events[0])


def test_an_ended_match_names_all_its_winners() -> None:
    m = new([DOG_CARD, VIKING_CARD], target=0)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 900 * MS)
    m.advance(3 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.grab("Ben", "viking", 5 * S + 900 * MS)
    m.advance(7 * S)
    assert m.winners == ("Ada", "Ben")
    with pytest.raises(IllegalEvent) as exc:
        m.abandon("late")
    assert str(exc.value) == "abandon: the match has ended (won by Ada, Ben)"


def test_the_handicap_is_added_when_judging_anticipation() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", "dog", S + 200 * MS, handicap_ns=100 * MS)
    assert m.rounds[0].claims[0].anticipation is False


def test_the_last_time_is_the_latest_even_out_of_order_and_from_zero() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", "dog", S + 900 * MS)
    m.grab("Ada", "dog", S + 800 * MS)
    assert m.last_t_ns == S + 900 * MS
    z = new([DOG_CARD, VIKING_CARD], collection_window_ns=0)
    z.reveal(DOG_CARD, 0)
    z.grab("Ben", "dog", 0)
    assert z.last_t_ns == 0
    z.advance(0)
    assert z.rounds[0].outcome is Outcome.WON
    assert z.last_t_ns == 0


def test_a_settle_before_the_latest_event_keeps_the_latest_time() -> None:
    # The reveal was logged at 10 s; the painted frame says 1 s, so the
    # claim at 1.5 s closes its window at 1.8 s, before the reveal's log time.
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, 10 * S)
    m.reveal_time(S, measure="paint")
    m.grab("Ben", "dog", S + 500 * MS)
    m.advance(S + 800 * MS)
    assert m.rounds[0].settled_ns == S + 800 * MS
    assert m.last_t_ns == 10 * S


def test_settle_times_are_the_events_times() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", S + 500 * MS)
    m.grab("Ben", "ship", S + 600 * MS)
    v = m.grab("Cleo", "ship", S + 700 * MS)
    assert m.rounds[0].settled_ns == S + 700 * MS
    assert v == [Verdict(0, str(DOG_CARD), "dog", "boxed", None, False, None, None,
                         "every seat grabbed a wrong figure")]
    t = new([DOG_CARD, VIKING_CARD])
    t.reveal(DOG_CARD, S)
    v = t.advance(11 * S)
    assert t.rounds[0].settled_ns == 11 * S
    assert v == [Verdict(0, str(DOG_CARD), "dog", "boxed", None, False, None, None,
                         "nobody took the card in time")]


def test_the_provisional_and_final_verdicts_are_exact() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    v = m.grab("Ben", "dog", S + 900 * MS, 40_000)
    assert v == [Verdict(0, str(DOG_CARD), "dog", None, "Ben", True, None, 40_000,
                         "Ben took the white dog")]
    final = m.advance(S + 1200 * MS)
    assert final == [Verdict(0, str(DOG_CARD), "dog", "won", "Ben", False, None, 40_000,
                             "Ben took the white dog first")]
    assert m.figures_home_ is False
    assert m.to_json()["figures_home"] is False


def test_the_margin_is_to_the_next_claim_by_time_not_arrival() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", "ship", S + 1000 * MS, 1_000)
    m.grab("Cleo", "dog", S + 900 * MS, 2_000)
    m.grab("Ada", "dog", S + 800 * MS, 3_000)
    v = m.advance(3 * S)
    assert v == [Verdict(0, str(DOG_CARD), "dog", "won", "Ada", False, 100 * MS, 5_000,
                         "Ada took the white dog first")]


def test_a_wrong_grab_at_the_winners_time_counts_and_sets_the_margin() -> None:
    m = new([DOG_CARD, VIKING_CARD], variant=Variant.UNRULY)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 800 * MS, 3_000)
    m.grab("Ben", "ship", S + 800 * MS, 1_000)
    v = m.advance(3 * S)
    assert v[0].margin_ns == 0 and v[0].uncertainty_ns == 4_000
    assert [c.counted for c in m.rounds[0].claims] == [True, True]
    assert m.rounds[0].penalised == ["Ben"]


def test_a_gap_exactly_the_tie_band_is_not_a_tie() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 800 * MS)
    m.grab("Ben", "dog", S + 802 * MS)
    v = m.advance(3 * S)
    assert (v[0].outcome, v[0].winner) == ("won", "Ada")
    assert m.rounds[0].too_close is False


def tie(rule: TieRule) -> tuple[Match, list[Verdict]]:
    # 1.850001 ms apart in a 1.950001 ms band: the figures round differently
    # if either is divided by anything but 1e6.
    m = new([DOG_CARD, VIKING_CARD], tie_min_ns=1_950_001, tie_rule=rule)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 800 * MS)
    m.grab("Ben", "dog", S + 800 * MS + 1_850_001)
    return m, m.advance(3 * S)


TIE_TEXT = "Ada and Ben were 1.9 ms apart, inside the 2.0 ms tie band: too close to call"


def test_each_tie_rule_gives_its_exact_reason() -> None:
    m, v = tie(TieRule.REDEAL)
    assert (v[0].outcome, v[0].reason) == ("redeal", TIE_TEXT + "; the card is dealt again")
    m, v = tie(TieRule.BOX)
    assert (v[0].outcome, v[0].reason) == ("boxed", TIE_TEXT + "; the card goes to the box")
    assert m.rounds[0].reason == v[0].reason
    m, v = tie(TieRule.EARLIER)
    assert (v[0].outcome, v[0].winner, v[0].reason) == (
        "won", "Ada", TIE_TEXT + "; by the table's rule the earlier claim (Ada) wins")


def test_a_correction_while_the_last_card_is_open_does_not_end_the_match() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 900 * MS)
    m.advance(3 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.award(0, "Ben", "Ada's pad misfired")
    assert m.winners == ()
    assert m.phase is Phase.OPEN


def test_a_one_card_deck_ends_when_its_card_is_settled() -> None:
    m = new([DOG_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 900 * MS)
    m.advance(3 * S)
    assert m.winners == ("Ada",)
    assert m.phase is Phase.ENDED


def test_undo_with_no_verdict_and_a_boot_after_the_end_are_named() -> None:
    """The refusals of `undo_target` and of a `booted` event name what was refused."""
    fresh = new([DOG_CARD, VIKING_CARD])
    with pytest.raises(IllegalEvent) as nothing:
        fresh.undo_target()
    assert str(nothing.value) == "undo: there is no verdict to take back"
    m = new([DOG_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 900 * MS)
    m.advance(3 * S)
    assert m.undo_target() == 0
    with pytest.raises(IllegalEvent) as late:
        m.booted("second-boot", 10 * S)
    assert str(late.value) == "booted: the match has ended (won by Ada)"


def test_a_boot_is_checked_and_interrupts_the_open_card_in_words() -> None:
    """`booted`: each refusal names the event, and an open card is interrupted exactly."""
    m = new([DOG_CARD, VIKING_CARD])
    with pytest.raises(IllegalEvent) as negative:
        m.booted("b", -1)
    assert str(negative.value) == "booted: t_ns must be a non-negative integer, got -1"
    with pytest.raises(IllegalEvent) as not_text:
        m.booted(7, S)  # type: ignore[arg-type]
    assert str(not_text.value) == "booted: boot must be text, got 7"
    assert m.booted("between-cards", S) == []  # nothing open: nothing to interrupt
    m.reveal(DOG_CARD, 5 * S)
    [verdict] = m.booted("after-the-cut", 2 * S)  # the new boot's clock starts again low
    rnd = m.rounds[0]
    assert rnd.outcome is Outcome.INTERRUPTED and rnd.winner is None
    assert rnd.reason == ("interrupted: the table restarted (power cut) while the card was "
                          "open; the card is dealt again")
    assert rnd.settled_ns == 2 * S and m.last_t_ns == 2 * S
    assert m.phase is Phase.CLEARING and m.to_json()["figures_home"] is False
    assert verdict.outcome == "interrupted" and verdict.round == 0 and verdict.winner is None
    m.figures_home(3 * S)  # times after the boot are ordered from the boot's clock
    assert m.phase is Phase.READY

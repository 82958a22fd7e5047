"""Referee corrections and the anticipation limit, to their exact records and words.

A correction (undo, award, void) is an event; what it took back is kept on the
round (`corrections`) so a review can show it, and every refusal names what was
wrong. These tests pin both, and the one boundary of the rule book's timing:
a grab exactly at the anticipation limit is not flagged.
"""

from __future__ import annotations

import pytest

from controller.errors import IllegalEvent
from controller.knapp.cards import Card, Figure
from controller.knapp.events import MatchRules
from controller.knapp.match import Match, Outcome, Phase

MS = 1_000_000
S = 1_000_000_000
DOG_CARD = Card.parse("ship:yellow/red+green")  # answer: dog
VIKING_CARD = Card.parse("viking:red/blue+white")  # answer: viking


def won_by(seat: str, **rules: object) -> Match:
    """A match whose first card (the dog) `seat` won."""
    m = Match.new(("Ada", "Ben", "Cleo"), [DOG_CARD, VIKING_CARD, DOG_CARD],
                  rules=MatchRules(**rules))  # type: ignore[arg-type]
    m.reveal(DOG_CARD, S)
    m.grab(seat, "dog", 2 * S)
    m.advance(3 * S)
    assert m.rounds[0].outcome is Outcome.WON
    return m


@pytest.mark.parametrize(("after_ms", "flagged"), [(249, True), (250, False), (251, False)])
def test_a_grab_exactly_at_the_anticipation_limit_is_not_flagged(after_ms, flagged):
    m = Match.new(("Ada", "Ben"), [DOG_CARD], rules=MatchRules(anticipation_is_wrong=True))
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + after_ms * MS)
    (claim,) = m.rounds[0].claims
    assert claim.anticipation is flagged
    assert claim.correct is not flagged  # flagged grabs count as wrong under this rule


def test_undo_keeps_what_it_took_back():
    m = won_by("Ada")
    m.undo("Ben was first on the video")
    rnd = m.rounds[0]
    assert rnd.corrections == [{"kind": "undone", "reason": "Ben was first on the video",
                                "was": "won", "winner": "Ada"}]
    assert rnd.winner is None and rnd.outcome is Outcome.UNDONE
    assert rnd.reason == "verdict taken back by the referee: Ben was first on the video"


def test_award_keeps_what_it_replaced():
    m = won_by("Ada")
    m.award(0, "Cleo", "Cleo's hand was first")
    rnd = m.rounds[0]
    (record,) = rnd.corrections
    assert {k: record[k] for k in ("kind", "reason", "seat", "was")} == {
        "kind": "awarded", "reason": "Cleo's hand was first", "seat": "Cleo", "was": "won"}
    assert rnd.winner == "Cleo" and rnd.reason == "given to Cleo by the referee: Cleo's hand " \
                                                  "was first"


def test_void_of_a_settled_card_keeps_what_it_took_back():
    m = won_by("Ben")
    m.void(0, "misprinted card")
    rnd = m.rounds[0]
    assert rnd.corrections == [{"kind": "voided", "reason": "misprinted card", "was": "won",
                                "winner": "Ben"}]
    assert rnd.winner is None and rnd.outcome is Outcome.VOID
    assert rnd.reason == "voided by the referee: misprinted card"
    assert m.scores()["Ben"] == 0


def test_void_of_the_open_card_settles_it_and_waits_for_the_figures():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", S + 500 * MS)  # a wrong grab: the card stays open
    m.void(0, "the card fell off the stand")
    rnd = m.rounds[0]
    assert rnd.corrections == [{"kind": "voided", "reason": "the card fell off the stand",
                                "was": None, "winner": None}]
    assert rnd.settled_ns == S + 500 * MS  # when the last thing happened
    assert m.current is None and m.phase is Phase.CLEARING  # the figures must come home
    with pytest.raises(IllegalEvent):
        m.reveal(VIKING_CARD, 3 * S)
    m.figures_home(2 * S)
    m.reveal(VIKING_CARD, 3 * S)


@pytest.mark.parametrize(("correct", "message"), [
    (lambda m: m.award(0, "Ada", "x"), "award: Ada already holds round 0's card"),
    (lambda m: m.award(0, "Zed", "x"), "award: unknown seat 'Zed' (seats: Ada, Ben, Cleo)"),
    (lambda m: m.award(7, "Ben", "x"), "award: no round 7 (rounds 0 to 0)"),
    (lambda m: m.award(0, "Ben", " "), "award: a correction needs a reason"),
    (lambda m: m.undo(" "), "undo: a correction needs a reason"),
    (lambda m: m.undo("x", 3), "undo: round 3 is not the last verdict; only round 0's can be "
                               "taken back"),
    (lambda m: m.undo("x", True), "undo: round True is not the last verdict; only round 0's "
                                  "can be taken back"),
    (lambda m: m.void(0, ""), "void: a correction needs a reason"),
])
def test_refused_corrections_say_exactly_why(correct, message):
    m = won_by("Ada")
    before = m.to_json()
    with pytest.raises(IllegalEvent) as err:
        correct(m)
    assert str(err.value) == message
    assert m.to_json() == before  # nothing changed


def test_an_open_round_cannot_be_awarded_or_undone():
    m = won_by("Ada")
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    with pytest.raises(IllegalEvent) as err:
        m.award(1, "Ben", "x")
    assert str(err.value) == ("award: round 1 is open; only a won, boxed or voided card can be "
                              "given to a seat")
    with pytest.raises(IllegalEvent) as err:
        m.undo("x")
    assert str(err.value) == "undo: a card is open; void or settle it first"


def test_only_the_last_round_can_be_undone():
    m = won_by("Ada")
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.void(1, "misdeal")  # round 1 is void: round 0 is the last verdict, but not the last round
    with pytest.raises(IllegalEvent) as err:
        m.undo("x")
    assert str(err.value) == ("undo: only the last round can be undone (round 0 has a later "
                              "round after it)")
    assert m.rounds[0].winner == "Ada" and Figure.DOG is m.rounds[0].answer


def test_undo_naming_round_true_is_refused_even_when_round_1_is_the_last_verdict():
    # True == 1 in Python; a round is named by an int, and a bool is not one.
    m = won_by("Ada")
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.grab("Ben", "viking", 6 * S)
    m.advance(8 * S)
    assert m.rounds[1].outcome is Outcome.WON
    with pytest.raises(IllegalEvent) as err:
        m.undo("x", True)  # type: ignore[arg-type]
    assert str(err.value) == ("undo: round True is not the last verdict; only round 1's can be "
                              "taken back")
    assert m.rounds[1].winner == "Ben"
    m.undo("x", 1)
    assert m.rounds[1].outcome is Outcome.UNDONE

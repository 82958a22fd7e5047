"""The match's JSON (what pages, reviews and replays read) and its refusals, word for word.

`Match.to_json` is the state the dispute screen shows and replays compare; its
keys are the contract with the pages. Each refusal names the event and what
was wrong, so a log or a referee can act on it.
"""

from __future__ import annotations

import pytest

from controller.errors import IllegalEvent
from controller.knapp.cards import Card
from controller.knapp.events import FiguresHome, MatchRules, Settled
from controller.knapp.match import Match, Outcome, Phase

MS = 1_000_000
S = 1_000_000_000
DOG_CARD = Card.parse("ship:yellow/red+green")  # answer: dog
VIKING_CARD = Card.parse("viking:red/blue+white")  # answer: viking
DIGEST = "ab" * 32

CLAIM_KEYS = {"seat", "figure", "t_ns", "uncertainty_ns", "source", "correct", "anticipation",
              "reaction_ns", "counted", "handicap_ns"}
ROUND_KEYS = {"index", "card", "answer", "explanation", "reveal_ns", "reveal_uncertainty_ns",
              "reveal_measure", "turner", "claims", "locked", "outcome", "winner", "reason",
              "margin_ns", "uncertainty_ns", "too_close", "settled_ns", "penalised",
              "corrections", "evidence"}
MATCH_KEYS = {"seats", "rules", "phase", "pile", "holdings", "boxed", "turner", "figures_home",
              "winners", "abandoned", "rounds", "events"}


def played() -> Match:
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD, DOG_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", "ship", S + 400 * MS, 30_000, "serial")
    m.grab("Ada", "dog", S + 600 * MS, 20_000, "serial+camera")
    m.advance(3 * S)
    m.evidence(0, DIGEST, "round-0.mp4", "ref-0")
    return m


def test_the_match_json_has_the_keys_the_pages_read():
    data = played().to_json()
    assert set(data) == MATCH_KEYS
    (rnd,) = data["rounds"]
    assert set(rnd) == ROUND_KEYS
    assert [set(c) for c in rnd["claims"]] == [CLAIM_KEYS, CLAIM_KEYS]
    ben, ada = rnd["claims"]
    assert (ben["seat"], ben["figure"], ben["t_ns"], ben["uncertainty_ns"], ben["source"],
            ben["correct"]) == ("Ben", "ship", S + 400 * MS, 30_000, "serial", False)
    assert (ada["seat"], ada["correct"], ada["reaction_ns"]) == ("Ada", True, 600 * MS)
    assert (rnd["outcome"], rnd["winner"], rnd["locked"]) == ("won", "Ada", ["Ben"])
    assert (rnd["index"], rnd["card"], rnd["answer"], rnd["reveal_ns"]) == (
        0, str(DOG_CARD), "dog", S)
    assert rnd["evidence"] == [{"sha256": DIGEST, "name": "round-0.mp4", "ref": "ref-0"}]
    assert data["holdings"] == {"Ada": [str(DOG_CARD)], "Ben": []}


def test_evidence_digests_must_be_64_lower_case_hex_digits():
    m = played()
    for bad in ("ab" * 31 + "a", "AB" * 32, "X" * 64, "ab" * 31 + "g0"):
        with pytest.raises(IllegalEvent) as err:
            m.evidence(0, bad, "clip.mp4")
        assert str(err.value) == f"evidence: sha256 must be 64 lower-case hex digits, got {bad!r}"
    with pytest.raises(IllegalEvent) as err:
        m.evidence(0, DIGEST, " ")
    assert str(err.value) == "evidence: needs a name"
    with pytest.raises(IllegalEvent) as err:
        m.evidence(4, DIGEST, "clip.mp4")
    assert str(err.value) == "evidence: no round 4 (rounds 0 to 0)"


def test_a_better_or_equally_good_newer_reveal_time_replaces_the_old_one():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S, uncertainty_ns=8 * MS, measure="shown")
    m.reveal_time(S + 30 * MS, uncertainty_ns=2 * MS, measure="paint")
    m.reveal_time(S + 31 * MS, uncertainty_ns=1 * MS, measure="paint", round_index=0)
    rnd = m.rounds[0]
    assert (rnd.reveal_ns, rnd.reveal_uncertainty_ns) == (S + 31 * MS, 1 * MS)
    with pytest.raises(IllegalEvent) as err:
        m.reveal_time(S + 32 * MS, uncertainty_ns=-1)
    assert str(err.value) == "reveal_timed: uncertainty_ns must not be negative"
    with pytest.raises(IllegalEvent) as err:
        m.reveal_time(S + 32 * MS, round_index=3)
    assert str(err.value) == "reveal_timed: no round 3 (rounds 0 to 0)"


def test_a_reveal_time_for_an_earlier_round_goes_to_that_round():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD, DOG_CARD])
    m.reveal(DOG_CARD, S, measure="shown")
    m.grab("Ada", "dog", S + 600 * MS)
    m.advance(3 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S, measure="shown")
    m.reveal_time(S + 20 * MS, uncertainty_ns=MS, measure="paint", round_index=0)
    assert m.rounds[0].reveal_ns == S + 20 * MS and m.rounds[1].reveal_ns == 5 * S


def test_time_never_runs_back_after_settling_or_figures_home():
    m = played()
    m.figures_home(5 * S)
    assert m.last_t_ns == 5 * S
    with pytest.raises(IllegalEvent):
        m.reveal(VIKING_CARD, 4 * S)  # before the figures came home
    m.reveal(VIKING_CARD, 6 * S)
    m.apply(Settled(70 * S))  # nobody took it: the timeout settles it
    assert m.last_t_ns == 70 * S and m.rounds[1].outcome is Outcome.BOXED
    m.apply(FiguresHome(69 * S))  # a late report of the figures: the clock keeps its newest
    assert m.last_t_ns == 70 * S
    with pytest.raises(IllegalEvent):
        m.reveal(DOG_CARD, 69 * S)


def void_twice(m: Match) -> None:
    m.void(0, "x")
    m.void(0, "again")


def void_after_undo(m: Match) -> None:
    m.undo("x")
    m.void(0, "x")


@pytest.mark.parametrize(("act", "message"), [
    (lambda m: m.apply(Settled(2 * S)), "settled: no card is open"),
    (lambda m: m.apply(FiguresHome(-1)), "figures_home: t_ns must be a non-negative integer, "
                                         "got -1"),
    (lambda m: m.abandon(" "), "abandon: a correction needs a reason"),
    (void_twice, "void: round 0 is already void"),
    (void_after_undo, "void: round 0's card went back to the pile"),
])
def test_refusals_name_the_event_and_the_reason(act, message):
    m = played()
    with pytest.raises(IllegalEvent) as err:
        act(m)
    assert str(err.value) == message


def test_figures_home_refusals():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    with pytest.raises(IllegalEvent) as err:
        m.figures_home(2 * S)
    assert str(err.value) == "figures_home: a card is still open"
    m.grab("Ada", "dog", S + 600 * MS)
    m.advance(3 * S)
    m.figures_home(4 * S)
    with pytest.raises(IllegalEvent) as err:
        m.figures_home(5 * S)
    assert str(err.value) == "figures_home: the figures are already home"


def test_a_settle_before_anything_is_due_is_refused():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    with pytest.raises(IllegalEvent, match=r"^settled: nothing is due before \d+$"):
        m.apply(Settled(S + 1))


def test_abandoning_with_a_card_open_settles_it_with_the_reason():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", "ship", S + 400 * MS)
    m.abandon("the café closes")
    rnd = m.rounds[0]
    assert rnd.reason == "match abandoned: the café closes"
    assert rnd.settled_ns == S + 400 * MS and rnd.outcome is Outcome.VOID
    with pytest.raises(IllegalEvent) as err:
        m.abandon("twice")
    assert str(err.value) == "abandon: the match was abandoned (the café closes)"
    assert m.phase is not Phase.OPEN


def test_an_empty_log_is_not_a_match():
    with pytest.raises(IllegalEvent) as err:
        Match.replay([])
    assert str(err.value) == "a match log must begin with a 'started' event"


def ended() -> Match:
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD], rules=MatchRules(target=1))
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 600 * MS)
    m.advance(3 * S)
    assert m.winners == ("Ada",)
    return m


@pytest.mark.parametrize(("make", "act", "message"), [
    (ended, lambda m: m.reveal_time(4 * S), "reveal_timed: the match has ended (won by Ada)"),
    (ended, lambda m: m.figures_home(4 * S), "figures_home: the match has ended (won by Ada)"),
    (played, lambda m: m.reveal_time(-1), "reveal_timed: t_ns must be a non-negative integer, "
                                          "got -1"),
    (played, lambda m: m.apply(Settled(-1)), "settled: t_ns must be a non-negative integer, "
                                             "got -1"),
    (played, lambda m: m.void(9, "x"), "void: no round 9 (rounds 0 to 0)"),
    (played, lambda m: m.undo("x", "0"), "undo: round '0' is not the last verdict; only "
                                         "round 0's can be taken back"),
])
def test_each_refusal_names_its_event(make, act, message):
    m = make()
    with pytest.raises(IllegalEvent) as err:
        act(m)
    assert str(err.value) == message


def test_undo_without_a_verdict_and_award_of_a_card_back_in_the_pile_are_named():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    with pytest.raises(IllegalEvent) as err:
        m.undo("x")
    assert str(err.value) == "undo: there is no verdict to take back"
    m = played()
    m.undo("x", 0)  # the round named as a number is fine
    with pytest.raises(IllegalEvent) as err:
        m.award(0, "Ben", "x")
    assert str(err.value) == ("award: round 0 is undone; only a won, boxed or voided card can "
                              "be given to a seat")


def test_the_json_shows_pile_boxed_and_figures_after_a_void():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD, DOG_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", S + 400 * MS)
    m.void(0, "misdeal")
    data = m.to_json()
    assert data["pile"] == [str(VIKING_CARD), str(DOG_CARD)]
    assert data["figures_home"] is False
    m.figures_home(2 * S)
    m.reveal(VIKING_CARD, 3 * S)
    m.apply(Settled(70 * S))  # nobody took it: boxed
    assert m.to_json()["boxed"] == [str(DOG_CARD), str(VIKING_CARD)]  # the void's too


def test_a_reveal_time_and_evidence_without_the_optional_arguments_keep_their_defaults():
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S, uncertainty_ns=8 * MS, measure="shown")
    m.reveal_time(S + 30 * MS)  # a paint time with no stated uncertainty is exact
    rnd = m.rounds[0]
    assert (rnd.reveal_ns, rnd.reveal_uncertainty_ns, rnd.reveal_measure.label) == (
        S + 30 * MS, 0, "paint")
    m.evidence(0, DIGEST, "clip.mp4")  # no ref: kept under its name only
    assert m.to_json()["rounds"][0]["evidence"] == [
        {"sha256": DIGEST, "name": "clip.mp4", "ref": ""}]


def test_a_better_reveal_time_that_makes_every_grab_wrong_settles_at_the_last_grab():
    # Ada's grab was 300 ms after the card was shown; the paint time says 200 ms,
    # inside the anticipation limit: wrong, as Ben's was, so the card is boxed
    # there and then, at the time of the last thing seen (Ben's grab), not the
    # reveal time the correction carries.
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD],
                  rules=MatchRules(anticipation_is_wrong=True))
    m.reveal(DOG_CARD, S, uncertainty_ns=8 * MS, measure="shown")
    m.grab("Ada", "dog", S + 300 * MS)
    m.grab("Ben", "ship", S + 400 * MS)
    assert m.rounds[0].settled_ns is None
    m.reveal_time(S + 100 * MS, uncertainty_ns=MS, measure="paint")
    rnd = m.rounds[0]
    assert rnd.outcome is Outcome.BOXED and rnd.reason == "every seat grabbed a wrong figure"
    assert rnd.settled_ns == S + 400 * MS == m.last_t_ns


def _settled() -> Match:
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD, DOG_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 600 * MS)
    m.advance(3 * S)
    return m


def _open() -> Match:
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD, DOG_CARD])
    m.reveal(DOG_CARD, S)
    return m


def _then(m: Match, *acts) -> None:
    for act in acts:
        act(m)


START_REFUSALS = [
    (tuple("ABCDEFGHI"), 0, [DOG_CARD], "a match needs 2 to 8 seats, got 9"),
    (("A",), 0, [DOG_CARD], "a match needs 2 to 8 seats, got 1"),
    (("A", "A"), 0, [DOG_CARD], "seat names must be unique, non-empty text: ['A', 'A']"),
    (("A", ""), 0, [DOG_CARD], "seat names must be unique, non-empty text: ['A', '']"),
    (("A", "B"), 2, [DOG_CARD], "first_turner 2 is not a seat index"),
    (("A", "B"), 0, [], "the deck is empty"),
]


@pytest.mark.parametrize(("seats", "turner", "deck", "message"), START_REFUSALS)
def test_a_start_that_cannot_be_played_is_named(seats, turner, deck, message):
    with pytest.raises(IllegalEvent) as err:
        Match.new(seats, deck, first_turner=turner)
    assert str(err.value) == message


def test_the_largest_table_and_the_last_turner_can_start():
    assert Match.new(tuple("ABCDEFGH"), [DOG_CARD]).seats == tuple("ABCDEFGH")
    assert Match.new(("A", "B"), [DOG_CARD], first_turner=1).turner == "B"


PLAY_REFUSALS = [
    (lambda: Match.new(("Ada", "Ben"), [DOG_CARD]), lambda m: m.reveal(DOG_CARD, -1),
     "reveal: t_ns must be a non-negative integer, got -1"),
    (_open, lambda m: m.reveal(DOG_CARD, 5 * S),
     f"reveal: round 0 ({DOG_CARD}) is still open"),
    (_settled, lambda m: m.reveal(VIKING_CARD, 5 * S),
     "reveal: not every figure is back on its pad"),
    (lambda: Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD]),
     lambda m: m.reveal(VIKING_CARD, S),
     f"reveal: {VIKING_CARD} is not the top card of the pile ({DOG_CARD})"),
    (_settled, lambda m: _then(m, lambda m: m.figures_home(4 * S),
                               lambda m: m.reveal(VIKING_CARD, 4 * S - 1)),
     "reveal: t_ns 3999999999 is before the previous event (4000000000)"),
    (lambda: Match.new(("Ada", "Ben"), [DOG_CARD]), lambda m: m.grab("Ada", "dog", S),
     "grab: no card has been revealed yet"),
    (_settled, lambda m: m.grab("Ben", "dog", 4 * S),
     "grab: no card is open (round 0 is settled; the next card has not been revealed)"),
    (_open, lambda m: m.grab("Ada", "dog", True),
     "grab: t_ns must be a non-negative integer, got True"),
    (_open, lambda m: m.grab("Zed", "dog", 2 * S), "grab: unknown seat 'Zed' (seats: Ada, Ben)"),
    (_open, lambda m: m.grab("Ada", "cat", 2 * S),
     "grab: unknown figure 'cat' (expected one of ship, viking, child, chest, dog)"),
    (_open, lambda m: m.grab("Ada", "dog", 2 * S, 1.5),
     "grab: uncertainty_ns must be a non-negative integer"),
    (_open, lambda m: m.grab("Ada", "dog", 2 * S, -1),
     "grab: uncertainty_ns must be a non-negative integer"),
    (_open, lambda m: m.grab("Ada", "dog", 2 * S, handicap_ns=True),
     "grab: handicap_ns must be a non-negative integer"),
    (_open, lambda m: _then(m, lambda m: m.grab("Ada", "ship", 2 * S),
                            lambda m: m.grab("Ada", "dog", 2 * S + 1)),
     "grab: Ada is locked out until the next card (wrong grab on this card)"),
    (_open, lambda m: _then(m, lambda m: m.grab("Ada", "dog", 2 * S),
                            lambda m: m.grab("Ben", "dog", 2 * S + 300 * MS)),
     "grab: timed at 2300000000 ns, when the claim window closed (2300000000 ns); "
     "it does not count"),
    (_open, lambda m: m.grab("Ada", "dog", 10 * S, handicap_ns=S),
     "grab: timed at 11000000000 ns, when the card timed out (11000000000 ns); "
     "it does not count"),
]


@pytest.mark.parametrize(("make", "act", "message"), PLAY_REFUSALS)
def test_each_refused_reveal_and_grab_is_named_word_for_word(make, act, message):
    m = make()
    with pytest.raises(IllegalEvent) as err:
        act(m)
    assert str(err.value) == message


def test_the_edges_that_are_allowed():
    assert Match.new(("Ada", "Ben"), [DOG_CARD]).reveal(DOG_CARD, 0) == []  # time 0 is a time
    m = _settled()
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 4 * S)  # at the same instant as the last event
    m = _open()
    m.grab("Ada", "dog", 2 * S)
    m.grab("Ben", "dog", 2 * S + 300 * MS - 1)  # the last ns of the claim window counts
    assert len(m.rounds[0].claims) == 2


def test_a_start_with_a_bad_target_or_card_and_play_after_the_end_are_named():
    with pytest.raises(IllegalEvent) as err:
        Match.new(("A", "B"), [DOG_CARD], rules=MatchRules(target=-1))
    assert str(err.value) == "target must be 0 (whole deck) or more, got -1"
    with pytest.raises(IllegalEvent) as err:
        Match.new(("A", "B"), ["ship:yellow/red+yellow"])
    assert str(err.value).startswith("the deck holds an unusable card: ship:yellow/red+yellow: "
                                     "no unique answer: ")
    for act, message in ((lambda m: m.reveal(VIKING_CARD, 5 * S), "reveal"),
                         (lambda m: m.grab("Ben", "viking", 5 * S), "grab")):
        with pytest.raises(IllegalEvent) as err:
            act(ended())
        assert str(err.value) == f"{message}: the match has ended (won by Ada)"

"""The match referee: rules from the rule book and the refereeing decisions."""

from __future__ import annotations

import pytest

from controller.errors import IllegalEvent
from controller.knapp.cards import Card, Figure
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import MatchRules, TieRule, Variant
from controller.knapp.match import Match, Outcome, Phase

MS = 1_000_000
S = 1_000_000_000

# Answers: ship:yellow/red+green -> dog; viking:red/blue+white -> viking;
# chest:blue/green+white -> viking; dog:white/red+yellow -> dog.
DOG_CARD = Card.parse("ship:yellow/red+green")
VIKING_CARD = Card.parse("viking:red/blue+white")
VIKING_CARD_2 = Card.parse("chest:blue/green+white")
DOG_CARD_2 = Card.parse("dog:white/red+yellow")


def new(cards: list[Card] | None = None, seats: tuple[str, ...] = ("Ada", "Ben", "Cleo"),
        **rules: object) -> Match:
    deck = cards if cards is not None else shuffled_deck(3)
    return Match.new(seats, deck, rules=MatchRules(**rules))  # type: ignore[arg-type]


def play_card(m: Match, t: int) -> Card:
    """Reveal the next card at t."""
    if m.phase is Phase.CLEARING:
        m.figures_home(t - S)
    card = m.next_card
    assert card is not None
    m.reveal(card, t)
    return card


def test_correct_grab_wins_the_card_after_the_window() -> None:
    # seed: "Did you snap the correct wooden figure? ... you receive the revealed card."
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, 10 * S)
    v = m.grab("Ben", "dog", 10 * S + 900 * MS, 50_000)
    assert v[0].provisional and v[0].winner == "Ben"
    assert m.advance(10 * S + 1100 * MS) == []  # window not over yet
    final = m.advance(10 * S + 1200 * MS)
    assert final[0].outcome == "won" and final[0].winner == "Ben"
    assert m.scores() == {"Ada": 0, "Ben": 1, "Cleo": 0}
    assert m.phase is Phase.CLEARING


def test_winner_turns_the_next_card() -> None:
    # seed: "You remain the one turning cards over until another player snaps a correct figure."
    m = new([DOG_CARD, VIKING_CARD, DOG_CARD_2])
    m.reveal(DOG_CARD, S)
    m.grab("Cleo", "dog", 2 * S)
    m.advance(3 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    assert m.rounds[-1].turner == "Cleo"


def test_wrong_grab_locks_out_until_next_card() -> None:
    # seed: "Did you snap a wrong wooden figure? ...
    #        You may only rejoin the game with the next card."
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", S + 700 * MS)
    before = m.to_json()
    with pytest.raises(IllegalEvent, match="Ada is locked out until the next card"):
        m.grab("Ada", "dog", S + 900 * MS)
    assert m.to_json() == before
    m.grab("Ben", "dog", S + 1500 * MS)
    m.advance(S + 1800 * MS)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.grab("Ada", "viking", 6 * S)  # back in the game
    assert m.rounds[-1].claims[-1].correct


def test_all_wrong_sends_the_card_to_the_box_at_once() -> None:
    # seed: "several players, or even all of them, end up holding a wrong wooden figure ...
    # the card is placed back in the box."
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", 2 * S)
    m.grab("Ben", "viking", 2 * S + 10 * MS)
    v = m.grab("Cleo", "chest", 2 * S + 20 * MS)
    assert v[0].outcome == "boxed"
    assert m.boxed == [DOG_CARD]
    assert "every seat grabbed a wrong figure" in m.rounds[0].reason


def test_nobody_takes_the_card_before_the_timeout() -> None:
    m = new([DOG_CARD, VIKING_CARD], card_timeout_ns=10 * S)
    m.reveal(DOG_CARD, S)
    assert m.advance(10 * S) == []
    v = m.advance(11 * S)
    assert v[0].outcome == "boxed" and "nobody took the card" in v[0].reason


def test_first_to_five_wins_and_later_events_are_rejected() -> None:
    # seed: "The game ends as soon as a player has won the fifth card."
    m = new()
    t = S
    for _ in range(5):
        card = play_card(m, t)
        from controller.knapp.cards import solve

        m.grab("Ada", solve(card).answer, t + S)
        m.advance(t + 2 * S)
        t += 5 * S
    assert m.winners == ("Ada",) and m.phase is Phase.ENDED
    with pytest.raises(IllegalEvent, match="the match has ended"):
        m.reveal(m.next_card, t)  # type: ignore[arg-type]


def test_other_target_and_whole_deck_variants() -> None:
    # seed: "agree on a different number of cards ... or play until all cards have been distributed"
    m = new(target=2)
    from controller.knapp.cards import solve

    t = S
    for _ in range(2):
        card = play_card(m, t)
        m.grab("Ben", solve(card).answer, t + S)
        m.advance(t + 2 * S)
        t += 5 * S
    assert m.winners == ("Ben",)

    deck = [DOG_CARD, VIKING_CARD, DOG_CARD_2, VIKING_CARD_2]
    m = new(deck, target=0)
    t = S
    for who in ("Ada", "Ben", "Ada", "Ben"):
        card = play_card(m, t)
        m.grab(who, solve(card).answer, t + S)
        m.advance(t + 2 * S)
        t += 5 * S
    assert m.phase is Phase.ENDED
    assert m.winners == ("Ada", "Ben")  # ties shared


def test_unruly_wrong_grab_returns_a_won_card_to_the_box() -> None:
    # seed: "Whoever snapped a wrong wooden figure must give back a card they have already won."
    m = new([DOG_CARD, VIKING_CARD, DOG_CARD_2], variant=Variant.UNRULY)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S)
    m.advance(3 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.grab("Ada", "dog", 6 * S)  # wrong
    m.grab("Ben", "viking", 6 * S + 500 * MS)
    m.advance(7 * S)
    assert m.scores() == {"Ada": 0, "Ben": 1, "Cleo": 0}
    assert m.boxed == [DOG_CARD]
    assert m.rounds[1].penalised == ["Ada"]


def test_unruly_penalty_only_if_the_player_has_a_card() -> None:
    # seed: "This applies only if that player already has a card."
    m = new([DOG_CARD, VIKING_CARD], variant=Variant.UNRULY)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", 2 * S)
    m.grab("Ben", "dog", 3 * S)
    m.advance(4 * S)
    assert m.scores()["Ada"] == 0 and m.boxed == []


def test_wrong_grab_after_the_winner_carries_no_penalty() -> None:
    m = new([DOG_CARD, VIKING_CARD, DOG_CARD_2], variant=Variant.UNRULY)
    m.reveal(DOG_CARD, S)
    m.grab("Cleo", "dog", 2 * S)
    m.advance(3 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)
    m.grab("Ben", "viking", 6 * S)
    m.grab("Cleo", "ship", 6 * S + 100 * MS)  # after Ben already had it
    m.advance(7 * S)
    assert m.rounds[1].penalised == []
    assert m.scores()["Cleo"] == 1


def test_time_order_decides_not_arrival_order() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S + 40 * MS, 100_000)  # arrives first, happened later
    v = m.grab("Ben", "dog", 2 * S, 100_000)
    assert v[0].winner == "Ben"  # the provisional verdict already follows time
    final = m.advance(3 * S)
    assert final[0].winner == "Ben"
    assert final[0].margin_ns == 40 * MS
    assert final[0].uncertainty_ns == 200_000


def test_a_handicap_ranks_the_claim_but_the_log_keeps_the_measured_time() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 500 * MS, 100_000, "pads", handicap_ns=300 * MS)
    v = m.grab("Ben", "dog", S + 700 * MS, 100_000, "pads")
    assert v[0].winner == "Ben"  # 700 ms beats Ada's 500 + 300 ms
    final = m.advance(3 * S)
    assert final[0].winner == "Ben" and final[0].margin_ns == 100 * MS
    ada = m.rounds[0].claims[0]
    assert ada.t_ns == S + 500 * MS and ada.reaction_ns == 500 * MS
    assert ada.handicap_ns == 300 * MS
    # Replayed from its log, the match ranks the same way.
    again = Match.replay(m.events)
    assert again.rounds[0].winner == "Ben" and again.rounds[0].claims[0].handicap_ns == 300 * MS
    with pytest.raises(IllegalEvent, match="handicap_ns"):
        m2 = new([DOG_CARD, VIKING_CARD])
        m2.reveal(DOG_CARD, S)
        m2.grab("Ada", "dog", S + 500 * MS, 0, "pads", handicap_ns=-1)


def test_too_close_to_call_redeals_by_default() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S, 100_000)
    m.grab("Ben", "dog", 2 * S + MS, 100_000)  # 1 ms < 2 ms minimum band
    v = m.advance(3 * S)
    assert v[0].outcome == "redeal" and m.rounds[0].too_close
    assert "too close to call" in v[0].reason
    assert m.next_card == DOG_CARD  # dealt again
    assert m.scores() == {"Ada": 0, "Ben": 0, "Cleo": 0}


def test_tie_band_grows_with_the_uncertainty() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S, 4 * MS)
    m.grab("Ben", "dog", 2 * S + 6 * MS, 4 * MS)  # 6 ms < 4 + 4 ms
    assert m.advance(3 * S)[0].outcome == "redeal"
    m2 = new([DOG_CARD, VIKING_CARD])
    m2.reveal(DOG_CARD, S)
    m2.grab("Ada", "dog", 2 * S, 2 * MS)
    m2.grab("Ben", "dog", 2 * S + 6 * MS, 2 * MS)  # 6 ms > 2 + 2 ms
    assert m2.advance(3 * S)[0].winner == "Ada"


@pytest.mark.parametrize(("rule", "outcome", "winner"), [
    (TieRule.BOX, "boxed", None), (TieRule.EARLIER, "won", "Ada"),
])
def test_other_tie_rules(rule: TieRule, outcome: str, winner: str | None) -> None:
    m = new([DOG_CARD, VIKING_CARD], tie_rule=rule)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S)
    m.grab("Ben", "dog", 2 * S + MS // 2)
    v = m.advance(3 * S)[0]
    assert (v.outcome, v.winner) == (outcome, winner)
    assert m.rounds[0].too_close


def test_anticipation_is_flagged_but_counts_only_if_configured() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 200 * MS)
    claim = m.rounds[0].claims[0]
    assert claim.anticipation and claim.correct and claim.reaction_ns == 200 * MS
    assert m.advance(2 * S)[0].winner == "Ada"

    m = new([DOG_CARD, VIKING_CARD], anticipation_is_wrong=True)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 200 * MS)
    assert not m.rounds[0].claims[0].correct and "Ada" in m.rounds[0].locked


def test_better_reveal_measure_replaces_the_shown_time() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.reveal_time(S + 30 * MS, measure="paint", uncertainty_ns=8 * MS)
    m.reveal_time(S + 20 * MS, measure="shown")  # worse measure: ignored
    rnd = m.rounds[0]
    assert (rnd.reveal_ns, rnd.reveal_measure.label) == (S + 30 * MS, "paint")
    m.reveal_time(S + 45 * MS, measure="photon", uncertainty_ns=100_000)
    m.grab("Ada", "dog", S + 300 * MS)
    assert rnd.reveal_measure.label == "photon"
    # 255 ms after the photons: not an anticipation, though 300 ms after 'shown'
    assert rnd.claims[0].reaction_ns == 255 * MS and not rnd.claims[0].anticipation


def test_a_better_reveal_measure_judges_the_open_card_again() -> None:
    # The photons came 40 ms after 'shown': a grab 270 ms after 'shown' was 230 ms
    # after the card could be seen, an anticipation.
    m = new([DOG_CARD, VIKING_CARD], anticipation_is_wrong=True)
    m.reveal(DOG_CARD, S)
    assert m.grab("Ada", "dog", S + 270 * MS)[0].winner == "Ada"
    m.grab("Ben", "dog", S + 500 * MS)  # inside the claim window Ada's grab opened
    v = m.reveal_time(S + 40 * MS, measure="photon")
    ada, ben = m.rounds[0].claims
    assert (ada.anticipation, ada.correct, ada.reaction_ns) == (True, False, 230 * MS)
    assert (ben.anticipation, ben.correct, ben.reaction_ns) == (False, True, 460 * MS)
    assert m.rounds[0].locked == {"Ada"}
    assert v[0].provisional and v[0].winner == "Ben"  # the provisional verdict follows
    assert m.advance(2 * S)[0].winner == "Ben"
    assert Match.replay(m.events).to_json() == m.to_json()


def test_a_better_reveal_measure_only_flags_when_anticipation_is_not_wrong() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 270 * MS)
    assert m.reveal_time(S + 40 * MS, measure="photon") == []
    claim = m.rounds[0].claims[0]
    assert claim.anticipation and claim.correct and m.rounds[0].locked == set()


def test_a_better_reveal_measure_can_lock_out_the_last_seat() -> None:
    m = new([DOG_CARD, VIKING_CARD], seats=("Ada", "Ben"), anticipation_is_wrong=True)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "ship", S + 500 * MS)  # wrong
    m.grab("Ben", "dog", S + 260 * MS)
    v = m.reveal_time(S + 30 * MS, measure="paint")
    assert v[0].outcome == "boxed" and m.boxed == [DOG_CARD]
    assert Match.replay(m.events).to_json() == m.to_json()


def test_a_later_measure_leaves_a_settled_verdict_alone() -> None:
    m = new([DOG_CARD, VIKING_CARD], anticipation_is_wrong=True)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 270 * MS)
    m.advance(2 * S)
    assert m.reveal_time(S + 40 * MS, measure="photon", round_index=0) == []
    rnd = m.rounds[0]
    assert rnd.winner == "Ada" and rnd.claims[0].correct
    assert rnd.claims[0].reaction_ns == 230 * MS  # the reaction time is corrected


def test_a_grab_timed_before_the_reveal_is_an_anticipation() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S - 50 * MS)
    claim = m.rounds[0].claims[0]
    assert claim.anticipation and claim.reaction_ns == -50 * MS


def test_after_the_match_only_corrections_and_evidence_are_taken() -> None:
    m = new([DOG_CARD, VIKING_CARD], target=1)
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S)
    m.advance(3 * S)
    assert m.phase is Phase.ENDED
    before = m.to_json()
    for action in (lambda: m.figures_home(4 * S), lambda: m.reveal_time(S, round_index=0),
                   lambda: m.grab("Ben", "dog", 4 * S), lambda: m.reveal(VIKING_CARD, 5 * S),
                   lambda: m.abandon("late")):
        with pytest.raises(IllegalEvent, match="the match has ended"):
            action()
        assert m.to_json() == before
    m.evidence(0, "a" * 64, "photo-finish")  # saved after the verdict
    m.undo("Ben's hand was first")  # a correction reopens the match
    assert m.phase is Phase.CLEARING and m.winners == ()
    m.figures_home(4 * S)
    m.reveal(DOG_CARD, 5 * S)


def test_next_card_only_when_figures_are_home() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S)
    m.advance(3 * S)
    with pytest.raises(IllegalEvent, match="not every figure is back"):
        m.reveal(VIKING_CARD, 4 * S)
    m.figures_home(4 * S)
    m.reveal(VIKING_CARD, 5 * S)


@pytest.mark.parametrize(("action", "message"), [
    (lambda m: m.grab("Ada", "dog", S), "no card has been revealed yet"),
    (lambda m: m.reveal(VIKING_CARD, S), "not the top card of the pile"),
    (lambda m: m.reveal("ship:yellow/red", S), "exactly two colours"),
    (lambda m: m.figures_home(S), "already home"),
    (lambda m: m.undo("oops"), "no verdict to take back"),
    (lambda m: m.award(0, "Ada", "x"), "no round 0"),
    (lambda m: m.reveal(DOG_CARD, -5), "non-negative integer"),
])
def test_illegal_inputs_before_any_card(action: object, message: str) -> None:
    m = new([DOG_CARD, VIKING_CARD])
    before = m.to_json()
    with pytest.raises(IllegalEvent, match=message):
        action(m)  # type: ignore[operator]
    assert m.to_json() == before


@pytest.mark.parametrize(("action", "message"), [
    (lambda m: m.grab("Zed", "dog", 2 * S), "unknown seat 'Zed'"),
    (lambda m: m.grab("Ada", "cat", 2 * S), "unknown figure 'cat'"),
    (lambda m: m.grab("Ben", "dog", 2 * S), "Ben already holds a figure"),
    (lambda m: m.reveal(VIKING_CARD, 3 * S), "still open"),
    (lambda m: m.undo("x"), "a card is open"),
    (lambda m: m.void(0, " "), "needs a reason"),
    (lambda m: m.apply(object()), "cannot take"),  # type: ignore[arg-type]
])
def test_illegal_inputs_while_a_card_is_open(action: object, message: str) -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ben", "dog", S + 800 * MS)
    before = m.to_json()
    n = len(m.events)
    with pytest.raises(IllegalEvent, match=message):
        action(m)  # type: ignore[operator]
    assert m.to_json() == before and len(m.events) == n


def test_sink_sees_only_accepted_events_and_failure_changes_nothing() -> None:
    seen: list[str] = []
    m = Match.new(("A", "B"), [DOG_CARD, VIKING_CARD], sink=lambda e: seen.append(e.kind))
    m.reveal(DOG_CARD, S)
    with pytest.raises(IllegalEvent):
        m.grab("C", "dog", 2 * S)
    assert seen == ["started", "revealed"]

    def broken(_e: object) -> None:
        raise OSError("disk full")

    m2 = Match.replay(m.events, sink=broken)
    before = m2.to_json()
    with pytest.raises(OSError):
        m2.grab("A", "dog", 2 * S)
    assert m2.to_json() == before


def test_corrections_undo_award_void_are_events() -> None:
    m = new([DOG_CARD, VIKING_CARD, DOG_CARD_2, VIKING_CARD_2])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", 2 * S)
    m.advance(3 * S)
    m.undo("Ben's hand was on it first, re-deal")
    assert m.scores()["Ada"] == 0 and m.next_card == DOG_CARD
    assert m.rounds[0].outcome is Outcome.UNDONE
    m.figures_home(4 * S)
    m.reveal(DOG_CARD, 5 * S)
    m.grab("Ben", "dog", 6 * S)
    m.advance(7 * S)
    m.award(1, "Cleo", "video shows Cleo first")
    assert m.scores() == {"Ada": 0, "Ben": 0, "Cleo": 1}
    assert m.rounds[1].corrections[0]["winner"] == "Ben"
    m.void(1, "card was misprinted")
    assert m.scores()["Cleo"] == 0 and m.boxed == [DOG_CARD]
    kinds = [e.kind for e in m.events]
    assert kinds.count("undone") == kinds.count("awarded") == kinds.count("voided") == 1
    assert Match.replay(m.events).to_json() == m.to_json()


def test_award_can_end_the_match_and_void_can_reopen_it() -> None:
    from controller.knapp.cards import solve

    m = new(target=2)
    t = S
    card = play_card(m, t)
    m.grab("Ada", solve(card).answer, t + S)
    m.advance(t + 2 * S)
    t += 5 * S
    card = play_card(m, t)
    m.grab("Ben", solve(card).answer, t + S)
    m.advance(t + 2 * S)
    m.award(1, "Ada", "Ada's hand was first on the video")
    assert m.winners == ("Ada",)
    m.void(1, "misdeal")
    assert m.winners == () and m.phase is Phase.CLEARING


def test_replay_rebuilds_the_same_state() -> None:
    m = new()
    from controller.knapp.cards import solve

    t = S
    while m.phase is not Phase.ENDED:
        card = play_card(m, t)
        m.grab("Cleo", "ship" if solve(card).answer is not Figure.SHIP else "dog", t + S)
        m.grab("Ben", solve(card).answer, t + S + 10 * MS)
        m.advance(t + 2 * S)
        t += 5 * S
    assert Match.replay(m.events).to_json() == m.to_json()
    assert m.winners == ("Ben",)


def test_abandon_stops_the_match_and_boxes_the_open_card() -> None:
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.abandon("the café closes")
    assert m.phase is Phase.ENDED and m.winners == ()
    assert m.boxed == [DOG_CARD] and m.rounds[0].outcome is Outcome.VOID
    with pytest.raises(IllegalEvent, match="abandoned"):
        m.grab("Ada", "dog", 2 * S)
    with pytest.raises(IllegalEvent, match="abandoned"):
        m.abandon("again")
    assert Match.replay(m.events).to_json() == m.to_json()


def test_a_grab_timed_after_the_card_was_due_does_not_count() -> None:
    """Time order decides, not arrival order: whether `advance` ran first or not,
    a grab timed after the timeout (or after the claim window) changes nothing."""
    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    due = m.due_ns()
    assert due is not None
    before = m.to_json()
    with pytest.raises(IllegalEvent, match="when the card timed out"):
        m.grab("Ada", "dog", due)
    assert m.to_json() == before
    assert m.advance(due)[0].outcome == "boxed"

    m = new([DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    m.grab("Ada", "dog", S + 700 * MS)
    window_end = m.due_ns()
    assert window_end is not None
    m.grab("Ben", "dog", window_end - 1)  # a rival claim just inside the window counts
    with pytest.raises(IllegalEvent, match="when the claim window closed"):
        m.grab("Cleo", "dog", window_end)
    assert [c.seat for c in m.rounds[0].claims] == ["Ada", "Ben"]

"""Fusion of pad lifts (when) and attributions (who) into grabs."""

from __future__ import annotations

import pytest

from controller.errors import IllegalEvent
from controller.knapp.cards import Card, Figure
from controller.knapp.match import Match, Phase
from controller.referee.fusion import Attribution, Fusion

S = 1_000_000_000
MS = 1_000_000
DOG_CARD = Card.parse("ship:yellow/red+green")  # answer: dog
VIKING_CARD = Card.parse("viking:red/blue+white")


def opened(**kw: object) -> Fusion:
    m = Match.new(("Ada", "Ben", "Cleo"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    return Fusion(m, **kw)  # type: ignore[arg-type]


def test_lift_with_one_claim_uses_the_pad_time() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 900 * MS, 50_000, "serial",
           [Attribution(Figure.DOG, "Ben", 0.97, S + 850 * MS, 33 * MS)])
    c = f.match.current.claims[0]  # type: ignore[union-attr]
    assert (c.seat, c.t_ns, c.uncertainty_ns) == ("Ben", S + 900 * MS, 50_000)
    assert c.source == "serial+camera"


def test_two_arms_become_two_grabs_at_their_contact_times() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 900 * MS, 50_000, "serial", [
        Attribution(Figure.DOG, "Cleo", 0.6, S + 880 * MS, 33 * MS),
        Attribution(Figure.DOG, "Ada", 0.4, S + 800 * MS, 33 * MS),
    ])
    claims = f.match.current.claims  # type: ignore[union-attr]
    assert [(c.seat, c.t_ns) for c in claims] == [("Ada", S + 800 * MS), ("Cleo", S + 880 * MS)]
    v = f.match.advance(3 * S)[0]
    assert v.winner == "Ada" and v.margin_ns == 80 * MS and v.uncertainty_ns == 66 * MS


def test_without_a_camera_the_table_answers() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 700 * MS, 50_000, "gpio")
    assert f.prompt() == [{"figure": "dog", "t_ns": S + 700 * MS, "uncertainty_ns": 50_000,
                           "source": "gpio", "round": 0}]
    with pytest.raises(IllegalEvent, match="unknown seat"):
        f.answer("dog", "Zed")
    f.answer("dog", "Cleo")
    assert f.prompt() == []
    c = f.match.current.claims[0]  # type: ignore[union-attr]
    assert (c.seat, c.t_ns, c.source) == ("Cleo", S + 700 * MS, "gpio+table")


def test_a_late_camera_attribution_resolves_the_prompt() -> None:
    f = opened()
    f.lift(Figure.VIKING, S + 600 * MS, 50_000, "serial")
    f.attribute(Attribution(Figure.VIKING, "Ada", 0.9, S + 550 * MS, 33 * MS))
    rnd = f.match.current
    assert rnd is not None and "Ada" in rnd.locked  # viking is wrong on this card
    f.attribute(Attribution(Figure.SHIP, "Ben", 0.9, S, 1))
    assert "matches no pending lift yet" in f.log[-1]
    # ... and is used when the pad lift arrives after the camera's decision
    f.lift(Figure.SHIP, S + 700 * MS, 50_000, "serial")
    assert rnd.claims[-1].seat == "Ben" and rnd.claims[-1].t_ns == S + 700 * MS


def test_handicap_delays_a_seat() -> None:
    f = opened(handicaps_ns={"Ada": 300 * MS})
    f.lift(Figure.DOG, S + 500 * MS, 0, "pads", [Attribution(Figure.DOG, "Ada", 1, 0, 0)])
    c = f.match.current.claims[0]  # type: ignore[union-attr]
    # The log keeps the measured time; the handicap is its own field, used to rank.
    assert c.t_ns == S + 500 * MS and c.handicap_ns == 300 * MS
    assert c.ranked_ns == S + 800 * MS
    assert f.match.events[-1].to_json()["handicap_ns"] == 300 * MS


def test_lifts_outside_a_card_and_impossible_grabs_are_logged_not_raised() -> None:
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    f = Fusion(m)
    assert f.lift(Figure.DOG, S, 0, "pads") == []
    assert "no card is open" in f.log[-1]
    m.reveal(DOG_CARD, 2 * S)
    f.lift(Figure.SHIP, 3 * S, 0, "pads", [Attribution(Figure.SHIP, "Ada", 1, 0, 0)])
    f.lift(Figure.DOG, 3 * S + MS, 0, "pads", [Attribution(Figure.DOG, "Ada", 1, 0, 0)])
    assert "locked out" in f.log[-1]


def test_figures_home_when_the_last_one_is_placed() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 900 * MS, 0, "pads", [Attribution(Figure.DOG, "Ben", 1, 0, 0)])
    f.lift(Figure.SHIP, S + 950 * MS, 0, "pads", [Attribution(Figure.SHIP, "Ada", 1, 0, 0)])
    f.match.advance(3 * S)
    assert f.match.phase is Phase.CLEARING
    f.place(Figure.DOG, 4 * S)
    assert f.match.phase is Phase.CLEARING
    f.place(Figure.SHIP, 5 * S)
    assert f.match.phase is Phase.READY
    assert f.match.events[-1].t_ns == 5 * S  # type: ignore[attr-defined]


def test_a_figure_on_another_figures_pad_is_pointed_out() -> None:
    from controller.referee.fusion import misplaced

    states = {Figure.SHIP: "figure", Figure.DOG: "covered", Figure.CHEST: "empty"}
    assert misplaced(states, set(), arms_over_table=False) == [Figure.DOG]
    assert misplaced(states, {Figure.DOG}, arms_over_table=False) == []  # it is lifted
    assert misplaced(states, set(), arms_over_table=True) == []  # an arm may cover it


def test_an_early_attribution_is_kept_for_its_own_figure_only() -> None:
    f = opened()
    f.attribute(Attribution(Figure.DOG, "Ada", 0.9, S + 400 * MS, 33 * MS))
    assert f.log[-1] == "attribution of dog to Ada matches no pending lift yet"
    f.lift(Figure.VIKING, S + 500 * MS, 50_000, "serial")  # someone else's lift
    assert [p["figure"] for p in f.prompt()] == ["viking"]
    assert f.match.current.claims == []  # type: ignore[union-attr]
    f.lift(Figure.DOG, S + 600 * MS, 50_000, "serial")  # the decision waited for this one
    assert [c.seat for c in f.match.current.claims] == ["Ada"]  # type: ignore[union-attr]


def test_an_attribution_resolves_only_the_lift_of_its_figure() -> None:
    f = opened()
    f.lift(Figure.VIKING, S + 500 * MS, 50_000, "serial")
    f.attribute(Attribution(Figure.DOG, "Ben", 0.9, S + 450 * MS, 33 * MS))
    assert [p["figure"] for p in f.prompt()] == ["viking"]  # still waiting for who
    f.attribute(Attribution(Figure.VIKING, "Cleo", 0.9, S + 450 * MS, 33 * MS))
    assert f.prompt() == []
    c = f.match.current.claims[0]  # type: ignore[union-attr]
    assert (c.seat, c.t_ns, c.source) == ("Cleo", S + 500 * MS, "serial+camera")


def test_two_arms_report_both_grabs_and_their_contact_source() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 900 * MS, 50_000, "serial", [
        Attribution(Figure.DOG, "Cleo", 0.6, S + 880 * MS, 33 * MS, "camera"),
        Attribution(Figure.DOG, "Ada", 0.4, S + 800 * MS, 33 * MS, "camera"),
    ])
    claims = f.match.current.claims  # type: ignore[union-attr]
    assert [c.source for c in claims] == ["camera contact", "camera contact"]
    assert [c.handicap_ns for c in claims] == [0, 0]  # no handicap configured


def test_answers_name_what_is_wrong_and_touch_only_their_figure() -> None:
    f = opened()
    f.lift(Figure.VIKING, S + 500 * MS, 50_000, "gpio")
    with pytest.raises(IllegalEvent, match=r"^unknown seat 'Zed' \(seats: Ada, Ben, Cleo\)$"):
        f.answer(Figure.VIKING, "Zed")
    with pytest.raises(IllegalEvent, match=r"^no lift of the dog is waiting to be attributed$"):
        f.answer("dog", "Ada")
    assert [p["figure"] for p in f.prompt()] == ["viking"]
    with pytest.raises(IllegalEvent, match=r"^unknown figure 'cat' \(ship, viking, child, "
                                           r"chest, dog\)$"):
        f.answer("cat", "Ada")
    f.answer(Figure.VIKING, "Ben")
    assert f.match.current.claims[0].seat == "Ben"  # type: ignore[union-attr]


def test_a_lift_nobody_attributed_does_not_outlive_its_card() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 500 * MS, 50_000, "gpio")  # nobody says who took it
    f.match.advance(60 * S)  # the card times out
    assert f.match.phase is Phase.CLEARING
    assert f.prompt() == []  # a settled card's lift is not asked about
    f.place(Figure.DOG, 61 * S)
    assert f.match.phase is Phase.READY and f.pending == []
    f.match.reveal(VIKING_CARD, 62 * S)
    assert f.prompt() == []
    with pytest.raises(IllegalEvent, match="no lift of the dog is waiting"):
        f.answer("dog", "Ada")


def test_figures_home_is_never_timed_before_the_last_event() -> None:
    f = opened()
    f.lift(Figure.DOG, S + 900 * MS, 0, "pads", [Attribution(Figure.DOG, "Ben", 1, 0, 0)])
    f.match.advance(3 * S)
    assert f.match.phase is Phase.CLEARING
    settled = f.match.last_t_ns
    f.place(Figure.DOG, 2 * S)  # a place stamped before the settle (a slow pad report)
    assert f.match.phase is Phase.READY
    assert f.match.events[-1].t_ns == settled  # type: ignore[attr-defined]


def test_attributions_with_no_card_open_are_logged_by_figure() -> None:
    m = Match.new(("Ada", "Ben"), [DOG_CARD])
    f = Fusion(m)
    assert f.attribute(Attribution(Figure.CHEST, "Ben", 1, 0, 0)) == []
    assert f.log[-1] == "attribution of chest while no card is open: ignored"


def test_misplaced_figures_come_in_figure_order() -> None:
    from controller.referee.fusion import misplaced

    states = {Figure.SHIP: "covered", Figure.DOG: "covered", Figure.CHEST: "covered"}
    assert misplaced(states, set(), arms_over_table=False) == [Figure.CHEST, Figure.DOG,
                                                               Figure.SHIP]


def test_the_verdict_of_the_first_of_two_arms_is_not_lost() -> None:
    """Ben is already out; Ada's arm on a wrong figure ends the card, Ben's second arm
    counts for nothing: the final verdict from Ada's grab must still come back."""
    m = Match.new(("Ada", "Ben"), [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    f = Fusion(m)
    f.lift(Figure.SHIP, S + 300 * MS, 0, "pads", [Attribution(Figure.SHIP, "Ben", 1, 0, 0)])
    verdicts = f.lift(Figure.CHEST, S + 900 * MS, 50_000, "serial", [
        Attribution(Figure.CHEST, "Ben", 0.5, S + 880 * MS, 33 * MS, "camera"),
        Attribution(Figure.CHEST, "Ada", 0.5, S + 800 * MS, 33 * MS, "camera"),
    ])
    assert [v.provisional for v in verdicts] == [False]
    assert m.phase is not Phase.OPEN
    assert "grab not counted" in f.log[-1]


def test_an_attribution_without_claims_is_logged_as_nobody() -> None:
    f = opened()
    assert f.attribute_claims(Figure.CHEST, []) == []
    assert f.log[-1] == "attribution of chest to ? matches no pending lift yet"


def test_a_second_hand_on_a_lifted_figure_is_a_claim_at_its_contact_time() -> None:
    f = opened(handicaps_ns={"Cleo": 100 * MS})
    f.lift(Figure.DOG, S + 500 * MS, 40_000, "serial", [Attribution(Figure.DOG, "Ada", 1, 0, 0)])
    f.contact("Cleo", Figure.DOG, S + 450 * MS, 8 * MS, "camera contact")
    claims = f.match.current.claims  # type: ignore[union-attr]
    cleo = next(c for c in claims if c.seat == "Cleo")
    assert (cleo.figure, cleo.t_ns, cleo.uncertainty_ns, cleo.source, cleo.handicap_ns) == (
        Figure.DOG, S + 450 * MS, 8 * MS, "camera contact", 100 * MS)
    assert f.contact("Zed", Figure.DOG, S + 460 * MS, 0, "camera") == []  # logged, not raised
    assert "grab not counted" in f.log[-1]


# -- the camera's decision and the pad's lift, in either order ---------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from controller.referee.attribution import route  # noqa: E402
from controller.vision.confidence import ASK_BELOW  # noqa: E402
from controller.vision.track import Claim, Decision  # noqa: E402

SEATS = ("Ada", "Ben", "Cleo")
PAD_UNC = 40_000


@st.composite
def a_lift_and_a_decision(draw: st.DrawFn) -> tuple[Figure, int, Decision, int]:
    """A figure lifted at some time, the camera's decision on it, and when that decision
    arrives relative to the pad's report (ns; negative: before it)."""
    figure = draw(st.sampled_from(list(Figure)))
    lift = S + draw(st.integers(600, 8000)) * MS   # contacts after the card was shown
    seat = draw(st.sampled_from([*SEATS, "Zed", None]))
    touch = lift - draw(st.integers(0, 400)) * MS
    rivals: tuple[Claim, ...] = ()
    if draw(st.booleans()):
        other = draw(st.sampled_from([s for s in SEATS if s != seat]))
        rivals = (Claim(other, lift - draw(st.integers(0, 400)) * MS, 33 * MS),)
    confidence = draw(st.sampled_from([0.0, ASK_BELOW - 1e-6, ASK_BELOW, 0.97, 1.0]))
    decision = Decision("grab", seat, figure, touch, lift + draw(st.integers(-40, 40)) * MS,
                        33 * MS, confidence, rivals)
    return figure, lift, decision, draw(st.integers(-900, 900)) * MS


def _play(figure: Figure, lift: int, decision: Decision, camera_first: bool) -> Fusion:
    f = opened()
    claims = route(decision, SEATS)

    def camera() -> None:
        if claims is not None:
            f.attribute_claims(figure, claims)

    def pad() -> None:
        f.lift(figure, lift, PAD_UNC, "serial")

    for step in ((camera, pad) if camera_first else (pad, camera)):
        step()
    return f


def _claims(f: Fusion) -> list[tuple[str, str, int, int]]:
    rnd = f.match.current
    assert rnd is not None
    return [(c.seat, c.figure.value, c.t_ns, c.uncertainty_ns) for c in rnd.claims]


@settings(max_examples=300, deadline=None)
@given(a_lift_and_a_decision())
def test_the_order_and_delay_of_lift_and_decision_do_not_change_the_grabs(case) -> None:
    figure, lift, decision, delay = case
    # The decision arrives `delay` after the pad's report; only the order matters to the
    # fusion (it has no clock), and both orders must give the same grabs.
    f = _play(figure, lift, decision, camera_first=delay < 0)
    g = _play(figure, lift, decision, camera_first=delay >= 0)
    assert _claims(f) == _claims(g)
    assert f.prompt() == g.prompt()
    confident = (decision.seat in SEATS and decision.confidence >= ASK_BELOW)
    if not confident:
        # Unsure, or no seat: nothing is guessed; the table is asked, with the pad's time.
        assert _claims(f) == []
        assert f.prompt() == [{"figure": figure.value, "t_ns": lift, "uncertainty_ns": PAD_UNC,
                               "source": "serial", "round": 0}]
        f.answer(figure, "Cleo")
        assert _claims(f) == [("Cleo", figure.value, lift, PAD_UNC)]
        return
    assert f.prompt() == []
    seats = [c[0] for c in _claims(f)]
    if not decision.other_claims:
        # One hand on it: the grab is the camera's seat at the pad's time.
        assert _claims(f) == [(decision.seat, figure.value, lift, PAD_UNC)]
    else:
        # Two hands on it: each at its own first contact, so the referee orders them (or
        # calls it too close); the match may refuse the later one (its claim window).
        rival = decision.other_claims[0]
        assert seats and set(seats) <= {decision.seat, rival.seat}
        times = {c[0]: c[2] for c in _claims(f)}
        assert times.get(rival.seat, rival.touch_ns) == rival.touch_ns
        assert times.get(decision.seat, decision.touch_ns) == decision.touch_ns


def test_a_decision_below_the_threshold_is_not_a_grab_but_a_question() -> None:
    d = Decision("grab", "Ben", Figure.DOG, S, S + 100 * MS, 33 * MS, ASK_BELOW - 0.01)
    assert route(d, SEATS) is None
    sure = Decision("grab", "Ben", Figure.DOG, S, S + 100 * MS, 33 * MS, ASK_BELOW)
    assert [(c.seat, c.confidence) for c in route(sure, SEATS) or []] == [("Ben", ASK_BELOW)]
    assert route(Decision("grab", None, Figure.DOG, S, S, 1, 1.0), SEATS) is None
    assert route(Decision("grab", "Zed", Figure.DOG, S, S, 1, 1.0), SEATS) is None
    assert route(Decision("feint", "Ben", Figure.DOG, S, None, 1, 1.0), SEATS) is None


# -- a decision (or a pad lift) so late that the next card is already showing ---------------

from controller.referee.attribution import CameraAttribution  # noqa: E402
from controller.referee.health import Health, Level  # noqa: E402


class _Link:
    """The camera link as `CameraAttribution` reads it: health and the queued decisions."""

    def __init__(self) -> None:
        self.queue: list[Decision] = []
        self.analyser = None

    def health(self) -> Health:
        return Health(Level.OK, "")

    def poll(self) -> list[Decision]:
        out, self.queue = self.queue, []
        return out


@st.composite
def a_late_decision(draw: st.DrawFn) -> dict[str, object]:
    """Card 0's lift, whose camera decision comes only after card 1 is dealt (or while the
    figures go home), and what happens on card 1 meanwhile, in any order."""
    first = draw(st.sampled_from(list(Figure)))
    lift0 = S + draw(st.integers(300, 9000)) * MS
    countdown = draw(st.integers(0, 3000)) * MS
    second = draw(st.sampled_from(list(Figure)))
    delay1 = draw(st.integers(150, 4000)) * MS
    seat0 = draw(st.sampled_from(SEATS))
    seat1 = draw(st.sampled_from(SEATS))
    # 0: the late decision while the figures go home; 1-3: after card 1 was dealt,
    # before card 1's pad lift, between that lift and its decision, or after both.
    when = draw(st.integers(0, 3))
    # The camera's lift estimate for card 0 may be off by a few frames either way.
    error = draw(st.integers(-100, 100)) * MS
    return {"first": first, "lift0": lift0, "countdown": countdown, "second": second,
            "delay1": delay1, "seat0": seat0, "seat1": seat1, "when": when, "error": error}


def _late_play(case: dict[str, object], *, late: bool) -> tuple[Fusion, CameraAttribution]:
    first, second = case["first"], case["second"]
    assert isinstance(first, Figure) and isinstance(second, Figure)
    lift0, countdown, delay1 = (int(case[k]) for k in ("lift0", "countdown", "delay1"))  # type: ignore[call-overload]
    m = Match.new(SEATS, [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    f = Fusion(m)
    link = _Link()
    cam = CameraAttribution(link)  # type: ignore[arg-type]
    f.lift(first, lift0, PAD_UNC, "serial")           # waits for who took it
    m.advance(S + m.rules.card_timeout_ns)            # ... and card 0 times out
    home = S + m.rules.card_timeout_ns + 500 * MS
    f.place(first, home)
    assert m.phase is Phase.READY
    d0 = Decision("grab", str(case["seat0"]), first, lift0 - 150 * MS,
                  lift0 + int(case["error"]), 33 * MS, 0.99)  # type: ignore[call-overload]
    reveal1 = home + countdown
    lift1 = reveal1 + delay1
    d1 = Decision("grab", str(case["seat1"]), second, lift1 - 120 * MS, lift1, 33 * MS, 0.99)

    def decide(d: Decision) -> None:
        link.queue.append(d)
        cam.drain(f, SEATS)

    if late and case["when"] == 0:
        decide(d0)
    m.reveal(VIKING_CARD, reveal1)
    if late and case["when"] == 1:
        decide(d0)
    f.lift(second, lift1, PAD_UNC, "serial")
    if late and case["when"] == 2:
        decide(d0)
    decide(d1)
    if late and case["when"] == 3:
        decide(d0)
    return f, cam


@settings(max_examples=300, deadline=None)
@given(a_late_decision())
def test_a_decision_that_comes_after_the_next_card_is_dealt_stays_with_its_own_card(
        case: dict[str, object]) -> None:
    f, cam = _late_play(case, late=True)
    alone, _ = _late_play(case, late=False)
    # Card 1 is judged exactly as if card 0's decision had never come ...
    assert _claims(f) == _claims(alone)
    assert f.prompt() == alone.prompt()
    assert f.early == alone.early
    assert [(c.seat, c.figure) for c in f.match.current.claims] == [  # type: ignore[union-attr]
        (case["seat1"], case["second"])]
    # ... card 0's verdict stands (a settled card changes only by a referee correction),
    # and the decision is not lost: it is kept with card 0, for its evidence and the log.
    assert f.match.rounds[0].outcome is not None and f.match.rounds[0].claims == []
    assert [(card, fig, claims[0].seat) for card, fig, claims in f.late] == [
        (0, case["first"], case["seat0"])]
    assert cam.decisions[(0, case["first"])].seat == case["seat0"]  # type: ignore[index]
    assert cam.decisions[(1, case["second"])].seat == case["seat1"]  # type: ignore[index]


def test_a_pad_lift_reported_after_the_next_card_is_dealt_is_not_that_cards() -> None:
    m = Match.new(SEATS, [DOG_CARD, VIKING_CARD])
    m.reveal(DOG_CARD, S)
    f = Fusion(m)
    m.advance(S + m.rules.card_timeout_ns)
    f.maybe_home()
    m.reveal(VIKING_CARD, 12 * S)
    # A lift of card 0 (at 5 s) that reaches the fusion only now, with the camera's word
    # on it: neither waits in card 1's prompt nor becomes card 1's grab.
    f.lift(Figure.DOG, 5 * S, PAD_UNC, "serial")
    f.lift(Figure.SHIP, 5 * S, PAD_UNC, "serial",
           [Attribution(Figure.SHIP, "Ben", 0.99, 5 * S - 100 * MS, 33 * MS)])
    assert f.prompt() == [] and f.match.current.claims == []  # type: ignore[union-attr]
    assert "before card 1 was dealt" in f.log[-1]
    # A lift of card 1 itself still counts, even one timed before its paint report.
    f.match.reveal_time(12 * S + 40 * MS, uncertainty_ns=8 * MS, round_index=1)
    f.lift(Figure.VIKING, 12 * S + 20 * MS, PAD_UNC, "serial",
           [Attribution(Figure.VIKING, "Cleo", 0.99, 12 * S, 33 * MS)])
    assert [(c.seat, c.anticipation) for c in f.match.current.claims] == [  # type: ignore[union-attr]
        ("Cleo", True)]

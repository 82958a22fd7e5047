"""The whole table end to end: the real service, the virtual pad board over a pty, the
camera world drawn from the bots' own plans, the display's paint reports, one fake clock;
every verdict checked against the scene's truth (controller/sim/table_e2e.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.knapp.cards import Card, Figure, solve
from controller.knapp.events import MatchRules
from controller.knapp.match import Outcome, Phase
from controller.rng import Rng
from controller.sim.bots import PlannedGrab
from controller.sim.table_e2e import (
    VERDICTS,
    E2ETable,
    RoundRecord,
    TrueRound,
    classify,
    play_table,
    round_world,
    table_world,
)

S = 1_000_000_000
MS = 1_000_000
SMALL = (320, 240)   # the camera at a quarter of the world's pixels: a test's budget
CARD = Card.parse("ship:yellow/red+green")   # answer: dog
RULES = MatchRules()


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[E2ETable, list[RoundRecord]]]:
    """Three cards at a three-seat table, played once for the tests that read them."""
    table = E2ETable("test-e2e", players=3, size=SMALL)
    try:
        records = [table.play_card() for _ in range(3)]
        yield table, records
    finally:
        table.close()


@pytest.mark.slow
def test_every_card_is_judged_against_what_truly_happened(
        played: tuple[E2ETable, list[RoundRecord]]) -> None:
    table, records = played
    assert [r.index for r in records] == [0, 1, 2]
    for rec in records:
        rnd = table.service.match.rounds[rec.index]
        assert rnd.settled and rec.outcome == rnd.outcome.value  # type: ignore[union-attr]
        assert rec.verdict in VERDICTS
        assert rec.verdict == classify(rec.truth, rec.outcome, rec.winner,
                                       asked=rec.answer in rec.asked)
        # The display's paint report is the card's reveal: players react to the paint.
        assert rnd.reveal_measure.label == "paint" and rec.reveal_ns == rec.paint_ns
        assert rec.frames > 0 and rec.calibrated
        # Each lift the pads felt is a claim timed by the board within its uncertainty
        # (pads-timed claims: one hand on the figure; the camera or the table said who).
        for seat, figure, t_ns in rec.truth.lifts:
            claims = [c for c in rec.claims if c[1] == figure.value and c[0] == seat]
            for _s, _f, reaction_ms, unc_ms, source in claims:
                if source.startswith("serial"):
                    measured = rec.reveal_ns + round(reaction_ms * MS)
                    assert abs(measured - t_ns) <= unc_ms * MS + 2 * MS
        # A card the truth gives to a seat names that seat among its claims, or was asked.
        if rec.truth.taker is not None and rec.verdict == "right":
            assert rec.winner == rec.truth.taker


@pytest.mark.slow
def test_a_planted_wrong_seat_is_caught(played: tuple[E2ETable, list[RoundRecord]]) -> None:
    table, records = played
    won = next(r for r in records if r.outcome == Outcome.WON.value and r.truth.taker)
    other = next(s for s in table.seats if s != won.truth.taker)
    # The referee's correction hands the card to a seat that never took it: the checker,
    # reading the service again, calls the verdict wrong.
    table.service.correct(table.service.match_id, "award", "planted", won.index, other)
    assert table.check(won) == "wrong" and won.winner == other
    table.service.correct(table.service.match_id, "award", "put back", won.index,
                          won.truth.taker)
    assert table.check(won) == "right"


def _truth(taker: str | None, gap_ms: float | None) -> TrueRound:
    return TrueRound(Figure.DOG, taker, S if taker else None, S if taker else None,
                     "Ben" if gap_ms is not None else None,
                     None if gap_ms is None else round(gap_ms * MS), 66 * MS)


def test_the_checker_tells_right_wrong_and_near_ties() -> None:
    assert classify(_truth("Ada", None), "won", "Ada") == "right"
    assert classify(_truth("Ada", None), "won", "Ben") == "wrong"
    assert classify(_truth("Ada", None), "boxed", None) == "wrong"    # a taker lost
    assert classify(_truth(None, None), "boxed", None) == "right"
    assert classify(_truth(None, None), "won", "Ada") == "wrong"      # a card from nowhere
    assert classify(_truth("Ada", 200), "won", "Ada") == "right"
    assert classify(_truth("Ada", 200), "won", "Ben") == "wrong"      # outside the band
    assert classify(_truth("Ada", 200), "redeal", None) == "too_close_clear"
    # Inside the band only "too close" is right; a verdict naming a seat is a guess,
    # even the true one.
    assert classify(_truth("Ada", 30), "redeal", None) == "too_close"
    assert classify(_truth("Ada", 30), "won", "Ada") == "near_tie_guessed"
    assert classify(_truth("Ada", 30), "won", "Ben") == "near_tie_guessed"
    # ... unless the camera left it to the table, which said who took it.
    assert classify(_truth("Ada", 30), "won", "Ada", asked=True) == "near_tie_asked"
    assert classify(_truth("Ada", 200), "won", "Ben", asked=True) == "wrong"


def test_the_scene_is_drawn_from_the_plans() -> None:
    table = table_world("test-plans", 3, fps=30.0, size=SMALL)
    seats = table.camera.seat_names()
    paint = 5 * S
    plans = [PlannedGrab(900 * MS, seats[0], Figure.DOG),       # takes the dog
             PlannedGrab(930 * MS, seats[1], Figure.DOG),       # a second hand on it
             PlannedGrab(1_500 * MS, seats[2], Figure.SHIP)]    # after the card is decided
    scene = round_world(table, CARD, plans, paint, rules=RULES, rng=Rng("t"),
                        frame_ns=S // 30)
    assert solve(CARD).answer is Figure.DOG
    assert [p.seat for p in scene.acted] == [seats[0], seats[1]]   # 1.5 s > 0.9 s + window
    truth = scene.truth
    assert truth.taker in (seats[0], seats[1])
    # The taker's figure leaves its pad exactly when its player planned it.
    planned = {p.seat: paint + p.delay_ns for p in plans}
    assert truth.lift_ns == planned[truth.taker]
    world_lift = next(e for e in scene.world.truth if e.kind == "grab")
    assert world_lift.seat == truth.taker
    assert abs(scene.origin_ns + world_lift.lift_s * S - planned[truth.taker]) < 1_000  # type: ignore[operator]
    # Only one lift reaches the pads; the other hand closes on the dog and withdraws.
    assert [(s, f) for s, f, _ in scene.lifts] == [(truth.taker, Figure.DOG)]
    feint = next(e for e in scene.world.truth if e.kind == "feint")
    assert feint.seat != truth.taker and feint.figure is Figure.DOG
    # The taker touched first; the rival's true gap is what the checker holds the
    # verdict to.
    assert truth.touch_ns is not None and truth.touch_ns < truth.lift_ns
    if truth.rival is not None:
        assert truth.gap_ns is not None and truth.gap_ns >= 0
        assert abs(scene.origin_ns + (feint.touch_s or 0) * S
                   - (truth.touch_ns + truth.gap_ns)) < 1_000
    # The same inputs draw the same scene.
    again = round_world(table, CARD, plans, paint, rules=RULES, rng=Rng("t"), frame_ns=S // 30)
    assert again.truth == truth and again.world.truth == scene.world.truth


def test_nobody_acts_after_a_card_with_no_taker_times_out() -> None:
    table = table_world("test-plans", 3, fps=30.0, size=SMALL)
    seats = table.camera.seat_names()
    plans = [PlannedGrab(800 * MS, seats[0], Figure.SHIP),
             PlannedGrab(RULES.card_timeout_ns + S, seats[1], Figure.CHEST)]
    scene = round_world(table, CARD, plans, 5 * S, rules=RULES, rng=Rng("t"),
                        frame_ns=S // 30)
    assert [p.seat for p in scene.acted] == [seats[0]]
    assert scene.truth.taker is None
    assert classify(scene.truth, "boxed", None) == "right"


def test_a_table_world_has_the_seats_asked_for() -> None:
    for n in (2, 6):
        assert len(table_world("test-seats", n, fps=30.0, size=SMALL).players) == n
    with pytest.raises(ValueError, match="2 to 6"):
        table_world("test-seats", 7, fps=30.0)


@pytest.mark.slow
def test_the_match_goes_on_after_the_cards(played: tuple[E2ETable, list[RoundRecord]]) -> None:
    table, _ = played
    assert table.service.match.phase in (Phase.READY, Phase.OPEN)
    assert table.summary.frames == sum(r.frames for r in table.summary.records)


@pytest.mark.slow
def test_a_seed_plays_the_same_card_every_time() -> None:
    def run() -> dict[str, object]:
        data = play_table("test-again", 1, players=2, size=SMALL).to_json()
        for cost in ("cpu_s", "render_s", "camera_s", "cpu_s_per_round"):
            data.pop(cost)
        return data

    first = run()
    assert first["counts"]["rounds"] == 1  # type: ignore[index]
    assert run() == first


@pytest.mark.slow
def test_the_next_match_follows_when_one_ends() -> None:
    table = E2ETable("test-next", players=2, size=SMALL, target=1)
    try:
        first = table.play_card()
        while first.outcome != Outcome.WON.value:   # a redeal or a boxed card: go on
            first = table.play_card()
        assert table.service.match.phase is Phase.ENDED
        second = table.play_card()
    finally:
        table.close()
    assert (first.match, second.match) == (0, 1) and second.index == 0
    assert second.verdict in VERDICTS and second.outcome is not None

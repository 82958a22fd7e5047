"""Simulated players follow the published Geistesblitz figures; the driver resumes."""

from __future__ import annotations

import statistics

import pytest

from controller.knapp.cards import solve
from controller.knapp.deck import standard_deck
from controller.knapp.events import MatchRules, Variant
from controller.knapp.match import Outcome, Phase
from controller.rng import Rng
from controller.sim.bots import make_profiles, plan_round
from controller.sim.driver import Driver, match_rng, simulate, start_match
from controller.store import EventStore

NAMES = ("Ada", "Ben", "Cleo", "Dag", "Eir", "Finn", "Gro", "Hal")


def sample(true_colour: bool, n_players: int = 8, rounds: int = 400) -> tuple[list[float], float]:
    profiles = make_profiles(NAMES[:n_players], Rng(1).fork("players"))
    cards = [c for c in standard_deck() if c.true_colour == true_colour]
    times: list[float] = []
    wrong = total = 0
    for i in range(rounds):
        card = cards[i % len(cards)]
        answer = solve(card).answer
        for g in plan_round(card, profiles, Rng(2).fork(i)):
            total += 1
            if g.figure != answer:
                wrong += 1
            else:
                times.append(g.delay_ns / 1e9)
    return times, wrong / total


def test_direct_cards_median_about_one_second() -> None:
    times, wrong = sample(True)
    assert 0.8 < statistics.median(times) < 1.25  # published 985 ms
    assert 0.04 < wrong < 0.11  # published 6-9 % wrong


def test_indirect_cards_about_twice_as_slow() -> None:
    direct, _ = sample(True)
    times, _ = sample(False)
    assert 1.6 < statistics.median(times) < 2.6  # published 2052 ms
    assert 1.6 < statistics.median(times) / statistics.median(direct) < 2.6


def test_players_differ() -> None:
    profiles = make_profiles(NAMES, Rng(3))
    medians = [p.direct_median_s for p in profiles]
    assert max(medians) / min(medians) > 1.3
    assert all(0.06 <= p.error_rate <= 0.09 for p in profiles)


def test_a_round_plan_depends_only_on_seed_and_round() -> None:
    profiles = make_profiles(NAMES[:3], Rng(1))
    card = standard_deck()[0]
    assert plan_round(card, profiles, Rng(5).fork(3)) == plan_round(card, profiles,
                                                                     Rng(5).fork(3))
    assert plan_round(card, profiles, Rng(5).fork(3)) != plan_round(card, profiles,
                                                                     Rng(5).fork(4))


def test_driver_resumes_from_any_prefix_of_the_log() -> None:
    seats = NAMES[:3]
    profiles = make_profiles(seats, Rng(9).fork("players"))
    full = EventStore(":memory:", durable=False)
    mid, m = start_match(full, seats, MatchRules(), 9, 0)
    Driver(m, profiles, match_rng(9, 0)).run()
    assert m.phase is Phase.ENDED
    bodies = [r.body for r in full.records(mid)]
    for cut in (1, 2, 5, len(bodies) // 2, len(bodies) - 1):
        part = EventStore(":memory:", durable=False)
        pid, pm = start_match(part, seats, MatchRules(), 9, 0, match_id=mid)
        d = Driver(pm, profiles, match_rng(9, 0))
        while len(pm.events) < cut:
            d.step()
        resumed = part.open_match(pid)  # a new process would start here
        Driver(resumed, profiles, match_rng(9, 0)).run()
        assert [r.body for r in part.records(pid)] == bodies


def test_summary_counts_shared_wins_and_splits_their_share() -> None:
    # Seed 2, match 2 of a play-out between two players ends 30 to 30.
    summary = simulate(2, 3, 2, rules=MatchRules(target=0))
    assert [m.winners for m in summary.per_match] == [["Ben"], ["Ben"], ["Ada", "Ben"]]
    assert summary.per_match[2].scores == {"Ada": 30, "Ben": 30}
    assert summary.shared_wins == 1
    # the shared win counts half for each
    assert summary.win_share == pytest.approx({"Ada": 0.5 / 3, "Ben": 2.5 / 3})
    assert summary.to_json()["shared_wins"] == 1


def test_boxed_cards_include_the_unruly_penalties() -> None:
    store = EventStore(":memory:", durable=False)
    summary = simulate(4, 20, 0, rules=MatchRules(variant=Variant.UNRULY), store=store)
    given_back = 0
    for ms in summary.per_match:
        m = store.open_match(ms.match_id)
        nobody = sum(r.outcome is Outcome.BOXED for r in m.rounds)
        assert ms.boxed == len(m.boxed) >= nobody
        given_back += len(m.boxed) - nobody
    assert given_back > 0  # won cards returned to the box for wrong grabs count too
    assert summary.boxed_cards == sum(ms.boxed for ms in summary.per_match)
    assert summary.boxed_per_match == summary.boxed_cards / 20

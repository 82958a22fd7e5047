"""Simulated players follow the published Geistesblitz figures; the driver resumes."""

from __future__ import annotations

import statistics

from controller.knapp.cards import solve
from controller.knapp.deck import standard_deck
from controller.knapp.events import MatchRules
from controller.knapp.match import Phase
from controller.rng import Rng
from controller.sim.bots import make_profiles, plan_round
from controller.sim.driver import Driver, match_rng, start_match
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

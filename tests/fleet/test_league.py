"""League nights: everyone meets everyone across the tables, and standings from what was played."""

from __future__ import annotations

from itertools import combinations

import pytest

from controller.fleet.league import Fixture, LeagueError, plan, standings
from controller.fleet.summaries import leaderboard

PLAYERS = ["Ada", "Ben", "Cleo", "Dan", "Eve", "Finn"]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8])
def test_with_pairs_every_two_players_meet_exactly_once(n: int) -> None:
    players = [f"P{i}" for i in range(n)]
    fixtures = plan(players, ["t1", "t2", "t3"])
    pairs = [frozenset(f.players) for f in fixtures]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, map(frozenset,
                                                                combinations(players, 2))))
    for r in {f.round for f in fixtures}:  # nobody plays twice in a round
        names = [p for f in fixtures if f.round == r for p in f.players]
        assert len(names) == len(set(names))


def test_groups_fill_the_tables_then_a_second_wave() -> None:
    fixtures = plan(PLAYERS, ["t1", "t2"], group=2, rounds=1)
    assert [(f.round, f.wave, f.table) for f in fixtures] == [(1, 1, "t1"), (1, 1, "t2"),
                                                              (1, 2, "t1")]
    three = plan(PLAYERS, ["t1", "t2"], group=3, rounds=2)
    assert all(len(f.players) == 3 for f in three) and len(three) == 4
    assert Fixture.from_json(three[0].to_json()) == three[0]


@pytest.mark.parametrize(("players", "tables", "group", "reason"), [
    (["Ada"], ["t1"], 2, "2 to 8 seats"),
    (["Ada", "Ada"], ["t1"], 2, "duplicate"),
    (PLAYERS, [], 2, "tables"),
    (PLAYERS, ["t1", "t1"], 2, "distinct"),
    (PLAYERS, ["t1"], 9, "2 to 8 players"),
    (["Ada", "Ben"], ["t1"], 3, "cannot fill"),
])
def test_a_league_that_cannot_be_planned_says_why(players: list[str], tables: list[str],
                                                  group: int, reason: str) -> None:
    with pytest.raises(LeagueError, match=reason):
        plan(players, tables, group=group)


def match(table: str, mid: str, scores: dict[str, int], started: float = 10.0,
          phase: str = "ended") -> dict[str, object]:
    best = max(scores.values())
    return {"table": table, "match": mid, "started": started, "seats": list(scores),
            "scores": scores, "winners": [s for s, v in scores.items() if v == best]
            if phase == "ended" else [], "phase": phase, "abandoned": None}


def test_standings_count_the_first_fitting_match_of_each_fixture() -> None:
    fixtures = plan(["Ada", "Ben", "Cleo", "Dan"], ["t1", "t2"])
    first = fixtures[0]
    a, b = first.players
    matches = [
        match(first.table, "old", {a: 5, b: 0}, started=1.0),  # before the league: not counted
        match("t9", "elsewhere", {a: 5, b: 0}),  # another table
        match(first.table, "open", {a: 1, b: 0}, phase="open"),  # not over
        match(first.table, "m1", {a: 2, b: 5}),
        match(first.table, "m2", {a: 5, b: 0}),  # a second match of the same two: not this one
    ]
    played, rows = standings(fixtures, matches, since=5.0)
    assert played[0]["match"] == "m1" and played[0]["winners"] == [b]
    assert all(p["match"] is None for p in played[1:] if set(p["players"]) != {a, b})
    top = rows[0]
    assert top["player"] == b and top["points"] == 3 and top["won"] == 1 and top["cards"] == 5
    assert {r["player"]: r["played"] for r in rows}[a] == 1


def test_the_leaderboard_counts_finished_matches_only() -> None:
    rows = leaderboard([match("t1", "m1", {"Ada": 5, "Ben": 2}),
                        match("t2", "m2", {"Ada": 1, "Ben": 5}),
                        match("t2", "m3", {"Ada": 9, "Ben": 0}, phase="open"),
                        {**match("t1", "m4", {"Ada": 3, "Ben": 0}), "abandoned": "power"}])
    # One win each: the cards decide.
    assert [(r["player"], r["played"], r["won"], r["cards"]) for r in rows] == [
        ("Ben", 2, 1, 7), ("Ada", 2, 1, 6)]
    assert [r["rank"] for r in rows] == [1, 2] and rows[0]["win_share"] == 0.5

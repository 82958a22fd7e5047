"""Tests for the game API (controller.games.base), the registry and the search player.

A tiny game defined here, "count to ten", exercises the API without depending
on any real game: two seats take turns adding 1 or 2 to a total, and whoever
reaches the target wins. With extras on, a seat may also `mark` (public, keeps
the turn; twice per turn), `peek` (a private event) or `roll` (a chance event;
once each per turn),
which is what the undo policy needs to be tested against.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

from controller.errors import IllegalAction
from controller.games import GAME_IDS, get_game
from controller.games.base import (
    Action,
    Game,
    GameEvent,
    GameState,
    Option,
    RandomBot,
    Seat,
    Session,
    canonical,
)
from controller.games.search import SearchBot, lead_utilities, utilities
from controller.rng import Rng


class CountGame(Game):
    id = "count"
    name = "Count to ten"
    min_seats = 2
    max_seats = 2
    default_seats = 2
    options_schema: ClassVar[dict[str, Option]] = {
        "target": Option(10, "the total that wins"),
        "extras": Option(False, "allow mark, peek and roll", (False, True)),
    }

    def new_state(self, seats: int, options: dict[str, Any], rng: Rng) -> CountState:
        return CountState(options, rng)

    def state_from_json(self, data: dict[str, Any]) -> CountState:
        return CountState.from_json(data)


class CountState(GameState):
    game_id = "count"
    determinize_calls = 0

    def __init__(self, options: dict[str, Any], rng: Rng) -> None:
        self.num_seats = 2
        self.options = dict(options)
        self.rng = rng
        self.total = 0
        self.turn = 0
        self.used: list[str] = []
        self.secret = 0  # set by roll; seen only by the roller's peek

    def actors(self) -> frozenset[Seat]:
        return frozenset() if self.is_terminal() else frozenset((self.turn,))

    def legal_actions(self, seat: Seat) -> list[Action]:
        if seat not in self.actors():
            return []
        out = [Action("add", (n,)) for n in (1, 2) if self.total + n <= self.options["target"]]
        if self.options["extras"]:
            out += [Action(k) for k in ("peek", "roll") if k not in self.used]
            if self.used.count("mark") < 2:
                out.append(Action("mark"))
        return out

    def apply(self, seat: Seat, action: Action) -> list[GameEvent]:
        self.check_actor(seat, action)
        if action.kind == "add":
            n = int(action.args[0])
            self.total += n
            self.used = []
            events = [GameEvent("added", {"seat": seat, "n": n, "total": self.total})]
            if not self.is_terminal():
                self.turn = 1 - seat
            return events
        self.used.append(action.kind)
        if action.kind == "roll":
            self.secret = self.rng.randbelow(6)
            return [GameEvent("rolled", {"seat": seat}, chance=True)]
        if action.kind == "peek":
            return [GameEvent("peeked", {"secret": self.secret}, visible_to=frozenset({seat}))]
        return [GameEvent("marked", {"seat": seat})]

    def observation(self, seat: Seat | None) -> dict[str, Any]:
        return {"total": self.total, "turn": self.turn}

    def is_terminal(self) -> bool:
        return self.total >= self.options["target"]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        return [1.0 if s == self.turn else 0.0 for s in (0, 1)]

    def determinize(self, seat: Seat, rng: Rng) -> GameState:
        type(self).determinize_calls += 1
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {"options": self.options, "rng": self.rng.to_json(), "total": self.total,
                "turn": self.turn, "used": list(self.used), "secret": self.secret}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CountState:
        state = cls(dict(data["options"]), Rng.from_json(data["rng"]))
        state.total, state.turn = data["total"], data["turn"]
        state.used, state.secret = list(data["used"]), data["secret"]
        return state


COUNT = CountGame()


def at_total(total: int, turn: int = 0) -> CountState:
    state = COUNT.new_state(2, COUNT.resolve_options({}), Rng(0))
    state.total, state.turn = total, turn
    return state


# -- Action, GameEvent, Option ----------------------------------------------


def test_action_text_round_trip() -> None:
    for text in ("pass", "play:QH", "jump:3,4,5,4", "baton:0,2,1", "bid:-5", "toss:king"):
        assert str(Action.parse(text)) == text
        action = Action.parse(text)
        assert Action.from_json(action.to_json()) == action
    assert Action.parse(" play : QH ").args == ("QH",)
    assert Action.parse("bid:-5").args == (-5,)
    assert Action.parse("x:-").args == ("-",)


@pytest.mark.parametrize("bad", [{}, {"kind": 3}, {"kind": "a", "args": [True]},
                                 {"kind": "a", "args": "QH"}, {"kind": "a", "args": [1.5]}])
def test_action_from_json_rejects_malformed(bad: Any) -> None:
    with pytest.raises(IllegalAction, match="syntax"):
        Action.from_json(bad)


def test_empty_action_text_rejected() -> None:
    with pytest.raises(IllegalAction, match="syntax"):
        Action.parse("  ")


def test_canonical_order_mixes_ints_and_strings() -> None:
    actions = [Action("toss", ("king",)), Action("toss", (12,)), Action("toss", (3,)),
               Action("baton", (0, 1, 0))]
    assert [str(a) for a in canonical(actions)] == ["baton:0,1,0", "toss:3", "toss:12",
                                                    "toss:king"]


def test_event_visibility() -> None:
    public = GameEvent("played", {"card": "QH"})
    private = GameEvent("drew", {"card": "5S"}, visible_to=frozenset({1}))
    assert public.visible(None) and public.visible(0)
    assert private.visible(1)
    assert not private.visible(0) and not private.visible(None)
    assert private.to_json()["visible_to"] == [1]


def test_options_resolve_and_check() -> None:
    assert COUNT.resolve_options(None) == {"target": 10, "extras": False}
    assert COUNT.resolve_options({"target": 7})["target"] == 7
    with pytest.raises(IllegalAction, match="unknown option"):
        COUNT.resolve_options({"trump": "hearts"})
    with pytest.raises(IllegalAction, match="must be int"):
        COUNT.resolve_options({"target": "ten"})
    with pytest.raises(IllegalAction, match="must be one of"):
        COUNT.resolve_options({"extras": 1})
    with pytest.raises(IllegalAction, match="seats"):
        Session(COUNT, 3)


def test_check_actor_names_the_rule() -> None:
    state = at_total(0)
    with pytest.raises(IllegalAction, match="turn-order"):
        state.apply(1, Action("add", (1,)))
    with pytest.raises(IllegalAction, match="legal-actions"):
        state.apply(0, Action("add", (3,)))
    with pytest.raises(IllegalAction, match="seats"):
        state.apply(5, Action("add", (1,)))
    state.total = 10
    with pytest.raises(IllegalAction, match="game-over"):
        state.apply(0, Action("add", (1,)))
    assert state.winners() == [0]


# -- Session ------------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["manni", "pukk", "rommy", "knuff"])
def test_session_logs_the_first_deal_without_leaking_it(game_id: str) -> None:
    game = get_game(game_id)
    session = Session(game, game.default_seats, seed=5)
    opening = session.events[1:]
    assert any(e.chance for e in opening), "the first deal belongs in the event log"
    public = json.dumps([e.to_json() for e in session.events_for(None)])
    for seat in range(session.seats):
        hand = session.state.observation(seat)["hand"]
        mine = [e for e in opening if e.visible_to == frozenset((seat,))]
        assert mine, f"seat {seat} is shown its hand"
        # Whatever is private to a seat is dealt to it alone, never in a public event.
        for card in hand:
            assert f'"{card}"' not in public
    assert Session.replay(game, session.to_json()).events == session.events


def test_session_rejects_and_loses_nothing() -> None:
    session = Session(COUNT, 2, seed=3)
    session.apply(0, "add:2")
    before = (session.state.to_json(), list(session.log), len(session.events))
    with pytest.raises(IllegalAction):
        session.apply(0, "add:1")  # not seat 0's turn
    assert (session.state.to_json(), list(session.log), len(session.events)) == before


def test_session_replay_and_private_events() -> None:
    session = Session(COUNT, 2, seed="table-4", options={"extras": True})
    for seat, text in [(0, "roll"), (0, "peek"), (0, "add:2"), (1, "mark"), (1, "add:1")]:
        session.apply(seat, text)
    record = session.to_json()
    assert record["actions"][0] == {"seat": 0, "action": "roll"}
    again = Session.replay(COUNT, record)
    assert again.state.to_json() == session.state.to_json()
    assert [e.to_json() for e in again.events] == [e.to_json() for e in session.events]
    kinds = {seat: [e.kind for e in session.events_for(seat)] for seat in (None, 0, 1)}
    assert "peeked" in kinds[0]
    assert "peeked" not in kinds[1] and "peeked" not in kinds[None]


def test_undo_within_own_turn() -> None:
    # BGA undo policy: a seat may take back its own actions while its turn lasts.
    session = Session(COUNT, 2, seed=1, options={"extras": True})
    start = session.state.to_json()
    session.apply(0, "mark")
    assert session.can_undo(0) and not session.can_undo(1)
    with pytest.raises(IllegalAction, match="undo"):
        session.undo(1)
    session.undo(0)
    assert session.state.to_json() == start
    assert session.log == [] and session.events[-1].kind == "undone"
    assert not session.can_undo(0)


def test_undo_never_crosses_turn_chance_or_hidden_information() -> None:
    session = Session(COUNT, 2, seed=1, options={"extras": True})
    session.apply(0, "add:1")  # the turn passes
    assert not session.can_undo(0) and not session.can_undo(1)
    session.apply(1, "roll")  # a random event
    assert not session.can_undo(1)
    session.apply(1, "mark")
    assert session.can_undo(1)
    session.apply(1, "peek")  # hidden information shown to seat 1
    assert not session.can_undo(1)
    with pytest.raises(IllegalAction, match="random event"):
        session.undo(1)


def test_undo_takes_back_the_whole_run_of_own_actions() -> None:
    session = Session(COUNT, 2, seed=1, options={"extras": True})
    session.apply(0, "add:1")
    before = session.state.to_json()
    session.apply(1, "mark")
    session.apply(1, "mark")
    assert session.can_undo(1)
    session.undo(1)
    assert session.state.to_json() == before
    assert [str(a) for _, a in session.log] == ["add:1"]
    # Undo stops at seat 0's action: nothing of seat 0's is taken back.
    assert not session.can_undo(0) and not session.can_undo(1)


# -- bots -----------------------------------------------------------------------


def test_random_bot_is_seeded() -> None:
    state = at_total(0)
    picks = [str(RandomBot(0, Rng(9)).choose(state)) for _ in range(3)]
    assert len(set(picks)) == 1 and picks[0] in {"add:1", "add:2"}
    with pytest.raises(IllegalAction, match="no legal action"):
        RandomBot(1, Rng(0)).choose(state)


def frozen_clock() -> float:
    """A clock that never advances: the iteration cap alone ends the search."""
    return 0.0


@pytest.mark.parametrize(("total", "winning"), [(8, "add:2"), (6, "add:1"), (3, "add:1")])
def test_search_bot_finds_the_winning_move(total: int, winning: str) -> None:
    # Totals congruent to 1 (mod 3) lose for the seat to move, so from 6 only
    # add:1 (to 7) wins, and from 8 add:2 wins at once.
    bot = SearchBot(0, Rng(1), max_iterations=600, clock=frozen_clock)
    assert str(bot.choose(at_total(total))) == winning
    assert bot.last_iterations == 600


def test_search_bot_is_deterministic_under_an_iteration_cap() -> None:
    picks = set()
    for _ in range(3):
        bot = SearchBot(1, Rng("same"), max_iterations=200, clock=frozen_clock)
        picks.add(str(bot.choose(at_total(3, turn=1))))
    assert len(picks) == 1


def test_search_bot_sees_only_determinized_worlds() -> None:
    CountState.determinize_calls = 0
    bot = SearchBot(0, Rng(2), max_iterations=50, clock=frozen_clock)
    bot.choose(at_total(0))
    assert CountState.determinize_calls == 50


def test_search_bot_respects_its_time_budget() -> None:
    ticks = iter(range(1000))
    bot = SearchBot(0, Rng(2), time_budget_s=5.0, max_iterations=10_000,
                    clock=lambda: float(next(ticks)))
    bot.choose(at_total(0))
    # Deadline 0 + 5 s; the first iteration always runs, then the clock reads
    # 1, 2, 3, 4 allow four more and the read at 5 s stops the search.
    assert bot.last_iterations == 5


class FirstBot(RandomBot):
    """Always the first legal action: an anchor with a known, losing choice at 8."""

    def choose(self, state: GameState) -> Action:
        return state.legal_actions(self.seat)[0]


@pytest.mark.parametrize(("margin", "expected"), [(0.0, "add:2"), (1.0, "add:1")])
def test_search_bot_departs_from_its_anchor_only_by_the_margin(margin: float,
                                                               expected: str) -> None:
    # From 8, add:2 wins at once and the anchor's add:1 loses; no utility gap
    # exceeds 1, so that margin always keeps the anchor's choice.
    bot = SearchBot(0, Rng(1), max_iterations=600, clock=frozen_clock, anchor=FirstBot,
                    margin=margin)
    assert str(bot.choose(at_total(8))) == expected


def test_utilities_scale_to_unit_interval() -> None:
    state = at_total(10)
    assert utilities(state) == [1.0, 0.0]
    assert utilities(at_total(4)) == [0.5, 0.5]


def test_lead_utilities_keep_a_wider_lead_worth_more() -> None:
    # Min-max utilities give any leader 1; lead utilities grow with the lead.
    assert utilities(at_total(10)) == [1.0, 0.0]
    even = lead_utilities(1.0)(at_total(4))
    assert even == [0.5, 0.5]
    won = lead_utilities(1.0)(at_total(10))
    assert won[0] > 0.5 > won[1] and won[0] + won[1] == pytest.approx(1.0)
    assert lead_utilities(0.5)(at_total(10))[0] > won[0]


# -- registry -------------------------------------------------------------------


def test_registry_lists_the_six_games() -> None:
    assert list(GAME_IDS) == ["manni", "pukk", "rommy", "knuff", "kobbla", "koob"]
    assert get_game("koob").id == "koob"
    with pytest.raises(IllegalAction, match="unknown game 'chess'"):
        get_game("chess")


def test_search_bot_refuses_when_not_to_move() -> None:
    bot = SearchBot(1, Rng(0), max_iterations=10, clock=frozen_clock)
    with pytest.raises(IllegalAction, match="no legal action"):
        bot.choose(at_total(0))  # seat 0 is to move


def test_docstring_examples() -> None:
    import doctest

    import controller.games.base as base

    result = doctest.testmod(base)
    assert result.attempted >= 2 and result.failed == 0

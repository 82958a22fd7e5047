"""Rule tests for Kobbla (controller/games/kobbla.py).

Positions are built from the one-line notation (KFN, see the module docstring):
ranks 8 to 1, ``w`` a white stone, ``S``/``N`` a stone carrying South's/North's
Kobb, digits for empty runs; then side to move, phase (p/w/k/x), exits, turns.
Each test cites the seed sentence (seed: "...") or the decision in
docs/rules/kobbla.md it checks.

Golden transcripts: ``python tests/games/test_kobbla.py --regen`` rewrites
tests/games/playthroughs/kobbla_*.txt; the test below regenerates and diffs them.
"""

from __future__ import annotations

import doctest
import sys
from pathlib import Path

import pytest

from controller.errors import IllegalAction
from controller.games import get_game
from controller.games import kobbla as kb
from controller.games.base import Action, RandomBot, Session
from controller.games.kobbla import GAME, AlphaBetaBot, KobblaState, RuleBot
from controller.rng import Rng

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"


def pos(kfn: str, **options: object) -> KobblaState:
    return GAME.from_kfn(kfn, dict(options))


def whites(state: KobblaState) -> set[tuple[str, str]]:
    return {(kb.SQUARE_NAMES[a], kb.SQUARE_NAMES[b]) for a, b in state.white_moves()}


def names(actions: list[Action], kind: str) -> set[str]:
    return {str(a.args[0]) for a in actions if a.kind == kind}


def apply_all(state: KobblaState, *actions: str, seat: int | None = None) -> None:
    for text in actions:
        state.apply(state.to_move if seat is None else seat, Action.parse(text))


# ---------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------


def test_registry_and_metadata() -> None:
    # issue 6: "Defaults give a sensible full game for each (... two for Kobbla)"
    game = get_game("kobbla")
    assert game is GAME
    assert (game.min_seats, game.max_seats, game.default_seats) == (2, 2, 2)
    with pytest.raises(IllegalAction, match="seats"):
        Session(game, 3, 0)


def test_wilderness_setup() -> None:
    # seed: "places six white stones at the short side of the game board plus two in
    # the middle" (14 white stones); rules.md §5: the middle pair is shared.
    st = GAME.new_state(2, GAME.resolve_options(None), Rng(1))
    assert st.rows_text() == ["wwwwww", "......", "......", "..w...",
                              "..w...", "......", "......", "wwwwww"]
    assert sum(st.board) == kb.WHITE_STONES == 14
    assert st.conservation() == {"white": 14, "kobbs": 2}
    # docs: each player puts the Kobb on a stone of their own home rank; the youngest
    # player (seat 0) starts, so South places first.
    assert st.phase == "p" and st.actors() == {0}
    assert names(st.legal_actions(0), "place") == {f"{f}1" for f in "abcdef"}
    st.apply(0, Action.parse("place:d1"))
    assert st.actors() == {1}
    assert names(st.legal_actions(1), "place") == {f"{f}8" for f in "abcdef"}
    st.apply(1, Action.parse("place:a8"))
    assert st.kfn() == "Nwwwww/6/6/2w3/2w3/6/6/wwwSww S w - 0"


def test_fixed_kobb_start_option() -> None:
    # docs §Set-up: kobb_start puts both Kobbs on one file, mirrored.
    session = Session(GAME, 2, 0, {"kobb_start": "e"})
    assert session.state.kfn() == "wwwwNw/6/6/2w3/2w3/6/6/wwwwSw S w - 0"


def test_place_outside_home_rank_is_rejected() -> None:
    st = GAME.new_state(2, GAME.resolve_options(None), Rng(1))
    before = st.kfn()
    with pytest.raises(IllegalAction, match="kobb-start"):
        st.apply(0, Action.parse("place:c4"))
    assert st.kfn() == before


def test_custom_setup_option() -> None:
    session = Session(GAME, 2, 0, {"setup": "N5/6/6/6/6/6/1w4/Sw4"})
    assert session.state.kfn() == "N5/6/6/6/6/6/1w4/Sw4 S w - 0"
    with pytest.raises(IllegalAction, match="notation"):
        Session(GAME, 2, 0, {"setup": "www/6"})


# ---------------------------------------------------------------------------
# White stones
# ---------------------------------------------------------------------------


def test_white_moves_first() -> None:
    # seed: "White stone has to be moved first, after that the player may move their
    # black stone if the player wants."
    st = pos("wwNwww/6/6/2w3/2w3/6/6/wwSwww S w - 0")
    assert {a.kind for a in st.legal_actions(0)} == {"white"}
    before = st.kfn()
    with pytest.raises(IllegalAction, match="white-first"):
        st.apply(0, Action.parse("kobb:b1"))
    assert st.kfn() == before


def test_bent_hop_onto_stone_then_any_empty_neighbour() -> None:
    # seed: "first jumps on another white stone in an adjacent square, then to an
    # empty square, then to a white stone again and so on"; docs: white_jump="bent"
    # (default) lands on any empty square next to the stone jumped on.
    st = pos("N5/6/6/6/6/6/1w4/Sw4 S w - 0")
    assert whites(st) == {("b1", "a2"), ("b1", "c2"), ("b1", "b3"), ("b2", "c1")}


def test_straight_jump_option_lands_just_beyond() -> None:
    # rules.md §5 ambiguity 1: "Is every jump over one adjacent stone onto the square
    # just beyond it?" -- the white_jump="straight" reading.
    st = pos("N5/6/6/6/6/6/1w4/Sw4 S w - 0", white_jump="straight")
    assert whites(st) == {("b1", "b3")}


def test_white_stone_may_jump_a_kobb() -> None:
    # seed: "one is allowed to jump over one's own or the opponent's black stone with
    # a white stone"
    st = pos("6/6/6/6/6/6/6/1SwN2 S w - 0", white_jump="straight")
    assert whites(st) == {("c1", "a1"), ("c1", "e1")}
    assert ("c1", "a1") in whites(pos("6/6/6/6/6/6/6/1SwN2 S w - 0"))


def test_chain_may_turn_unless_straight_line() -> None:
    # seed: "can be moved as far as one wishes"; rules.md §5: "May a chain of jumps
    # turn?" -- yes by default; white_jump="straight-line" keeps one direction.
    kfn = "N5/6/6/6/3w2/2ww2/2w3/2w2S S w - 0"
    assert {("c2", "c4"), ("c2", "e4")} <= whites(pos(kfn, white_jump="straight"))
    line = whites(pos(kfn, white_jump="straight-line"))
    assert ("c2", "c4") in line and ("c2", "e4") not in line
    st = pos(kfn, white_jump="straight")
    assert st.white_path(kb.square_index("c2"), kb.square_index("e4")) == [
        kb.square_index(s) for s in ("c2", "c3", "c4", "d4", "e4")]


def test_never_two_stones_in_a_row() -> None:
    # seed: "not allowed to jump over several other white stones in a row but must
    # always go via an empty square in between"
    st = pos("N5/6/6/6/6/2w3/2w3/2w2S S w - 0")
    from_c1 = {b for a, b in whites(st) if a == "c1"}
    assert from_c1 == {"b2", "d2"}
    st = pos("N5/6/6/6/6/2w3/2w3/2w2S S w - 0", white_jump="straight")
    assert not {b for a, b in whites(st) if a == "c1"}


def test_no_diagonal_and_no_move_without_a_stone() -> None:
    # seed: "They may not jump diagonally or by themselves (i.e. without first jumping
    # via another white stone)"
    st = pos("N5/6/6/6/6/6/2w3/1w3S S w - 0")
    assert whites(st) == set()
    assert st.legal_actions(0) == [Action("skip")]


def test_stone_under_a_kobb_stays_put() -> None:
    # seed: "Your black stone ... must not be touched by your opponent"; docs: a stone
    # carrying a Kobb is never moved.
    st = pos("N5/6/6/6/6/6/1w4/Sw4 S w - 0")
    assert not any(a == "a1" or a == "a8" for a, _ in whites(st))
    with pytest.raises(IllegalAction, match="kobb-untouchable"):
        st.apply(0, Action.parse("white:a1,a2"))


def test_white_must_land_on_empty_square() -> None:
    # seed: "must always first jump over another stone and then land on an empty square"
    st = pos("N5/6/6/6/6/6/1w4/Sw4 S w - 0")
    assert all(not st.board[kb.square_index(b)] for _a, b in whites(st))
    with pytest.raises(IllegalAction, match="white-lands-empty"):
        st.apply(0, Action.parse("white:b1,b2"))
    with pytest.raises(IllegalAction, match="white-jump"):
        st.apply(0, Action.parse("white:b1,f5"))


def test_any_white_stone_may_be_moved() -> None:
    # seed: "you can choose to move a white stone on your opponent's side"
    st = pos("N5/1w4/1w4/6/6/6/6/S5 S w - 0")
    assert {a for a, _ in whites(st)} == {"b7", "b6"}


def test_no_white_move_means_skip_then_kobb() -> None:
    # docs §Turn: with no white move possible the white part is skipped ("skip");
    # the Kobb may still move.
    st = pos("N5/6/6/6/6/6/w5/Sw4 S w - 0")
    assert st.legal_actions(0) == [Action("skip")]
    events = st.apply(0, Action("skip"))
    assert events[0].kind == "no-white-move"
    assert st.phase == "k" and st.actors() == {0}
    assert names(st.legal_actions(0), "kobb") == {"a2", "b1"}
    with pytest.raises(IllegalAction, match="white-compulsory"):
        pos("N5/6/6/6/6/6/1w4/Sw4 S w - 0").apply(0, Action("skip"))


def test_straight_jumps_freeze_the_wilderness() -> None:
    # docs §Interpretations: with white_jump="straight" the full home ranks of the
    # Wilderness can never move (only the middle pair slides), which is why "bent"
    # is the default. Exhaustive search over every reachable position.
    start = Session(GAME, 2, 0, {"white_jump": "straight", "kobb_start": "c"}).state
    seen = {tuple(start.rows_text())}
    todo = [start]
    while todo:
        st = todo.pop()
        for move in st.moves():
            child = st.clone()
            child.play(move)
            key = tuple(child.rows_text())
            if key not in seen and child.phase != "x":
                seen.add(key)
                todo.append(child)
    assert len(seen) > 10
    home = {"".join("." if ch == "." else "w" for ch in rows[i])
            for rows in seen for i in (0, 7)}
    assert home == {"wwwwww"}


# ---------------------------------------------------------------------------
# Kobb
# ---------------------------------------------------------------------------


def test_kobb_moves_over_stones_and_may_turn() -> None:
    # seed: "Black stone may be moved forward, backward and sideways as far as you
    # wish, but must always jump on white stones and always land on a white stone."
    # docs: kobb_moves="path" (default) may turn, and may stop on any stone.
    kfn = "N5/6/6/6/6/2ww2/2w3/2Sw2 S k - 0"
    st = pos(kfn)
    assert names(st.legal_actions(0), "kobb") == {"d1", "c2", "c3", "d3"}
    assert Action("stay") in st.legal_actions(0)
    straight = pos(kfn, kobb_moves="straight")
    assert names(straight.legal_actions(0), "kobb") == {"d1", "c2", "c3"}
    with pytest.raises(IllegalAction, match="kobb-path"):
        straight.apply(0, Action.parse("kobb:d3"))


def test_kobb_never_lands_on_or_crosses_empty_square() -> None:
    # seed: "Black stone must never jump diagonally or on empty squares and never land
    # on an empty square."
    st = pos("N5/6/6/6/2w3/6/1w4/2S3 S k - 0")
    assert names(st.legal_actions(0), "kobb") == set()  # b2 is diagonal, c3 past a gap
    with pytest.raises(IllegalAction, match="kobb-on-white"):
        st.apply(0, Action.parse("kobb:c2"))


def test_kobb_may_not_jump_the_other_kobb() -> None:
    # seed: "Neither are you allowed to jump over your opponent's black stone."
    st = pos("6/6/6/6/6/2w3/2N3/2S3 S k - 0")
    assert names(st.legal_actions(0), "kobb") == set()
    with pytest.raises(IllegalAction, match="kobb-opponent"):
        st.apply(0, Action.parse("kobb:c2"))


def test_turn_passes_after_kobb_phase_and_skips_an_idle_kobb() -> None:
    # docs §Turn: the Kobb half is offered only when the Kobb can move; actors() is the
    # same seat for both halves.
    st = pos("N5/6/6/6/6/6/1w4/Sw4 S w - 3")
    st.apply(0, Action.parse("white:b1,b3"))  # the Kobb on a1 now has no stone next to it
    assert st.actors() == {1} and st.phase == "w" and st.turn == 4
    st = pos("N5/6/6/6/6/6/1w4/Sw4 S w - 3")
    st.apply(0, Action.parse("white:b2,c1"))
    assert st.actors() == {0} and st.phase == "k"
    st.apply(0, Action("stay"))
    assert st.actors() == {1} and st.turn == 4


# ---------------------------------------------------------------------------
# Exit and tail
# ---------------------------------------------------------------------------


def test_exit_only_over_the_opposite_side() -> None:
    # seed: "When white stones lead out on the opposite side of the game board, you
    # may ... decide to jump out with your black stone"
    st = pos("1ww2N/1w4/1w4/1w4/1w4/1w4/1w4/1S4 S k - 0")
    assert names(st.legal_actions(0), "exit") == {"b8", "c8"}
    with pytest.raises(IllegalAction, match="exit-far-side"):
        st.apply(0, Action.parse("exit:b1"))
    cut = pos("1ww2N/1w4/1w4/6/1w4/1w4/1w4/1S4 S k - 0")
    assert names(cut.legal_actions(0), "exit") == set()


def test_exit_blocked_by_other_kobb() -> None:
    # seed: "(unless your opponent's black stone is blocking the way)"
    st = pos("1N4/1w4/1w4/1w4/1w4/1w4/1w4/1S4 S k - 0")
    assert names(st.legal_actions(0), "exit") == set()
    with pytest.raises(IllegalAction, match="exit-blocked"):
        st.apply(0, Action.parse("exit:b8"))
    around = pos("1Nw3/1ww3/1w4/1w4/1w4/1w4/1w4/1S4 S k - 0")
    assert names(around.legal_actions(0), "exit") == {"c8"}


def test_straight_tail_and_removal() -> None:
    # seed: "you even take with you your tail of white stones that lay behind you. Your
    # tail consists of the stones you can draw a single line from the place you jumped
    # out on." docs: tail="straight" counts the unbroken run back along the exit file.
    st = pos("1ww2N/1w4/1w4/1ww3/1S4/6/1w4/1w4 S k - 0")
    before = st.conservation()
    events = st.apply(0, Action.parse("exit:b8"))
    out = events[0]
    # The stone the Kobb left behind on b4 is part of its tail; b3 is empty.
    assert out.kind == "kobb-out" and out.data["tail"] == 5
    assert out.data["stones"] == ["b8", "b7", "b6", "b5", "b4"]
    assert st.rows_text()[:5] == ["..w..N", "......", "......", "..w...", "......"]
    assert st.tails() == [5, 0]
    assert st.conservation() == before  # stones carried out still count


def test_tail_stops_at_the_other_kobb() -> None:
    # docs §Tail: the stone under the other Kobb is never taken (it may not be touched).
    st = pos("1ww3/1w4/1N4/1w4/1w4/6/1w4/1S4 S k - 0")
    assert st.tail_squares(0, kb.square_index("b8")) == [
        kb.square_index("b8"), kb.square_index("b7")]


def test_bent_tail_option() -> None:
    # rules.md §5 ambiguity 5: "may it bend?" -- tail="bent" takes the longest line
    # that may turn (never crossing itself).
    kfn = "1ww2N/1w4/1ww3/2w3/6/6/1w4/1S4 S k - 0"
    assert len(pos(kfn).tail_squares(0, kb.square_index("b8"))) == 3
    bent = pos(kfn, tail="bent").tail_squares(0, kb.square_index("b8"))
    assert [kb.SQUARE_NAMES[sq] for sq in bent] == ["b8", "b7", "b6", "c6", "c5"]


def test_north_exits_over_rank_1() -> None:
    # seed: "exit your black stone (your Kobb) on the opposite side"
    st = pos("4N1/4w1/4w1/6/6/4w1/4w1/S3ww N k - 5")
    assert names(st.legal_actions(1), "exit") == set()
    st = pos("4N1/4w1/4w1/4w1/4w1/4w1/4w1/S3ww N k - 5")
    assert names(st.legal_actions(1), "exit") == {"e1", "f1"}
    st.apply(1, Action.parse("exit:e1"))
    assert st.tails() == [0, 8]  # e1 up to e8, the stone North's Kobb stood on


# ---------------------------------------------------------------------------
# End of the game
# ---------------------------------------------------------------------------


def test_play_on_after_exit_and_longest_tail_wins() -> None:
    # seed: "The player who succeeds in creating the longest tail wins." docs: after
    # leaving, a player keeps moving white stones (after_exit="play-on").
    st = pos("1ww2N/1w3w/1S4/6/6/5w/5w/5w S k - 10")
    st.apply(0, Action.parse("exit:b8"))
    assert st.tails() == [3, 0] and st.actors() == {1}
    st.apply(1, Action.parse("white:f7,e8"))  # North plays on, its Kobb still in
    assert st.phase == "k"
    st.apply(1, Action("stay"))
    assert st.actors() == {0} and st.phase == "w"
    assert {a.kind for a in st.legal_actions(0)} <= {"white", "skip"}
    st.apply(0, st.legal_actions(0)[0])
    assert st.actors() == {1}  # South's turn was the white move alone


def test_solo_option_lets_the_other_player_move_alone() -> None:
    st = pos("1ww2N/1w3w/1S4/6/6/5w/5w/5w S k - 10", after_exit="solo")
    st.apply(0, Action.parse("exit:b8"))
    st.apply(1, Action.parse("white:f7,e8"))
    st.apply(1, Action("stay"))
    assert st.actors() == {1}


def test_both_out_ends_game_with_winner() -> None:
    st = pos("6/6/6/6/5w/5w/5w/5N N k S3 20")
    events = st.apply(1, Action.parse("exit:f1"))
    assert st.is_terminal() and st.actors() == frozenset()
    assert st.tails() == [3, 4] and st.returns() == [0.0, 1.0] and st.winners() == [1]
    assert events[-1].kind == "game-over" and events[-1].data["reason"] == "both-out"


@pytest.mark.parametrize(("tie", "expected"), [("draw", [0.5, 0.5]),
                                               ("first-out", [1.0, 0.0])])
def test_equal_tails(tie: str, expected: list[float]) -> None:
    # docs §End: equal tails are a draw; option tie="first-out" gives it to the
    # player who left first.
    st = pos("6/6/6/6/6/5w/5w/5N N k S3 20", tie=tie)
    st.apply(1, Action.parse("exit:f1"))
    assert st.tails() == [3, 3] and st.returns() == expected


def test_turn_limit_ends_game_and_kobb_on_board_scores_zero() -> None:
    # docs §Termination: max_turns ends the game; a Kobb still on the board has no tail.
    with pytest.raises(IllegalAction, match="notation"):
        pos("N5/6/6/6/6/6/1w4/Sw4 S w S1 9")  # South both on the board and out
    st = pos("N5/6/6/6/6/6/1w4/ww4 N w S1 9", max_turns=10)
    events = st.apply(1, Action.parse("white:b2,c1"))
    assert st.is_terminal()
    assert events[-1].data == {"reason": "turn-limit", "tails": [1, 0], "returns": [1.0, 0.0]}
    with pytest.raises(IllegalAction, match="game-over"):
        st.apply(0, Action("skip"))


def test_bad_options_are_rejected() -> None:
    with pytest.raises(IllegalAction, match="max_turns"):
        Session(GAME, 2, 0, {"max_turns": 0})
    with pytest.raises(IllegalAction, match="options"):
        Session(GAME, 2, 0, {"tail": "wiggly"})
    with pytest.raises(IllegalAction, match="holds no white stone"):
        Session(GAME, 2, 0, {"setup": "wwwww1/6/6/6/6/6/6/wwwww1", "kobb_start": "f"})


# ---------------------------------------------------------------------------
# Notation, JSON, replay, undo
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [
    "wwwwww/6/6/2w3/2w3/6/6 S w - 0",           # 7 ranks
    "wwwwwww/6/6/2w3/2w3/6/6/wwwwww S w - 0",   # 7 squares in a rank
    "wwwwwx/6/6/2w3/2w3/6/6/wwwwww S w - 0",    # unknown piece
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwww E w - 0",    # side
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwww S q - 0",    # phase
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwww S w X3 0",   # exit
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwww S w - ten",  # turn
    "wwwwNw/6/6/2w3/2w3/6/6/wwwwww S w - 0",    # South's Kobb missing
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwSw S w - 0",    # two South Kobbs
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwww S w",        # fields
])
def test_bad_notation_names_the_problem(bad: str) -> None:
    with pytest.raises(IllegalAction, match="notation"):
        pos(bad)


@pytest.mark.parametrize("bad", [
    "wwwwNww/6/6/2w3/2w3/6/6/wSwwww S w - 0",   # a seventh stone after the Kobb
    "wwwwNw/6w/6/2w3/2w3/6/6/wSwwww S w - 0",   # a stone past six empty squares
    "wwwwNw/6/6/2w3/2w3/6/6/wSwwwwN S w - 0",   # a Kobb in a seventh square
])
def test_a_rank_with_too_many_squares_is_refused_not_cut(bad: str) -> None:
    """Issue 13: a rank string longer than six squares used to be cut to six, so the
    position silently lost a stone; it is refused, naming the rank."""
    with pytest.raises(IllegalAction, match=r"covers more than 6 squares.*notation"):
        pos(bad)


def test_json_round_trip_and_replay() -> None:
    session = Session(GAME, 2, 7)
    bots = [RandomBot(0, Rng(1)), RandomBot(1, Rng(2))]
    for _ in range(60):
        seat = min(session.state.actors())
        session.apply(seat, bots[seat].choose(session.state))
    st = session.state
    assert isinstance(st, KobblaState)
    again = GAME.state_from_json(st.to_json())
    assert again.to_json() == st.to_json()
    assert again.legal_actions(st.to_move) == st.legal_actions(st.to_move)
    replay = Session.replay(GAME, session.to_json())
    assert replay.state.to_json() == st.to_json()
    assert st.observation(0) == st.observation(1) == st.observation(None)  # no secrets
    assert st.determinize(0, Rng(3)).to_json() == st.to_json()


def test_undo_within_a_turn_only() -> None:
    # issue 6: undo "never across another player's action" (BGA policy).
    session = Session(GAME, 2, 0, {"kobb_start": "c"})
    session.apply(0, "white:c4,c6")
    assert session.state.phase == "k" and session.can_undo(0)
    session.undo(0)
    assert session.state.kfn() == "wwNwww/6/6/2w3/2w3/6/6/wwSwww S w - 0"
    session.apply(0, "white:c4,c6")
    session.apply(0, "stay")
    assert not session.can_undo(0) and not session.can_undo(1)


def test_module_doctests() -> None:
    result = doctest.testmod(kb)
    assert result.failed == 0 and result.attempted >= 2


# ---------------------------------------------------------------------------
# Bots
# ---------------------------------------------------------------------------


def test_rule_bot_takes_a_winning_exit() -> None:
    # North is out with a tail of 2; South can leave with 3 now.
    st = pos("1w4/1w4/1ww3/2w3/2w3/2w3/2w3/2S3 S k N2 30")
    assert RuleBot(0, Rng(0)).choose(st) == Action.parse("exit:b8")


def test_rule_bot_waits_with_a_short_tail() -> None:
    # Tails of 3 (c8) or 1 (b8), below the rule bot's target of 4; time left.
    st = pos("Nww3/2w3/1ww3/1w4/1w4/1w4/1w4/1S4 S k - 10")
    assert names(st.legal_actions(0), "exit") == {"b8", "c8"}
    assert RuleBot(0, Rng(0)).choose(st).kind != "exit"


def test_search_bot_finds_the_winning_exit() -> None:
    st = pos("1w4/1w4/1ww3/2w3/2w3/2w3/2w3/2S3 S k N2 30")
    bot = AlphaBetaBot(0, Rng(0), time_budget_s=30.0, max_depth=1)
    assert bot.choose(st) == Action.parse("exit:b8")


def test_search_bot_plans_the_white_move_for_its_exit() -> None:
    # South is out with a tail of 1. North on b1 would only draw by leaving now; the
    # white move a1 -> b2 (onto b1, off to b2) lengthens the tail to 2 and wins.
    st = pos("6/6/6/6/6/6/6/wN4 N w S1 20")
    bot = AlphaBetaBot(1, Rng(0), time_budget_s=30.0, max_depth=1)
    assert bot.choose(st) == Action.parse("white:a1,b2")
    st.apply(1, Action.parse("white:a1,b2"))
    assert bot.choose(st) == Action.parse("exit:b1")


def test_bots_only_return_legal_actions() -> None:
    session = Session(GAME, 2, 11, {"max_turns": 16})
    bots = [RuleBot(0, Rng(1)), AlphaBetaBot(1, Rng(2), time_budget_s=5.0, max_depth=1)]
    while not session.state.is_terminal():
        seat = min(session.state.actors())
        action = bots[seat].choose(session.state)
        assert action in session.state.legal_actions(seat)
        session.apply(seat, action)
    assert session.state.is_terminal() and session.state.turn <= 16


# ---------------------------------------------------------------------------
# Golden transcripts
# ---------------------------------------------------------------------------

TRANSCRIPTS = {
    "kobbla_random_seed1.txt": (1, ("random", "random"), {"max_turns": 60}),
    "kobbla_rule_vs_random_seed2.txt": (2, ("rule", "random"), {"max_turns": 80}),
    "kobbla_straight_rule_seed3.txt": (3, ("rule", "rule"), {
        "white_jump": "straight", "kobb_start": "c", "max_turns": 30,
        "setup": "wwwwww/6/2w3/1ww3/2ww2/2w3/6/wwwwww"}),
}


def transcript(seed: int, bots: tuple[str, str], options: dict[str, object]) -> str:
    """A complete seeded game as text: every action, its events and the final board."""
    session = Session(GAME, 2, seed, options)
    players = [kb.BOTS[name](seat, Rng(seed).fork(f"bot{seat}"))
               for seat, name in enumerate(bots)]
    lines = [f"# Kobbla, seed {seed}, {bots[0]} (South) v {bots[1]} (North)",
             f"# options: {sorted(session.options.items())}",
             f"start {session.state}".replace("\n", "\n      ")]
    while not session.state.is_terminal():
        seat = min(session.state.actors())
        action = players[seat].choose(session.state)
        events = session.apply(seat, action)
        st = session.state
        assert isinstance(st, KobblaState)
        detail = "; ".join(f"{e.kind} {dict(e.data)}" for e in events
                           if e.kind in ("kobb-out", "game-over", "no-white-move"))
        lines.append(f"{kb.SEAT_LETTERS[seat]} {action}  -> {st.kfn()}"
                     + (f"  [{detail}]" if detail else ""))
    lines.append("final " + str(session.state).replace("\n", "\n      "))
    lines.append(f"returns {session.state.returns()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_golden_transcripts(name: str) -> None:
    expected = (PLAYTHROUGHS / name).read_text()
    assert transcript(*TRANSCRIPTS[name]) == expected


if __name__ == "__main__" and "--regen" in sys.argv:
    PLAYTHROUGHS.mkdir(exist_ok=True)
    for file_name, spec in TRANSCRIPTS.items():
        (PLAYTHROUGHS / file_name).write_text(transcript(*spec))
        print("wrote", PLAYTHROUGHS / file_name)

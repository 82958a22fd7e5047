"""`knapp games list|play`, run through the real command line entry point."""

from __future__ import annotations

import io
import json

import pytest

from controller.cli import main
from controller.games import GAME_IDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["games", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_list_shows_one_line_per_game_and_where_the_options_are(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list")
    assert status == 0
    lines = [line for line in out.splitlines() if line.strip()]
    assert [line.split()[0] for line in lines[:-1]] == list(GAME_IDS)
    assert "koob     Koob: 2 seats; computer players: none (scorekeeper)" in lines
    assert lines[1].startswith("pukk     Púkk: 2-7 seats (default 5)")
    assert lines[-1] == "A game's options: knapp games options GAME"
    assert "--option" not in out and "opening" not in out


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list", "--json")
    assert status == 0
    games = {g["id"]: g for g in map(json.loads, out.splitlines())}
    assert list(games) == list(GAME_IDS)
    assert games["koob"]["bots"] == []
    assert games["koob"]["options"]["best_of"] == {
        "default": 1, "choices": [1, 3], "help": games["koob"]["options"]["best_of"]["help"]}
    assert games["manni"]["seats"]["default"] == 3
    assert games["kobbla"]["seats"]["default"] == 2


@pytest.mark.parametrize("game_id", ["manni", "kobbla"])
def test_play_json_is_the_public_log_then_the_result(capsys: pytest.CaptureFixture[str],
                                                    game_id: str) -> None:
    status, out, _ = run(capsys, "play", game_id, "--seed", "5", "--json", "--bots", "random")
    assert status == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["kind"] == "started" and lines[0]["data"]["game"] == game_id
    result = lines[-1]
    assert result["kind"] == "result" and result["winners"]
    assert len(result["returns"]) == lines[0]["data"]["seats"]
    # The public log holds only what the table may see.
    assert all(line["visible_to"] is None for line in lines[:-1])
    # Same seed, same game.
    status, again, _ = run(capsys, "play", game_id, "--seed", "5", "--json", "--bots", "random")
    assert again == out


def test_play_default_seats_and_bots(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "koob", "--bots", "random", "--seed", "2",
                         "--option", "best_of=3", "--option", "opening=2-4-6")
    assert status == 0
    first = out.splitlines()[0]
    assert first.startswith("Koob: 2 seats (0=random, 1=random); seed 2;")
    assert "best_of=3" in first and "opening=2-4-6" in first
    assert "seat 0 (random): " in out or "seat 1 (random): " in out
    assert out.splitlines()[-1].startswith("result after ")


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "koob", "--option", "best_of=2", "--bots", "random"], "must be one of [1, 3]"),
    (["play", "koob", "--option", "sets=3"], "has no such option"),
    (["play", "koob", "--option", "best_of"], "expected KEY=VALUE"),
    (["play", "koob", "--bots", "search"], "has no 'search' player"),
    (["play", "manni", "--seats", "5"], "takes 3 to 3 seats"),
    (["play", "manni", "--human", "3"], "seats are numbered 0 to 2"),
    (["play", "kobbla", "--bots", "rule,rule,rule"], "give one kind for every computer seat"),
])
def test_play_rejects_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert message in err
    assert out == ""


def scripted(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))


def test_human_against_a_bot_reprompts_and_undoes(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    scripted(monkeypatch,
             "toss:far",  # not a distance: refused with the rule's name
             "toss:0",  # right at the king: team 1 starts
             "baton:0,0,0",
             "undo",  # own entries while still the only one to act: back before the toss
             "toss:0",
             "baton:0,9,0",  # more koobs than stand: refused
             "baton:0,0,1")  # the king before the koobs: team 1 loses
    status, out, _ = run(capsys, "play", "koob", "--human", "0", "--bots", "random",
                         "--seed", "4")
    assert status == 0
    assert "-- seat 0 to play --" in out and "legal: 1) toss:0" in out
    assert "not allowed: a toss lands 0-800 cm from the king" in out
    assert "(rule: opening-toss)" in out
    assert "undone" in out
    assert out.count("tossed: team=0, result=0") == 2
    assert "(rule: koob-count)" in out
    assert "king before every koob fell" in out
    assert out.splitlines()[-1] == "result after 3 moves: seat 0: 0, seat 1: 1; winner: seat 1"


def test_human_sees_only_their_seat(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Choosing the first listed action every time plays a whole game of Kobbla.
    scripted(monkeypatch, *["1"] * 2000)
    status, out, _ = run(capsys, "play", "kobbla", "--human", "1", "--seed", "3",
                         "--bots", "random")
    assert status == 0
    assert "-- seat 1 to play --" in out
    assert "-- seat 0 to play --" not in out
    # Bots' moves are shown through the events a seat may see, not as raw actions.
    assert "seat 0 (random):" not in out
    assert out.splitlines()[-1].startswith("result after ")


def test_human_quits_or_input_ends(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    scripted(monkeypatch, "?", "quit")
    status, out, err = run(capsys, "play", "kobbla", "--human", "0")
    assert status == 1 and "game abandoned" in err
    assert out.count("-- seat 0 to play --") == 2
    scripted(monkeypatch)
    status, _, err = run(capsys, "play", "koob")  # people at both seats; no input at all
    assert status == 1 and "game abandoned" in err


def test_json_log_stays_json_with_a_person_playing(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    scripted(monkeypatch, "toss:nowhere", "toss:5", "baton:0,0,1")
    status, out, err = run(capsys, "play", "koob", "--human", "0", "--bots", "random",
                           "--seed", "4", "--json")
    assert status == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["kind"] == "result" and lines[-1]["winners"] == [1]
    # Prompts, observations and refusals go to the person, on stderr.
    assert "-- seat 0 to play --" in err and "(rule: opening-toss)" in err


# --- for people at the terminal (issue 13) ---------------------------------------------


def test_options_lists_every_option_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.games import get_game

    status, out, _ = run(capsys, "options", "knuff")
    assert status == 0
    flat = " ".join(out.split())
    for name, opt in get_game("knuff").options_schema.items():
        assert f"  {name} (default " in out
        assert " ".join(opt.help.split()) in flat      # the whole help, not a cut line
    assert "end (default rounds; one of rounds, first-knuff, letters, either)" in out
    status, out, _ = run(capsys, "options", "knuff", "--json")
    assert json.loads(out)["decks"]["choices"] == [1, 2]
    status, out, _ = run(capsys, "options", "kobbla")
    assert status == 0 and "  max_turns (default 200; any int)" in out
    with pytest.raises(SystemExit) as exit_:
        main(["games", "options", "chess"])
    assert exit_.value.code == 2
    assert "invalid choice: 'chess'" in capsys.readouterr().err


def test_play_help_explains_the_prompt_and_where_the_options_are(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["games", "play", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "knapp games options GAME" in out and "knapp games list" not in out
    for word in ("undo", "wait", "options", "quit", "Ctrl-D"):
        assert word in out


def test_a_person_sees_kobblas_labelled_board(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    scripted(monkeypatch, "place:b1", "quit")
    status, out, _ = run(capsys, "play", "kobbla", "--human", "0", "--seed", "3",
                         "--bots", "random")
    assert status == 1
    lines = out.splitlines()
    board = lines.index("  8 wwwwww")
    assert lines[board + 7] == "  1 wwwwww" and lines[board + 8] == "    abcdef"
    assert "  S to move, phase p, turn 0/200; Kobbs: S not placed, N not placed" in out
    assert "  1 wSwwww" in out          # the Kobb on b1 once placed
    assert "kfn" not in out and '"board"' not in out   # no raw observation dump


def test_a_person_sees_a_hand_and_table_line_and_nobody_elses_cards(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.games import Session, get_game

    same = Session(get_game("knuff"), 4, seed=5)      # the same seed deals the same hands
    mine = same.state.observation(0)["hand"]
    others = [same.state.observation(s)["hand"] for s in (1, 2, 3)]
    scripted(monkeypatch, "?", "quit")
    status, out, err = run(capsys, "play", "knuff", "--human", "0", "--seed", "5")
    assert status == 1 and "game abandoned" in err
    assert f"  hand: {' '.join(mine)}" in out
    assert "  deal 1, draw phase, ask; top empty (run 0); stock 36; seat 0 on turn" in out
    assert "  cards 0:4 1:4 2:4 3:4; letters 0:- 1:- 2:- 3:-; minimum 0:4 1:4 2:4 3:4" in out
    for hand in others:
        assert " ".join(hand) not in out            # neither a hand line nor a deal event
    assert out.count("dealt: seat=") == 1 and "dealt: seat=0" in out
    assert "seed" not in out.splitlines()[0]          # the seed recomputes every hand


def test_quit_and_end_of_input_end_the_game_alike(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    results = []
    for script in (["help", "quit"], ["help"], ["options", "exit"]):
        scripted(monkeypatch, *script)
        status, out, err = run(capsys, "play", "knuff", "--human", "0", "--seed", "2")
        results.append((status, err.strip()))
        assert "At your prompt" in out or "options" in script
    assert results == [(1, "game abandoned")] * 3
    assert "  end (now rounds, default rounds;" in out       # `options` shows the table's


def test_a_person_plays_a_whole_knuff_game(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The first listed action every time: ask, then draw while one may, then play.
    scripted(monkeypatch, *["1"] * 400)
    status, out, _ = run(capsys, "play", "knuff", "--human", "0", "--seed", "11",
                         "--option", "rounds=1", "--option", "seat_changes=false")
    assert status == 0
    assert "-- seat 0 to play --" in out and "  hand: " in out
    assert "  out: seat=" in out
    assert out.splitlines()[-1].startswith("result after ")


def test_a_person_away_from_the_table_may_wait(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # Seat 3 is an empty chair: it may join at any moment of the draw phase. After
    # `wait` it is not asked again while that stays its only choice.
    scripted(monkeypatch, "wait")
    status, out, _ = run(capsys, "play", "knuff", "--human", "3", "--seed", "4",
                         "--option", "players=3", "--option", "rounds=1")
    assert status == 0
    assert out.count("-- seat 3 to play --") == 1
    assert "away: 3; may join now: 3" in out and "legal: 1) join" in out
    assert out.splitlines()[-1].startswith("result after ")

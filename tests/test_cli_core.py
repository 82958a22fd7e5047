"""`knapp solve`, `knapp deck`, `knapp simulate` and `knapp config check` end to end."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli.simulate import _live
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import MatchRules
from controller.store import EventStore

ROOT = Path(__file__).resolve().parents[1]


def test_solve_json_in_input_order(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["solve", "--json", "ship:yellow/green+red", "boat:red/blue+white",
                   "ship:yellow/blue+green", "viking:red/blue+white"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert [x["card"] for x in lines] == ["ship:yellow/red+green", "boat:red/blue+white",
                                          "ship:yellow/blue+green", "viking:red/blue+white"]
    assert lines[0]["answer"] == "dog" and lines[0]["error"] is None
    assert "white dog is correct" in lines[0]["explanation"]
    assert lines[1]["error"]["kind"] == "malformed" and "unknown figure 'boat'" in \
        lines[1]["error"]["reason"]
    assert lines[2]["error"]["kind"] == "ambiguous" and lines[2]["answer"] is None
    assert lines[3]["answer"] == "viking"


def test_solve_json_shape_and_raw_text_of_a_malformed_card(
        capsys: pytest.CaptureFixture[str]) -> None:
    raw = " Ship:Yellow/Red "  # kept exactly as typed: there is no canonical form
    assert main(["solve", "--json", "dog:white/yellow+red", raw]) == 1
    ok, bad = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert ok == {"card": "dog:white/red+yellow", "answer": "dog",
                  "explanation": ok["explanation"], "error": None}
    assert isinstance(ok["explanation"], str) and ok["explanation"]
    assert bad == {"card": raw, "answer": None, "explanation": None,
                   "error": {"kind": "malformed", "reason": bad["error"]["reason"]}}
    assert "exactly two colours" in bad["error"]["reason"]


def test_solve_text_names_the_reason_and_exits_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "ship:yellow/green+red", "ship:yellow/blue+green"]) == 1
    out = capsys.readouterr()
    assert out.out.startswith("ship:yellow/red+green: dog")
    assert "ship:yellow/blue+green: ambiguous: " in out.err
    assert "true colour blue is visible" in out.err


def test_solve_text_and_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "dog:white/red+yellow"]) == 0
    assert capsys.readouterr().out.startswith("dog:white/red+yellow: dog")


def test_deck_json_default_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)
    assert cards == [str(c) for c in shuffled_deck(0)]
    assert main(["deck", "--json", "--seed", "9"]) == 0
    assert json.loads(capsys.readouterr().out) == [str(c) for c in shuffled_deck(9)]


def test_deck_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "--check"]) == 0
    assert "deck ok: 60 cards, 20 true-colour and 40 wrong-colour" in capsys.readouterr().out


def test_deck_check_names_the_first_failure(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import controller.cli.deck as deck_cli

    monkeypatch.setattr(deck_cli, "shuffled_deck", lambda seed: shuffled_deck(seed)[:59])
    assert main(["deck", "--check"]) == 1
    assert "deck check failed: the deck has 59 cards, expected 60" in capsys.readouterr().err


@pytest.mark.parametrize("colour_blind", [False, True])
def test_deck_render_writes_one_svg_per_card(tmp_path: Path, colour_blind: bool) -> None:
    args = ["deck", "--seed", "3", "--render", str(tmp_path)]
    assert main([*args, "--colour-blind"] if colour_blind else args) == 0
    files = sorted(tmp_path.glob("*.svg"))
    assert len(files) == 60
    first = shuffled_deck(3)[0]
    assert files[0].name == f"01_{str(first).replace(':', '_').replace('/', '_')}.svg"
    root = ET.parse(files[0]).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = files[0].read_text()
    assert ("pat-" in text) == colour_blind


def test_simulate_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "4", "--matches", "20", "--seed", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 20 and len(data["players"]) == 4
    assert abs(sum(data["win_share"].values()) - 1.0) < 1e-9
    assert data["cards_per_match"] >= 5
    for key in ("boxed_per_match", "boxed_cards", "ties", "shared_wins",
                "anticipation_flags", "wrong_grabs"):
        assert key in data
    # same seed, same result
    assert main(["simulate", "--players", "4", "--matches", "20", "--seed", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == data


def test_simulate_draws_a_progress_bar_on_stderr(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["simulate", "--matches", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] == 3  # stdout: only the JSON
    drawn = err.getvalue()
    assert drawn.startswith("\rsimulating:") and "3/3" in drawn.rsplit("\r", 1)[-1]
    assert drawn.endswith("\n")


def test_simulate_text_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--matches", "2"]) == 0
    assert "2 match(es)" in capsys.readouterr().out
    assert main(["simulate", "--players", "9"]) == 2
    assert "between 2 and 8" in capsys.readouterr().err
    assert main(["simulate", "--match-id", "x"]) == 2
    assert main(["simulate", "--matches", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
    for extra in (["--matches", "3"], ["--json"]):
        assert main(["simulate", "--live", *extra]) == 2
        assert "--live plays one match" in capsys.readouterr().err


def test_simulate_uses_the_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    cfg = ROOT / "examples" / "table.toml"
    assert main(["simulate", "--config", str(cfg), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["players"]] == ["Ada", "Ben", "Cleo", "Dag"]


def test_live_match_prints_cards_grabs_and_winner() -> None:
    out = io.StringIO()
    slept: list[float] = []
    store = EventStore(":memory:", durable=False)
    assert _live(store, ("Ada", "Ben"), MatchRules(target=2), 1, 1.0, out=out,
                 sleep=slept.append) == 0
    text = out.getvalue()
    assert "Card 1 (turned by Ada):" in text
    assert "grabs the" in text and "=>" in text
    assert "won the match" in text
    # paced in real time: the sleeps add up to the match's own duration
    match = store.open_match(store.matches()[0].id)
    first = match.rounds[0].reveal_ns
    assert abs(sum(slept) - (match.last_t_ns - first) / 1e9) < 1e-6  # type: ignore[operator]


def test_config_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["config", "check", str(ROOT / "examples" / "table.toml")]) == 0
    assert "ok: table 'Café corner', 4 seats" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text("[match]\ntarget = -1\n")
    assert main(["config", "check", str(bad)]) == 1
    assert "match.target: must be between 0 and 60" in capsys.readouterr().err


def test_console_script_entry_point() -> None:
    out = subprocess.run([sys.executable, "-m", "controller", "solve", "chest:yellow/red+white"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.startswith("chest:yellow/red+white: chest")


def test_deck_render_into_a_file_is_one_clear_error(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "not-a-folder"
    target.write_text("x")
    assert main(["deck", "--render", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("knapp deck: cannot write the card pictures into ")
    assert "not-a-folder" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["deck"], ["simulate"], ["pads", "virtual-board"],
                                     ["serve", "--sim"], ["vision", "demo", "x.mkv"]])
def test_every_seed_flag_takes_only_whole_numbers_from_zero(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for bad, why in (("-1", "must be 0 or more, got -1"), ("x", "must be a whole number")):
        with pytest.raises(SystemExit) as exit_:
            main([*command, "--seed", bad])
        assert exit_.value.code == 2
        assert why in capsys.readouterr().err

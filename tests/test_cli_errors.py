"""The command line's rough edges (issue 15): each bad input is one clear line, never a traceback.

Each test goes through the real entry point (`main()` or `python -m controller`)
and checks the exit status (2 for a bad argument, as argparse and `main()` use),
the words that say what was wrong, and that no traceback reached the person.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.evidence.signing import TableKey
from controller.knapp.cards import Card
from controller.store import EventStore

MS = 1_000_000
S = 1_000_000_000
DOG_CARD = Card.parse("ship:yellow/red+green")  # answer: dog
VIKING_CARD = Card.parse("viking:red/blue+white")  # answer: viking
DIGEST = "ab" * 32
PYTHON = sys.executable


def knapp(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run `python -m controller ARGS` as a person would, to its end."""
    return subprocess.run([PYTHON, "-m", "controller", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def one_clear_line(err: str) -> str:
    """The error output holds no traceback; return its last line."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "nothing said"
    return lines[-1]


# -- knapp export -------------------------------------------------------------------


def two_cards_with_evidence(data: Path) -> str:
    """A stored match of two settled cards, each with an evidence bundle on disk."""
    data.mkdir(parents=True, exist_ok=True)
    with EventStore(data / "knapp.db") as store:
        mid, m = store.new_match(("Ada", "Ben"), [DOG_CARD, VIKING_CARD, DOG_CARD])
        m.reveal(DOG_CARD, S)
        m.grab("Ada", "dog", S + 600 * MS)
        m.advance(3 * S)
        m.evidence(0, DIGEST, "photo-finish", "card-1")
        m.figures_home(4 * S)
        m.reveal(VIKING_CARD, 5 * S)
        m.grab("Ben", "viking", 5 * S + 700 * MS)
        m.advance(8 * S)
        m.evidence(1, DIGEST, "photo-finish", "card-2")
    for ref in ("card-1", "card-2"):
        (data / "evidence" / ref).mkdir(parents=True)
        (data / "evidence" / ref / "frames.json").write_text("[]")
    TableKey.load_or_create(data)
    return mid


def test_export_of_a_card_the_match_does_not_have_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mid = two_cards_with_evidence(tmp_path)
    out = tmp_path / "out"
    assert main(["export", "--data-dir", str(tmp_path), mid, str(out), "--round", "99"]) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert err == f"knapp export: --round 99: match {mid} has no card 99 (cards 1 to 2)"
    assert not out.exists()  # nothing written


def test_export_round_counts_cards_from_1_as_the_pages_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mid = two_cards_with_evidence(tmp_path)
    for card, bundle in (("1", "card-1"), ("2", "card-2")):
        out = tmp_path / f"out-{card}"
        assert main(["export", "--data-dir", str(tmp_path), mid, str(out), "--round", card]) == 0
        assert json.loads((out / "dispute.json").read_text())["bundles"] == [bundle]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["export", "--data-dir", str(tmp_path), mid, str(tmp_path / "o"), "--round", "0"])
    assert exit_.value.code == 2
    assert one_clear_line(capsys.readouterr().err) == (
        "knapp export: error: argument --round: cards are numbered from 1 (Card 1 is the "
        "first dealt), got 0")
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    assert "Card 1 is the first card dealt" in " ".join(capsys.readouterr().out.split())


def test_export_takes_the_data_folder_from_config(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "table data"
    mid = two_cards_with_evidence(data)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[kiosk]\ndata_dir = "{data}"\n')
    out = tmp_path / "out"
    assert main(["export", "--config", str(cfg), mid, str(out)]) == 0
    assert sorted(json.loads((out / "dispute.json").read_text())["bundles"]) == [
        "card-1", "card-2"]
    capsys.readouterr()
    cfg.write_text("[kiosk]\nport = 0\n")
    assert main(["export", "--config", str(cfg), mid, str(out)]) == 2
    err = one_clear_line(capsys.readouterr().err)
    assert err.startswith(f"knapp export: {cfg}: kiosk.port: ") and "0" in err


# -- knapp serve --------------------------------------------------------------------


def test_serve_refuses_a_port_out_of_range_in_one_line(tmp_path: Path) -> None:
    r = knapp("serve", "--sim", "--data-dir", str(tmp_path), "--port", "99999")
    assert r.returncode == 2
    assert one_clear_line(r.stderr) == (
        "knapp serve: error: argument --port: must be 1 to 65535, got 99999")
    assert r.stdout == ""
    assert not (tmp_path / "knapp.db").exists()  # nothing was opened


def test_serve_on_a_port_in_use_says_so_before_printing_any_address(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = knapp("serve", "--sim", "--data-dir", str(tmp_path), "--host", "127.0.0.1",
                  "--port", str(port))
    assert r.returncode == 2
    assert one_clear_line(r.stderr) == (
        f"knapp serve: --port {port}: another program already listens on 127.0.0.1:{port}; "
        "stop it, or give --port another number")
    assert "http://" not in r.stdout + r.stderr  # no address that does not answer
    assert not (tmp_path / "knapp.db").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("bots", ["99", "-1", "4"])
def test_serve_refuses_more_bots_than_seats_with_the_allowed_range(tmp_path: Path,
                                                                    bots: str) -> None:
    # Before the fix the table started, every seat a bot, and served until stopped.
    r = knapp("serve", "--sim", "--data-dir", str(tmp_path), "--host", "127.0.0.1",
              "--port", str(free_port()), "--bots", bots, timeout=30)
    assert r.returncode == 2
    assert one_clear_line(r.stderr) == (
        f"knapp serve: --bots {bots}: the table has 3 seats (Ada, Ben, Cleo); give 0 to 3")
    assert r.stdout == ""
    assert not (tmp_path / "knapp.db").exists()

"""The command line's rough edges (issue 15): each bad input is one clear line, never a traceback.

Each test goes through the real entry point (`main()` or `python -m controller`)
and checks the exit status (2 for a bad argument, as argparse and `main()` use),
the words that say what was wrong, and that no traceback reached the person.
"""

from __future__ import annotations

import io
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli.pads import run_monitor
from controller.clock import FakeClock
from controller.evidence.signing import TableKey
from controller.knapp.cards import Card
from controller.pads.events import PadStatus
from controller.pads.sim import SimPads
from controller.store import EventStore
from tests.lines import LineReader

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


# -- knapp pads monitor -------------------------------------------------------------


@pytest.mark.parametrize(("name", "problem"), [
    ("ttyNOPE", "{port} does not exist (is the board plugged in? "),
    ("plain-file", "{port} is not a serial device; "),
])
def test_pads_monitor_says_what_is_wrong_with_the_port_that_it_retries_and_how_to_stop(
        tmp_path: Path, name: str, problem: str) -> None:
    port = tmp_path / name
    if name == "plain-file":
        port.write_text("not a tty")
    with subprocess.Popen([PYTHON, "-m", "controller", "pads", "monitor", "--serial", str(port)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            err, out = LineReader(proc.stderr), LineReader(proc.stdout)  # type: ignore[arg-type]
            deadline = time.monotonic() + 60
            first = err.get(deadline)
            assert first.startswith("knapp pads monitor: " + problem.format(port=port)), first
            assert first.rstrip().endswith("retrying until the board answers (every 5 s at "
                                           "most); Ctrl-C to stop")
            assert out.get(deadline).startswith(f"[disconnected] cannot open {port}: ")
            proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
            assert proc.wait(timeout=60) == 130
            said = [first]
            while True:  # the rest of what it said, up to the end of its output
                try:
                    said.append(err.get(deadline))
                except AssertionError:
                    break
            assert one_clear_line("".join(said)) == "interrupted"
        finally:
            if proc.poll() is None:
                proc.kill()


def test_pads_monitor_says_a_repeated_fault_once_and_again_after_a_change() -> None:
    gone = "cannot open /dev/ttyACM0: no such file"
    batches = [[PadStatus("disconnected", f"{gone}; retrying in 0.5 s")],
               [PadStatus("disconnected", f"{gone}; retrying in 1 s")],
               [PadStatus("connected", "/dev/ttyACM0")],
               [PadStatus("disconnected", f"{gone}; retrying in 0.5 s")]]
    clock = FakeClock(0)
    out = io.StringIO()
    run_monitor(SimPads(clock=clock), out, json_lines=False, clock=clock,
                poll=lambda _t: batches.pop(0), stop=lambda: not batches)
    said = [line for line in out.getvalue().splitlines() if line.startswith("[")]
    assert said == [f"[disconnected] {gone}; retrying in 0.5 s", "[connected] /dev/ttyACM0",
                    f"[disconnected] {gone}; retrying in 0.5 s"]

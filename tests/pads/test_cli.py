"""`knapp pads monitor` and `knapp pads selftest` on simulated pads and the virtual board."""

from __future__ import annotations

import io
import json
import re

import pytest

from controller.cli import build_parser, main
from controller.cli.pads import run_monitor, run_selftest
from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads.sim import SimPads
from controller.sim.virtual_table import VirtualTable

MS = 1_000_000


def ticking(clock: FakeClock, source, step_s: float = 0.05):
    """A poll that moves simulated time on, as a real blocking poll would."""
    def poll(timeout_s: float):
        clock.advance(step_s)
        return source.poll()
    return poll


def test_monitor_json_lines():
    clock = FakeClock(10**9)
    pads = SimPads(clock=clock)
    pads.lift(Figure.SHIP, 2 * 10**9)
    pads.place(Figure.SHIP, 3 * 10**9)
    out = io.StringIO()
    run_monitor(pads, out, json_lines=True, clock=clock, poll=ticking(clock, pads),
                stop=lambda: clock.now_ns() > 4 * 10**9)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert lines[0] == {"status": "connected", "detail": "simulated pads"}
    assert lines[1] == {"figure": "ship", "kind": "lift", "t_ns": 2 * 10**9,
                        "uncertainty_ns": 0, "source": "sim"}
    assert lines[2]["kind"] == "place"


def test_monitor_human_shows_states():
    clock = FakeClock(0)
    pads = SimPads(clock=clock)
    pads.lift(Figure.DOG, 10**9)
    out = io.StringIO()
    run_monitor(pads, out, json_lines=False, clock=clock, poll=ticking(clock, pads),
                stop=lambda: clock.now_ns() > 2 * 10**9)
    text = out.getvalue()
    assert "1.0000 s  lift   dog" in text
    assert "dog ○" in text and "ship ●" in text


def test_selftest_passes_with_a_willing_person():
    clock = FakeClock(0)
    pads = SimPads(clock=clock)

    def person(fig):
        pads.lift(fig, clock.now_ns() + 700 * MS)
        pads.place(fig, clock.now_ns() + 1500 * MS)

    out = io.StringIO()
    assert run_selftest(pads, out, clock=clock, poll=ticking(clock, pads), person=person) == 0
    text = out.getvalue()
    assert "Lift the blue ship, then put it back." in text
    assert text.count("PASS") == 6 and "PASS: all 5 pads" in text
    assert "0.70 s" in text and "0.80 s" in text


def test_selftest_fails_a_dead_pad_and_crosstalk():
    clock = FakeClock(0)
    pads = SimPads(clock=clock)

    def person(fig):
        if fig is Figure.CHEST:
            return  # this pad never reacts
        pads.lift(fig, clock.now_ns() + 300 * MS)
        pads.place(fig, clock.now_ns() + 600 * MS)
        if fig is Figure.CHILD:  # the child's pad also jolts the dog's
            pads.lift(Figure.DOG, clock.now_ns() + 310 * MS)
            pads.place(Figure.DOG, clock.now_ns() + 320 * MS)

    out = io.StringIO()
    status = run_selftest(pads, out, clock=clock, poll=ticking(clock, pads), person=person,
                          timeout_s=3)
    text = out.getvalue()
    assert status == 1
    assert "no lift seen within 3 s" in text
    assert "other pads changed meanwhile: dog lift, dog place" in text
    assert "FAIL: 2 of 5 pads: child, chest" in text


def selftest_on(table: VirtualTable) -> tuple[int, str]:
    """Run `run_selftest` against a virtual table with a willing simulated person."""
    board = table.board

    def person(fig):
        now = table.clock.now_ns()
        board.lift(fig, now + 400 * MS)
        board.place(fig, now + 900 * MS)

    def poll(timeout_s):
        return table.run_until(table.clock.now_ns() + round(timeout_s * 1e9))

    def confirm(instruction):
        now = table.clock.now_ns()
        for fig in Figure:
            if "off" in instruction:
                board.lift(fig, now + 30 * MS)
            else:
                board.place(fig, now + 30 * MS)
        table.run_until(now + 300 * MS)

    out = io.StringIO()
    status = run_selftest(table.pads, out, clock=table.clock, poll=poll, person=person,
                          confirm=confirm)
    return status, out.getvalue()


def test_selftest_fails_a_board_sampling_below_1khz():
    with VirtualTable(seed="slow", scan_us=1500) as table:
        status, text = selftest_on(table)
    assert status == 1
    assert "each pad sampled every 1500 us (667/s, needs 1000/s: TOO SLOW)" in text
    assert "FAIL: the pad board samples too slowly" in text


def test_selftest_over_the_virtual_board_reports_levels():
    with VirtualTable(seed="cli") as table:
        status, text = selftest_on(table)
        stored = table.board.firmware_state().pads[0]
    assert status == 0, text
    assert "Calibrated: ship " in text
    assert 600 < stored.empty < 1200 and 25000 < stored.loaded < 27000  # learned, not defaults
    assert len(re.findall(r"empty \d{3,4}, loaded 2\d{4}, thresholds", text)) == 5
    assert re.search(r"Pad board: firmware 2\.0\.0, each pad sampled every 250 us "
                     r"\(4000/s, needs 1000/s: ok\), clock error bound now \d+ us", text)
    assert "PASS: all 5 pads" in text


def test_parser_and_bad_config(tmp_path, capsys):
    args = build_parser().parse_args(["pads", "monitor", "--serial", "usb-x", "--json"])
    assert args.serial == "usb-x" and args.json
    with pytest.raises(SystemExit):
        build_parser().parse_args(["pads", "monitor", "--gpio", "--sim"])
    bad = tmp_path / "t.toml"
    bad.write_text("[pads]\nbackend = 'wifi'\n")
    assert main(["pads", "selftest", "--config", str(bad)]) == 2
    assert "pads.backend: must be one of gpio, serial, sim" in capsys.readouterr().err


def test_simulate_with_the_virtual_board(capsys):
    assert main(["simulate", "--pads", "virtual-board", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 1
    assert re.fullmatch(r"virtual pad board: \d+ grabs timed in \d+ rounds, largest error "
                        r"0\.\d{3} ms, .* 0 missed", data["pads"])
    assert main(["simulate", "--pads", "virtual-board", "--live"]) == 2
    assert "--pads virtual-board works without --live" in capsys.readouterr().err

"""`knapp pads virtual-board`: the firmware behind a pty on the host clock, so the
pad tools can be tried without hardware, and `knapp pads monitor --serial` is
checked end to end across two real processes.

The process test runs in real time (two programs talking through a pty), so it
waits for their output with a deadline; the fast tests drive the same code in
simulated time.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from controller.cli.pads import parse_figure
from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads import protocol as wire
from controller.pads.events import PadEvent
from controller.pads.serial_link import SerialPads
from controller.rng import Rng
from controller.sim.virtual_board import VirtualBoard
from tests.lines import LineReader

MS = 1_000_000
KNAPP = [sys.executable, "-m", "controller"]


def test_figure_keys_and_names():
    assert [parse_figure(k) for k in "svctd"] == list(Figure)
    assert parse_figure(" Dog \n") is Figure.DOG
    with pytest.raises(ValueError, match="'x' is not a figure: type one of s v c t d"):
        parse_figure("x")


def test_toggle_lifts_then_places_and_run_live_follows_the_host_clock():
    """run_live steps the board up to the host's time; the real driver on the
    same clock sees the toggled figure leave and come back, each event within
    its reported uncertainty of the true time."""
    clock = FakeClock(10**12)
    with VirtualBoard(clock=clock, rng=Rng("live"), live=True) as board:
        pads = SerialPads(board.port, clock=clock)
        host_ticks = iter(range(10**12, 10**12 + 60 * 10**9, 2 * MS))
        seen: list[PadEvent] = []
        truth: dict[str, int] = {}

        def step(_seconds: float) -> None:
            seen.extend(i for i in pads.poll(0) if isinstance(i, PadEvent))

        def stop() -> bool:
            now = clock.now_ns()
            if now > 10**12 + 3 * 10**9 and not truth:
                truth["lift"] = board.toggle(Figure.CHILD)[1]
            elif now > 10**12 + 4 * 10**9 and len(truth) == 1:
                kind, at = board.toggle(Figure.CHILD)
                assert kind == "place"
                truth["place"] = at
            return now > 10**12 + 5 * 10**9

        board.run_live(lambda: next(host_ticks), step, stop)
        pads.close()
    assert [(e.figure, e.kind) for e in seen] == [(Figure.CHILD, "lift"), (Figure.CHILD, "place")]
    for ev in seen:
        assert abs(ev.t_ns - truth[ev.kind]) <= ev.uncertainty_ns, ev


def _start_board(seed: int, deadline: float
                 ) -> tuple[subprocess.Popen[str], LineReader, str]:
    """`knapp pads virtual-board` in its own process, its output, and the port it prints first."""
    board = subprocess.Popen([*KNAPP, "pads", "virtual-board", "--seed", str(seed)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert board.stdout is not None
    out = LineReader(board.stdout)
    return board, out, out.get(deadline).strip()


def _stop(*procs: subprocess.Popen[str] | None) -> None:
    """Kill what still runs, reap it, and close its pipes."""
    for proc in procs:
        if proc is None:
            continue
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.slow
def test_monitor_in_another_process_reads_the_virtual_board():
    deadline = time.monotonic() + 90
    board, board_out, port = _start_board(3, deadline)
    monitor = None
    try:
        assert board.stdout is not None and board.stdin is not None
        assert port.endswith("usb-Knapp_Pad_Board_virtual-if00")
        monitor = subprocess.Popen([*KNAPP, "pads", "monitor", "--serial", port, "--json"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert monitor.stdout is not None
        monitor_out = LineReader(monitor.stdout)
        items = []
        while not any(i.get("status") == "connected" for i in items):
            items.append(json.loads(monitor_out.get(deadline)))
        version = ".".join(map(str, wire.PROTOCOL_VERSION))
        assert f"firmware {version}" in items[-1]["detail"]

        def toggle(key: str) -> dict[str, object]:
            """Type a figure's key into the board; return its report of the change."""
            board.stdin.write(key + "\n")
            board.stdin.flush()
            return json.loads(board_out.get(deadline))

        def next_event() -> dict[str, object]:
            while True:
                item = json.loads(monitor_out.get(deadline))
                if "kind" in item:
                    return item

        # Put it back only once the lift is seen: the firmware ignores a pad for
        # its 10 ms lockout after an event, which would delay a quicker return.
        truth = [toggle("c")]
        events = [next_event()]
        board.stdin.write("nonsense\n")
        truth.append(toggle("child"))
        events.append(next_event())
        assert [(e["figure"], e["kind"]) for e in events] == [("child", "lift"),
                                                               ("child", "place")]
        assert [t["kind"] for t in truth] == ["lift", "place"]
        for ev, true in zip(events, truth, strict=True):
            assert ev["source"] == "serial" and ev["uncertainty_ns"] > 0
            # Both processes read CLOCK_MONOTONIC. Real-time scheduling on a busy
            # machine may add delay the sync has not seen yet: 5 ms of slack.
            assert abs(ev["t_ns"] - true["true_t_ns"]) <= ev["uncertainty_ns"] + 5 * MS, ev
        board.stdin.close()  # end of input stops the board
        assert board.wait(timeout=max(1.0, deadline - time.monotonic())) == 0
        assert board.stderr is not None
        assert "'nonsense' is not a figure" in board.stderr.read()
    finally:
        _stop(monitor, board)


def _until(proc: subprocess.Popen[str], text: str, seen: list[str], deadline: float) -> str:
    """Read `proc`'s stdout (prompts end without a newline) until `text` appears."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    while text not in seen[0]:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"timed out waiting for {text!r}; got {seen[0][-500:]!r}")
        chunk = os.read(fd, 4096).decode()
        if not chunk:
            raise AssertionError(f"exited before {text!r}; got {seen[0][-500:]!r}")
        seen[0] += chunk
    found = seen[0]
    seen[0] = found[found.index(text) + len(text):]
    return found


@pytest.mark.slow
def test_selftest_in_another_process_calibrates_and_passes_the_virtual_board():
    """The bring-up practice docs/pads.md promises: selftest --serial against the
    virtual board, a person (this test) moving the figures on the board's input."""
    deadline = time.monotonic() + 120
    board, board_out, port = _start_board(5, deadline)
    selftest = None
    try:
        assert board.stdout is not None and board.stdin is not None
        selftest = subprocess.Popen([*KNAPP, "pads", "selftest", "--serial", port],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
        assert selftest.stdin is not None
        seen = [""]

        def move(keys: str) -> None:
            for key in keys:
                board.stdin.write(key + "\n")
                board.stdin.flush()
                json.loads(board_out.get(deadline))

        def enter() -> None:
            selftest.stdin.write("\n")
            selftest.stdin.flush()

        _until(selftest, "take every figure off", seen, deadline)
        move("svctd")
        enter()
        _until(selftest, "put every figure back", seen, deadline)
        move("svctd")
        enter()
        calibrated = _until(selftest, "(empty/loaded, stored on the board)", seen, deadline)
        levels = calibrated.rsplit("Calibrated: ", 1)[1].split(" (empty/loaded")[0]
        # The virtual pads read about 900 empty and 26000 loaded: both were learned.
        for part in levels.split(", "):
            empty, loaded = map(int, part.split()[1].split("/"))
            assert 500 < empty < 1300 and 25000 < loaded < 27000, part
        for figure, key in zip(Figure, "svctd", strict=True):
            _until(selftest, f"Lift the {figure.title}", seen, deadline)
            move(key + key)  # up and straight back down
        _until(selftest, "PASS: all 5 pads", seen, deadline)
        assert selftest.wait(timeout=max(1.0, deadline - time.monotonic())) == 0
    finally:
        _stop(selftest, board)

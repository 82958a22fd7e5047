"""SerialPads over pyserial's loop:// and real pty pairs, against a scripted board."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial
from hypothesis import example, given, settings
from hypothesis import strategies as st

from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads import protocol as wire
from controller.pads.events import LightEvent, PadEvent, PadSource, PadStatus
from controller.pads.serial_link import BoardSettings, SerialPads, resolve_port
from controller.sim.virtual_board import pending_bytes, wait_pending

BOOT = 0xB007


class ScriptedBoard:
    """The board's side of a pty pair, driven byte by byte by the test."""

    def __init__(self, tmp: Path) -> None:
        self.link = tmp / "usb-Knapp_test-if00"
        self.seq = 0
        self.got = 0
        self.pads: SerialPads | None = None
        self.reader = wire.FrameReader()
        self.plug()

    def plug(self) -> None:
        self.got = 0
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        if self.link.is_symlink():
            self.link.unlink()
        self.link.symlink_to(os.ttyname(self.slave))

    def unplug(self) -> None:
        os.close(self.master)
        os.close(self.slave)

    def write(self, data: bytes) -> None:
        """Write raw bytes and wait until the host side can read them."""
        before = pending_bytes(self.slave)
        os.write(self.master, data)
        wait_pending(self.slave, before + len(data))

    def send(self, ftype: int, *fields: int, seq: int | None = None) -> bytes:
        self.seq = (self.seq + 1) & 0xFFFF if seq is None else seq
        frame = wire.pack(ftype, self.seq, *fields)
        self.write(frame)
        return frame

    def received(self) -> list[wire.Frame]:
        """Frames the host wrote since the last call (all of them: we wait for them)."""
        pads = self.pads
        if pads is not None and pads.tx_bytes > self.got:
            wait_pending(self.master, pads.tx_bytes - self.got)
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return []
        self.got += len(data)
        return [f for f in self.reader.feed(data) if isinstance(f, wire.Frame)]


@contextlib.contextmanager
def scripted_board(tmp: Path) -> Iterator[ScriptedBoard]:
    """A ScriptedBoard whose pty and driver are closed afterwards."""
    b = ScriptedBoard(tmp)
    try:
        yield b
    finally:
        if b.pads is not None:
            b.pads.close()
        for fd in (b.master, b.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def board(tmp_path):
    with scripted_board(tmp_path) as b:
        yield b


@pytest.fixture
def clock():
    return FakeClock(50 * 10**9)


def statuses(items, name=None):
    return [i for i in items if isinstance(i, PadStatus) and (name is None or i.status == name)]


def events(items):
    return [i for i in items if isinstance(i, PadEvent)]


def connect(board: ScriptedBoard, clock: FakeClock, tick0: int = 1000, **kw) -> SerialPads:
    """Open, greet, and answer the sync burst with a board clock = host µs - offset."""
    pads = SerialPads(str(board.link), clock=clock, **kw)
    board.pads = pads
    assert pads.poll() == []  # opened; HELLO_REQ sent
    assert [f.type for f in board.received()] == [wire.HELLO_REQ]
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, tick0, 250, 0, 0x1F, 0)
    items = pads.poll()
    assert statuses(items, "connected")
    sync_rounds(board, clock, pads, tick0, 8)
    assert pads.synced
    return pads


def board_tick(clock: FakeClock, tick0_host: int, tick0: int) -> int:
    return (tick0 + (clock.now_ns() - tick0_host) // 1000) % wire.TICKS_PERIOD


def sync_rounds(board, clock, pads, tick0, n, rtt_ns=400_000):
    """Answer n pings: 200 µs each way; return what the driver reported meanwhile.

    21 ms steps: each one meets a burst ping (20 ms apart plus up to 1 ms of dither).
    """
    host0 = getattr(board, "host0", None)
    if host0 is None:
        board.host0 = host0 = clock.now_ns()
    seen = []
    for _ in range(n):
        clock.advance(ns=21_000_000)
        seen += pads.poll()
        pings = [f for f in board.received() if f.type == wire.PING]
        for ping in pings:
            clock.advance(ns=rtt_ns // 2)
            t = board_tick(clock, host0, tick0)
            board.send(wire.PONG, ping.fields()[0], t, t)
            clock.advance(ns=rtt_ns // 2)
            seen += pads.poll()
    return seen


def test_resolve_port():
    assert resolve_port("usb-MicroPython-if00") == "/dev/serial/by-id/usb-MicroPython-if00"
    assert resolve_port("/dev/ttyACM0") == "/dev/ttyACM0"
    assert resolve_port("loop://") == "loop://"


def test_loop_url_carries_frames_and_ignores_its_own_echo(clock):
    port = serial.serial_for_url("loop://", timeout=0)
    pads = SerialPads("loop://", clock=clock, opener=lambda url: port)
    (echo,) = pads.poll()  # our HELLO_REQ comes straight back
    assert echo.status == "notice" and echo.detail.startswith("echo of a host frame (hello_req)")
    port.write(wire.pack(wire.HELLO, 1, 7, 2, 0, 0, 5, 0, 250, 0, 0x1F, 0)
               + wire.pack(wire.HEARTBEAT, 2, 7, 1000, 0, 0x1F))
    items = pads.poll()
    assert statuses(items, "connected")
    assert not statuses(items, "notice")  # reported once per connection
    assert pads.placed() == dict.fromkeys(Figure, True)
    assert pads.stats["bad_frames"] == 0


def test_events_are_mapped_onto_the_host_clock(board, clock):
    pads = connect(board, clock)
    err = pads.error_bound_ns()
    assert err is not None and err < 500_000
    lift_host = clock.now_ns() - 3_000_000
    board.send(wire.EVENT, 1, 4, wire.LIFT, board_tick_at(board, lift_host), 800, 0)
    (ev,) = events(pads.poll())
    assert ev.figure is Figure.DOG and ev.kind == "lift" and ev.source == "serial"
    assert abs(ev.t_ns - lift_host) <= ev.uncertainty_ns
    assert abs(ev.t_ns - lift_host) < 5_000
    assert pads.placed()[Figure.DOG] is False


def board_tick_at(board, host_ns, tick0=1000):
    return (tick0 + (host_ns - board.host0) // 1000) % wire.TICKS_PERIOD


def test_events_before_the_first_sync_are_held_then_timed(board, clock):
    pads = SerialPads(str(board.link), clock=clock)
    board.pads = pads
    pads.poll()
    board.received()
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, 1000, 250, 0, 0x1F, 0)
    board.host0 = clock.now_ns()
    board.send(wire.EVENT, 1, 0, wire.LIFT, 1500, 800, 0)
    assert events(pads.poll()) == []
    items = []
    for _ in range(3):  # the first fit takes three round trips (one may be wrong)
        clock.advance(ns=21_000_000)
        pads.poll()
        ping = next(f for f in board.received() if f.type == wire.PING)
        t = board_tick(clock, board.host0, 1000)
        board.send(wire.PONG, ping.fields()[0], t, t)
        items = pads.poll()
        assert events(items) == [] or statuses(items, "synced")
    assert statuses(items, "synced")
    (ev,) = events(items)
    assert abs(ev.t_ns - (board.host0 + 500_000)) <= ev.uncertainty_ns


def test_lost_event_is_asked_for_again_and_delivered_once(board, clock):
    pads = connect(board, clock)
    t = board_tick(clock, board.host0, 1000) - 1000
    board.send(wire.EVENT, 1, 0, wire.LIFT, t, 800, 0)
    board.seq += 1  # event 2's frame is lost on the way
    board.send(wire.EVENT, 3, 1, wire.LIFT, t + 10, 800, 0)
    items = pads.poll()
    assert [e.figure for e in events(items)] == [Figure.SHIP, Figure.VIKING]
    assert statuses(items, "lost_frames")
    (resend,) = [f for f in board.received() if f.type == wire.RESEND]
    assert resend.fields() == (2,)
    board.send(wire.EVENT, 2, 2, wire.LIFT, t + 5, 800, wire.FLAG_RESENT)
    board.send(wire.EVENT, 3, 1, wire.LIFT, t + 10, 800, wire.FLAG_RESENT)  # already had it
    items = pads.poll()
    assert [e.figure for e in events(items)] == [Figure.CHILD]
    assert pads.stats["duplicate_events"] == 1 and pads.stats["resent_events"] == 1


def test_heartbeat_reveals_a_lost_last_event(board, clock):
    pads = connect(board, clock)
    t = board_tick(clock, board.host0, 1000)
    board.seq += 1  # the board sent event 1; we never saw its frame
    board.send(wire.HEARTBEAT, BOOT, t, 1, 0x1F)
    items = pads.poll()
    assert statuses(items, "lost_frames")
    assert [f.fields() for f in board.received() if f.type == wire.RESEND] == [(1,)]
    board.send(wire.EVENT, 1, 3, wire.PLACE, t - 100, 20000, wire.FLAG_RESENT)
    (ev,) = events(pads.poll())
    assert ev.figure is Figure.CHEST and ev.kind == "place"


def test_repeated_and_skipped_frames_and_garbage(board, clock):
    pads = connect(board, clock)
    t = board_tick(clock, board.host0, 1000) - 30_000  # events happen before they are sent
    frame = board.send(wire.EVENT, 1, 0, wire.LIFT, t, 800, 0)
    board.write(frame)  # the same frame again
    board.write(b"\x07\x07\x07noise\x00")
    cut = wire.pack(wire.HEARTBEAT, 99, BOOT, t, 1, 0)
    board.write(cut[:6])  # truncated, then the next frame's bytes
    board.send(wire.EVENT, 2, 0, wire.PLACE, t + 20_000, 25000, 0, seq=board.seq + 5)
    items = pads.poll()
    assert [(e.figure, e.kind) for e in events(items)] == [(Figure.SHIP, "lift"),
                                                          (Figure.SHIP, "place")]
    assert statuses(items, "duplicate")
    assert len(statuses(items, "bad_frame")) == 2
    assert statuses(items, "lost_frames")


def test_tick_wrap_is_unwrapped_and_reported(board, clock, caplog):
    tick0 = wire.TICKS_PERIOD - 400_000  # the board wraps 0.4 s after greeting
    pads = connect(board, clock, tick0=tick0)
    clock.advance(ns=1_100_000_000)  # past the wrap, to the first ping after the burst
    with caplog.at_level("INFO", logger="controller.pads.serial_link"):
        seen = sync_rounds(board, clock, pads, tick0, 2)
    (wrapped,) = statuses(seen, "wrapped")
    assert "17.9 min" in wrapped.detail
    assert any("wrapped" in r.getMessage() for r in caplog.records)
    when = clock.now_ns() - 1_000_000
    board.send(wire.EVENT, 1, 2, wire.LIFT, board_tick_at(board, when, tick0), 800, 0)
    (ev,) = events(pads.poll())
    assert abs(ev.t_ns - when) <= ev.uncertainty_ns


def test_reboot_resets_sync_and_numbering(board, clock):
    pads = connect(board, clock)
    board.send(wire.EVENT, 1, 0, wire.LIFT, board_tick(clock, board.host0, 1000), 800, 0)
    pads.poll()
    board.seq = 0
    board.send(wire.HELLO, 0xBEEF, 2, 0, 0, 5, 300_000, 250, 0, 0x1F, 0)
    items = pads.poll()
    (st,) = statuses(items, "rebooted")
    assert "0000b007 -> 0000beef" in st.detail
    assert not pads.synced
    board.host0, tick0 = clock.now_ns(), 300_000
    sync_rounds(board, clock, pads, tick0, 3)
    assert pads.synced
    board.send(wire.EVENT, 1, 4, wire.LIFT, board_tick(clock, board.host0, tick0), 800, 0)
    (ev,) = events(pads.poll())  # event number 1 again is new after a reboot
    assert ev.figure is Figure.DOG


def test_heartbeat_from_another_boot_asks_for_hello(board, clock):
    pads = connect(board, clock)
    board.send(wire.HEARTBEAT, 0x1234, 10, 0, 0)
    assert statuses(pads.poll(), "rebooted")
    assert wire.HELLO_REQ in [f.type for f in board.received()]


def test_unplug_backs_off_and_replug_resumes_with_resend(board, clock):
    pads = connect(board, clock)
    board.unplug()
    items = pads.poll()
    (st,) = statuses(items, "disconnected")
    assert "retrying in 0.5 s" in st.detail
    clock.advance(0.6)
    items = pads.poll()  # the link is gone: cannot open
    assert "retrying in 1 s" in statuses(items, "disconnected")[0].detail
    board.plug()
    clock.advance(0.5)
    assert pads.poll() == []  # still backing off
    clock.advance(0.6)
    pads.poll()
    assert [f.type for f in board.received()] == [wire.HELLO_REQ]
    lifted = clock.now_ns() - 800_000_000  # while the cable was out
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, board_tick(clock, board.host0, 1000), 250, 0,
               0x1E, 1)  # the board's newest event is number 1
    items = pads.poll()
    assert "same boot" in statuses(items, "connected")[0].detail
    assert [f.fields() for f in board.received() if f.type == wire.RESEND] == [(1,)]
    assert pads.synced  # the clock fit survives a replug of the same boot
    assert pads.stats["reconnects"] == 1
    board.send(wire.EVENT, 1, 0, wire.LIFT, board_tick_at(board, lifted), 800, wire.FLAG_RESENT)
    (ev,) = events(pads.poll())
    assert (ev.figure, ev.kind) == (Figure.SHIP, "lift")
    assert abs(ev.t_ns - lifted) <= ev.uncertainty_ns


def test_replug_with_nothing_missed_asks_for_nothing(board, clock):
    pads = connect(board, clock)
    board.send(wire.EVENT, 1, 2, wire.LIFT, board_tick(clock, board.host0, 1000), 800, 0)
    assert len(events(pads.poll())) == 1
    board.unplug()
    pads.poll()
    board.plug()
    clock.advance(0.6)
    pads.poll()
    board.received()
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, board_tick(clock, board.host0, 1000), 250, 0,
               0x1B, 1)
    items = pads.poll()
    assert "no events missed" in statuses(items, "connected")[0].detail
    assert [f for f in board.received() if f.type == wire.RESEND] == []


def test_first_contact_with_a_running_board_does_not_replay_its_history(board, clock):
    """A host (re)started mid-match numbers on from the board's newest event.

    The board's ring still holds old lifts; asking for them would hand the
    referee stale grabs and report losses that never happened.
    """
    pads = SerialPads(str(board.link), clock=clock)
    board.pads = pads
    pads.poll()
    board.received()
    board.host0 = clock.now_ns()
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, 1000, 250, 0, 0x1F, 57)
    items = pads.poll()
    assert statuses(items, "connected") and not statuses(items, "lost_frames")
    sync_rounds(board, clock, pads, 1000, 3)
    board.send(wire.HEARTBEAT, BOOT, board_tick(clock, board.host0, 1000), 57, 0x1F)
    items = pads.poll()
    assert not statuses(items, "lost_frames")
    assert [f for f in board.received() if f.type == wire.RESEND] == []
    board.send(wire.EVENT, 58, 1, wire.LIFT, board_tick(clock, board.host0, 1000), 800, 0)
    items = pads.poll()
    assert [(e.figure, e.kind) for e in events(items)] == [(Figure.VIKING, "lift")]
    assert not statuses(items, "lost_frames")


def test_a_reboot_seen_first_in_a_heartbeat_fetches_the_events_since(board, clock):
    pads = connect(board, clock)
    board.seq = 0  # the board rebooted; its boot hello was lost
    board.send(wire.EVENT, 1, 3, wire.LIFT, 500, 800, 0)  # not trusted: no hello yet
    board.send(wire.HEARTBEAT, 0xBEEF, 1000, 1, 0x17)
    items = pads.poll()
    assert statuses(items, "rebooted") and events(items) == []
    assert wire.HELLO_REQ in [f.type for f in board.received()]
    board.send(wire.HELLO, 0xBEEF, 2, 0, 0, 5, 1200, 250, 0, 0x17, 1)
    pads.poll()
    assert [f.fields() for f in board.received() if f.type == wire.RESEND] == [(1,)]
    board.send(wire.EVENT, 1, 3, wire.LIFT, 500, 800, wire.FLAG_RESENT)
    assert events(pads.poll()) == []  # held until the new boot's clock is synced
    board.host0 = clock.now_ns() - 1_200  # board tick 0 on the host clock
    seen = sync_rounds(board, clock, pads, 0, 3)
    assert pads.synced
    (ev,) = events(seen)  # the lift made before the host knew of the reboot
    assert (ev.figure, ev.kind) == (Figure.CHEST, "lift")
    assert abs(ev.t_ns - (board.host0 + 500_000)) <= ev.uncertainty_ns


def test_a_board_speaking_another_protocol_version_is_named(board, clock):
    pads = SerialPads(str(board.link), clock=clock)
    board.pads = pads
    pads.poll()
    board.received()
    old = wire.encode_frame(wire.HELLO, 1, bytes.fromhex("07000000010000050000000000fa00031f"))
    board.write(old)  # a 1.0.0 board: its hello is two bytes shorter
    (st,) = statuses(pads.poll())
    assert st.status == "version" and "protocol 1.0.0" in st.detail
    assert "hardware/flashing.md" in st.detail
    board.send(wire.HELLO, BOOT, 3, 1, 0, 5, 1000, 250, 0, 0x1F, 0)  # a future layout
    (st,) = statuses(pads.poll())
    assert st.status == "version" and "protocol 3.1.0" in st.detail
    board.send(wire.EVENT, 1, 0, wire.LIFT, 1000, 800, 0)
    assert pads.poll() == [] and pads.boot_id is None  # nothing trusted


def test_an_old_frame_repeated_later_is_dropped_without_a_false_loss(board, clock):
    pads = connect(board, clock)
    t = board_tick(clock, board.host0, 1000)
    stale = board.send(wire.HEARTBEAT, BOOT, t, 0, 0x1F)
    board.send(wire.EVENT, 1, 0, wire.LIFT, t + 10, 800, 0)
    board.write(stale)  # the old heartbeat again: it would put the ship back
    board.send(wire.HEARTBEAT, BOOT, t + 20, 1, 0x1E)
    items = pads.poll()
    (dup,) = statuses(items, "duplicate")
    assert "arrived again after frame" in dup.detail
    assert not statuses(items, "lost_frames")
    assert pads.placed()[Figure.SHIP] is False
    assert len(events(items)) == 1


HOLDER = """
import serial, sys
port = serial.Serial(sys.argv[1], exclusive=True, timeout=0)
print("holding", flush=True)
sys.stdin.read()
"""


def test_a_second_process_holding_the_port_is_reported_busy(board, clock):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(board.link)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        pads = SerialPads(str(board.link), clock=clock)
        (st,) = statuses(pads.poll(), "busy")
        assert str(board.link) in st.detail and "retrying in 0.5 s" in st.detail
        assert not pads.connected
    finally:
        holder.communicate("", timeout=30)  # the other process lets go
    clock.advance(1.0)
    pads.poll()
    assert pads.connected


def test_missing_port_is_a_clear_status(tmp_path, clock):
    pads = SerialPads(str(tmp_path / "nothing-here"), clock=clock)
    (st,) = pads.poll()
    assert st.status == "disconnected" and "nothing-here" in st.detail


def test_settings_are_sent_after_hello_and_levels_reported(board, clock):
    pads = SerialPads(str(board.link), clock=clock, settings=BoardSettings(20, 2, 12, 5000))
    board.pads = pads
    pads.poll()
    board.received()
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, 0, 250, 0, 0x1F, 0)
    pads.poll()
    setup = [f for f in board.received() if f.type == wire.SETUP]
    assert setup[0].fields() == (20, 2, 12, 5000)
    board.send(wire.LEVELS, 1, 900, 26000, 9685, 17215, 25000, 1)
    board.send(wire.SELFTEST, 1, 0, 2, 100, 9000, 8900)
    items = pads.poll()
    assert pads.levels[Figure.VIKING].loaded == 26000
    assert "FAIL: noisy" in statuses(items, "selftest")[0].detail
    pads.set_led(Figure.CHEST, (0, 80, 0))
    pads.calibrate(None, loaded=True)
    sent = [(f.type, f.fields()) for f in board.received()]
    assert (wire.LED, (3, 0, 80, 0)) in sent and (wire.CALIBRATE, (255, 1)) in sent


def test_blocking_poll_reads_what_arrived(board, clock):
    pads = SerialPads(str(board.link), clock=clock)
    board.pads = pads
    pads.poll()
    board.received()
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, 0, 250, 0, 0x1F, 0)
    items = pads.poll(timeout_s=5.0)  # select() on the port's descriptor, data is there
    assert statuses(items, "connected")


def test_faults_give_one_log_line_each(board, clock, caplog):
    pads = connect(board, clock)
    board.unplug()
    with caplog.at_level("WARNING", logger="controller.pads.serial_link"):
        pads.poll()
        for _ in range(3):  # the retries fail the same way: no new lines
            clock.advance(6.0)
            pads.poll()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert "disconnected: lost" in lines[0]
    assert "disconnected: cannot open" in lines[1]


damage = st.sampled_from(["none", "garbage", "repeat", "cut", "garbage_run"])


@settings(max_examples=40)
@example([(0, "garbage_run", b"\x05" * 80), (1, "repeat", b"x"), (2, "cut", b"abcdefg"),
          (3, "garbage", b"\x07" * 30), (4, "garbage_run", b"\x09" * 70)])
@given(st.lists(st.tuples(st.integers(0, 4), damage, st.binary(min_size=1, max_size=80)),
                min_size=1, max_size=12))
def test_every_event_arrives_exactly_once_whatever_the_line_does(plan):
    """Garbage, cut frames, repeats and over-long runs between EVENT frames:
    each event reaches the caller once, in order, at its time (RESEND fills gaps)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, scripted_board(Path(tmp)) as board:
        clock = FakeClock(50 * 10**9)
        pads = connect(board, clock)
        t0 = board_tick(clock, board.host0, 1000) - 100_000  # events of the last 100 ms
        ring = []
        for n, (pad, how, junk) in enumerate(plan, start=1):
            fields = (n, pad, wire.LIFT if n % 2 else wire.PLACE, t0 + n * 1000, 800)
            ring.append(fields)
            frame = wire.pack(wire.EVENT, board.seq + 1, *fields, 0)
            board.seq += 1
            if how == "garbage":  # noise ending in a delimiter
                board.write(junk.replace(b"\x00", b"\x01") + b"\x00")
            elif how == "garbage_run":  # noise running straight into the frame
                board.write(junk.replace(b"\x00", b"\x01"))
            elif how == "cut":  # the start of some other frame, then this one
                board.write(wire.pack(wire.HEARTBEAT, 0, BOOT, t0, 0, 0)[:len(junk) % 12])
            board.write(frame)
            if how == "repeat":
                board.write(frame)
        got = []
        beat = wire.pack(wire.HEARTBEAT, board.seq + 1, BOOT, t0 + 99_000, len(plan), 0)
        board.seq += 1
        board.write(b"\x00" + beat)  # a delimiter ends any run left open
        for _ in range(5):  # answer RESENDs the way the firmware does
            got += events(pads.poll())
            asks = [f.fields()[0] for f in board.received() if f.type == wire.RESEND]
            if not asks:
                break
            for fields in ring[min(asks) - 1:]:
                board.send(wire.EVENT, *fields, wire.FLAG_RESENT)
        want = [(list(Figure)[f[1]], "lift" if f[2] == wire.LIFT else "place", f[3])
                for f in ring]
        # a resent event arrives after the later ones: compare in board order
        got.sort(key=lambda e: e.t_ns)
        assert [(e.figure, e.kind) for e in got] == [(w[0], w[1]) for w in want]
        for e, w in zip(got, want, strict=True):
            host_us = board.host0 / 1000 + (w[2] - 1000)
            assert abs(e.t_ns - host_us * 1000) <= e.uncertainty_ns, e


BOARD_TYPES = [wire.HELLO, wire.EVENT, wire.PONG, wire.HEARTBEAT, wire.LIGHT, wire.LEVELS,
               wire.SELFTEST, wire.NOTICE]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(BOARD_TYPES), st.integers(0, 0xFFFF),
                          st.randoms(use_true_random=False)), min_size=1, max_size=6))
def test_frames_with_a_good_crc_but_any_field_values_never_crash_the_driver(frames):
    """A board with a bug (or a different firmware) can send well-framed nonsense:
    ticks past 2**30, pads that do not exist, unknown kinds. Each such frame is a
    `bad_frame` status and is dropped; a valid EVENT after it still arrives."""
    import struct
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, scripted_board(Path(tmp)) as board:
        clock = FakeClock(50 * 10**9)
        pads = connect(board, clock)
        t0 = board_tick(clock, board.host0, 1000)
        for ftype, seq, rnd in frames:
            body = bytes(rnd.getrandbits(8)
                         for _ in range(struct.calcsize(wire.BODY_FORMATS[ftype])))
            board.write(wire.encode_frame(ftype, seq, body))
        items = pads.poll()  # must not raise
        assert all(isinstance(i, (PadEvent, PadStatus, LightEvent)) for i in items)
        assert all(e.uncertainty_ns >= 0 for e in events(items))
        # The driver still listens: a real board rebooting is recognised.
        board.send(wire.HELLO, BOOT + 1, *wire.PROTOCOL_VERSION, 5, t0, 250, 0, 0x1F, 0)
        assert any(isinstance(i, PadStatus) and i.status == "rebooted"
                   for i in pads.poll())


def test_a_tick_past_30_bits_is_a_bad_frame_and_the_next_event_still_arrives(board, clock):
    """Found by review: a well-framed HEARTBEAT with tick 0xFFFFFFF0 used to raise
    out of poll() and take the valid EVENT in the same read with it."""
    pads = connect(board, clock)
    t0 = board_tick(clock, board.host0, 1000)
    beat = wire.pack(wire.HEARTBEAT, board.seq + 1, BOOT, 0xFFFFFFF0, 0, 0x1F)
    board.seq += 1
    event = wire.pack(wire.EVENT, board.seq + 1, 1, 0, wire.LIFT, t0 - 2000, 800, 0)
    board.seq += 1
    board.write(beat + event)  # one write: both frames in the same read
    items = pads.poll()
    bad = [i for i in items if isinstance(i, PadStatus) and i.status == "bad_frame"]
    assert bad and "not a 30-bit value" in bad[0].detail
    assert [(e.figure, e.kind) for e in events(items)] == [(Figure.SHIP, "lift")]


def test_leds_follow_the_boards_hello_and_wait_for_a_port(board, clock):
    pads = SerialPads(str(board.link), clock=clock)
    board.pads = pads
    assert isinstance(pads, PadSource) and not pads.has_leds
    pads.poll()
    board.received()
    board.send(wire.HELLO, BOOT, 2, 0, 0, 5, 0, 250, wire.FEATURE_LEDS, 0x1F, 0)
    pads.poll()
    assert pads.has_leds
    pads.set_led(None, (0, 40, 0))
    sent = [(f.type, f.fields()) for f in board.received()]
    assert [f for f in sent if f[0] != wire.PING] == [(wire.LED, (255, 0, 40, 0))]
    board.unplug()
    pads.poll()
    assert not pads.connected
    pads.set_led(Figure.SHIP, (90, 0, 0))  # no port: dropped, as a dark pad would be
    board.plug()
    clock.advance(1.0)
    pads.poll()
    assert [f.type for f in board.received()] == [wire.HELLO_REQ]


def test_waiting_for_a_reconnect_uses_the_injected_wait(tmp_path, clock):
    waits: list[float] = []
    pads = SerialPads(str(tmp_path / "nothing-here"), clock=clock, wait=waits.append)
    assert statuses(pads.poll(5.0), "disconnected")  # tried at once: no wait
    assert waits == []
    clock.advance(0.2)
    assert pads.poll(5.0) == []
    assert pads.poll(0.1) == []
    assert pads.poll() == []  # poll(0) never waits
    assert waits == [pytest.approx(0.3), 0.1]


def test_a_simulated_clock_never_waits_in_real_time(tmp_path, clock):
    pads = SerialPads(str(tmp_path / "nothing-here"), clock=clock, backoff_s=(60, 60))
    pads.poll()
    start = time.monotonic()
    assert pads.poll(30.0) == []
    assert time.monotonic() - start < 5.0  # a FakeClock's time is the caller's to move


def test_close_ends_a_real_wait_for_the_next_reconnect(tmp_path):
    pads = SerialPads(str(tmp_path / "nothing-here"), backoff_s=(60, 60))
    pads.poll()  # cannot open: the next attempt is a minute away
    waiter = threading.Thread(target=pads.poll, args=(30.0,))
    waiter.start()
    pads.close()
    waiter.join(timeout=10)
    assert not waiter.is_alive()

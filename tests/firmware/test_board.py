"""The firmware's Board: hello, ping/pong, events, resend, heartbeats, faults."""

from __future__ import annotations

import pytest

from tests.firmware.conftest import TICKS_PERIOD, Adc, Ticks

LOADED, EMPTY = 26000, 900


class Host:
    """Collects what the board writes and decodes it with the board's own Reader."""

    def __init__(self, proto):
        self.P = proto
        self.reader = proto.Reader()
        self.frames: list = []

    def __call__(self, data: bytes) -> None:
        for item in self.reader.feed(data):
            assert not isinstance(item, int), "the board sent a damaged frame"
            ftype, seq, body = item
            self.frames.append((ftype, seq, self.P.unpack(ftype, body)))

    def take(self, ftype=None):
        out = [f for f in self.frames if ftype is None or f[0] == ftype]
        self.frames = [f for f in self.frames if not (ftype is None or f[0] == ftype)]
        return out


@pytest.fixture
def rig(fw):
    ticks, adc, host = Ticks(1_000_000), Adc(), Host(fw["protocol"])
    board = fw["board"].Board(adc, ticks, host, boot_id=0xC0FFEE, npads=5)
    return board, ticks, adc, host


class Store:
    """The board's level store, kept in memory instead of the Pico's flash."""

    saved = None

    def load(self):
        return self.saved

    def save(self, levels):
        self.saved = [tuple(x) for x in levels]


def run(board, ticks, n, step_us=250):
    for _ in range(n):
        ticks.advance(step_us)
        board.scan()


def test_hello_at_boot_names_the_boot_and_version(fw, rig):
    _board, _ticks, _adc, host = rig
    (hello,) = host.take()
    P = fw["protocol"]
    assert hello[0] == P.HELLO and hello[1] == 1
    boot_id, major, minor, patch, npads, tick, scan_us, _features, _placed, last_n = hello[2]
    assert (boot_id, (major, minor, patch), npads, tick, scan_us, last_n) == (
        0xC0FFEE, P.VERSION, 5, 1_000_000, 250, 0)


def test_ping_gets_a_pong_with_arrival_and_reply_ticks(fw, rig):
    board, ticks, _adc, host = rig
    P = fw["protocol"]
    host.take()
    board.feed(P.pack(P.PING, 77, 77), tick=123)
    ((ftype, _seq, (ping_id, t2, t3)),) = host.take()
    assert (ftype, ping_id, t2, t3) == (P.PONG, 77, 123, ticks())


def test_lifts_become_numbered_events_with_sample_ticks(fw, rig):
    board, ticks, adc, host = rig
    P = fw["protocol"]
    run(board, ticks, 4)
    host.take()
    adc.values[3] = EMPTY
    run(board, ticks, 1)
    first = ticks()
    run(board, ticks, 4)
    ((_ftype, _seq, (n, pad, kind, tick, level, flags)),) = host.take(P.EVENT)
    assert (n, pad, kind, tick, level, flags) == (1, 3, P.LIFT, first, EMPTY, 0)
    seqs = [f[1] for f in host.frames]
    assert seqs == sorted(seqs)


def test_heartbeat_every_second_carries_last_event_and_placed_mask(fw, rig):
    board, ticks, adc, host = rig
    P = fw["protocol"]
    run(board, ticks, 4)
    host.take()
    adc.values[0] = EMPTY
    run(board, ticks, 3996)  # one second of scans in all
    beats = host.take(P.HEARTBEAT)
    assert len(beats) == 1
    boot_id, _tick, last_n, placed = beats[0][2]
    assert (boot_id, last_n, placed) == (0xC0FFEE, 1, 0b11110)


def test_heartbeats_keep_coming_across_the_tick_wrap(fw):
    P = fw["protocol"]
    ticks, adc, host = Ticks(TICKS_PERIOD - 1_500_000), Adc(), Host(P)
    board = fw["board"].Board(adc, ticks, host, boot_id=1)
    run(board, ticks, 4 * 4000)  # 4 s, wrapping after 1.5 s
    beats = [f[2][1] for f in host.take(P.HEARTBEAT)]
    assert len(beats) == 4
    assert beats[1] < beats[0]  # the wrap happened between beats


def test_resend_replays_events_from_the_ring_flagged(fw, rig):
    board, ticks, adc, host = rig
    P = fw["protocol"]
    run(board, ticks, 4)
    for _ in range(3):
        adc.values[1] = EMPTY
        run(board, ticks, 60)
        adc.values[1] = LOADED
        run(board, ticks, 60)
    sent = [f[2] for f in host.take(P.EVENT)]
    assert [e[0] for e in sent] == [1, 2, 3, 4, 5, 6]
    board.feed(P.pack(P.RESEND, 1, 4))
    again = [f[2] for f in host.take(P.EVENT)]
    assert [e[0] for e in again] == [4, 5, 6]
    assert all(e[5] == P.FLAG_RESENT for e in again)
    assert [e[:5] for e in again] == [e[:5] for e in sent[3:]]
    board.feed(P.pack(P.RESEND, 2, 7))  # up to date: nothing
    assert host.take(P.EVENT) == []


def test_resend_of_events_no_longer_held_says_so(fw, rig):
    board, ticks, adc, host = rig
    P = fw["protocol"]
    run(board, ticks, 4)
    for _ in range(20):
        adc.values[2] = EMPTY
        run(board, ticks, 50)
        adc.values[2] = LOADED
        run(board, ticks, 50)
    host.take()
    board.feed(P.pack(P.RESEND, 1, 1))
    notice = host.take(P.NOTICE)
    assert notice[0][2] == (P.N_RESEND_GONE, 1)
    assert [f[2][0] for f in host.take(P.EVENT)] == list(range(9, 41))


def test_bad_frames_from_the_host_get_a_notice_and_do_no_harm(fw, rig):
    board, _ticks, _adc, host = rig
    P = fw["protocol"]
    host.take()
    board.feed(b"\x01\x02garbage\x00" + P.encode(0x7F, 1) + P.pack(P.PING, 3, 3) + b"\x05\x81")
    kinds = [f[0] for f in host.take()]
    assert kinds == [P.NOTICE, P.NOTICE, P.PONG]
    board.feed(b"\x00")  # the cut frame ends as a bad frame
    assert host.take()[0][2][0] == P.N_BAD_FRAME


def test_calibrate_selftest_levels_and_setup(fw, rig):
    board, ticks, adc, host = rig
    P = fw["protocol"]
    host.take()
    adc.values = [20000] * 5
    board.feed(P.pack(P.CALIBRATE, 1, 255, 1))
    run(board, ticks, 64)
    levels = host.take(P.LEVELS)
    assert [lv[2][2] for lv in levels] == [20000] * 5  # loaded level learned
    board.feed(P.pack(P.SELFTEST_REQ, 2))
    run(board, ticks, 64)
    results = host.take(P.SELFTEST)
    assert [r[2][:3] for r in results] == [(i, 1, 0) for i in range(5)]
    board.feed(P.pack(P.SETUP, 3, 20, 2, 15, 5000))
    assert board.pads[0].confirm == 2 and board.pads[0].lockout_us == 15000
    assert len(host.take(P.LEVELS)) == 5
    board.feed(P.pack(P.LEVELS_REQ, 4))
    assert len(host.take(P.LEVELS)) == 5


def test_led_command_reaches_the_strip(fw):
    P = fw["protocol"]

    class Strip(list):
        def write(self):
            pass

    strip = Strip([(0, 0, 0)] * 5)
    host = Host(P)
    board = fw["board"].Board(Adc(), Ticks(), host, boot_id=2,
                              leds=fw["leds"].Leds(strip, 5))
    assert host.take()[0][2][7] & P.FEATURE_LEDS
    board.feed(P.pack(P.LED, 1, 4, 0, 80, 0))
    assert strip[4] == (0, 80, 0)


def test_calibrated_levels_survive_a_reboot_through_the_store(fw):
    P = fw["protocol"]

    store, ticks, adc = Store(), Ticks(), Adc(value=30000)
    board = fw["board"].Board(adc, ticks, Host(P), boot_id=1, store=store)
    board.feed(P.pack(P.CALIBRATE, 1, 255, 1))
    run(board, ticks, 64)
    assert store.saved == [(1500, 30000, 1500, 30000)] * 5
    again = fw["board"].Board(Adc(), Ticks(), Host(P), boot_id=2, store=store)
    assert [p.loaded for p in again.pads] == [30000] * 5


def test_a_weak_pad_stays_weak_across_a_reboot(fw):
    """Calibration pushes a weak pad's levels apart; the saved raw levels keep
    the self-test failing it after a power cut, instead of passing it."""
    P = fw["protocol"]

    store, ticks, adc = Store(), Ticks(), Adc(value=1000)
    board = fw["board"].Board(adc, ticks, Host(P), boot_id=1, store=store)
    board.feed(P.pack(P.CALIBRATE, 1, 255, 0))
    run(board, ticks, 64)
    adc.values = [2500] * 5
    board.feed(P.pack(P.CALIBRATE, 2, 255, 1))
    run(board, ticks, 64)
    (saved, *_) = store.saved
    assert saved[:2] == (0, 4000)  # pushed apart, and never below 0
    assert 1000 <= saved[2] < 1200 and saved[3] == 2500  # what the sensor showed
    host = Host(P)
    again = fw["board"].Board(Adc(value=2500), Ticks(), host, boot_id=2, store=store)
    assert [(p.empty, p.loaded) for p in again.pads] == [(0, 4000)] * 5
    assert [p.measured for p in again.pads] == [2500 - saved[2]] * 5
    again.feed(P.pack(P.SELFTEST_REQ, 3))
    run(again, Ticks(), 64)
    results = host.take(P.SELFTEST)
    assert [r[2][2] for r in results] == [fw["selftest"].SPREAD] * 5
    # A file written before the raw levels were kept still loads.
    store.saved = [(1000, 5000)] * 5
    old = fw["board"].Board(Adc(), Ticks(), Host(P), boot_id=3, store=store)
    assert [(p.empty, p.loaded) for p in old.pads] == [(1000, 5000)] * 5

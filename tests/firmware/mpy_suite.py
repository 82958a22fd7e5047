"""The firmware's logic tests on the real MicroPython interpreter (its unix port).

Run by tests/firmware/test_micropython.py as
``micropython mpy_suite.py FIRMWARE_DIR VECTORS_JSON``; no pytest here, since
MicroPython has none: each check is a function of plain asserts, and the
script prints one ``ok NAME`` or ``FAIL NAME: why`` line per check, then
``done PASSED FAILED``. It uses only what MicroPython's unix port has (no
typing, dataclasses or f-string `=`), so the same source also runs under
CPython. The checks mirror tests/firmware/test_protocol.py, test_pads.py and
test_board.py on the shared vectors in firmware/protocol_vectors.json, so what
CPython passes there, MicroPython's own struct, bytes, int and json pass too.
"""

import json
import sys

TICKS_PERIOD = 1 << 30
LOADED = 26000
EMPTY = 900
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


class Ticks:
    """time.ticks_us(): microseconds masked to 30 bits, advanced by the checks."""

    def __init__(self, start=0):
        self.us = start

    def __call__(self):
        return self.us % TICKS_PERIOD

    def advance(self, us):
        self.us += us
        return self()


class Adc:
    def __init__(self, n=5, value=LOADED):
        self.values = [value] * n

    def __call__(self, i):
        return self.values[i]


class Host:
    """What the board writes, decoded with the board's own Reader."""

    def __init__(self):
        self.reader = P.Reader()
        self.frames = []

    def __call__(self, data):
        for item in self.reader.feed(data):
            assert not isinstance(item, int), "the board sent a damaged frame"
            ftype, seq, body = item
            self.frames.append((ftype, seq, P.unpack(ftype, body)))

    def take(self, ftype=None):
        out = [f for f in self.frames if ftype is None or f[0] == ftype]
        self.frames = [f for f in self.frames if not (ftype is None or f[0] == ftype)]
        return out


def feed(pad, ticks, values, step_us=250):
    out = []
    for v in values:
        ev = pad.update(v, ticks.advance(step_us))
        if ev is not None:
            out.append(ev)
    return out


def run(board, ticks, n, step_us=250):
    for _ in range(n):
        ticks.advance(step_us)
        board.scan()


def rig():
    ticks, adc, host = Ticks(1000000), Adc(), Host()
    return B.Board(adc, ticks, host, boot_id=0xC0FFEE, npads=5), ticks, adc, host


# -- protocol --------------------------------------------------------------------


@check
def crc_vectors():
    for v in VECTORS["crc16"]:
        assert P.crc16(bytes.fromhex(v["data"])) == v["crc"], v
    assert P.crc16(b"123456789") == 0x29B1


@check
def cobs_reference():
    table = [("", "01"), ("00", "0101"), ("0000", "010101"), ("001100", "01021101"),
             ("11220033", "0311220233"), ("11223344", "0511223344"),
             ("11000000", "0211010101")]
    for raw, enc in table:
        assert P.cobs_encode(bytes.fromhex(raw)) == bytes.fromhex(enc), raw
        assert P.cobs_decode(bytes.fromhex(enc)) == bytes.fromhex(raw), enc
    d = bytes(range(1, 256))
    assert P.cobs_encode(d) == b"\xff" + bytes(range(1, 255)) + b"\x02\xff"
    for v in (bytes(range(256)) * 3, b"\x00" * 300, b"\x01" * 600):
        assert P.cobs_decode(P.cobs_encode(v)) == v


@check
def frame_vectors():
    for v in VECTORS["frames"]:
        wire = bytes.fromhex(v["wire"])
        assert P.pack(v["type"], v["seq"], *v["fields"]) == wire, v["name"]
        items = P.Reader().feed(wire)
        assert len(items) == 1, v["name"]
        ftype, seq, body = items[0]
        assert (ftype, seq) == (v["type"], v["seq"]), v["name"]
        assert list(P.unpack(ftype, body)) == v["fields"], v["name"]


@check
def bad_vectors_are_reported_not_raised():
    for v in VECTORS["bad"]:
        assert P.Reader().feed(bytes.fromhex(v["wire"])) == [P.N_BAD_FRAME], v["why"]


@check
def reader_resyncs_after_garbage_and_overflow():
    r = P.Reader()
    ping = P.pack(P.PING, 1, 5)
    assert r.feed(b"\x13\x37garbage" + ping[:3]) == []
    out = r.feed(b"\x00" + ping + bytes(range(1, 200)) + b"\x00" + ping)
    assert out[0] == P.N_BAD_FRAME
    assert out[1][:2] == (P.PING, 1)
    assert out[2] == P.N_BAD_FRAME
    assert out[3][:2] == (P.PING, 1)


@check
def unpack_rejects_wrong_length():
    assert P.unpack(P.PING, b"\x01") is None
    assert P.unpack(0x7F, b"") is None


# -- pads, calibration, self-test, light, LEDs -------------------------------------


@check
def lift_is_stamped_with_the_first_sample_past_the_threshold():
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED)
    t = Ticks(1000)
    assert feed(pad, t, [LOADED] * 10) == []
    first_low = t.us + 250
    assert feed(pad, t, [EMPTY] * 5) == [(PADS.LIFT, first_low, EMPTY)]
    assert pad.placed is False


@check
def spikes_and_the_hysteresis_band_change_nothing():
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED, confirm=3)
    t = Ticks()
    feed(pad, t, [LOADED] * 4)
    assert feed(pad, t, [LOADED, EMPTY, LOADED, EMPTY, EMPTY, LOADED] * 3) == []
    mid = (pad.lo + pad.hi) // 2
    assert feed(pad, t, [mid, pad.lo + 1, pad.hi - 1] * 10) == []
    assert pad.placed is True


@check
def lockout_holds_across_the_tick_wrap():
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED, lockout_us=10000)
    t = Ticks(TICKS_PERIOD - 2000)
    feed(pad, t, [LOADED] * 4)
    events = feed(pad, t, [EMPTY] * 4)
    assert events[0][1] == (TICKS_PERIOD - 750) % TICKS_PERIOD
    events = feed(pad, t, [EMPTY] * 36 + [LOADED] * 4)
    assert [e[0] for e in events] == [PADS.PLACE]
    assert events[0][1] < 100000


@check
def a_bouncing_placement_keeps_its_first_touch():
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED, bounce_us=5000)
    t = Ticks()
    feed(pad, t, [EMPTY] * 4)
    touch = t.us + 250
    events = feed(pad, t, [LOADED, LOADED, EMPTY, LOADED, EMPTY, EMPTY] + [LOADED] * 6)
    assert events == [(PADS.PLACE, touch, LOADED)]


@check
def levels_learn_slowly_and_keep_their_spread():
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED, min_spread=4000, learn_shift=6)
    t = Ticks()
    feed(pad, t, [LOADED] * 2)
    feed(pad, t, [30000] * 2000)
    assert 29500 <= pad.loaded <= 30000
    feed(pad, t, [EMPTY] * 4)
    feed(pad, t, [3000] * 2000)
    assert 2900 <= pad.empty <= 3000
    assert pad.loaded - pad.empty >= 4000
    assert pad.empty < pad.lo < pad.hi < pad.loaded


@check
def calibrate_configure_and_selftest_codes():
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED)
    assert CAL.calibrate(pad, [20000, 20010, 65535, 19990, 20005], 1) == 20005
    CAL.calibrate(pad, [19000, 19100, 19050], 0)
    assert pad.loaded - pad.empty == pad.min_spread
    pad.configure(0.9, 0, 10**9, 10)
    assert (pad.hysteresis, pad.confirm, pad.lockout_us, pad.min_spread) == (0.45, 1, 200000, 256)
    pad = PADS.Pad(empty=EMPTY, loaded=LOADED)
    assert ST.check(pad, [LOADED + i for i in range(20)])[:2] == (1, ST.OK)
    assert ST.check(pad, [65535] * 10)[1] == ST.STUCK_HIGH
    assert ST.check(pad, [LOADED, LOADED - 9000, LOADED])[1] == ST.NOISY
    assert ST.check(pad, [(pad.lo + pad.hi) // 2] * 5)[1] == ST.UNDECIDED
    weak = PADS.Pad(empty=1500, loaded=24000, min_spread=4000)
    CAL.calibrate(weak, [1000] * 9, 0)
    CAL.calibrate(weak, [2000] * 9, 1)
    assert weak.measured == 1000
    assert ST.check(weak, [2000] * 5)[1] == ST.SPREAD


@check
def light_sensor_and_leds():
    light = LIGHT.LightSensor(dark=3000, bright=30000, lockout_us=50000)
    t = Ticks(5)
    assert light.update(3000, t.advance(100)) is None
    assert light.update(29000, t.advance(100)) == (1, t(), 29000)
    assert light.update(3000, t.advance(100)) is None
    t.advance(60000)
    assert light.update(3000, t())[0] == 0

    class Strip(list):
        def write(self):
            pass

    strip = Strip([(0, 0, 0)] * 5)
    leds = LEDS.Leds(strip, 5, max_level=96)
    assert leds.set(2, 255, 10, 0) and strip[2] == (96, 10, 0)
    assert leds.set(255, 0, 0, 1) and strip == [(0, 0, 1)] * 5
    assert not leds.set(9, 1, 1, 1)


# -- the board -------------------------------------------------------------------


@check
def hello_at_boot_names_the_boot_and_version():
    _board, _ticks, _adc, host = rig()
    (hello,) = host.take()
    assert hello[0] == P.HELLO and hello[1] == 1
    boot_id, major, minor, patch, npads, tick, scan_us, _features, _placed, last_n = hello[2]
    assert (boot_id, (major, minor, patch), npads, tick, scan_us, last_n) == (
        0xC0FFEE, P.VERSION, 5, 1000000, 250, 0)


@check
def ping_gets_a_pong_with_arrival_and_reply_ticks():
    board, ticks, _adc, host = rig()
    host.take()
    board.feed(P.pack(P.PING, 77, 77), tick=123)
    ((ftype, _seq, (ping_id, t2, t3)),) = host.take()
    assert (ftype, ping_id, t2, t3) == (P.PONG, 77, 123, ticks())


@check
def lifts_become_numbered_events_and_heartbeats_follow():
    board, ticks, adc, host = rig()
    run(board, ticks, 4)
    host.take()
    adc.values[3] = EMPTY
    run(board, ticks, 1)
    first = ticks()
    run(board, ticks, 4)
    ((_ftype, _seq, fields),) = host.take(P.EVENT)
    assert fields == (1, 3, P.LIFT, first, EMPTY, 0)
    run(board, ticks, 3991)
    (beat,) = host.take(P.HEARTBEAT)
    assert beat[2][0] == 0xC0FFEE and beat[2][2:] == (1, 0b10111)


@check
def resend_replays_the_ring_and_says_what_is_gone():
    board, ticks, adc, host = rig()
    run(board, ticks, 4)
    for _ in range(20):
        adc.values[2] = EMPTY
        run(board, ticks, 50)
        adc.values[2] = LOADED
        run(board, ticks, 50)
    sent = [f[2] for f in host.take(P.EVENT)]
    assert [e[0] for e in sent] == list(range(1, 41))
    board.feed(P.pack(P.RESEND, 1, 38))
    again = [f[2] for f in host.take(P.EVENT)]
    assert [e[:5] for e in again] == [e[:5] for e in sent[37:]]
    assert all(e[5] == P.FLAG_RESENT for e in again)
    board.feed(P.pack(P.RESEND, 2, 1))
    assert host.take(P.NOTICE)[0][2] == (P.N_RESEND_GONE, 1)
    assert [f[2][0] for f in host.take(P.EVENT)] == list(range(9, 41))
    board.feed(P.pack(P.RESEND, 3, 41))
    assert host.take(P.EVENT) == []


@check
def bad_frames_from_the_host_get_a_notice():
    board, _ticks, _adc, host = rig()
    host.take()
    board.feed(b"\x01\x02garbage\x00" + P.encode(0x7F, 1) + P.pack(P.PING, 3, 3) + b"\x05\x81")
    assert [f[0] for f in host.take()] == [P.NOTICE, P.NOTICE, P.PONG]
    board.feed(b"\x00")
    assert host.take()[0][2][0] == P.N_BAD_FRAME


@check
def calibrate_selftest_levels_and_setup():
    board, ticks, adc, host = rig()
    host.take()
    adc.values = [20000] * 5
    board.feed(P.pack(P.CALIBRATE, 1, 255, 1))
    run(board, ticks, 64)
    assert [lv[2][2] for lv in host.take(P.LEVELS)] == [20000] * 5
    board.feed(P.pack(P.SELFTEST_REQ, 2))
    run(board, ticks, 64)
    assert [r[2][:3] for r in host.take(P.SELFTEST)] == [(i, 1, 0) for i in range(5)]
    board.feed(P.pack(P.SETUP, 3, 20, 2, 15, 5000))
    assert board.pads[0].confirm == 2 and board.pads[0].lockout_us == 15000
    assert len(host.take(P.LEVELS)) == 5


@check
def calibrated_levels_survive_a_reboot_through_the_store():
    class Store:
        saved = None

        def load(self):
            return self.saved

        def save(self, levels):
            self.saved = [tuple(x) for x in levels]

    store, ticks = Store(), Ticks()
    board = B.Board(Adc(value=30000), ticks, Host(), boot_id=1, store=store)
    board.feed(P.pack(P.CALIBRATE, 1, 255, 1))
    run(board, ticks, 64)
    assert store.saved == [(1500, 30000, 1500, 30000)] * 5
    again = B.Board(Adc(), Ticks(), Host(), boot_id=2, store=store)
    assert [p.loaded for p in again.pads] == [30000] * 5


def main():
    passed = failed = 0
    for fn in CHECKS:
        try:
            fn()
        except Exception as exc:  # report every check, not just the first failure
            failed += 1
            print("FAIL", fn.__name__ + ":", type(exc).__name__, exc)
        else:
            passed += 1
            print("ok", fn.__name__)
    print("done", passed, failed)
    return failed


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    import board as B  # noqa: N812 (the firmware's own module names)
    import calibrate as CAL  # noqa: N812
    import leds as LEDS  # noqa: N812
    import light as LIGHT  # noqa: N812
    import pads as PADS  # noqa: N812
    import protocol as P  # noqa: N812
    import selftest as ST  # noqa: N812

    with open(sys.argv[2]) as f:
        VECTORS = json.load(f)
    print("implementation", sys.implementation.name)
    sys.exit(1 if main() else 0)

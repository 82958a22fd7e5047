"""The link session with bytes alone: no port, no pty, no pyserial, no real time.

A `Board` here plays the pad board's side of firmware/PROTOCOL.md: it packs
frames, hands them to the session with a host time, and reads back the frames
the session queued (`expect` checks their types, as python-chess's
MockTransport checks a scripted engine conversation).
"""

from __future__ import annotations

import ast
import itertools
import struct
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads import protocol as wire
from controller.pads.boardinfo import BoardSettings
from controller.pads.events import LightEvent, PadEvent, PadStatus
from controller.pads.link import LinkSession

BOOT = 0xB007
MS = 1_000_000
FEATURES = wire.FEATURE_LIGHT | wire.FEATURE_LEDS


class Board:
    """The board's side of a conversation with a `LinkSession`, in bytes.

    Its tick is `tick0 + (host - host0) * (1 + drift) / 1000`, floored like the
    RP2040's timer and wrapped at 2**30.
    """

    def __init__(self, session: LinkSession, clock: FakeClock, *, tick0: int = 1000,
                 drift_ppm: float = 0.0) -> None:
        self.session = session
        self.clock = clock
        self.tick0 = tick0
        self.host0 = clock.now_ns()
        self.rate = 1 + drift_ppm * 1e-6
        self.seq = 0
        self.reader = wire.FrameReader()

    def tick(self, host_ns: int | None = None) -> int:
        at = self.clock.now_ns() if host_ns is None else host_ns
        return (self.tick0 + int((at - self.host0) * self.rate // 1000)) % wire.TICKS_PERIOD

    def frame(self, ftype: int, *fields: int, seq: int | None = None) -> bytes:
        self.seq = (self.seq + 1) & 0xFFFF if seq is None else seq
        return wire.pack(ftype, self.seq, *fields)

    def feed(self, data: bytes) -> list:
        return self.session.receive(data, self.clock.now_ns())

    def say(self, ftype: int, *fields: int, seq: int | None = None) -> list:
        return self.feed(self.frame(ftype, *fields, seq=seq))

    def hello(self, *, boot: int = BOOT, last_n: int = 0, placed: int = 0x1F,
              features: int = FEATURES, version: tuple[int, int, int] = wire.PROTOCOL_VERSION,
              npads: int = 5, scan_us: int = 250) -> list:
        return self.say(wire.HELLO, boot, *version, npads, self.tick(), scan_us, features,
                        placed, last_n)

    def heard(self) -> list[wire.Frame]:
        """The frames the session queued since the last call."""
        got = self.reader.feed(b"".join(self.session.frames_to_send()))
        assert all(isinstance(f, wire.Frame) for f in got), got
        return [f for f in got if isinstance(f, wire.Frame)]

    def expect(self, *types: int) -> list[wire.Frame]:
        frames = self.heard()
        assert [wire.TYPE_NAMES[f.type] for f in frames] == [wire.TYPE_NAMES[t] for t in types]
        return frames

    def answer_pings(self, rounds: int, rtt_ns: int = 400_000, step_ns: int = 21 * MS) -> list:
        """Let time pass, answer every ping with a symmetric round trip; return the items.

        21 ms steps: each one meets a burst ping (20 ms apart plus up to 1 ms of dither).
        """
        seen: list = []
        for _ in range(rounds):
            self.clock.advance(ns=step_ns)
            self.session.tick(self.clock.now_ns())
            for ping in [f for f in self.heard() if f.type == wire.PING]:
                self.clock.advance(ns=rtt_ns // 2)
                t = self.tick()
                pong = self.frame(wire.PONG, ping.fields()[0], t, t)
                self.clock.advance(ns=rtt_ns // 2)
                seen += self.feed(pong)
        return seen


def statuses(items, name=None):
    return [i for i in items if isinstance(i, PadStatus) and (name is None or i.status == name)]


def events(items):
    return [i for i in items if isinstance(i, PadEvent)]


def greeted(clock: FakeClock | None = None, **kw) -> tuple[LinkSession, Board]:
    """A session that has said hello and answered the sync burst."""
    clock = clock or FakeClock(50 * 10**9)
    session = LinkSession(**kw)
    board = Board(session, clock)
    session.connection_made("test-port")
    board.expect(wire.HELLO_REQ)
    assert statuses(board.hello(), "connected")
    board.answer_pings(8)
    assert session.synced
    return session, board


def test_a_whole_conversation_in_exact_bytes():
    clock = FakeClock(10**9)
    session = LinkSession(settings=BoardSettings(20, 2, 12, 5000))
    board = Board(session, clock)
    session.connection_made("usb-Knapp_Pad_Board-if00")
    assert session.frames_to_send() == [wire.pack(wire.HELLO_REQ, 1)]
    session.tick(clock.now_ns())
    assert session.frames_to_send() == []  # no ping before a hello names the boot
    (connected,) = board.hello()
    assert connected.status == "connected"
    assert "firmware 2.0.0 on usb-Knapp_Pad_Board-if00" in connected.detail
    assert "boot id 0000b007, 5 pads, scan 250 us (4000 samples/s per pad)" in connected.detail
    assert session.frames_to_send() == [wire.pack(wire.SETUP, 2, 20, 2, 12, 5000)]
    session.tick(clock.now_ns())
    assert session.frames_to_send() == [wire.pack(wire.PING, 3, 3)]  # ping id = its seq
    clock.advance(ns=100_000)
    t = board.tick()
    clock.advance(ns=100_000)
    assert board.say(wire.PONG, 3, t, t) == []  # one round trip may be wrong: not yet
    for ping_id in (4, 5):
        clock.advance(ns=21 * MS)  # the burst's 20 ms plus up to 1 ms of dither
        session.tick(clock.now_ns())
        assert session.frames_to_send() == [wire.pack(wire.PING, ping_id, ping_id)]
        clock.advance(ns=100_000)
        t = board.tick()
        clock.advance(ns=100_000)
        items = board.say(wire.PONG, ping_id, t, t)
    (synced,) = items  # the third round trip makes the first fit
    assert synced.status == "synced" and "error bound" in synced.detail
    assert session.version == (2, 0, 0) and session.scan_ns == 250_000
    assert session.boot_id == BOOT and session.greeted
    assert session.placed() == dict.fromkeys(Figure, True)


def test_pings_burst_after_hello_then_one_a_second():
    clock = FakeClock(10**9)
    session = LinkSession()
    board = Board(session, clock)
    session.connection_made("p")
    board.hello()
    board.heard()
    times = []
    for _ in range(3500):
        session.tick(clock.now_ns())
        if any(f.type == wire.PING for f in board.heard()):
            times.append(clock.now_ns())
        clock.advance(ns=MS)
    gaps = [(b - a) // MS for a, b in itertools.pairwise(times)]
    # one ping at once and 8 more 20 ms apart, then one a second; each gap grows
    # by up to 1 ms of dither (seen here on a 1 ms grid)
    assert times[0] == 10**9
    assert all(20 <= g <= 21 for g in gaps[:8]) and len(gaps) == 11
    assert all(1000 <= g <= 1001 for g in gaps[8:])


def test_events_are_mapped_onto_the_host_clock():
    session, board = greeted()
    assert session.error_bound_ns(board.clock.now_ns()) < 500_000
    lift = board.clock.now_ns() - 3 * MS
    (ev,) = board.say(wire.EVENT, 1, 4, wire.LIFT, board.tick(lift), 800, 0)
    assert (ev.figure, ev.kind, ev.source) == (Figure.DOG, "lift", "serial")
    assert abs(ev.t_ns - lift) <= ev.uncertainty_ns and abs(ev.t_ns - lift) < 5_000
    assert ev.uncertainty_ns >= session.scan_ns  # one scan period on top of the clock bound
    assert session.placed()[Figure.DOG] is False


def test_an_events_uncertainty_covers_the_scan_that_saw_it():
    """A board scanning every 5 ms sees a lift at the first scan after it, up to 5 ms late."""
    clock = FakeClock(50 * 10**9)
    session = LinkSession()
    board = Board(session, clock)
    session.connection_made("p")
    board.heard()
    board.hello(scan_us=5000)
    board.answer_pings(8)
    assert session.scan_ns == 5_000_000
    when = clock.now_ns() - 20 * MS
    seen_at = when + 4_900_000  # just missed by one scan, caught by the next
    (ev,) = board.say(wire.EVENT, 1, 0, wire.LIFT, board.tick(seen_at), 800, 0)
    assert abs(ev.t_ns - when) <= ev.uncertainty_ns
    assert ev.uncertainty_ns - session.error_bound_ns(clock.now_ns()) < 5_200_000
    (light,) = board.say(wire.LIGHT, board.tick(seen_at), 31000, 1)
    assert abs(light.t_ns - when) <= light.uncertainty_ns


def test_a_drifting_board_clock_stays_within_the_bound():
    clock = FakeClock(50 * 10**9)
    session = LinkSession()
    board = Board(session, clock, drift_ppm=35.0)
    session.connection_made("p")
    board.heard()
    board.hello()
    board.answer_pings(8)
    board.answer_pings(30, step_ns=1_000 * MS)  # half a minute of steady pings
    for k in range(5):
        when = clock.now_ns() - (k + 1) * 7 * MS
        (ev,) = board.say(wire.EVENT, k + 1, k, wire.LIFT, board.tick(when), 800, 0)
        assert abs(ev.t_ns - when) <= ev.uncertainty_ns - session.scan_ns


def test_events_before_the_first_sync_are_held_then_timed():
    clock = FakeClock(50 * 10**9)
    session = LinkSession()
    board = Board(session, clock)
    session.connection_made("p")
    board.heard()
    board.hello()
    assert board.say(wire.EVENT, 1, 0, wire.LIFT, board.tick() + 500, 800, 0) == []
    assert board.answer_pings(2) == []  # the first fit takes three round trips
    seen = board.answer_pings(1)
    assert [s.status for s in statuses(seen)] == ["synced"]
    (ev,) = events(seen)
    assert abs(ev.t_ns - (board.host0 + 500_000)) <= ev.uncertainty_ns


def test_nothing_is_trusted_before_a_hello():
    clock = FakeClock()
    session = LinkSession()
    board = Board(session, clock)
    session.connection_made("p")
    board.heard()
    assert board.say(wire.EVENT, 1, 0, wire.LIFT, 10, 800, 0) == []
    assert board.say(wire.HEARTBEAT, BOOT, 10, 1, 0x1E) == []
    board.expect()  # no boot known yet: the HELLO_REQ already asked
    assert session.placed() == dict.fromkeys(Figure)


def test_garbage_cut_frames_and_split_reads():
    session, board = greeted()
    t = board.tick() - 30_000  # events happen before they are sent
    assert [s.status for s in board.feed(b"\x07\x07\x07noise\x00")] == ["bad_frame"]
    assert session.stats["bad_frames"] == 1
    lift = board.frame(wire.EVENT, 1, 0, wire.LIFT, t, 800, 0)
    assert board.feed(lift[:5]) == []  # half a frame: wait for the rest
    (ev,) = board.feed(lift[5:])
    assert (ev.figure, ev.kind) == (Figure.SHIP, "lift")
    cut = board.frame(wire.HEARTBEAT, BOOT, t, 1, 0)[:6]  # the board reset mid-write
    place = board.frame(wire.EVENT, 2, 0, wire.PLACE, t + 20_000, 25000, 0)
    items = board.feed(cut + place)
    assert "recovered the frame" in statuses(items, "bad_frame")[0].detail
    assert [(e.figure, e.kind) for e in events(items)] == [(Figure.SHIP, "place")]
    assert statuses(items, "lost_frames")  # the cut heartbeat's seq is missing
    assert board.feed(b"\x05" * 80) == []  # an over-long run is reported at its delimiter
    assert "without a delimiter" in board.feed(b"\x00")[0].detail


def test_repeated_and_old_frames_are_dropped():
    session, board = greeted()
    t = board.tick()
    stale = board.frame(wire.HEARTBEAT, BOOT, t, 0, 0x1F)
    board.feed(stale)
    frame = board.frame(wire.EVENT, 1, 0, wire.LIFT, t + 10, 800, 0)
    assert len(events(board.feed(frame))) == 1
    (dup,) = board.feed(frame)
    assert dup.status == "duplicate" and "arrived twice" in dup.detail
    (old,) = board.feed(stale)  # it would put the ship back
    assert "arrived again after frame" in old.detail
    assert session.placed()[Figure.SHIP] is False
    assert session.stats["duplicate_frames"] == 2


def test_a_lost_event_is_asked_for_again_and_delivered_once():
    session, board = greeted()
    t = board.tick() - 1000
    board.say(wire.EVENT, 1, 0, wire.LIFT, t, 800, 0)
    board.frame(wire.EVENT, 2, 2, wire.LIFT, t + 5, 800, 0)  # lost on the way
    items = board.say(wire.EVENT, 3, 1, wire.LIFT, t + 10, 800, 0)
    assert [e.figure for e in events(items)] == [Figure.VIKING]
    assert "1 frame(s) lost" in statuses(items, "lost_frames")[0].detail
    assert "events 2..2 missing" in statuses(items, "lost_frames")[1].detail
    (resend,) = board.expect(wire.RESEND)
    assert resend.fields() == (2,)
    assert [e.figure for e in events(board.say(wire.EVENT, 2, 2, wire.LIFT, t + 5, 800,
                                                wire.FLAG_RESENT))] == [Figure.CHILD]
    assert board.say(wire.EVENT, 3, 1, wire.LIFT, t + 10, 800, wire.FLAG_RESENT) == []
    (dup,) = board.say(wire.EVENT, 3, 1, wire.LIFT, t + 10, 800, 0)  # not resent: reported
    assert dup.status == "duplicate" and "event 3 arrived twice" in dup.detail
    assert session.stats["resent_events"] == 1 and session.stats["duplicate_events"] == 2


def test_a_heartbeat_reveals_a_lost_last_event():
    session, board = greeted()
    t = board.tick()
    board.seq += 2  # the frames of events 1 and 2 were lost
    items = board.say(wire.HEARTBEAT, BOOT, t, 2, 0x1F)
    assert "asking for 2 missed event(s)" in statuses(items, "lost_frames")[-1].detail
    assert [f.fields() for f in board.expect(wire.RESEND)] == [(1,)]
    board.say(wire.EVENT, 1, 3, wire.LIFT, t - 300, 800, wire.FLAG_RESENT)
    assert session.placed()[Figure.CHEST] is True  # a resent event leaves the state alone
    (ev,) = board.say(wire.EVENT, 2, 3, wire.PLACE, t - 100, 20000, wire.FLAG_RESENT)
    assert (ev.figure, ev.kind) == (Figure.CHEST, "place")


def test_first_contact_numbers_on_from_the_boards_newest_event():
    clock = FakeClock(50 * 10**9)
    session = LinkSession()
    board = Board(session, clock)
    session.connection_made("p")
    board.heard()
    assert not statuses(board.hello(last_n=57), "lost_frames")
    board.answer_pings(3)
    assert not statuses(board.say(wire.HEARTBEAT, BOOT, board.tick(), 57, 0x1F))
    assert [f for f in board.heard() if f.type == wire.RESEND] == []
    (ev,) = board.say(wire.EVENT, 58, 1, wire.LIFT, board.tick(), 800, 0)
    assert ev.figure is Figure.VIKING


def test_a_reboot_in_a_hello_restarts_sync_and_numbering():
    session, board = greeted()
    board.say(wire.EVENT, 1, 0, wire.LIFT, board.tick(), 800, 0)
    board.heard()
    board.seq, board.tick0, board.host0 = 0, 300_000, board.clock.now_ns()
    items = board.hello(boot=0xBEEF, last_n=2)
    assert "0000b007 -> 0000beef" in statuses(items, "rebooted")[0].detail
    assert not session.synced and session.boot_id == 0xBEEF
    assert [f.fields() for f in board.heard() if f.type == wire.RESEND] == [(1,)]
    board.answer_pings(3)
    (ev,) = board.say(wire.EVENT, 1, 4, wire.LIFT, board.tick(), 800, wire.FLAG_RESENT)
    assert ev.figure is Figure.DOG  # number 1 again is news after a reboot


def test_a_reboot_seen_first_in_a_heartbeat_asks_for_a_hello():
    session, board = greeted()
    board.seq = 0  # the boot hello was lost
    assert events(board.say(wire.EVENT, 1, 3, wire.LIFT, 500, 800, 0)) == []  # seq went back
    (st,) = board.say(wire.HEARTBEAT, 0xBEEF, 1000, 1, 0x17)
    assert st.status == "rebooted" and "asking for a hello" in st.detail
    board.expect(wire.HELLO_REQ)
    assert not session.greeted
    board.say(wire.HEARTBEAT, 0xBEEF, 1100, 1, 0x17)
    board.expect(wire.HELLO_REQ)  # still no hello: ask again


def test_the_same_boot_on_a_new_connection_fetches_what_it_missed():
    session, board = greeted()
    board.say(wire.EVENT, 1, 0, wire.LIFT, board.tick(), 800, 0)
    session.connection_made("p")  # unplugged and plugged back in
    board.expect(wire.HELLO_REQ)
    board.seq = 40
    items = board.hello(last_n=3)
    assert "same boot 0000b007; asking for missed events" in statuses(items, "connected")[0].detail
    assert [f.fields() for f in board.heard() if f.type == wire.RESEND] == [(2,)]
    assert session.synced  # the fit survives: the board kept its clock
    session.connection_made("p")
    board.heard()
    items = board.hello(last_n=3)  # 2 and 3 have still not come: asked for again
    assert "asking for missed events" in statuses(items, "connected")[0].detail
    assert [f.fields() for f in board.heard() if f.type == wire.RESEND] == [(2,)]


def test_the_same_boot_with_nothing_missed_asks_for_nothing():
    session, board = greeted()
    board.say(wire.EVENT, 1, 0, wire.LIFT, board.tick(), 800, 0)
    session.connection_made("p")
    board.heard()
    items = board.hello(last_n=1)
    assert "no events missed" in statuses(items, "connected")[0].detail
    assert [f for f in board.heard() if f.type == wire.RESEND] == []


def test_the_tick_wrap_is_unwrapped_and_reported():
    clock = FakeClock(50 * 10**9)
    session = LinkSession()
    board = Board(session, clock, tick0=wire.TICKS_PERIOD - 400_000)
    session.connection_made("p")
    board.heard()
    board.hello()
    board.answer_pings(8)
    clock.advance(0.5)
    (wrapped,) = statuses(board.answer_pings(2), "wrapped")
    assert "17.9 min" in wrapped.detail
    when = clock.now_ns() - MS
    (ev,) = board.say(wire.EVENT, 1, 2, wire.LIFT, board.tick(when), 800, 0)
    assert abs(ev.t_ns - when) <= ev.uncertainty_ns


def test_another_protocol_version_is_named_and_not_trusted():
    clock = FakeClock()
    session = LinkSession()
    board = Board(session, clock)
    session.connection_made("p")
    board.heard()
    old = wire.encode_frame(wire.HELLO, 1, bytes.fromhex("07000000010000050000000000fa00031f"))
    (st,) = board.feed(old)  # a 1.0.0 board: its hello is two bytes shorter
    assert st.status == "version" and "protocol 1.0.0" in st.detail
    (st,) = board.hello(version=(3, 1, 0))
    assert st.status == "version" and "protocol 3.1.0" in st.detail
    assert board.say(wire.EVENT, 1, 0, wire.LIFT, 1000, 800, 0) == []
    assert session.boot_id is None and not session.greeted


def test_an_echoing_line_is_named_once():
    _session, board = greeted()
    (st,) = board.feed(wire.pack(wire.PING, 9, 9))  # what the host sends, coming back
    assert st.status == "notice" and "echo of a host frame" in st.detail
    assert board.feed(wire.pack(wire.HELLO_REQ, 10)) == []


def test_leds_calibration_and_requests_are_queued_frames():
    session, board = greeted()
    assert session.has_leds
    session.set_led(Figure.CHEST, (0, 80, 0))
    session.set_led(None, (0, 0, 0))
    session.calibrate(None, loaded=True)
    session.calibrate(Figure.SHIP, loaded=False)
    session.request_selftest()
    session.request_levels()
    assert [(f.type, f.fields()) for f in board.heard()] == [
        (wire.LED, (3, 0, 80, 0)), (wire.LED, (255, 0, 0, 0)), (wire.CALIBRATE, (255, 1)),
        (wire.CALIBRATE, (0, 0)), (wire.SELFTEST_REQ, ()), (wire.LEVELS_REQ, ())]


def test_has_leds_follows_the_boards_hello():
    session = LinkSession()
    assert not session.has_leds  # not known before a hello
    board = Board(session, FakeClock())
    session.connection_made("p")
    board.hello(features=wire.FEATURE_LIGHT)
    assert not session.has_leds
    board.hello(features=wire.FEATURE_LEDS)
    assert session.has_leds


def test_levels_selftest_light_and_notices():
    session, board = greeted()
    (lv,) = board.say(wire.LEVELS, 1, 900, 26000, 9685, 17215, 25000, 1)
    assert lv.status == "levels" and session.levels[Figure.VIKING].loaded == 26000
    (stt,) = board.say(wire.SELFTEST, 1, 0, 2, 100, 9000, 8900)
    assert "FAIL: noisy" in stt.detail and not session.selftest[Figure.VIKING].ok
    assert board.say(wire.LEVELS, 9, 1, 2, 3, 4, 5, 0) == []  # no such pad
    shown = board.clock.now_ns() - 2 * MS
    (light,) = board.say(wire.LIGHT, board.tick(shown), 31000, 1)
    assert isinstance(light, LightEvent) and light.brighter
    assert abs(light.t_ns - shown) <= light.uncertainty_ns
    (note,) = board.say(wire.NOTICE, 4, 7)
    assert note.detail == "board no longer holds an event asked for (7)"


def test_nonsense_fields_in_good_frames_are_bad_frames():
    _session, board = greeted()
    t = board.tick()
    beat = board.frame(wire.HEARTBEAT, BOOT, 0xFFFFFFF0, 0, 0x1F)
    event = board.frame(wire.EVENT, 1, 0, wire.LIFT, t - 2000, 800, 0)
    items = board.feed(beat + event)
    assert "not a 30-bit value" in statuses(items, "bad_frame")[0].detail
    assert [(e.figure, e.kind) for e in events(items)] == [(Figure.SHIP, "lift")]
    assert "pad 7" in board.say(wire.EVENT, 2, 7, wire.LIFT, t, 800, 0)[0].detail
    assert "neither lift nor place" in board.say(wire.EVENT, 3, 0, 9, t, 800, 0)[0].detail
    assert "out of range" in board.say(wire.EVENT, 0, 0, wire.LIFT, t, 800, 0)[0].detail


damage = st.sampled_from(["none", "garbage", "repeat", "cut", "garbage_run", "split"])


@settings(max_examples=150)
@example([(0, "garbage_run", b"\x05" * 80), (1, "repeat", b"x"), (2, "cut", b"abcdefg"),
          (3, "garbage", b"\x07" * 30), (4, "garbage_run", b"\x09" * 70)])
@given(st.lists(st.tuples(st.integers(0, 4), damage, st.binary(min_size=1, max_size=80)),
                min_size=1, max_size=12))
def test_every_event_arrives_exactly_once_whatever_the_bytes_do(plan):
    """The pty test's property, with bytes alone and more examples."""
    _session, board = greeted()
    t0 = board.tick() - 100_000  # the events happened in the last 100 ms
    ring, got = [], []
    for n, (pad, how, junk) in enumerate(plan, start=1):
        fields = (n, pad, wire.LIFT if n % 2 else wire.PLACE, t0 + n * 1000, 800)
        ring.append(fields)
        frame = board.frame(wire.EVENT, *fields, 0)
        if how == "garbage":
            got += events(board.feed(junk.replace(b"\x00", b"\x01") + b"\x00"))
        elif how == "garbage_run":
            got += events(board.feed(junk.replace(b"\x00", b"\x01")))
        elif how == "cut":
            got += events(board.feed(wire.pack(wire.HEARTBEAT, 0, BOOT, t0, 0, 0)[:len(junk) % 12]))
        if how == "split":
            cut = len(junk) % len(frame)
            got += events(board.feed(frame[:cut])) + events(board.feed(frame[cut:]))
        else:
            got += events(board.feed(frame))
        if how == "repeat":
            got += events(board.feed(frame))
    got += events(board.feed(b"\x00" + board.frame(wire.HEARTBEAT, BOOT, t0 + 99_000,
                                                   len(plan), 0)))
    for _ in range(5):  # answer RESENDs the way the firmware does
        asks = [f.fields()[0] for f in board.heard() if f.type == wire.RESEND]
        if not asks:
            break
        for fields in ring[min(asks) - 1:]:
            got += events(board.say(wire.EVENT, *fields, wire.FLAG_RESENT))
    got.sort(key=lambda e: e.t_ns)  # a resent event arrives after later ones
    want = [(list(Figure)[f[1]], "lift" if f[2] == wire.LIFT else "place", f[3]) for f in ring]
    assert [(e.figure, e.kind) for e in got] == [(w[0], w[1]) for w in want]
    for e, w in zip(got, want, strict=True):
        assert abs(e.t_ns - (board.host0 + (w[2] - 1000) * 1000)) <= e.uncertainty_ns, e


BOARD_TYPES = [wire.HELLO, wire.EVENT, wire.PONG, wire.HEARTBEAT, wire.LIGHT, wire.LEVELS,
               wire.SELFTEST, wire.NOTICE]


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(BOARD_TYPES), st.integers(0, 0xFFFF),
                          st.randoms(use_true_random=False)), min_size=1, max_size=8))
def test_well_framed_nonsense_never_raises(frames):
    session, board = greeted()
    for ftype, seq, rnd in frames:
        body = bytes(rnd.getrandbits(8)
                     for _ in range(struct.calcsize(wire.BODY_FORMATS[ftype])))
        items = board.feed(wire.encode_frame(ftype, seq, body))
        assert all(isinstance(i, (PadEvent, PadStatus, LightEvent)) for i in items)
        assert all(e.uncertainty_ns >= 0 for e in events(items))
    board.heard()
    assert statuses(board.hello(boot=BOOT + 1), "rebooted") or session.boot_id == BOOT + 1


PURE_MODULES = ("link.py", "boardtime.py", "boardinfo.py")
IO_MODULES = ("serial", "os", "select", "time", "threading", "socket", "controller.clock")


def test_the_session_does_no_io():
    root = Path(__file__).resolve().parents[2] / "controller" / "pads"
    for name in PURE_MODULES:
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for mod in names:
                assert mod.split(".")[0] not in IO_MODULES and mod not in IO_MODULES, (name, mod)

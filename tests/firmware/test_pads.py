"""Pad detector, calibration, self-test, light sensor and LEDs under CPython."""

from __future__ import annotations

from tests.firmware.conftest import TICKS_PERIOD, Ticks

LOADED, EMPTY = 26000, 900


def feed(pad, ticks: Ticks, values, step_us=250):
    """Feed samples `step_us` apart; return the events."""
    out = []
    for v in values:
        ev = pad.update(v, ticks.advance(step_us))
        if ev is not None:
            out.append(ev)
    return out


def test_lift_is_stamped_with_the_first_sample_past_the_threshold(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED)
    t = Ticks(1000)
    assert feed(pad, t, [LOADED] * 10) == []
    assert pad.placed is True
    first_low = t.us + 250
    events = feed(pad, t, [EMPTY] * 5)
    assert events == [(fw["pads"].LIFT, first_low, EMPTY)]
    assert pad.placed is False


def test_single_spikes_are_rejected(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED, confirm=3)
    t = Ticks()
    feed(pad, t, [LOADED] * 4)
    assert feed(pad, t, [LOADED, EMPTY, LOADED, EMPTY, EMPTY, LOADED] * 3) == []


def test_hysteresis_band_holds_state(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED)
    t = Ticks()
    feed(pad, t, [LOADED] * 4)
    mid = (pad.lo + pad.hi) // 2
    assert feed(pad, t, [mid, pad.lo + 1, pad.hi - 1] * 10) == []
    assert pad.placed is True


def test_lockout_ignores_bounce_after_a_lift(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED, lockout_us=10000)
    t = Ticks()
    feed(pad, t, [LOADED] * 4)
    events = feed(pad, t, [EMPTY] * 3 + [LOADED] * 8 + [EMPTY] * 40 + [LOADED] * 40)
    kinds = [e[0] for e in events]
    assert kinds == [fw["pads"].LIFT, fw["pads"].PLACE]
    # the place came after the 10 ms lockout, stamped at its first loaded sample
    assert events[1][1] - events[0][1] >= 10000


def test_tick_wrap_does_not_break_lockout_or_timestamps(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED, lockout_us=10000)
    t = Ticks(TICKS_PERIOD - 2000)  # wraps within the next 8 samples
    feed(pad, t, [LOADED] * 4)
    events = feed(pad, t, [EMPTY] * 4)
    assert events[0][1] == (TICKS_PERIOD - 750) % TICKS_PERIOD
    # 10 ms later, across the wrap, a placement is accepted again
    events = feed(pad, t, [EMPTY] * 36 + [LOADED] * 4)
    assert [e[0] for e in events] == [fw["pads"].PLACE]
    assert events[0][1] < 100_000  # wrapped tick


def test_levels_learn_slowly_and_keep_their_spread(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED, min_spread=4000, learn_shift=6)
    t = Ticks()
    feed(pad, t, [LOADED] * 2)
    feed(pad, t, [30000] * 2000)  # a heavier figure settles in
    assert 29500 <= pad.loaded <= 30000
    feed(pad, t, [EMPTY] * 4)
    feed(pad, t, [3000] * 2000)  # the empty level drifts up
    assert 2900 <= pad.empty <= 3000
    assert pad.loaded - pad.empty >= 4000
    assert pad.empty < pad.lo < pad.hi < pad.loaded


def test_calibrate_and_configure(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED)
    level = fw["calibrate"].calibrate(pad, [20000, 20010, 65535, 19990, 20005], 1)
    assert level == 20005  # the median ignores the spike
    assert pad.loaded == 20005
    fw["calibrate"].calibrate(pad, [19000, 19100, 19050], 0)
    assert pad.loaded - pad.empty == pad.min_spread  # never closer than min_spread
    pad.configure(0.9, 0, 10**9, 10)
    assert (pad.hysteresis, pad.confirm, pad.lockout_us, pad.min_spread) == (0.45, 1, 200000, 256)


def test_selftest_codes(fw):
    st, Pad = fw["selftest"], fw["pads"].Pad
    pad = Pad(empty=EMPTY, loaded=LOADED)
    assert st.check(pad, [LOADED + i for i in range(20)])[:2] == (1, st.OK)
    assert st.check(pad, [65535] * 10)[1] == st.STUCK_HIGH
    assert st.check(pad, [LOADED, LOADED - 9000, LOADED])[1] == st.NOISY
    assert st.check(pad, [(pad.lo + pad.hi) // 2] * 5)[1] == st.UNDECIDED
    # A weak sensor: calibration shows only 1000 counts between empty and loaded.
    weak = Pad(empty=1500, loaded=24000, min_spread=4000)
    fw["calibrate"].calibrate(weak, [1000] * 9, 0)
    fw["calibrate"].calibrate(weak, [2000] * 9, 1)
    assert weak.loaded - weak.empty == 4000  # the levels in use are pushed apart...
    assert weak.measured == 1000  # ...but the self-test is told the truth
    assert st.check(weak, [2000] * 5)[1] == st.SPREAD
    for _ in range(3000):  # learning on the loaded pad keeps it weak
        weak.update(2000, 0)
    assert st.check(weak, [2000] * 5)[1] == st.SPREAD
    fine = Pad(empty=1500, loaded=24000, min_spread=4000)
    fw["calibrate"].calibrate(fine, [1000] * 9, 0)
    fw["calibrate"].calibrate(fine, [20000] * 9, 1)
    assert st.check(fine, [20000] * 5)[1] == st.OK


def test_light_sensor_reports_the_first_bright_sample(fw):
    light = fw["light"].LightSensor(dark=3000, bright=30000, lockout_us=50000)
    t = Ticks(5)
    assert light.update(3000, t.advance(100)) is None
    assert light.update(3100, t.advance(100)) is None
    ev = light.update(29000, t.advance(100))
    assert ev == (1, t(), 29000)
    assert light.update(3000, t.advance(100)) is None  # lockout
    t.advance(60000)
    assert light.update(3000, t())[0] == 0


def test_leds_cap_brightness_and_reject_bad_pads(fw):
    class Strip(list):
        writes = 0

        def write(self):
            Strip.writes += 1

    strip = Strip([(0, 0, 0)] * 5)
    leds = fw["leds"].Leds(strip, 5, max_level=96)
    assert leds.set(2, 255, 10, 0)
    assert strip[2] == (96, 10, 0)
    assert leds.set(255, 0, 0, 1)
    assert strip == [(0, 0, 1)] * 5
    assert not leds.set(9, 1, 1, 1)
    assert Strip.writes == 2


def test_a_bouncing_placement_keeps_its_first_touch(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED, bounce_us=5000)
    t = Ticks()
    feed(pad, t, [EMPTY] * 4)  # empty pad
    assert pad.placed is False
    touch = t.us + 250
    # touches, rocks off twice, then settles (within 5 ms)
    events = feed(pad, t, [LOADED, LOADED, EMPTY, LOADED, EMPTY, EMPTY] + [LOADED] * 6)
    assert events == [(fw["pads"].PLACE, touch, LOADED)]


def test_a_knock_does_not_pull_a_later_lift_forward(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED)
    t = Ticks()
    feed(pad, t, [LOADED] * 4)
    feed(pad, t, [EMPTY, LOADED, LOADED])  # a one-sample knock
    lift = t.us + 250
    events = feed(pad, t, [EMPTY] * 4)
    assert events == [(fw["pads"].LIFT, lift, EMPTY)]


def test_a_touch_that_never_settles_is_forgotten(fw):
    pad = fw["pads"].Pad(empty=EMPTY, loaded=LOADED, bounce_us=5000)
    t = Ticks()
    feed(pad, t, [EMPTY] * 4)
    feed(pad, t, [LOADED])  # brushed
    feed(pad, t, [EMPTY] * 40)  # 10 ms later
    later = t.us + 250
    events = feed(pad, t, [LOADED] * 4)
    assert events == [(fw["pads"].PLACE, later, LOADED)]

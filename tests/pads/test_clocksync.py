"""Clock sync: offset and drift fit with an error bound that holds."""

from __future__ import annotations

import pytest

from controller.pads.clocksync import (
    FAST_GAIN,
    SLOW_GAIN,
    ClockSync,
    Fit,
    SampleRejected,
    SyncSample,
    _gain_bounds,
    _overlap,
)
from controller.rng import Rng


def simulate(rng: Rng, *, offset_ns: float, ppm: float, n: int, period_ns: int,
             jitter_ns: float) -> tuple[ClockSync, list[tuple[float, float]]]:
    """Pings against a board whose µs run `ppm` fast; return the fit and truths."""
    sync = ClockSync()
    rate = 1 + ppm * 1e-6
    t = 1_000_000_000
    for _ in range(n):
        t += period_ns
        up = 150_000 + rng.lognormal(1.0, 0.8) * jitter_ns
        down = 150_000 + rng.lognormal(1.0, 0.8) * jitter_ns
        b2 = int((t + up - offset_ns) * rate / 1000)
        b3 = b2 + 20
        t4 = int((b3 + 1) * 1000 / rate + offset_ns + down)
        sync.add(SyncSample(t, t4, b2, b3))
    truths = []
    for k in range(50):
        b = b3 + k * 20_000  # up to a second past the last ping
        truths.append((b, b * 1000 / rate + offset_ns))
    return sync, truths


@pytest.mark.parametrize("seed", range(20))
def test_bound_covers_the_true_error(seed):
    rng = Rng(seed)
    sync, truths = simulate(rng, offset_ns=rng.randint(-10**12, 10**12),
                            ppm=rng.gauss(0, 40), n=rng.randint(2, 40),
                            period_ns=rng.choice([20_000_000, 1_000_000_000]),
                            jitter_ns=rng.choice([50_000, 400_000, 2_000_000]))
    for b, true in truths:
        t, bound = sync.to_host(b)
        assert abs(t - true) <= bound


def test_many_samples_give_sub_half_millisecond_offset_and_the_drift():
    sync, truths = simulate(Rng(7), offset_ns=5e11, ppm=35, n=24, period_ns=10**9,
                            jitter_ns=400_000)
    assert sync.fit is not None
    assert sync.fit.gain == pytest.approx(1000 / (1 + 35e-6), abs=0.01)  # within 10 ppm
    errs = [abs(sync.to_host(b)[0] - true) for b, true in truths]
    assert max(errs) < 500_000
    assert sync.to_host(truths[0][0])[1] < 1_500_000


def test_not_synced_raises_and_backwards_samples_are_refused():
    sync = ClockSync()
    with pytest.raises(RuntimeError, match="not synchronised"):
        sync.to_host(0)
    with pytest.raises(ValueError, match="backwards"):
        sync.add(SyncSample(10, 5, 0, 1))
    for k in range(3):  # a fit needs 2 * max_faulty + 1 round trips
        assert not sync.synced
        sync.add(SyncSample(k * 10**7, k * 10**7 + 2_000_000, 1000 + k * 10**4, 1000 + k * 10**4))
    assert sync.synced
    sync.reset()
    assert not sync.synced and len(sync) == 0


def test_a_round_trips_half_width_is_half_of_what_the_board_did_not_spend():
    # 2 ms round trip, 1 ms spent on the board: the instant lies within +-0.5 ms,
    # plus 1 µs for the floored ticks.
    assert SyncSample(0, 2_000_000, 5_000, 6_000).half_width() == 500_000 + 1_000
    assert SyncSample(0, 2_000_000, 5_000, 6_000).half_width(gain=1_001.0) == 499_500 + 1_000
    # all of it spent on the board: only the tick rounding is left
    assert SyncSample(0, 1_000_000, 5_000, 6_000).half_width() == 1_000


def test_the_bound_is_the_best_of_the_intersection_and_the_anchors_carried_along():
    fit = Fit(gain=1000.0, offset=0.0, gain_tolerance=0.01, ref=(0.0, 100.0),
              anchors=((1000.0, 50.0), (2000.0, 80.0)), samples=2, faulty=0)
    assert fit.bound_ns(1000) == 50.0  # on an anchor
    assert fit.bound_ns(-500) == 65.0  # the nearest anchor carried 1500 µs: 50 + 15
    assert fit.bound_ns(0) == 60.0  # anchor 50 + 10 beats the intersection's 100
    one_wrong = Fit(1000.0, 0.0, 0.01, (500.0, 100.0), ((1000.0, 50.0), (2000.0, 80.0)), 2, 1)
    assert one_wrong.bound_ns(1000) == 90.0  # the second-best anchor: 80 + 10
    assert one_wrong.bound_ns(-9000) == 190.0  # still the second anchor: 80 + 110
    far_anchors = Fit(1000.0, 0.0, 0.01, (500.0, 100.0), ((1000.0, 150.0), (2000.0, 180.0)), 2, 1)
    assert far_anchors.bound_ns(500) == 100.0  # the intersection, where it was taken
    assert far_anchors.bound_ns(300) == 102.0  # and carried 200 µs
    too_few = Fit(1000.0, 0.0, 0.01, (0.0, 100.0), ((1000.0, 50.0), (2000.0, 80.0)), 2, 2)
    assert too_few.bound_ns(1000) == 110.0  # two anchors cannot outvote two wrong ones


def test_to_board_before_a_fit_says_so():
    with pytest.raises(RuntimeError, match=r"^clock not synchronised yet$"):
        ClockSync().to_board(0)


def test_impossible_round_trips_are_named_at_their_exact_limits():
    def why(t1, t4, b2, b3):
        return SyncSample(t1, t4, b2, b3).impossible()

    assert why(0, 1_000_000, 0, 1000) is None  # turnaround = round trip: floored ticks allow it
    assert why(0, 1_000_000, 0, 1002) == ("the board's turnaround of 1002 us is longer than "
                                          "the 1000 us round trip")
    assert why(0, 1_000_000, 20, 0) == "the pong left 20 us before the ping arrived"
    assert why(0, 1_000_000_000, 0, 10) is None  # one second is slow, not impossible
    assert why(0, 1_500_501_000, 0, 10) == "round trip of 1501 ms is not a link delay"
    assert why(10, 5, 0, 0) == "round trip runs backwards (-5 ns)"
    with pytest.raises(SampleRejected, match="longer than the 1000 us round trip"):
        ClockSync().add(SyncSample(0, 1_000_000, 0, 1002))


@pytest.mark.parametrize(("window", "max_faulty", "message"), [
    (3, 1, None), (2, 0, None), (24, 11, None),
    (2, 1, "the window needs at least 3 samples"),
    (1, 0, "the window needs at least 2 samples"),
    (4, 2, "the window needs at least 5 samples"),
])
def test_the_window_must_hold_a_majority_against_the_faulty_samples(window, max_faulty,
                                                                       message):
    if message is None:
        assert ClockSync(window=window, max_faulty=max_faulty).window == window
        return
    with pytest.raises(ValueError) as err:
        ClockSync(window=window, max_faulty=max_faulty)
    assert str(err.value) == message


def test_faulty_samples_cannot_be_negative_but_none_is_allowed():
    with pytest.raises(ValueError) as err:
        ClockSync(max_faulty=-1)
    assert str(err.value) == "max_faulty cannot be negative"
    assert ClockSync(max_faulty=0).max_faulty == 0


def steady(n: int) -> list[SyncSample]:
    """`n` clean round trips, 100 ms apart, against a board 1 s behind at the nominal rate."""
    out = []
    for k in range(n):
        t1 = 2_000_000_000 + k * 100_000_000
        b2 = (t1 + 200_000 - 1_000_000_000) // 1000
        out.append(SyncSample(t1, t1 + 420_000, b2, b2 + 20))
    return out


def test_a_new_sync_keeps_the_last_24_round_trips_and_fits_from_the_third():
    sync = ClockSync()
    assert (sync.trouble, sync.rejected, sync.restarts, sync.fit) == (None, 0, 0, None)
    samples = steady(30)
    assert sync.add(samples[0]) is None and sync.add(samples[1]) is None
    assert sync.trouble is None  # too few to fit is not trouble
    assert sync.add(samples[2]) is not None  # 2 * max_faulty + 1 with the default of 1
    for s in samples[3:]:
        sync.add(s)
    assert len(sync) == 24 == sync.window
    with pytest.raises(SampleRejected):
        sync.add(SyncSample(5_000_000_000, 4_000_000_000, 0, 1))  # ends before it starts
    assert sync.rejected == 1 and sync.restarts == 0


def test_a_turnaround_exactly_as_long_as_the_round_trip_allows_is_possible():
    # (6 - 1) us at the slowest crystal is exactly 4999 ns: a round trip of 4999 ns
    # can hold it (ticks floor), one ns less cannot.
    assert SyncSample(0, 4999, 0, 6).impossible() is None
    assert SyncSample(0, 4998, 0, 6).impossible() == (
        "the board's turnaround of 6 us is longer than the 5 us round trip")


def test_rejections_and_restarts_are_counted_and_a_jump_is_measured():
    sync = ClockSync()
    samples = steady(8)
    for s in samples[:5]:
        sync.add(s)
    with pytest.raises(RuntimeError) as err:
        ClockSync().to_host(0)
    assert str(err.value) == "clock not synchronised yet"
    fit = sync.fit
    assert fit is not None
    b = samples[4].b3_us + 10_000
    _host, bound = sync.to_host(b)
    assert fit.bound_ns(b) <= bound <= fit.bound_ns(b) + 1  # rounded up, by under 1 ns
    for n in (1, 2):
        with pytest.raises(SampleRejected):
            sync.add(SyncSample(10, 5, 0, 0))
        assert sync.rejected == n
    for restarts, jump_ns in enumerate((50_000_000, 120_000_000)):  # the board's clock jumps
        jumped = [SyncSample(s.t1_ns + jump_ns, s.t4_ns + jump_ns, s.b2_us, s.b3_us)
                  for s in steady(30)[10 + 5 * restarts:13 + 5 * restarts]]
        first = jumped[0]
        m, fit = first.board_mid, sync.fit
        assert fit is not None
        off = abs(first.host_mid - fit.to_host(m)) - fit.bound_ns(m) - first.half_width(
            SLOW_GAIN)
        rejected = sync.rejected
        with pytest.raises(SampleRejected) as err:
            sync.add(first)
        assert str(err.value) == (f"the board's time lies {off / 1000:.0f} us outside what "
                                  "the clock fit allows")
        with pytest.raises(SampleRejected):
            sync.add(jumped[1])
        assert sync.rejected == rejected + 2 and sync.restarts == restarts
        assert sync.add(jumped[2]) is not None  # the third in a row restarts the fit from them
        assert (sync.restarts, sync.rejected, len(sync)) == (restarts + 1, rejected + 2, 3)


# The fit's parts, pinned exactly (issue 14's survivors). Round trips with no board
# turnaround keep the arithmetic exact: the instant mid lies within `half` ns of `host`.

def trip(board: int, host: int, half: int) -> SyncSample:
    """A round trip whose board instant `board` lies within +-`half` ns of host ns `host`."""
    return SyncSample(host - (half - 1000), host + (half - 1000), board, board)


def test_a_fit_from_one_round_trip_is_the_nominal_rate_when_no_sample_may_be_wrong():
    sync = ClockSync(max_faulty=0)
    fit = sync.add(trip(1_000_000, 2_000_000_000, 50_000))
    assert fit is not None and (fit.gain, fit.samples, fit.faulty) == (1000.0, 1, 0)
    assert fit.ref == (1_000_000, 50_000) and fit.anchors == ((1_000_000, 50_000),)


def test_a_sample_that_just_touches_the_fit_agrees_and_one_ns_past_it_does_not():
    # one round trip at board 500 000 us: host 1 000 200 000 +- 201 000 ns; another at the
    # same board time with the same half width meets it when their centres are 402 000 apart
    def synced() -> ClockSync:
        sync = ClockSync(max_faulty=0)
        sync.add(SyncSample(1_000_000_000, 1_000_400_000, 500_000, 500_000))
        return sync

    touching = synced()
    assert touching.add(SyncSample(1_000_402_000, 1_000_802_000, 500_000, 500_000)) is not None
    assert len(touching) == 2
    apart = synced()
    with pytest.raises(SampleRejected, match="lies 0 us outside"):
        apart.add(SyncSample(1_000_402_001, 1_000_802_001, 500_000, 500_000))
    assert len(apart) == 1


def test_a_fit_is_the_intersection_carried_to_the_newest_round_trip():
    samples = steady(5)  # on host = 1000 * board + 1e9 exactly, +-201 002 ns each
    sync = ClockSync()
    for s in samples:
        sync.add(s)
    fit = sync.fit
    assert fit is not None
    newest = samples[-1].board_mid
    assert (fit.gain, fit.offset, fit.samples, fit.faulty) == (1000.0, 1e9, 5, 1)
    # 0.4 s of round trips bound the rate no better than the crystal does
    assert fit.gain_tolerance == pytest.approx(0.2, rel=1e-9)
    # all five intervals are centred on the truth; with one of them possibly wrong the
    # intersection is the second narrowest, the one carried 100 ms: 201 002 + 0.2 * 100 000
    assert fit.ref[0] == newest
    assert fit.ref[1] == pytest.approx(221_002, rel=1e-12)
    assert fit.anchors == tuple((s.board_mid, 201_002.0) for s in samples)


def test_round_trips_that_disagree_on_the_rate_restart_the_window_and_say_why():
    sync = ClockSync(window=3, max_faulty=0)
    sync.add(trip(1_000_000, 2_000_000_000, 50_000))
    # the board's clock jumps: three round trips in a row far from the fit, which
    # between them say 1100 ns per us and then 100
    for board, host in ((2_000_000, 3_500_000_000), (3_000_000, 4_600_000_000)):
        with pytest.raises(SampleRejected):
            sync.add(trip(board, host, 50_000))
    assert sync.add(trip(4_000_000, 4_700_000_000, 50_000)) is None
    assert sync.trouble == ("the board's round trips disagree on its clock rate (more than "
                            "0 of the last 3 are wrong)")
    assert len(sync) == 0 and sync.restarts == 1


def test_gain_bounds_are_the_tightest_pair_and_hold_against_a_wrong_sample():
    a, b = trip(0, 0, 50_000), trip(1_000_000, 1_000_000_000, 50_000)
    c = trip(2_000_000, 2_000_020_000, 50_000)
    # two round trips 1 s apart, each +-50 us: 1000 +- 0.1 ns per us
    assert _gain_bounds([a, b], 0) == (999.9, 1000.1)
    # a with c, 2 s apart, is the tightest: (2e9 + 2e4 -+ 1e5) / 2e6
    assert _gain_bounds([a, b, c], 0) == (999.96, 1000.06)
    # any one may be wrong: the loosest of the three pairs' bounds (a-b low, b-c high)
    assert _gain_bounds([a, b, c], 1) == (999.9, 1000.12)
    a2 = trip(0, 10_000, 50_000)  # at a's board time: no rate from the pair a, a2
    assert _gain_bounds([a, a2, c], 0) == (999.96, 1000.055)
    # dropping c leaves only a and a2, which bound nothing but the crystal
    assert _gain_bounds([a, a2, c], 1) == (SLOW_GAIN, FAST_GAIN)


def test_gain_bounds_clamp_to_the_crystal_and_refuse_a_contradiction():
    fast = [trip(0, 0, 50_000), trip(1_000_000, 1_500_000_000, 50_000)]
    assert _gain_bounds(fast, 0) == (FAST_GAIN, FAST_GAIN)  # a rate beyond it is cut to it
    torn = [*fast, trip(2_000_000, 2_000_000_000, 50_000)]  # 1500 then 500 ns per us
    assert _gain_bounds(torn, 0) is None


def rate(*trips: SyncSample, **options: float) -> float:
    return ClockSync(**options)._estimate_gain(list(trips), SLOW_GAIN, FAST_GAIN)  # type: ignore[arg-type]


def test_the_rate_is_least_squares_on_the_fastest_third_below_the_round_trip_limit():
    a, b = trip(0, 0, 2_000), trip(400_000, 400_020_000, 2_000)  # 1000.05 ns per us
    c = trip(800_000, 800_080_000, 5_000)  # a, b and c: 1000.1
    d = trip(1_200_000, 1_200_000_000, 6_000)  # a to d: 1000.015
    assert rate(a, b, c) == 1000.05  # a third of three is still two
    # a round trip of exactly max_rtt_ns counts, a longer one does not
    assert rate(a, b, c, d, keep_fraction=1.0, max_rtt_ns=10_000) == 1000.1
    # two left are enough; fewer, and the fastest are used whatever their round trip
    assert rate(a, b, c, d, keep_fraction=1.0, max_rtt_ns=4_000) == 1000.05
    assert rate(a, b, c, d, keep_fraction=1.0, max_rtt_ns=3_000) == 1000.015


def test_below_0_2_s_of_spread_the_rate_is_nominal():
    # 2 * (100 ms)^2 of spread is the limit: there the slope counts
    assert rate(trip(0, 0, 2_000), trip(200_000, 200_010_000, 2_000)) == 1000.05
    assert rate(trip(0, 0, 2_000), trip(1_000, 1_000_050, 2_000)) == 1000.0


def test_the_rate_is_exact_far_from_board_and_host_zero():
    # Centred on the means the sums stay exact; centred elsewhere (the same slope in
    # exact arithmetic) the products pass 2**53 and round, 5e-10 off here.
    b0, h0 = 5_619_403_320, 5_620_053_947_595
    far = [trip(b0, h0, 2_000), trip(b0 + 2_000_000, h0 + 2_000_250_000, 2_000)]
    assert rate(*far) == 1000.125


def test_overlap_is_the_hull_of_the_points_in_enough_closed_spans():
    spans = [(0.0, 10.0), (5.0, 15.0), (20.0, 30.0)]
    assert _overlap(spans, 1) == (0.0, 30.0)
    assert _overlap(spans, 2) == (5.0, 10.0)
    assert _overlap(spans, 3) is None
    assert _overlap([(0.0, 5.0), (5.0, 9.0)], 2) == (5.0, 5.0)  # closed: they touch

"""Dating a lift from a figure's first positions off its pad (`vision.lift`)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from controller.vision.lift import CARRY_MM, CARRY_S, start_from_rest, time_to_move


def min_jerk(share: float) -> float:
    """The share of its way a minimum-jerk move has covered at `share` of its time."""
    return share ** 3 * (10 - 15 * share + 6 * share * share)


# Not to the very end of the carry: the profile is flat there, so the last bit of
# rounding in the distance (1e-16 of the way) is a few microseconds of time once
# inverted (hypothesis found share = 1 - 1e-16 off by 2 us), beyond the test's 1 us.
@given(st.floats(*CARRY_MM), st.floats(*CARRY_S), st.floats(0.02, 0.999))
def test_the_time_to_move_brackets_every_published_carry(way_mm: float, carry_s: float,
                                                         share: float) -> None:
    """However far a carry took the figure, the time it took lies between the fastest
    and the slowest carry's; late in a short carry the cube alone (the start of the
    profile) would say too little."""
    moved = way_mm * min_jerk(share)
    fast, slow = time_to_move(moved)
    assert fast - 1e-6 <= share * carry_s <= slow + 1e-6


def test_time_to_move_grows_with_the_distance_and_starts_at_zero() -> None:
    assert time_to_move(0.0) == (0.0, 0.0)
    steps = [time_to_move(mm) for mm in (1.0, 10.0, 100.0, 400.0)]
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in itertools.pairwise(steps))
    assert time_to_move(10_000.0) == CARRY_S


@given(st.floats(150.0, 500.0), st.floats(0.28, 0.55), st.floats(0.005, 0.033))
def test_a_start_from_rest_is_dated_within_a_frame_from_three_positions(
        way_mm: float, carry_s: float, first_s: float) -> None:
    """Three positions a frame apart (30 fps), the first of them up to a frame after
    the figure moved: the start is found within that frame, where a straight line
    through the positions dates it frames late."""
    period = 1 / 30
    ts = [first_s + k * period for k in range(3)]
    ds = [way_mm * min_jerk(t / carry_s) for t in ts]
    start = start_from_rest(ts, ds)
    assert start is not None and abs(start) <= period

"""When a figure started to leave its pad, from its first positions off it.

A hand does not snatch a figure away at constant speed: it grips, holds still
while the grip loads, and then starts from rest with a smooth acceleration.
Such a start (a minimum-jerk reach, Flash & Hogan 1985, or a plain
constant-acceleration one) grows its displacement at first like a power of
the time since the start, between the square and the cube; a figure pushed
or flicked is at speed at once (the first power). So the start is dated by a
line through the p-th roots of the first displacements, back to zero:

- with three displacements or more, the power under which they lie best on a
  line (their shape says which start it was);
- with two, the middle of the square's and the cube's answers (a hand's own
  start from rest).

A straight line through the displacements themselves (what constant speed
gives) dates an accelerating start late: about four frames when fitted to
the first positions off the pad (issue 11).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

POWERS = (1.0, 2.0, 3.0)   # constant speed, constant acceleration, minimum jerk
# Published carries of a snatched figure (controller/sim/people.py, docs/camera.md): it
# travels 150-500 mm in 0.28-0.55 s on a minimum-jerk profile, starting from rest.
CARRY_MM = (150.0, 500.0)
CARRY_S = (0.28, 0.55)
JERK_LIMITED = (2.0, 3.0)  # how a hand's own start from rest grows


def start_from_rest(ts: Sequence[float] | np.ndarray, ds: Sequence[float] | np.ndarray
                    ) -> float | None:
    """When displacements `ds` (mm, growing) at times `ts` started from zero; None: unclear.

    Times are in any unit; the answer is in the same unit.
    """
    t = np.asarray(ts, np.float64)
    d = np.asarray(ds, np.float64)
    if len(t) < 2 or len(t) != len(d) or np.any(d <= 0) or np.any(np.diff(t) <= 0):
        return None
    fits: dict[float, tuple[float, float]] = {}   # power -> (start, misfit)
    for p in POWERS:
        r = d ** (1 / p)
        (slope, icpt), res, *_ = np.polyfit(t - t[0], r, 1, full=True)
        if slope > 0 and math.isfinite(slope) and r[-1] > r[0]:
            misfit = float(res[0]) / float(r[-1] - r[0]) ** 2 if len(res) else 0.0
            fits[p] = (float(t[0] - icpt / slope), misfit)
    if not fits:
        return None
    if len(t) >= 3:
        return min(fits.values(), key=lambda v: v[1])[0]
    starts = [v[0] for p, v in fits.items() if p in JERK_LIMITED]
    return float(np.mean(starts)) if starts else None


def time_to_move(mm: float) -> tuple[float, float]:
    """How long (s) a figure started from rest takes to move `mm`: (fastest, slowest).

    A pad notices a lift only once the figure has moved part of its radius;
    this is how far back from then the lift can lie, for the range of carries
    people make (the jerk-limited start of the fastest and of the slowest).
    """
    fast = CARRY_S[0] * _jerk_phase(mm / CARRY_MM[1])
    slow = CARRY_S[1] * _jerk_phase(mm / CARRY_MM[0])
    return fast, slow


def _jerk_phase(share: float) -> float:
    """The share of a minimum-jerk move's time it takes to cover `share` of its way.

    Its way is 10 s^3 - 15 s^4 + 6 s^5 of the whole at time share s; early on
    that is the cube alone, but a figure seen 100 mm off its pad is well into a
    short carry, where the cube alone would date its start too late.
    """
    if share <= 0:
        return 0.0
    if share >= 1:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(40):   # bisection: the profile rises monotonically on [0, 1]
        mid = (lo + hi) / 2
        if mid ** 3 * (10 - 15 * mid + 6 * mid * mid) < share:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2

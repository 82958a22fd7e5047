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
# travels 150-500 mm in 0.28-0.55 s, starting from rest as 10 D (t/T)^3 of the way.
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
    fast = CARRY_S[0] * (mm / (10 * CARRY_MM[1])) ** (1 / 3)
    slow = CARRY_S[1] * (mm / (10 * CARRY_MM[0])) ** (1 / 3)
    return fast, slow

"""How sure the camera is of a seat: a probability, and when to ask the table instead.

`ASK_BELOW` is the line under which the referee asks the table "who took
it?" rather than take the camera's word: a wrong seat given with confidence
is the worst outcome the product can produce, a question costs a tap.

The tracker's raw confidence is evidence, not a probability (a crowd caps it
at 0.8, a hand seen alone with the figure sets it at 0.95). `calibrated` maps
it to the share of seats that were right at that raw confidence on the tuning
seeds (an isotonic fit, `bench/fit_confidence.py`), so that "0.65" means right
about two times in three. The map keeps every raw confidence on its side of
`ASK_BELOW`: which grabs are asked is the tracker's decision, made on evidence,
and a fit to a few hundred grabs must not move it.
"""

from __future__ import annotations

import bisect

ASK_BELOW = 0.9
# (lowest raw confidence of the step, share of seats right) from
# `python bench/fit_confidence.py` on the 230 attributed grabs of tuning seeds
# tune:0-191 (docs/camera.md, "Benchmark"); empty would state the raw value.
CALIBRATION: tuple[tuple[float, float], ...] = (
    (0.000, 0.067), (0.167, 0.278), (0.500, 0.543), (0.750, 0.597), (0.875, 0.990))
BELOW = ASK_BELOW - 0.001   # the most a raw confidence under the line may be stated as


def calibrated(raw: float, table: tuple[tuple[float, float], ...] = CALIBRATION) -> float:
    """The probability that a seat named with raw confidence `raw` is right."""
    if not table:
        return raw
    k = bisect.bisect_right([lo for lo, _ in table], raw) - 1
    p = table[max(k, 0)][1]
    return max(p, ASK_BELOW) if raw >= ASK_BELOW else min(p, BELOW)

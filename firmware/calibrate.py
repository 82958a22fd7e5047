"""Calibration: learn a pad's empty or loaded level from a burst of samples.

The host sends CALIBRATE(pad, which) while the figure is off (which = 0) or
standing (which = 1); the board averages `n` samples and sets the level. The
median of the burst ignores a stray spike from a hand brushing the pad.
"""


def level_of(samples):
    """Return the median of the samples (an int)."""
    s = sorted(samples)
    if not s:
        raise ValueError("no samples")
    return s[len(s) // 2]


def calibrate(pad, samples, which):
    """Set `pad`'s empty (which=0) or loaded (which=1) level from `samples`."""
    level = level_of(samples)
    if which:
        pad.set_levels(loaded=level)
    else:
        pad.set_levels(empty=level)
    return level

"""Self-test: is each pad's sensor wired and usable?

Codes (sent in SELFTEST frames, explained in PROTOCOL.md):
0 ok; 1 stuck high (short to 3V3 or no divider resistor); 2 noisy (peak to peak
over a quarter of the learned spread); 3 levels too close (calibrate again);
4 reading sits between the thresholds (figure half on the pad or sensor failing).
"""

OK = 0
STUCK_HIGH = 1
NOISY = 2
SPREAD = 3
UNDECIDED = 4

RAIL = 65000


def check(pad, samples):
    """Return (ok, code, minimum, maximum, noise) for one pad from a sample burst."""
    lo = min(samples)
    hi = max(samples)
    noise = hi - lo
    spread = pad.loaded - pad.empty
    if lo >= RAIL:
        code = STUCK_HIGH
    elif pad.measured < pad.min_spread:  # the levels in use were pushed apart
        code = SPREAD
    elif noise * 4 > spread:
        code = NOISY
    elif pad.lo < samples[-1] < pad.hi:
        code = UNDECIDED
    else:
        code = OK
    return (1 if code == OK else 0), code, lo, hi, min(noise, 0xFFFF)

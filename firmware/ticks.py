"""Board tick arithmetic: MicroPython's `ticks_us` wraps at 2**30 microseconds.

`time.ticks_us()` on the RP2040 is the 64-bit microsecond timer masked to 30 bits,
so it wraps every 2**30 us (about 17.9 minutes). These helpers repeat the
semantics of `time.ticks_add` / `time.ticks_diff` as pure functions so the logic
modules and the CPython tests share them; `main.py` passes the real
`time.ticks_us` in as the clock.
"""

TICKS_PERIOD = 1 << 30
TICKS_MASK = TICKS_PERIOD - 1
TICKS_HALF = TICKS_PERIOD >> 1


def ticks_add(t, delta):
    """Return tick `t` moved by `delta` microseconds, wrapped like the board."""
    return (t + delta) & TICKS_MASK


def ticks_diff(later, earlier):
    """Return the signed distance later - earlier, valid within +-2**29 us."""
    return ((later - earlier + TICKS_HALF) & TICKS_MASK) - TICKS_HALF

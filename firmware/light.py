"""Optional light sensor taped to the display corner: the card's photon time.

A phototransistor (see hardware/) reads dark while the screen shows the card
back and bright when the card appears. The first sample past the midpoint of
the learned dark and bright levels is the photon time, on the same tick clock
as the pads, so reaction times start when the card was actually visible.
"""

from ticks import ticks_diff


class LightSensor:
    """Edge detector for the display light sensor.

    Args:
        dark: initial dark level; bright: initial bright level.
        lockout_us: ignore further edges this long after one.
    """

    def __init__(self, dark=3000, bright=30000, lockout_us=50000):
        self.dark = dark
        self.bright = bright
        self.lockout_us = lockout_us
        self.is_bright = None
        self._last = None

    def update(self, value, tick):
        """Feed one sample; return (kind, tick, value), kind 1 = got brighter, else None."""
        mid = (self.dark + self.bright) // 2
        band = (self.bright - self.dark) // 8
        if self.is_bright is None:
            self.is_bright = value >= mid
            return None
        if self._last is not None and ticks_diff(tick, self._last) < self.lockout_us:
            return None
        if self.is_bright and value < mid - band:
            self.is_bright = False
        elif not self.is_bright and value > mid + band:
            self.is_bright = True
        else:
            return None
        self._last = tick
        return (1 if self.is_bright else 0, tick, value)

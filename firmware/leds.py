"""One WS2812 LED per pad: light the correct figure after a verdict.

Takes any object with the `neopixel.NeoPixel` interface (item assignment of
(r, g, b) tuples and `write()`), so tests pass a plain list-backed object.
"""


class Leds:
    """LED strip, one LED per pad, with a brightness cap (the strip sits under felt).

    Args:
        strip: a NeoPixel-like object, or None when no LEDs are fitted.
        count: number of pads.
        max_level: per channel cap, 0..255.
    """

    def __init__(self, strip, count, max_level=96):
        self.strip = strip
        self.count = count
        self.max_level = max_level
        self.colours = [(0, 0, 0)] * count

    def set(self, pad, r, g, b):
        """Set one LED (pad = 255 sets all); returns False for a bad pad index."""
        c = (min(r, self.max_level), min(g, self.max_level), min(b, self.max_level))
        if pad == 255:
            targets = range(self.count)
        elif 0 <= pad < self.count:
            targets = (pad,)
        else:
            return False
        for i in targets:
            self.colours[i] = c
            if self.strip is not None:
                self.strip[i] = c
        if self.strip is not None:
            self.strip.write()
        return True

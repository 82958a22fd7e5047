"""Force-sensitive pad logic: learned levels, hysteresis, confirmation, lockout.

Each pad sits in a voltage divider (see hardware/fsr-divider.md): a standing
figure gives a high reading ("loaded"), an empty pad a low one ("empty"). The
thresholds sit around the midpoint of the learned levels with a hysteresis
band, a change must be seen on `confirm` consecutive samples (rejects single
spikes) and is stamped with the tick of the FIRST of them (for a placement:
the first touch, even if the figure bounced before settling), and after an event
the pad ignores changes for `lockout_us` (contact bounce of a figure being set
down). Levels keep learning slowly while the pad is steady, so a figure set
down off centre or a drifting sensor moves the thresholds with it.

Pure logic: takes samples and ticks as arguments, no `machine`.
"""

from ticks import ticks_diff

LIFT = 1
PLACE = 0


class Pad:
    """One pad's detector.

    Args:
        empty: initial empty level (ADC u16).
        loaded: initial loaded level (ADC u16).
        hysteresis: half-width of the band around the midpoint, as a fraction of
            the spread between the levels.
        min_spread: the levels in use are never closer than this; `measured`
            keeps the spread the sensor really shows, for the self-test.
        confirm: consecutive samples needed to accept a change.
        lockout_us: quiet time after an event.
        learn_shift: levels learn by 1/2**learn_shift of the error per sample.
        bounce_us: a placement is stamped with the figure's first touch if it
            settles within this time (it may bounce off the pad meanwhile).
    """

    def __init__(self, empty=1500, loaded=24000, hysteresis=0.15, min_spread=4000,
                 confirm=3, lockout_us=10000, learn_shift=10, bounce_us=5000):
        self.empty = empty
        self.loaded = loaded
        self.hysteresis = hysteresis
        self.min_spread = min_spread
        self.confirm = confirm
        self.lockout_us = lockout_us
        self.learn_shift = learn_shift
        self.placed = None  # unknown until the first sample
        self.value = 0
        self._pending = 0
        self._pending_tick = 0
        self._touch_tick = None  # first touch of a landing figure, kept through its bounce
        self.bounce_us = bounce_us
        self._last_event_tick = None
        # Learned levels keep extra fractional bits so slow learning still moves.
        # They hold what the sensor showed, before the levels in use were held
        # min_spread apart, so a weak pad stays visible to the self-test.
        self._empty_acc = empty << learn_shift
        self._loaded_acc = loaded << learn_shift
        self._recompute()

    def _recompute(self):
        spread = self.loaded - self.empty
        mid = self.empty + spread // 2
        band = int(spread * self.hysteresis)
        self.lo = mid - band
        self.hi = mid + band

    def configure(self, hysteresis, confirm, lockout_us, min_spread):
        """Apply the host's settings (SETUP frame); values out of range are clamped."""
        self.hysteresis = min(max(hysteresis, 0.02), 0.45)
        self.confirm = min(max(confirm, 1), 20)
        self.lockout_us = min(max(lockout_us, 0), 200000)
        self.min_spread = min(max(min_spread, 256), 60000)
        self.set_levels()

    def set_levels(self, empty=None, loaded=None, raw=None):
        """Set learned levels (calibration); keeps them at least min_spread apart.

        `raw` restores the (empty, loaded) the sensor showed when an earlier
        calibration had to push the levels apart (`raw_levels`).
        """
        s = self.learn_shift
        if empty is not None:
            self.empty = empty
            self._empty_acc = empty << s
        if loaded is not None:
            self.loaded = loaded
            self._loaded_acc = loaded << s
        if raw is not None:
            self._empty_acc = raw[0] << s
            self._loaded_acc = raw[1] << s
        if self.loaded - self.empty < self.min_spread:
            if loaded is not None and empty is None:
                self.empty = self.loaded - self.min_spread
            else:
                self.loaded = self.empty + self.min_spread
            # Inside the ADC's range: LEVELS frames carry u16, and a negative
            # level would crash the board when it reports them.
            if self.empty < 0:
                self.empty, self.loaded = 0, self.min_spread
            elif self.loaded > 0xFFFF:
                self.empty, self.loaded = 0xFFFF - self.min_spread, 0xFFFF
        self._recompute()

    def raw_levels(self):
        """(empty, loaded) as the sensor shows them, before any pushing apart."""
        return self._empty_acc >> self.learn_shift, self._loaded_acc >> self.learn_shift

    @property
    def measured(self):
        """The spread the sensor really shows (the self-test fails a weak pad by it)."""
        empty, loaded = self.raw_levels()
        return loaded - empty

    def update(self, value, tick):
        """Feed one sample; return (kind, tick, value) for an accepted change, else None."""
        self.value = value
        if self.placed is None:
            self.placed = value >= self.lo + (self.hi - self.lo) // 2
            return None
        if self._last_event_tick is not None:
            if ticks_diff(tick, self._last_event_tick) < self.lockout_us:
                return None
            self._last_event_tick = None
        crossed = value < self.lo if self.placed else value > self.hi
        if not crossed:
            self._pending = 0
            # A figure landing rocks: keep its first touch for bounce_us while
            # it bounces. A lift keeps no such memory, so a knock on the table
            # cannot pull a later lift's time forward.
            if self._touch_tick is not None and (
                    self.placed or ticks_diff(tick, self._touch_tick) > self.bounce_us):
                self._touch_tick = None
            self._learn(value)
            return None
        if self._pending == 0:
            self._pending_tick = tick
            if self._touch_tick is None:
                self._touch_tick = tick
        self._pending += 1
        if self._pending < self.confirm:
            return None
        first = self._pending_tick if self.placed else self._touch_tick
        self._pending = 0
        self._touch_tick = None
        self.placed = not self.placed
        self._last_event_tick = first
        return (PLACE if self.placed else LIFT, first, value)

    def _learn(self, value):
        s = self.learn_shift
        if self.placed:
            if value <= self.hi:
                return
            self._loaded_acc += value - (self._loaded_acc >> s)
            loaded = self._loaded_acc >> s
            if loaded - self.empty >= self.min_spread:
                self.loaded = loaded
        else:
            if value >= self.lo:
                return
            self._empty_acc += value - (self._empty_acc >> s)
            empty = self._empty_acc >> s
            if self.loaded - empty >= self.min_spread:
                self.empty = empty
        self._recompute()

"""Map the pad board's microsecond ticks onto the host clock, with an error bound.

Ping/pong: the host notes t1 (host ns) and sends PING; the board notes b2 on
arrival and b3 on reply (unwrapped board µs); the host notes t4 on receipt. The
board instant mid = (b2 + b3) / 2 happened on the host somewhere in
[t1 + d, t4 - d] with d = (b3 - b2) * gain / 2, an interval of half-width
rtt / 2 around (t1 + t4) / 2 (NTP's offset and error).

We keep a window of samples, fit ``host = offset + gain * board`` by least
squares on the lowest-RTT third (the fastest round trips are the least skewed
by USB scheduling), and bound the error honestly: every sample's interval must
contain the true line, so the pairs of intervals bound the gain from both
sides, and the error at any board time b is at most
``min_i(|fit(b_i) - mid_i| + rtt_i / 2 + |b - b_i| * gain_tolerance)``.
Nothing here is a fixed guess except the crystal tolerance used before two
samples span enough time to bound the gain.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

NOMINAL_GAIN = 1000.0  # ns per board µs
CRYSTAL_TOLERANCE = 200e-6  # before the gain is measured (RP2040 crystals: +-30 ppm typical)
TICK_NS = 1000.0  # one board tick


@dataclass(frozen=True)
class SyncSample:
    """One ping/pong round trip.

    Args:
        t1_ns: host time the ping was written.
        t4_ns: host time the pong was read.
        b2_us: unwrapped board tick when the ping arrived.
        b3_us: unwrapped board tick when the pong left.
    """

    t1_ns: int
    t4_ns: int
    b2_us: int
    b3_us: int

    @property
    def board_mid(self) -> float:
        return (self.b2_us + self.b3_us) / 2

    @property
    def host_mid(self) -> float:
        return (self.t1_ns + self.t4_ns) / 2

    def half_width(self, gain: float = NOMINAL_GAIN) -> float:
        """Half the round trip minus the board's turnaround, in ns, plus tick rounding.

        Board ticks are whole µs that floor the true instant, so each reading
        may be up to 1 µs early: one µs of slack covers both ends of the midpoint.
        """
        turnaround = (self.b3_us - self.b2_us) * gain
        return max(0.0, (self.t4_ns - self.t1_ns - turnaround) / 2) + TICK_NS


@dataclass(frozen=True)
class Fit:
    """The current board-to-host mapping."""

    gain: float  # ns per µs
    offset: float  # host ns at board tick 0
    gain_tolerance: float  # ns per µs
    anchors: tuple[tuple[float, float], ...]  # (board µs, error at that point in ns)
    samples: int

    def to_host(self, board_us: float) -> float:
        return self.offset + self.gain * board_us

    def bound_ns(self, board_us: float) -> float:
        """Upper bound of |to_host(b) - true host time of b|."""
        return min(err + abs(board_us - b) * self.gain_tolerance for b, err in self.anchors)


class ClockSync:
    """Offset and drift fit from ping/pong samples.

    Args:
        window: samples kept.
        keep_fraction: share of the lowest-RTT samples used for the fit.
        max_rtt_ns: samples slower than this are not used for the fit (unless
            nothing else is left); they still constrain the gain bound.
    """

    def __init__(self, *, window: int = 24, keep_fraction: float = 1 / 3,
                 max_rtt_ns: int = 3_000_000) -> None:
        if window < 2:
            raise ValueError("the window needs at least 2 samples")
        self.window = window
        self.keep_fraction = keep_fraction
        self.max_rtt_ns = max_rtt_ns
        self._samples: deque[SyncSample] = deque(maxlen=window)
        self.fit: Fit | None = None

    @property
    def synced(self) -> bool:
        return self.fit is not None

    def __len__(self) -> int:
        return len(self._samples)

    def reset(self) -> None:
        """Forget everything (the board rebooted)."""
        self._samples.clear()
        self.fit = None

    def add(self, sample: SyncSample) -> Fit:
        """Add one round trip and refit; return the new fit."""
        if sample.t4_ns < sample.t1_ns or sample.b3_us < sample.b2_us:
            raise ValueError(f"round trip runs backwards: {sample}")
        self._samples.append(sample)
        self.fit = self._refit()
        return self.fit

    def to_host(self, board_us: float) -> tuple[int, int]:
        """Return (host ns, error bound ns) for an unwrapped board tick.

        Raises:
            RuntimeError: no round trip yet.
        """
        if self.fit is None:
            raise RuntimeError("clock not synchronised yet")
        return round(self.fit.to_host(board_us)), int(self.fit.bound_ns(board_us)) + 1

    def to_board(self, host_ns: float) -> float:
        """Return the board µs tick expected at host time `host_ns` (for unwrap hints)."""
        if self.fit is None:
            raise RuntimeError("clock not synchronised yet")
        return (host_ns - self.fit.offset) / self.fit.gain

    def _refit(self) -> Fit:
        samples = list(self._samples)
        gain_lo, gain_hi = self._gain_bounds(samples)
        ranked = sorted(samples, key=lambda s: s.half_width())
        keep = max(2, round(len(samples) * self.keep_fraction))
        chosen = [s for s in ranked[:keep] if 2 * s.half_width() <= self.max_rtt_ns]
        if len(chosen) < min(2, len(samples)):
            chosen = ranked[:keep]
        gain = self._fit_gain(chosen, gain_lo, gain_hi)
        # Offset: least squares with the gain fixed (the mean of the residuals).
        offset = sum(s.host_mid - gain * s.board_mid for s in chosen) / len(chosen)
        if gain_lo <= gain <= gain_hi:
            tol = max(gain - gain_lo, gain_hi - gain)
        else:
            tol = NOMINAL_GAIN * CRYSTAL_TOLERANCE + abs(gain - NOMINAL_GAIN)
        # Bound-based refinement (as Android WALT does): carried to the newest
        # sample's board time, every interval must contain the true host time,
        # so their intersection [lo, hi] does. Its middle is the estimate, with
        # half its width as the error there; one-sided USB delays make this far
        # tighter than any single round trip.
        b_ref = samples[-1].board_mid
        slow = NOMINAL_GAIN * (1 - CRYSTAL_TOLERANCE)
        lo = max(s.host_mid - s.half_width(slow) + gain * (b_ref - s.board_mid)
                 - abs(b_ref - s.board_mid) * tol for s in samples)
        hi = min(s.host_mid + s.half_width(slow) + gain * (b_ref - s.board_mid)
                 + abs(b_ref - s.board_mid) * tol for s in samples)
        extra: tuple[tuple[float, float], ...] = ()
        if lo <= hi:
            offset = (lo + hi) / 2 - gain * b_ref
            extra = ((b_ref, (hi - lo) / 2),)
        anchors = tuple(
            (s.board_mid, abs(offset + gain * s.board_mid - s.host_mid) + s.half_width(slow))
            for s in samples
        ) + extra
        return Fit(gain, offset, tol, anchors, len(samples))

    @staticmethod
    def _gain_bounds(samples: list[SyncSample]) -> tuple[float, float]:
        lo = NOMINAL_GAIN * (1 - CRYSTAL_TOLERANCE)
        hi = NOMINAL_GAIN * (1 + CRYSTAL_TOLERANCE)
        slow = lo  # the slowest plausible gain gives the widest, safest intervals
        # Every pair of intervals bounds the slope of any line through both.
        for i, a in enumerate(samples):
            for b in samples[i + 1:]:
                db = b.board_mid - a.board_mid
                if db <= 0:
                    continue
                ra, rb = a.half_width(slow), b.half_width(slow)
                dh = b.host_mid - a.host_mid
                lo = max(lo, (dh - ra - rb) / db)
                hi = min(hi, (dh + ra + rb) / db)
        if lo > hi:
            # Inconsistent intervals (the board clock jumped?): fall back to the crystal spec.
            return NOMINAL_GAIN * (1 - CRYSTAL_TOLERANCE), NOMINAL_GAIN * (1 + CRYSTAL_TOLERANCE)
        return lo, hi

    @staticmethod
    def _fit_gain(chosen: list[SyncSample], lo: float, hi: float) -> float:
        if len(chosen) < 2:
            return min(max(NOMINAL_GAIN, lo), hi)
        mb = sum(s.board_mid for s in chosen) / len(chosen)
        mh = sum(s.host_mid for s in chosen) / len(chosen)
        sbb = sum((s.board_mid - mb) ** 2 for s in chosen)
        # Below ~0.2 s of spread the slope is mostly noise; use the bounded nominal.
        if sbb < len(chosen) * (100_000.0 ** 2):
            return min(max(NOMINAL_GAIN, lo), hi)
        sbh = sum((s.board_mid - mb) * (s.host_mid - mh) for s in chosen)
        return min(max(sbh / sbb, lo), hi)

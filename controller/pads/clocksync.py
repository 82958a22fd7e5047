"""Map the pad board's microsecond ticks onto the host clock, with an error bound.

Ping/pong: the host notes t1 (host ns) and sends PING; the board notes b2 on
arrival and b3 on reply (unwrapped board µs); the host notes t4 on receipt. The
board instant mid = (b2 + b3) / 2 happened on the host somewhere in
[t1 + d, t4 - d] with d = (b3 - b2) * gain / 2, an interval of half-width
rtt / 2 around (t1 + t4) / 2 (NTP's offset and error).

A round trip that cannot be true is refused before it counts: one whose board
turnaround is longer than the host's round trip, runs backwards, takes longer
than a second, or (once synced) lies outside what the fit allows. A faulty
board can still answer with numbers that look right, so the bound does not
trust any single sample: with at most `max_faulty` wrong samples in the window
it holds whatever those samples say (Marzullo's intersection, as NTP uses to
outvote false tickers):

- the gain (ns per board µs) lies within the bounds every pair of true
  samples sets, so we take the loosest bound left after dropping any
  `max_faulty` samples;
- carried to the newest sample's board time, every true sample's interval
  contains the true host time, so it lies where at least n - `max_faulty`
  intervals overlap; the middle of that region is the estimate, half its
  width the error there;
- each true sample also bounds the error at any board time b by
  ``|fit(b_i) - mid_i| + rtt_i / 2 + |b - b_i| * gain_tolerance``; the
  (`max_faulty` + 1)-th smallest of those is a bound too.

A fit needs 2 * `max_faulty` + 1 samples. When the window's samples cannot be
reconciled (more wrong ones than that), there is no fit, `trouble` says why
and the window starts over: the link reports it cannot sync rather than time
events wrongly.
Nothing here is a fixed guess except the crystal tolerance (the gain is
assumed within it) and the number of wrong samples tolerated.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass

NOMINAL_GAIN = 1000.0  # ns per board µs
CRYSTAL_TOLERANCE = 200e-6  # the gain is assumed within this (RP2040 crystals: +-30 ppm typical)
TICK_NS = 1000.0  # one board tick
SLOW_GAIN = NOMINAL_GAIN * (1 - CRYSTAL_TOLERANCE)
FAST_GAIN = NOMINAL_GAIN * (1 + CRYSTAL_TOLERANCE)
MAX_RTT_NS = 1_000_000_000  # a pong later than this is a fault, not USB latency
DISAGREE_LIMIT = 3  # consecutive samples outside the fit that restart it


class SampleRejected(ValueError):
    """A round trip that cannot be true (or disagrees with the fit); it is not used."""


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

    def impossible(self) -> str | None:
        """Why this round trip cannot have happened (None: it can)."""
        rtt = self.t4_ns - self.t1_ns
        turnaround = self.b3_us - self.b2_us
        if rtt < 0:
            return f"round trip runs backwards ({rtt} ns)"
        if turnaround < 0:
            return f"the pong left {-turnaround} us before the ping arrived"
        if rtt > MAX_RTT_NS:
            return f"round trip of {rtt / 1e6:.0f} ms is not a link delay"
        # The floored ticks may stretch the true turnaround by under 1 µs.
        if (turnaround - 1) * SLOW_GAIN > rtt:
            return (f"the board's turnaround of {turnaround} us is longer than the "
                    f"{rtt / 1000:.0f} us round trip")
        return None


@dataclass(frozen=True)
class Fit:
    """The current board-to-host mapping.

    Args:
        gain: ns per board µs.
        offset: host ns at board tick 0.
        gain_tolerance: the true gain lies within gain +- this (ns per µs).
        ref: (board µs, error bound there) from the samples' intersection.
        anchors: (board µs, error bound there) from each sample.
        samples: samples in the window.
        faulty: wrong samples the bound tolerates (one more anchor than that is taken).
    """

    gain: float
    offset: float
    gain_tolerance: float
    ref: tuple[float, float]
    anchors: tuple[tuple[float, float], ...]
    samples: int
    faulty: int = 0

    def to_host(self, board_us: float) -> float:
        return self.offset + self.gain * board_us

    def bound_ns(self, board_us: float) -> float:
        """Upper bound of |to_host(b) - true host time of b|."""
        b_ref, err_ref = self.ref
        carried = sorted(err + abs(board_us - b) * self.gain_tolerance for b, err in self.anchors)
        best = err_ref + abs(board_us - b_ref) * self.gain_tolerance
        if len(carried) > self.faulty:
            best = min(best, carried[self.faulty])
        return best


class ClockSync:
    """Offset and drift fit from ping/pong samples.

    Args:
        window: samples kept.
        keep_fraction: share of the lowest-RTT samples used for the gain estimate.
        max_rtt_ns: samples slower than this are not used for the gain estimate
            (unless nothing else is left); they still count for the bound.
        max_faulty: wrong samples in the window the error bound still holds
            against (a fit needs 2 * max_faulty + 1 samples).
    """

    def __init__(self, *, window: int = 24, keep_fraction: float = 1 / 3,
                 max_rtt_ns: int = 3_000_000, max_faulty: int = 1) -> None:
        if max_faulty < 0:
            raise ValueError("max_faulty cannot be negative")
        if window < 2 * max_faulty + 1 or window < 2:
            raise ValueError(f"the window needs at least {max(2, 2 * max_faulty + 1)} samples")
        self.window = window
        self.keep_fraction = keep_fraction
        self.max_rtt_ns = max_rtt_ns
        self.max_faulty = max_faulty
        self._samples: deque[SyncSample] = deque(maxlen=window)
        self._disagreeing: list[SyncSample] = []
        self.fit: Fit | None = None
        self.trouble: str | None = None  # why there is no fit although samples are many
        self.rejected = 0
        self.restarts = 0

    @property
    def synced(self) -> bool:
        return self.fit is not None

    def __len__(self) -> int:
        return len(self._samples)

    def reset(self) -> None:
        """Forget everything (the board rebooted)."""
        self._samples.clear()
        self._disagreeing.clear()
        self.fit = None
        self.trouble = None

    def add(self, sample: SyncSample) -> Fit | None:
        """Add one round trip and refit; return the new fit (None: none yet, see `trouble`).

        Raises:
            SampleRejected: the round trip cannot be true, or it disagrees with
                the fit (after `DISAGREE_LIMIT` of those in a row the fit
                restarts from them instead: the board's clock jumped).
        """
        why = sample.impossible()
        if why is not None:
            self.rejected += 1
            raise SampleRejected(why)
        off = self._disagreement(sample)
        if off is not None:
            self._disagreeing.append(sample)
            if len(self._disagreeing) < DISAGREE_LIMIT:
                self.rejected += 1
                raise SampleRejected(f"the board's time lies {off / 1000:.0f} us outside "
                                     "what the clock fit allows")
            self._samples.clear()
            self._samples.extend(self._disagreeing)
            self.restarts += 1
        else:
            self._samples.append(sample)
        self._disagreeing.clear()
        self.fit = self._refit()
        if self.trouble is not None:
            # More wrong samples than the bound tolerates, and no telling which:
            # start over with fresh round trips rather than wait for these to age out.
            self._samples.clear()
        return self.fit

    def to_host(self, board_us: float) -> tuple[int, int]:
        """Return (host ns, error bound ns) for an unwrapped board tick.

        Raises:
            RuntimeError: no fit yet.
        """
        if self.fit is None:
            raise RuntimeError("clock not synchronised yet")
        return round(self.fit.to_host(board_us)), int(self.fit.bound_ns(board_us)) + 1

    def to_board(self, host_ns: float) -> float:
        """Return the board µs tick expected at host time `host_ns` (for unwrap hints)."""
        if self.fit is None:
            raise RuntimeError("clock not synchronised yet")
        return (host_ns - self.fit.offset) / self.fit.gain

    def _disagreement(self, s: SyncSample) -> float | None:
        """How far (ns) the sample's interval lies outside the fit's, or None if they meet."""
        if self.fit is None:
            return None
        m = s.board_mid
        predicted, bound = self.fit.to_host(m), self.fit.bound_ns(m)
        gap = abs(s.host_mid - predicted) - bound - s.half_width(SLOW_GAIN)
        return gap if gap > 0 else None

    def _refit(self) -> Fit | None:
        samples = list(self._samples)
        f = self.max_faulty
        if len(samples) < 2 * f + 1:
            self.trouble = None
            return None
        bounds = _gain_bounds(samples, f)
        if bounds is None:
            self.trouble = (f"the board's round trips disagree on its clock rate (more than "
                            f"{f} of the last {len(samples)} are wrong)")
            return None
        gain_lo, gain_hi = bounds
        gain = self._estimate_gain(samples, gain_lo, gain_hi)
        tol = max(gain - gain_lo, gain_hi - gain)
        # Carried to the newest sample's board time, every true interval holds the
        # true host time; at least n - f of them are true (Marzullo). One-sided
        # USB delays make this far tighter than any single round trip, as in
        # Android WALT's bound-based refinement.
        b_ref = samples[-1].board_mid
        spans = []
        for s in samples:
            centre = s.host_mid + gain * (b_ref - s.board_mid)
            width = s.half_width(SLOW_GAIN) + abs(b_ref - s.board_mid) * tol
            spans.append((centre - width, centre + width))
        region = _overlap(spans, len(samples) - f)
        if region is None:
            self.trouble = (f"the board's round trips disagree on its time (more than {f} "
                            f"of the last {len(samples)} are wrong)")
            return None
        lo, hi = region
        offset = (lo + hi) / 2 - gain * b_ref
        anchors = tuple(
            (s.board_mid, abs(offset + gain * s.board_mid - s.host_mid) + s.half_width(SLOW_GAIN))
            for s in samples)
        self.trouble = None
        return Fit(gain, offset, tol, (b_ref, (hi - lo) / 2), anchors, len(samples), f)

    def _estimate_gain(self, samples: list[SyncSample], lo: float, hi: float) -> float:
        """Least squares on the fastest round trips, kept within [lo, hi]."""
        ranked = sorted(samples, key=lambda s: s.half_width())
        keep = max(2, round(len(samples) * self.keep_fraction))
        chosen = [s for s in ranked[:keep] if 2 * s.half_width() <= self.max_rtt_ns]
        if len(chosen) < min(2, len(samples)):
            chosen = ranked[:keep]
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


def _gain_bounds(samples: list[SyncSample], faulty: int) -> tuple[float, float] | None:
    """Bounds on the gain that hold if at most `faulty` samples are wrong (None: none do).

    Every pair of true intervals bounds the slope of the true line; the bound
    that survives dropping the worst `faulty` samples is the loosest over every
    choice of which to drop.
    """
    lows: list[tuple[float, int, int]] = []
    highs: list[tuple[float, int, int]] = []
    mids = [(s.board_mid, s.host_mid, s.half_width(SLOW_GAIN)) for s in samples]
    for i, (bi, hi_, ri) in enumerate(mids):
        for j in range(i + 1, len(mids)):
            bj, hj, rj = mids[j]
            db = bj - bi
            if db == 0:
                continue
            # The slope of any line through both intervals, whichever comes first.
            dh, reach = hj - hi_, ri + rj
            lo_ij, hi_ij = sorted(((dh - reach) / db, (dh + reach) / db))
            lows.append((lo_ij, i, j))
            highs.append((hi_ij, i, j))
    lows.sort(reverse=True)
    highs.sort()
    drop = min(faulty, max(0, len(samples) - 2))
    lo, hi = FAST_GAIN, SLOW_GAIN
    for dropped in itertools.combinations(range(len(samples)), drop):
        out = set(dropped)
        lo = min(lo, next((v for v, i, j in lows if i not in out and j not in out), SLOW_GAIN))
        hi = max(hi, next((v for v, i, j in highs if i not in out and j not in out), FAST_GAIN))
    lo, hi = max(lo, SLOW_GAIN), min(hi, FAST_GAIN)
    return (lo, hi) if lo <= hi else None


def _overlap(spans: list[tuple[float, float]], need: int) -> tuple[float, float] | None:
    """The hull of the points inside at least `need` of the closed spans (None: no point)."""
    edges = sorted([(lo, 0) for lo, _ in spans] + [(hi, 1) for _, hi in spans])
    inside = 0
    first: float | None = None
    last: float | None = None
    for x, kind in edges:  # starts sort before ends at the same x: closed spans
        if kind == 0:
            inside += 1
            if inside >= need and first is None:
                first = x
        else:
            if inside >= need:
                last = x
            inside -= 1
    if first is None or last is None:
        return None
    return first, last

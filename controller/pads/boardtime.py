"""The pad board's time on the host clock: pings, the clock fit, tick unwrapping.

`BoardTime` is the timing half of `controller.pads.link.LinkSession`: it decides
when a PING is due (a quick burst after each hello, then one a second), pairs
each PONG with its PING and feeds the round trip to `ClockSync`, unwraps the
board's 30-bit ticks and notices each wrap. Like the session it reads no clock:
every host time is passed in (CLOCK_MONOTONIC ns).
"""

from __future__ import annotations

from controller.pads import protocol as wire
from controller.pads.clocksync import ClockSync, SampleRejected, SyncSample
from controller.pads.events import Item, PadStatus

MAX_PENDING_PINGS = 16  # unanswered pings kept from a stalled link
GOLDEN = 0.6180339887


class BoardTime:
    """Ping schedule, clock fit and tick unwrapping for one board.

    Args:
        ping_interval_ns: steady-state ping period.
        burst: pings sent quickly after each hello, to sync fast.
        burst_interval_ns: the period of those quick pings.
        sync: the clock fit to feed (default: `ClockSync()`).
    """

    def __init__(self, *, ping_interval_ns: int = 1_000_000_000, burst: int = 8,
                 burst_interval_ns: int = 20_000_000, sync: ClockSync | None = None) -> None:
        self.ping_interval_ns = ping_interval_ns
        self.burst = burst
        self.burst_interval_ns = burst_interval_ns
        self.sync = sync or ClockSync()
        self.unwrapper = wire.TickUnwrapper()
        self._pings: dict[int, int] = {}
        self._pings_left = 0
        self._next_ping = 0
        self._ping_count = 0
        self._epoch: int | None = None  # tick wraps seen on this boot
        self._trouble: str | None = None  # the last `unsynced` reason reported

    @property
    def synced(self) -> bool:
        """True once a round trip has fitted the board's clock."""
        return self.sync.synced

    def error_bound_ns(self, now_ns: int) -> int | None:
        """The clock error bound at host time `now_ns`, or None before sync."""
        if not self.sync.synced:
            return None
        return self.sync.to_host(self.sync.to_board(now_ns))[1]

    def to_host(self, board_us: int) -> tuple[int, int]:
        """Return (host ns, error bound ns) of an unwrapped board tick (after sync)."""
        return self.sync.to_host(board_us)

    def reboot(self) -> None:
        """The board rebooted: its clock starts over, so fit and unwrapping do too."""
        self.sync.reset()
        self.unwrapper.reset()
        self._epoch = None
        self._trouble = None

    def forget_pings(self) -> None:
        """Drop pings still awaiting a PONG (a new connection cannot answer them)."""
        self._pings.clear()

    def start_burst(self, now_ns: int) -> None:
        """After a hello: ping now, then `burst` times quickly."""
        self._pings_left = self.burst
        self._next_ping = now_ns

    def ping_due(self, now_ns: int) -> bool:
        """True when a PING should be sent at host time `now_ns`."""
        return now_ns >= self._next_ping

    def ping_sent(self, ping_id: int, now_ns: int) -> None:
        """Note a PING written at host time `now_ns` and schedule the next one."""
        self._pings[ping_id] = now_ns
        if len(self._pings) > MAX_PENDING_PINGS:
            for stale in list(self._pings)[:-MAX_PENDING_PINGS]:
                del self._pings[stale]
        # Dither the ping times over a millisecond (a golden-ratio sequence, no
        # randomness needed) so they do not keep one phase against the 1 ms USB
        # frames, which would skew every round trip the same way.
        self._ping_count += 1
        dither = round((self._ping_count * GOLDEN) % 1.0 * 1_000_000)
        if self._pings_left > 0:
            self._pings_left -= 1
            self._next_ping = now_ns + self.burst_interval_ns + dither
        else:
            self._next_ping = now_ns + self.ping_interval_ns + dither

    def pong(self, fields: tuple[int, ...], t_rx: int, out: list[Item]) -> bool:
        """Feed a PONG read at host time `t_rx` to the fit; True if it made a fit anew.

        A round trip the fit refuses is a `bad_frame`; losing the fit (the
        window's round trips cannot be reconciled) is `unsynced`, once.
        """
        ping_id, t2, t3 = fields
        t1 = self._pings.pop(ping_id, None)
        if t1 is None:
            return False  # an answer to a ping from before a reconnect
        # Unwrapped without moving the reference: a wrong tick must not drag it.
        b2 = self.unwrap(t2, t_rx, advance=False)
        b3 = self.unwrap(t3, t_rx, advance=False)
        was_synced, restarts = self.sync.synced, self.sync.restarts
        try:
            self.sync.add(SyncSample(t1, t_rx, b2, b3))
        except SampleRejected as exc:
            out.append(PadStatus("bad_frame", f"pong {ping_id} cannot be right: {exc}"))
            return False
        self.unwrap(t3, t_rx)  # a trusted tick: the reference may move now
        if self.sync.restarts != restarts:
            out.append(PadStatus("notice", "the board's time disagreed with the clock fit "
                                           "in several round trips in a row; sync restarts"))
        if not self.sync.synced:
            trouble = self.sync.trouble
            if trouble is not None and trouble != self._trouble:
                out.append(PadStatus("unsynced", f"cannot sync the board's clock: {trouble}; "
                                                 "events wait until it can"))
                self.start_burst(t_rx)  # fresh round trips, quickly
            self._trouble = trouble
            return False
        self._trouble = None
        if was_synced and self.sync.restarts == restarts:
            return False
        bound = self.sync.to_host(b3)[1]
        out.append(PadStatus("synced", f"clock synced, error bound {bound / 1000:.0f} us"))
        return True

    def unwrap(self, tick: int, t_rx: int, *, advance: bool = True) -> int:
        """The unwrapped value of a 30-bit board tick read at host time `t_rx`."""
        hint = None
        if self.sync.synced and self.unwrapper.last is not None:
            # After a long silence the last tick may be more than a wrap old.
            expected = self.sync.to_board(t_rx)
            if abs(expected - self.unwrapper.last) > wire.TICKS_HALF // 2:
                hint = round(expected)
        return self.unwrapper.unwrap(tick, hint=hint, advance=advance)

    def note_wrap(self, out: list[Item]) -> None:
        """Report each wrap of the board's 30-bit tick counter (every 17.9 minutes)."""
        if self.unwrapper.last is None:
            return
        epoch = self.unwrapper.last // wire.TICKS_PERIOD
        if self._epoch is not None and epoch > self._epoch:
            out.append(PadStatus("wrapped", f"the board's microsecond counter wrapped "
                                            f"(every {wire.TICKS_PERIOD / 60e6:.1f} min); "
                                            "event times stay continuous"))
        self._epoch = epoch

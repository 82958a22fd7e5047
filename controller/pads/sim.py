"""Simulated pads for simulation mode and tests.

Like gpiozero's MockFactory, the fake ships in the package: `lift(figure)` and
`place(figure)` produce exactly the events a real source would, on the
injected clock, and LED colours are recorded for assertions.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence

from controller.clock import Clock, MonotonicClock
from controller.knapp.cards import Figure
from controller.pads.events import Item, PadEvent, PadStatus
from controller.rng import Rng


class SimPads:
    """A pad source driven by calls instead of hardware.

    Args:
        clock: host clock; events are released once it reaches their time.
        figures: the figures on the table (all standing at the start).
        uncertainty_ns: the uncertainty stamped on every event.
    """

    name = "sim"
    has_leds = False  # colours are recorded in `leds`, not shown

    def __init__(self, *, clock: Clock | None = None, figures: Sequence[Figure] = tuple(Figure),
                 uncertainty_ns: int = 0) -> None:
        self.clock = clock or MonotonicClock()
        self.uncertainty_ns = uncertainty_ns
        self.leds: dict[Figure, tuple[int, int, int]] = dict.fromkeys(figures, (0, 0, 0))
        self._placed: dict[Figure, bool] = dict.fromkeys(figures, True)
        self._planned: dict[Figure, bool] = dict(self._placed)
        self._queue: list[tuple[int, int, Item]] = []
        self._n = 0
        self._closed = False
        self._push(self.clock.now_ns(), PadStatus("connected", "simulated pads"))

    def _push(self, t_ns: int, item: Item) -> None:
        self._n += 1
        heapq.heappush(self._queue, (t_ns, self._n, item))

    def _change(self, figure: Figure, placed: bool, t_ns: int | None) -> PadEvent:
        if figure not in self._planned:
            raise ValueError(f"no pad for {figure} on this table")
        if self._planned[figure] == placed:
            state = "on" if placed else "off"
            raise ValueError(f"{figure} is already {state} its pad")
        t = self.clock.now_ns() if t_ns is None else t_ns
        self._planned[figure] = placed
        ev = PadEvent(figure, "place" if placed else "lift", t, self.uncertainty_ns, "sim")
        self._push(t, ev)
        return ev

    def lift(self, figure: Figure, t_ns: int | None = None) -> PadEvent:
        """Lift `figure` now or at `t_ns`; return the event it will produce."""
        return self._change(figure, False, t_ns)

    def place(self, figure: Figure, t_ns: int | None = None) -> PadEvent:
        """Set `figure` down now or at `t_ns`; return the event it will produce."""
        return self._change(figure, True, t_ns)

    def set_led(self, figure: Figure | None, rgb: tuple[int, int, int]) -> None:
        """Record an LED colour (None: every pad), as the board's LEDs would show it."""
        for f in self.leds if figure is None else (figure,):
            self.leds[f] = rgb

    def poll(self, timeout_s: float = 0.0) -> list[Item]:
        """Return the events whose time has come; wait up to `timeout_s` for the next."""
        if self._closed:
            return []
        now = self.clock.now_ns()
        if timeout_s > 0 and isinstance(self.clock, MonotonicClock):
            due = self._queue[0][0] if self._queue else now + round(timeout_s * 1e9)
            wait = min(timeout_s, max(0, due - now) / 1e9)
            if wait > 0:
                time.sleep(wait)
            now = self.clock.now_ns()
        out: list[Item] = []
        while self._queue and self._queue[0][0] <= now:
            item = heapq.heappop(self._queue)[2]
            if isinstance(item, PadEvent):
                self._placed[item.figure] = item.kind == "place"
            out.append(item)
        return out

    def placed(self) -> dict[Figure, bool | None]:
        """Return which figures stand on their pads as of the events released so far."""
        return dict(self._placed)

    def demo(self, rng: Rng, start_ns: int, count: int, *, gap_s: float = 1.2) -> None:
        """Schedule `count` random lifts, each followed by its place, for `monitor --sim`."""
        t = start_ns
        figures = list(self._planned)
        for _ in range(count):
            t += round(rng.lognormal(gap_s, 0.4) * 1e9)
            figure = rng.choice(figures)
            if not self._planned[figure]:
                continue
            self.lift(figure, t)
            self.place(figure, t + round(rng.lognormal(0.6, 0.3) * 1e9))

    def close(self) -> None:
        """Stop reporting."""
        self._closed = True

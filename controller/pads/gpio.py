"""GPIO pads through gpiozero: switch mats, or FSRs behind comparators.

Edge times come from the pin factory's edge ticks (lgpio: the kernel's
CLOCK_MONOTONIC timestamp of the interrupt), never from when a callback ran.
Debounce is ours, from those timestamps: the first edge is reported with its
own time, further edges within the lockout are held back, and when the pin
settles in the other state after the lockout the change is reported at the
time of the edge that put it there. gpiozero's `bounce_time` is not used: it
is unimplemented on MockFactory and lgpio's own debounce shifts the reported
time by the debounce period (hardware/notes on lgpio).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.clock import Clock, MonotonicClock
from controller.knapp.cards import Figure
from controller.pads.events import Item, PadError, PadEvent, PadStatus

if TYPE_CHECKING:
    from gpiozero import Factory

# Edge-time uncertainty by pin factory: lgpio stamps in the kernel's IRQ path
# (about 10 us latency on a Pi); RPi.GPIO and native stamp when Python's
# callback thread runs (0.1-2 ms, more under load).
FACTORY_UNCERTAINTY_NS = {
    "LGPIOFactory": 50_000,
    "MockFactory": 1_000,
    "RPiGPIOFactory": 2_000_000,
    "NativeFactory": 2_000_000,
}
# These factories' ticks are seconds on CLOCK_MONOTONIC (the host clock).
MONOTONIC_TICK_FACTORIES = frozenset(FACTORY_UNCERTAINTY_NS)


@dataclass
class _PinState:
    reported: bool  # placed, as last reported
    lock_until: int = -1
    raw: bool = True
    raw_t: int = 0


class Debouncer:
    """Timestamp debounce that keeps the first edge.

    Args:
        lockout_ns: after a reported change, edges are held back this long.
    """

    def __init__(self, lockout_ns: int) -> None:
        if lockout_ns < 0:
            raise ValueError(f"lockout must be >= 0 ns, got {lockout_ns}")
        self.lockout_ns = lockout_ns
        self._pins: dict[Figure, _PinState] = {}

    def start(self, figure: Figure, placed: bool, t_ns: int) -> None:
        """Set a pad's initial state (no event)."""
        self._pins[figure] = _PinState(placed, -1, placed, t_ns)

    def placed(self, figure: Figure) -> bool:
        return self._pins[figure].reported

    def edge(self, figure: Figure, placed: bool, t_ns: int) -> list[tuple[Figure, bool, int]]:
        """Feed one edge; return the reportable changes (figure, placed, t_ns) it reveals."""
        st = self._pins[figure]
        out = self._settle_one(figure, st, t_ns)
        if t_ns >= st.raw_t:
            st.raw, st.raw_t = placed, t_ns
        if t_ns >= st.lock_until and placed != st.reported:
            st.reported = placed
            st.lock_until = t_ns + self.lockout_ns
            out.append((figure, placed, t_ns))
        return out

    def settle(self, now_ns: int) -> list[tuple[Figure, bool, int]]:
        """Report pads whose pin ended a lockout in the other state."""
        out = []
        for figure, st in self._pins.items():
            out += self._settle_one(figure, st, now_ns)
        return out

    def _settle_one(self, figure: Figure, st: _PinState,
                    now_ns: int) -> list[tuple[Figure, bool, int]]:
        if st.lock_until < 0 or st.lock_until > now_ns:
            return []
        st.lock_until = -1
        if st.raw == st.reported:
            return []
        # The pin settled in the other state during the lockout: that change
        # happened at the edge that put it there.
        st.reported = st.raw
        st.lock_until = st.raw_t + self.lockout_ns
        return [(figure, st.raw, st.raw_t)]


def _edge_input_class() -> Any:
    from gpiozero import DigitalInputDevice

    class EdgeInput(DigitalInputDevice):  # type: ignore[misc]
        """A DigitalInputDevice that hands every edge's tick to `on_edge`."""

        def __init__(self, pin: Any, *, on_edge: Callable[[float, int], None],
                     **kwargs: Any) -> None:
            self._on_edge = on_edge
            super().__init__(pin, **kwargs)

        def _pin_changed(self, ticks: float, state: int) -> None:
            # gpiozero passes the factory's edge tick here; its public handlers do not.
            self._on_edge(ticks, state)
            super()._pin_changed(ticks, state)

    return EdgeInput


class GpioPads:
    """Pad events from one GPIO input per figure.

    Args:
        pins: BCM pin (or gpiozero pin name) per figure.
        clock: host clock, for ending lockouts (edge times come from the pins).
        placed_when_low: a standing figure pulls the pin low (mats, comparators).
        pull_up: use the pin's internal pull-up.
        debounce_ns: lockout after an edge.
        pin_factory: a gpiozero pin factory (default: gpiozero's own choice).
    """

    name = "gpio"
    has_leds = False  # the GPIO option has no LEDs; colours are recorded in `leds`

    def __init__(self, pins: Mapping[Figure, int | str], *, clock: Clock | None = None,
                 placed_when_low: bool = True, pull_up: bool = True,
                 debounce_ns: int = 10_000_000, pin_factory: Factory | None = None) -> None:
        from gpiozero import Device
        from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback

        self.clock = clock or MonotonicClock()
        self.placed_when_low = placed_when_low
        self._debounce = Debouncer(debounce_ns)
        self._lock = threading.Condition()
        self._queue: list[Item] = []
        self._devices: dict[Figure, Any] = {}
        self.leds: dict[Figure, tuple[int, int, int]] = dict.fromkeys(pins, (0, 0, 0))
        edge_input = _edge_input_class()
        where = ", ".join(f"{f}=GPIO{p}" for f, p in pins.items())
        try:
            with warnings.catch_warnings(record=True) as tried:
                # gpiozero warns once per pin factory it could not load; they
                # belong in the one error below, not on the console.
                warnings.simplefilter("always", PinFactoryFallback)
                for figure, pin in pins.items():
                    dev = edge_input(pin, pull_up=pull_up, pin_factory=pin_factory,
                                     on_edge=self._make_handler(figure))
                    self._devices[figure] = dev
        except BadPinFactory as exc:
            self.close()
            reasons = "; ".join(str(w.message) for w in tried
                                if issubclass(w.category, PinFactoryFallback))
            raise PadError(f"no GPIO pin factory could be loaded ({reasons or exc}): on a "
                           "Raspberry Pi install lgpio (apt install python3-lgpio, done by "
                           "hardware/pi/install.sh); elsewhere use --sim or the pad "
                           "board (--serial)") from exc
        except (GPIOZeroError, ValueError) as exc:
            self.close()
            raise PadError(f"cannot set up the pad pins ({where}): {exc}") from exc
        factory = pin_factory or Device.pin_factory
        kind = type(factory).__name__
        if kind not in MONOTONIC_TICK_FACTORIES:
            self.close()
            raise PadError(f"pin factory {kind} does not timestamp edges on CLOCK_MONOTONIC; "
                           "use lgpio (GPIOZERO_PIN_FACTORY=lgpio)")
        self.factory_name = kind
        self.uncertainty_ns = FACTORY_UNCERTAINTY_NS[kind]
        now = self.clock.now_ns()
        for figure, dev in self._devices.items():
            self._debounce.start(figure, self._is_placed(dev.pin.state), now)
        self._queue.append(PadStatus("connected", f"GPIO pads on {kind}: {where}"))

    def _is_placed(self, state: int) -> bool:
        return (not state) if self.placed_when_low else bool(state)

    def _make_handler(self, figure: Figure) -> Callable[[float, int], None]:
        def handler(ticks: float, state: int) -> None:
            t_ns = round(ticks * 1e9)
            with self._lock:
                changes = self._debounce.edge(figure, self._is_placed(state), t_ns)
                for change in changes:
                    self._queue.append(self._event(*change))
                if changes:
                    self._lock.notify_all()
        return handler

    def _event(self, figure: Figure, placed: bool, t_ns: int) -> PadEvent:
        return PadEvent(figure, "place" if placed else "lift", t_ns, self.uncertainty_ns, "gpio")

    def poll(self, timeout_s: float = 0.0) -> list[Item]:
        """Return events since the last call, waiting up to `timeout_s` for the first."""
        with self._lock:
            if not self._queue and timeout_s > 0:
                self._lock.wait(timeout_s)
            for change in self._debounce.settle(self.clock.now_ns()):
                self._queue.append(self._event(*change))
            out, self._queue = self._queue, []
        return out

    def placed(self) -> dict[Figure, bool | None]:
        """Return which figures stand on their pads (debounced)."""
        with self._lock:
            return {f: self._debounce.placed(f) for f in self._devices}

    def set_led(self, figure: Figure | None, rgb: tuple[int, int, int]) -> None:
        """Record the colour (None: every pad); the GPIO option has no LEDs to light."""
        for f in self.leds if figure is None else (figure,):
            self.leds[f] = rgb

    def close(self) -> None:
        """Release the pins."""
        for dev in self._devices.values():
            dev.close()
        self._devices.clear()

    def __enter__(self) -> GpioPads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

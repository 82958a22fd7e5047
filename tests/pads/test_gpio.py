"""GPIO pads through gpiozero's real API on MockFactory pins."""

from __future__ import annotations

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin, PinState

from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads.config import DEFAULT_GPIO_PINS
from controller.pads.events import PadError, PadEvent
from controller.pads.gpio import Debouncer, GpioPads

MS = 1_000_000


@pytest.fixture
def factory():
    saved = Device.pin_factory
    f = MockFactory()
    Device.pin_factory = f
    yield f
    f.reset()
    Device.pin_factory = saved


@pytest.fixture
def clock():
    return FakeClock(time.monotonic_ns())


def events(items):
    return [i for i in items if isinstance(i, PadEvent)]


class FakeClockPin(MockPin):
    """MockPin whose edge ticks come from the test's FakeClock (via pin_class=)."""

    clock: FakeClock

    def _change_state(self, value):
        if self._state != value:
            t = self.clock.now_ns() / 1e9
            self._state = value
            self.states.append(PinState(t - self._last_change, value))
            self._last_change = t
            return True
        return False


@pytest.fixture
def fake_pins(clock):
    saved = Device.pin_factory
    FakeClockPin.clock = clock
    f = MockFactory(pin_class=FakeClockPin)
    Device.pin_factory = f
    yield f
    f.reset()
    Device.pin_factory = saved


def test_edges_are_timed_by_the_pin_not_the_poll(factory, clock):
    pads = GpioPads(DEFAULT_GPIO_PINS, clock=clock, pin_factory=factory)
    assert pads.placed() == dict.fromkeys(Figure, False)  # pulled up: open mats, no figures
    for fig in Figure:
        factory.pin(DEFAULT_GPIO_PINS[fig]).drive_low()  # figures set down
    assert [e.kind for e in events(pads.poll())] == ["place"] * 5
    before = time.monotonic_ns()
    factory.pin(DEFAULT_GPIO_PINS[Figure.VIKING]).drive_high()  # the Viking leaves
    after = time.monotonic_ns()
    clock.set(after + 50 * MS)  # polled much later: still the edge's time
    (ev,) = events(pads.poll())
    assert (ev.figure, ev.kind, ev.source) == (Figure.VIKING, "lift", "gpio")
    assert before <= ev.t_ns <= after
    assert ev.uncertainty_ns == 1_000
    pads.close()


def test_bounce_keeps_the_first_edge(fake_pins, clock):
    pads = GpioPads({Figure.DOG: 24}, clock=clock, pin_factory=fake_pins, debounce_ns=10 * MS)
    pin = fake_pins.pin(24)
    pin.drive_low()
    pads.poll()
    clock.advance(1.0)
    first = clock.now_ns()
    for _ in range(5):  # contact bounce: 0.3 ms per half
        pin.drive_high()
        clock.advance(ns=300_000)
        pin.drive_low()
        clock.advance(ns=300_000)
    pin.drive_high()
    clock.advance(0.02)
    evs = events(pads.poll())
    assert [(e.kind, e.t_ns) for e in evs] == [("lift", first)]
    pads.close()


def test_a_change_inside_the_lockout_is_reported_when_it_ends(fake_pins, clock):
    pads = GpioPads({Figure.SHIP: 17}, clock=clock, pin_factory=fake_pins)
    pin = fake_pins.pin(17)
    pin.drive_low()
    clock.advance(1.0)
    pads.poll()
    lifted_at = clock.now_ns()
    pin.drive_high()
    clock.advance(ns=4 * MS)
    placed_at = clock.now_ns()
    pin.drive_low()  # set straight back down inside the 10 ms lockout
    (lift,) = events(pads.poll())
    assert (lift.kind, lift.t_ns) == ("lift", lifted_at)
    clock.advance(ns=5 * MS)
    assert events(pads.poll()) == []  # lockout still running
    clock.advance(ns=2 * MS)
    (place,) = events(pads.poll())
    assert (place.kind, place.t_ns) == ("place", placed_at)
    assert pads.placed()[Figure.SHIP] is True
    pads.close()


def test_placed_when_high(factory, clock):
    pads = GpioPads({Figure.CHEST: 23}, clock=clock, pin_factory=factory,
                    placed_when_low=False, pull_up=False)
    assert pads.placed()[Figure.CHEST] is False
    factory.pin(23).drive_high()
    (ev,) = events(pads.poll())
    assert ev.kind == "place"
    pads.close()


def test_bad_pins_are_a_clear_error(factory, clock):
    with pytest.raises(PadError, match="cannot set up the pad pins"):
        GpioPads({Figure.SHIP: 17, Figure.DOG: 17}, clock=clock, pin_factory=factory)
    with pytest.raises(PadError, match=r"99"):
        GpioPads({Figure.SHIP: 99}, clock=clock, pin_factory=factory)


def test_debouncer_sequences():
    d = Debouncer(10 * MS)
    d.start(Figure.SHIP, True, 0)
    assert d.edge(Figure.SHIP, False, 100 * MS) == [(Figure.SHIP, False, 100 * MS)]
    assert d.edge(Figure.SHIP, True, 102 * MS) == []  # bounce
    # the next edge, after the lockout, first reports the settled placement
    assert d.edge(Figure.SHIP, False, 150 * MS) == [(Figure.SHIP, True, 102 * MS),
                                                     (Figure.SHIP, False, 150 * MS)]
    assert d.settle(200 * MS) == []
    with pytest.raises(ValueError):
        Debouncer(-1)


def test_build_source_uses_the_configured_pins(factory, clock):
    from controller.config import parse_config
    from controller.pads import build_source
    from controller.pads.config import pads_config

    cfg = pads_config(parse_config({"pads": {"backend": "gpio", "gpio": {"dog": 5}}}))
    pads = build_source(cfg, clock=clock)  # gpiozero's own factory: the mock
    try:
        (st,) = pads.poll()
        assert st.status == "connected" and "dog=GPIO5" in st.detail
        factory.pin(5).drive_low()
        (ev,) = events(pads.poll())
        assert (ev.figure, ev.kind) == (Figure.DOG, "place")
    finally:
        pads.close()

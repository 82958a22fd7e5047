"""GPIO pads through gpiozero's real API on MockFactory pins."""

from __future__ import annotations

import time

import gpiozero.pins.mock
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads.config import DEFAULT_GPIO_PINS
from controller.pads.events import PadError, PadEvent, PadSource
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


@pytest.fixture
def fake_pins(clock, monkeypatch):
    """MockFactory pins whose edge ticks come from the test's FakeClock.

    gpiozero's mock stamps every edge (and its factory's ticks()) with
    `time.monotonic` as imported into gpiozero.pins.mock; pointing that name
    at the fake clock leaves all of gpiozero's own pin code in play.
    """
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: clock.now_ns() / 1e9)
    saved = Device.pin_factory
    f = MockFactory()
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
    with pytest.raises(PadError, match=r"cannot set up the pad pins \(ship=GPIO17, dog=GPIO17\)"):
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

    cfg = (parse_config({"pads": {"backend": "gpio", "gpio": {"dog": 5}}})).pads
    pads = build_source(cfg, clock=clock)  # gpiozero's own factory: the mock
    try:
        (st,) = pads.poll()
        assert st.status == "connected" and "dog=GPIO5" in st.detail
        factory.pin(5).drive_low()
        (ev,) = events(pads.poll())
        assert (ev.figure, ev.kind) == (Figure.DOG, "place")
    finally:
        pads.close()


def test_edge_times_are_the_pins_own_stamps(fake_pins, clock):
    pads = GpioPads({Figure.VIKING: 27}, clock=clock, pin_factory=fake_pins)
    pin = fake_pins.pin(27)
    pin.drive_low()
    (place,) = events(pads.poll())
    clock.advance(2.0)
    lifted = clock.now_ns()
    pin.drive_high()
    clock.advance(0.5)  # polled half a second later
    (lift,) = events(pads.poll())
    assert (lift.kind, lift.t_ns) == ("lift", lifted)
    # the same interval gpiozero recorded for the pin (PinState deltas)
    assert pin.states[-1].state is True
    assert (lift.t_ns - place.t_ns) / 1e9 == pytest.approx(pin.states[-1].timestamp)
    pads.close()


def test_no_pin_factory_is_one_clear_error(clock, monkeypatch):
    """Off a Pi gpiozero can load no factory: one PadError, no warning spam."""
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    saved = Device.pin_factory
    Device.pin_factory = None
    try:
        try:
            Device._default_pin_factory()
        except Exception:  # whichever way loading fails, there is no factory
            pass
        else:
            pytest.skip("a real pin factory loads here (a Raspberry Pi)")
        with pytest.raises(PadError) as err:  # filterwarnings=error: no stray warning
            GpioPads(DEFAULT_GPIO_PINS, clock=clock)
        text = str(err.value)
        assert text.startswith("no GPIO pin factory could be loaded (Falling back from lgpio")
        assert "python3-lgpio" in text and "--sim" in text
    finally:
        Device.pin_factory = saved


def test_the_table_file_sets_the_pins_the_monitor_uses(factory, clock, tmp_path):
    from controller.cli import build_parser
    from controller.cli.pads import _source

    table = tmp_path / "table.toml"
    table.write_text('[pads]\nbackend = "serial"\n\n[pads.gpio]\nship = 5\ndog = 6\n'
                     'placed_when = "low"\n')
    args = build_parser().parse_args(["pads", "monitor", "--config", str(table), "--gpio"])
    pads, cfg = _source(args, clock)  # --gpio overrides the file's backend, not its pins
    try:
        assert cfg.gpio_pins[Figure.SHIP] == 5 and cfg.gpio_pins[Figure.DOG] == 6
        (st,) = pads.poll()
        assert "ship=GPIO5" in st.detail and "dog=GPIO6" in st.detail
        assert "viking=GPIO27" in st.detail  # the default for a figure the file leaves out
        factory.pin(6).drive_low()
        (ev,) = events(pads.poll())
        assert (ev.figure, ev.kind, ev.source) == (Figure.DOG, "place", "gpio")
    finally:
        pads.close()


def test_leds_are_recorded_and_not_physical(factory, clock):
    pads = GpioPads({Figure.SHIP: 17, Figure.DOG: 24}, clock=clock, pin_factory=factory)
    assert isinstance(pads, PadSource) and not pads.has_leds
    assert pads.leds == dict.fromkeys([Figure.SHIP, Figure.DOG], (0, 0, 0))
    pads.set_led(Figure.DOG, (0, 160, 40))
    assert pads.leds == {Figure.SHIP: (0, 0, 0), Figure.DOG: (0, 160, 40)}
    pads.set_led(None, (0, 0, 0))
    assert set(pads.leds.values()) == {(0, 0, 0)}
    pads.close()

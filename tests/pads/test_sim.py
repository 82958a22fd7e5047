"""Simulated pads: the in-package fake that tests and the kiosk's simulation share."""

from __future__ import annotations

import pytest

from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads import build_source
from controller.pads.config import PadsConfig
from controller.pads.events import PadError, PadEvent, PadSource, PadStatus
from controller.pads.sim import SimPads
from controller.rng import Rng


def test_lift_and_place_release_at_their_time():
    clock = FakeClock(1000)
    pads = SimPads(clock=clock, uncertainty_ns=5)
    assert isinstance(pads, PadSource)
    (st,) = pads.poll()
    assert st == PadStatus("connected", "simulated pads")
    pads.lift(Figure.DOG, 5000)
    pads.place(Figure.DOG, 9000)
    assert pads.poll() == []
    clock.set(6000)
    assert pads.poll() == [PadEvent(Figure.DOG, "lift", 5000, 5, "sim")]
    assert pads.placed()[Figure.DOG] is False
    clock.set(9000)
    assert [e.kind for e in pads.poll()] == ["place"]


def test_impossible_moves_are_refused():
    pads = SimPads(clock=FakeClock(), figures=[Figure.SHIP])
    pads.lift(Figure.SHIP)
    with pytest.raises(ValueError, match="ship is already off its pad"):
        pads.lift(Figure.SHIP)
    with pytest.raises(ValueError, match="no pad for dog"):
        pads.place(Figure.DOG)


def test_demo_is_seeded():
    a, b = SimPads(clock=FakeClock()), SimPads(clock=FakeClock())
    a.demo(Rng(4), 0, 10)
    b.demo(Rng(4), 0, 10)
    assert a._queue == b._queue


def test_build_source_picks_the_backend():
    cfg = PadsConfig()
    assert build_source(cfg, clock=FakeClock()).name == "sim"
    auto = build_source(cfg, backend="serial", clock=FakeClock())
    assert auto.name == "serial" and auto.port == "auto"  # type: ignore[attr-defined]
    auto.close()
    with pytest.raises(PadError, match="no serial port"):
        build_source(PadsConfig(serial_port=""), backend="serial")
    with pytest.raises(PadError, match="unknown pad backend"):
        build_source(cfg, backend="carrier-pigeon")


def test_leds_are_recorded():
    pads = SimPads(clock=FakeClock())
    pads.set_led(Figure.DOG, (0, 90, 0))
    assert pads.leds[Figure.DOG] == (0, 90, 0) and pads.leds[Figure.SHIP] == (0, 0, 0)
    pads.set_led(None, (1, 2, 3))
    assert set(pads.leds.values()) == {(1, 2, 3)}


def test_simulated_leds_are_not_physical():
    pads = SimPads(clock=FakeClock())
    assert not pads.has_leds  # recorded for tests and the kiosk, shown nowhere

"""End to end: the firmware logic behind a pty, USB-like jitter, the real driver."""

from __future__ import annotations

import pytest

from controller.knapp.cards import Figure
from controller.pads.events import PadEvent, PadStatus
from controller.rng import Rng
from controller.sim.virtual_board import TICKS_PERIOD
from controller.sim.virtual_table import PlannedLift, VirtualTable

MS = 1_000_000
FIGS = list(Figure)


@pytest.fixture
def table():
    t = VirtualTable(seed="vb-test")
    t.start()
    yield t
    t.close()


def statuses(items, name):
    return [i for i in items if isinstance(i, PadStatus) and i.status == name]


def check_clock_bounds(table: VirtualTable, items) -> int:
    """Every event's clock error lies within its reported bound; return how many."""
    evs = [e for e in items if isinstance(e, PadEvent)]
    emitted = list(table.board.emitted)
    checked = 0
    for ev in evs:
        em = next(x for x in emitted if FIGS[x.pad] == ev.figure and x.kind == ev.kind
                  and abs(x.true_ns - ev.t_ns) < 50 * MS)
        clock_bound = ev.uncertainty_ns - table.pads.scan_ns
        assert abs(ev.t_ns - em.true_ns) <= clock_bound, (ev, em)
        checked += 1
    return checked


def test_sync_and_one_round(table):
    now = table.clock.now_ns()
    res = table.play_round([PlannedLift("Ada", Figure.DOG, now + 100 * MS),
                            PlannedLift("Ben", Figure.SHIP, now + 102 * MS)])
    assert [m.seat for m in res.lifts] == ["Ada", "Ben"]
    assert not res.missed and not res.blocked
    for m in res.lifts:
        assert abs(m.t_ns - m.true_t_ns) <= m.uncertainty_ns
        assert abs(m.t_ns - m.true_t_ns) < MS
    assert check_clock_bounds(table, table.items) == 2


def test_lifts_one_millisecond_apart_keep_their_order(table):
    rng = Rng("order")
    for _ in range(15):
        t = table.clock.now_ns() + 2_000 * MS
        figs = rng.sample(FIGS, 3)
        lifts = []
        for k, f in enumerate(figs):
            lifts.append(PlannedLift(f"s{k}", f, t))
            t += MS + rng.randbelow(2 * MS)
        res = table.play_round(lifts)
        assert [m.seat for m in res.lifts] == ["s0", "s1", "s2"]
    assert table.pads.stats["bad_frames"] == 0
    assert check_clock_bounds(table, table.items) == 15 * 3 + 14 * 3  # lifts + places


def test_second_lift_of_a_held_figure_is_blocked(table):
    now = table.clock.now_ns()
    res = table.play_round([PlannedLift("Ada", Figure.CHEST, now + 50 * MS),
                            PlannedLift("Ben", Figure.CHEST, now + 60 * MS)])
    assert [m.seat for m in res.lifts] == ["Ada"]
    assert [p.seat for p in res.blocked] == ["Ben"]
    with pytest.raises(ValueError, match="before the virtual table's clock"):
        table.play_round([PlannedLift("Ada", Figure.DOG, now)])


def test_tick_wrap_mid_session():
    with VirtualTable(seed=3, tick0=TICKS_PERIOD - 3_000_000_000 // 1000) as table:
        table.start()
        for k in range(6):  # 6 rounds of 1 s: the board's ticks wrap at 3 s
            now = table.clock.now_ns()
            res = table.play_round([PlannedLift("Ada", FIGS[k % 5], now + 500 * MS)])
            (m,) = res.lifts
            assert abs(m.t_ns - m.true_t_ns) <= m.uncertainty_ns
        assert table.board.board_clock.elapsed_us(table.clock.now_ns()) > TICKS_PERIOD
        check_clock_bounds(table, table.items)


def test_reboot_mid_match_resyncs_and_loses_nothing_after(table):
    table.board.boot()
    items = table.run_until(table.clock.now_ns() + 1_000 * MS)
    assert statuses(items, "rebooted")
    assert statuses(items, "synced")
    now = table.clock.now_ns()
    res = table.play_round([PlannedLift("Cleo", Figure.VIKING, now + 100 * MS)])
    (m,) = res.lifts
    assert abs(m.t_ns - m.true_t_ns) <= m.uncertainty_ns


def test_unplug_replug_delivers_lifts_made_while_unplugged_exactly_once(table):
    now = table.clock.now_ns()
    table.board.unplug()
    table.board.lift(Figure.CHILD, now + 100 * MS)
    items = table.run_until(now + 300 * MS)
    assert statuses(items, "disconnected")
    table.board.plug()
    items = table.run_until(now + 3_000 * MS)
    assert statuses(items, "connected")
    evs = [e for e in items if isinstance(e, PadEvent)]
    assert [(e.figure, e.kind) for e in evs] == [(Figure.CHILD, "lift")]
    assert abs(evs[0].t_ns - (now + 100 * MS)) <= evs[0].uncertainty_ns
    assert table.pads.stats["resent_events"] == 0  # numbered in order: a plain resend
    assert table.pads.placed()[Figure.CHILD] is False


def test_garbage_on_the_line_costs_no_event(table):
    now = table.clock.now_ns()
    table.board.lift(Figure.SHIP, now + 20 * MS)
    table.board.inject_to_host(bytes(range(1, 90)) + b"\x00\x42\x00", delay_ns=19 * MS)
    table.board.place(Figure.SHIP, now + 400 * MS)
    items = table.run_until(now + 800 * MS)
    assert len(statuses(items, "bad_frame")) == 2
    evs = [(e.figure, e.kind) for e in items if isinstance(e, PadEvent)]
    assert evs == [(Figure.SHIP, "lift"), (Figure.SHIP, "place")]


def test_led_command_reaches_the_firmware_strip(table):
    table.pads.set_led(Figure.DOG, (0, 90, 0))
    table.run_until(table.clock.now_ns() + 20 * MS)
    assert table.board.led_colours()[4] == (0, 90, 0)


def test_whole_matches_through_the_virtual_board():
    from controller.knapp.events import MatchRules
    from controller.sim.driver import simulate
    from controller.sim.virtual_table import virtual_board_measure
    from controller.store import EventStore

    measure = virtual_board_measure(5, MatchRules())
    store = EventStore(":memory:", durable=False)
    try:
        summary = simulate(3, 2, 5, store=store, measure=measure)
        claims = [c for ms in summary.per_match
                  for r in store.open_match(ms.match_id).rounds for c in r.claims]
    finally:
        measure.close()
        store.close()
    assert summary.matches == 2 and measure.tables == 2  # time restarts per match
    assert measure.missed == 0 and measure.rounds >= 10
    assert claims and all(c.source == "serial" and c.uncertainty_ns > 0 for c in claims)
    assert measure.max_error_ns < 1_000_000
    assert measure.max_error_ns <= measure.max_uncertainty_ns


def test_light_sensor_gives_the_photon_time_on_the_host_clock(table):
    from controller.pads.events import LightEvent

    table.run_until(table.clock.now_ns() + 100 * MS)
    table.board.light_level = 31000  # the card appears on the display
    shown = table.clock.now_ns()
    items = table.run_until(shown + 100 * MS)
    (light,) = [i for i in items if isinstance(i, LightEvent)]
    assert light.brighter
    # sampled at the next idle scan (10 ms) at the latest, within the bound
    assert shown - light.uncertainty_ns <= light.t_ns <= shown + 10 * MS + light.uncertainty_ns
    assert light.to_json()["light"] == "brighter"


def test_auto_port_finds_the_one_board_and_follows_a_replug(tmp_path):
    from pathlib import Path

    from controller.pads.serial_link import SerialPads

    t = VirtualTable(seed="auto-port")
    by_id = Path(t.board.port).parent
    try:
        t.pads.close()
        t.pads = SerialPads("auto", clock=t.clock, by_id_dir=str(by_id))
        t.start()
        assert t.pads.synced and t.pads.port == t.board.port
        now = t.clock.now_ns()
        res = t.play_round([PlannedLift("Ada", Figure.DOG, now + 100 * MS)])
        assert [m.seat for m in res.lifts] == ["Ada"]
        # A second board on the same Pi: "auto" refuses to guess and names both.
        (by_id / "usb-MicroPython_Board_in_FS_mode_e66138-if00").symlink_to("/dev/null")
        t.board.unplug()
        t.run_until(t.clock.now_ns() + 3_000 * MS)
        t.board.plug()
        items = t.run_until(t.clock.now_ns() + 3_000 * MS)
        refused = [s.detail for s in statuses(items, "disconnected")]
        assert refused and "2 pad boards" in refused[-1] and "e66138" in refused[-1]
        assert not t.pads.connected
        # The stray one is unplugged: the table's board is found again and resynced.
        (by_id / "usb-MicroPython_Board_in_FS_mode_e66138-if00").unlink()
        t.run_until(t.clock.now_ns() + 8_000 * MS)
        assert t.pads.connected and t.pads.synced
    finally:
        t.close()


def test_auto_port_without_a_board_says_so(tmp_path):
    from controller.clock import FakeClock
    from controller.pads.serial_link import SerialPads

    (tmp_path / "usb-FTDI_FT232R-if00-port0").symlink_to("/dev/null")
    pads = SerialPads("auto", clock=FakeClock(), by_id_dir=str(tmp_path))
    (status,) = [i for i in pads.poll() if isinstance(i, PadStatus)]
    assert status.status == "disconnected"
    assert "no pad board" in status.detail and "usb-FTDI_FT232R-if00-port0" in status.detail
    assert not pads.connected


def test_a_restarted_host_gets_new_events_only(table):
    """The service restarts mid-match: the board keeps running with its history."""
    from controller.pads.serial_link import SerialPads

    now = table.clock.now_ns()
    res = table.play_round([PlannedLift("Ada", Figure.SHIP, now + 100 * MS),
                            PlannedLift("Ben", Figure.DOG, now + 300 * MS)])
    assert len(res.lifts) == 2
    table.run_until(table.clock.now_ns() + 2_000 * MS)  # the figures are back
    assert table.board.firmware_state().n == 4
    table.pads.close()
    table.pads = SerialPads(table.board.port, clock=table.clock)
    table.items = []
    table.start()
    before = table.run_until(table.clock.now_ns() + 1_500 * MS)  # heartbeats included
    assert [i for i in table.items if isinstance(i, PadEvent)] == []
    assert not statuses(table.items + before, "lost_frames")
    now = table.clock.now_ns()
    res = table.play_round([PlannedLift("Cleo", Figure.CHILD, now + 100 * MS)])
    (m,) = res.lifts
    assert abs(m.t_ns - m.true_t_ns) <= m.uncertainty_ns
    assert [e.figure for e in table.items if isinstance(e, PadEvent)] == [Figure.CHILD]

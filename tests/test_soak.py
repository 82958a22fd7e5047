"""A few simulated minutes of bench/soak.py, with every fault, and its detectors biting.

The full soak (hours) is `make soak`; here the same loop runs six simulated
minutes with faults thirty times as often, so kills, power cuts, a full disk
and the hostile client all happen, and nothing may be lost or stuck.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from controller.knapp.match import Phase

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("knapp_bench_soak", ROOT / "bench" / "soak.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_a_short_soak_with_every_fault_loses_no_verdict_and_never_sticks(soak):
    fig = soak.soak(0.1, 1, 4, pace=0.03)
    assert fig.kills >= 1 and fig.power_cuts >= 1 and fig.disk_fills >= 1
    assert fig.hostile >= 10 and fig.cards >= 20 and len(fig.shown) >= 20
    assert fig.lost == []
    assert fig.stuck == []
    assert fig.failed_ticks == []
    assert fig.server_errors == [] and fig.obeyed == []


def test_a_verdict_missing_from_the_store_after_a_restart_is_counted_as_lost(soak, tmp_path):
    table = soak.Table(tmp_path, soak.table_config(tmp_path, 4), 4, 3)
    fig = soak.Figures()
    while not fig.shown:
        table.clock.advance(ns=soak.STEP_NS)
        table.svc.tick()
        soak.record_verdict(table.svc, fig)
    (mid, index), shown = next(iter(fig.shown.items()))
    table.restart(power_cut=True, rng=soak.Rng(5))
    soak.check_shown(table, fig)
    assert fig.lost == []  # the real one survived the power cut
    fig.shown[(mid, index + 50)] = shown  # a verdict the store never got
    fig.shown[(mid, index)] = ("boxed", None) if shown[0] != "boxed" else ("won", "Ada")
    soak.check_shown(table, fig)
    assert len(fig.lost) == 2
    table.svc.store.close()


def test_a_card_that_never_settles_is_a_stuck_table(soak, tmp_path):
    table = soak.Table(tmp_path, soak.table_config(tmp_path, 4), 4, 3)
    fig, watch = soak.Figures(), soak.Watch()
    elapsed = 0
    while table.svc.match.phase is not Phase.OPEN:
        table.clock.advance(ns=soak.STEP_NS)
        elapsed += soak.STEP_NS
        table.svc.tick()
        watch.see(table.svc, elapsed, fig, excused=False)
    for _ in range(200):  # the referee hangs: three simulated minutes without a tick
        elapsed += soak.S
        watch.see(table.svc, elapsed, fig, excused=False)
    assert len(fig.stuck) == 1 and "open for over 2 minutes" in fig.stuck[0]
    for _ in range(200):  # and no new card either
        elapsed += soak.S
        watch.see(table.svc, elapsed, fig, excused=False)
    assert len(fig.stuck) == 2 and "no new card for 5 minutes" in fig.stuck[1]
    table.svc.store.close()

"""Photo-finish bundles are written off the referee loop, and logged in their own match."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from controller.clock import FakeClock
from controller.evidence import bundles
from controller.evidence.bundles import verify_bundle
from controller.knapp.match import Phase
from tests.web.conftest import make_service, run_until
from tests.web.test_camera_service import link_for


@pytest.mark.slow
def test_a_bundle_is_encoded_on_the_worker_while_the_table_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    started = threading.Event()
    real = bundles.write_bundle

    def held_back(*args: Any, **kw: Any) -> bundles.Bundle:
        started.set()
        assert gate.wait(timeout=30), "the test never let the encoder go"
        return real(*args, **kw)

    monkeypatch.setattr(bundles, "write_bundle", held_back)
    svc = make_service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    rnd = svc.match.current
    assert rnd is not None
    link = link_for(rnd.reveal_ns, rnd.answer)
    svc.attach_camera(link, camera_only=True)
    clock = svc.clock
    assert isinstance(clock, FakeClock)
    while link.pump(1):
        clock.set(max(clock.now_ns(), link.ring.frames()[-1].t_ns))
        svc.tick()
    # The bundle is due: the tick hands it to the worker and returns at once (if it
    # encoded on the loop, this would wait on the gate and fail after 30 s).
    run_until(svc, lambda s: s.match.phase is not Phase.OPEN and not s.evidence.scheduled)
    assert started.wait(timeout=30)
    assert svc.evidence.pending == 1 and not rnd.evidence
    old = svc.match_id
    svc.control("rematch")  # the table goes on to another match meanwhile
    for _ in range(50):
        clock.advance(0.01)
        svc.tick()
    gate.set()
    svc.settle_evidence()
    assert svc.evidence.pending == 0
    done = svc.store.open_match(old).rounds[rnd.index].evidence  # logged in its own match
    assert [e["name"] for e in done] == ["photo-finish"]
    assert verify_bundle(tmp_path / "evidence" / done[0]["ref"]) == done[0]["sha256"]
    assert not any(r.evidence for r in svc.match.rounds)

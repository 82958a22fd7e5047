"""What the page browser tests share: a table's store seeded with one known match, a real
`knapp serve` over it, and Debian's Chromium.

The match is played in process on a fake clock, so its grabs are exactly where the
tests need them: on card 1 Ada grabs a wrong figure, then Ben the right one and Cleo
the same figure 20 ms after him (two grabs close on the timeline); on card 2 Ben alone
grabs the right one and wins the match (target 2). Ada never grabbed right.
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.clock import FakeClock
from controller.knapp.cards import Card, Figure, solve
from controller.knapp.match import Phase
from controller.store import EventStore
from tests.web.conftest import make_service, run_until
from tests.web.server import Server

ROOT = Path(__file__).resolve().parents[2]
PIN = "31415926"
SEATS = ("Ada", "Ben", "Cleo")
CLOSE_MS = 20  # Cleo's hand after Ben's on card 1


@dataclass(frozen=True)
class Seeded:
    """The seeded match: its id, and per card who grabbed what."""

    match_id: str
    wrong_figure: str  # Ada's grab on card 1


def seed_match(data_dir: Path) -> Seeded:
    """Play the known match into `data_dir/knapp.db` and close the store."""
    data_dir.mkdir(parents=True, exist_ok=True)
    clock = FakeClock(1_000_000_000)
    svc = make_service(data_dir, seats=SEATS, target=2, clock=clock,
                       store=EventStore(data_dir / "knapp.db"))
    try:
        def open_card(s: Any) -> bool:
            return s.match.current is not None and s.match.phase is Phase.OPEN

        def answer_now() -> Figure:
            rnd = svc.match.current
            assert rnd is not None
            return solve(Card.parse(str(rnd.card))).answer

        run_until(svc, open_card)
        answer = answer_now()
        wrong = next(f for f in Figure if f is not answer)
        clock.advance(0.6)
        svc.sim_grab("Ada", wrong)
        clock.advance(0.1)
        svc.sim_grab("Ben", answer)
        clock.advance(CLOSE_MS / 1000)
        svc.sim_grab("Cleo", answer)
        run_until(svc, lambda s: len(s.match.rounds) == 2 and open_card(s))
        answer = answer_now()
        clock.advance(0.5)
        svc.sim_grab("Ben", answer)
        run_until(svc, lambda s: s.match.phase is Phase.ENDED)
        assert tuple(svc.match.winners) == ("Ben",), svc.match.winners
        return Seeded(svc.match_id, wrong.value)
    finally:
        svc.store.close()


def serve(tmp: Path) -> tuple[Server, Seeded]:
    """A served table over the seeded store (no simulated players: it stays as seeded)."""
    seeded = seed_match(tmp / "data")
    cfg = tmp / "table.toml"
    cfg.write_text(f'[table]\nname = "Page table"\nseats = {json.dumps(list(SEATS))}\n'
                   f'[match]\ntarget = 2\n[kiosk]\npin = "{PIN}"\nbots = 0\n')
    return Server(tmp / "data", cfg, "--seed", "7").start(), seeded


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def post(url: str, body: object) -> Any:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())



"""Time across boots: a power cut restarts CLOCK_MONOTONIC near zero; the table goes on.

A reboot is faked the way it happens: another boot id and a clock that starts
again near zero (or one that is already past the last event: a Pi that took
long to come back). A kill -9 on the same boot keeps its clock and needs
nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.clock import FakeClock, read_boot_id
from controller.config import parse_config
from controller.errors import IllegalEvent
from controller.knapp.deck import shuffled_deck
from controller.knapp.events import Booted, event_from_json
from controller.knapp.match import Match, Outcome, Phase
from controller.referee.service import TableService
from controller.sim.table import SimulatedTable
from controller.store import EventStore
from tests.web.conftest import run_until

S = 1_000_000_000
BOOT_A = "0f6c3c1e-aaaa-4b3e-9d4e-000000000001"
BOOT_B = "0f6c3c1e-bbbb-4b3e-9d4e-000000000002"


def table(tmp_path: Path, *, boot: str, clock: FakeClock) -> TableService:
    """A simulated table (nobody plays by themselves) on `boot` and `clock`."""
    cfg = parse_config({"table": {"seats": ["Ada", "Ben", "Cleo"]}, "match": {"target": 5},
                        "kiosk": {"countdown_s": 1, "sim_return_s": 1,
                                  "data_dir": str(tmp_path)}})
    svc = TableService(cfg, store=EventStore(tmp_path / "knapp.db"), clock=clock, seed=11,
                       boot_id=boot)
    assert svc.pads is not None
    svc.simulate(SimulatedTable(svc, svc.pads, bots=0))  # type: ignore[arg-type]
    return svc


def open_card(svc: TableService) -> None:
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)


def play_a_round(svc: TableService, seat: str) -> None:
    open_card(svc)
    rnd = svc.match.current
    assert rnd is not None
    svc.clock.advance(0.6)  # type: ignore[attr-defined]
    svc.sim_grab(seat, rnd.answer)
    run_until(svc, lambda s: s.match.phase is Phase.READY)


def test_a_power_cut_with_a_card_open_deals_it_again_and_the_table_goes_on(
        tmp_path: Path) -> None:
    before = table(tmp_path, boot=BOOT_A, clock=FakeClock(5_000 * S))
    play_a_round(before, "Ada")
    open_card(before)
    cut = before.match.current
    assert cut is not None
    mid = before.match_id
    before.store.close()  # the power goes; nothing is shut down

    after = table(tmp_path, boot=BOOT_B, clock=FakeClock(2 * S))  # the new boot's clock
    assert after.match_id == mid
    last = after.match.events[-1]
    assert isinstance(last, Booted) and last.boot == BOOT_B and last.t_ns == 2 * S
    rnd = after.match.rounds[cut.index]
    assert rnd.outcome is Outcome.INTERRUPTED and "power cut" in rnd.reason
    assert after.match.next_card == cut.card  # dealt again
    assert after.match.scores()["Ada"] == 1  # the round before stands
    snap = after.snapshot()
    assert snap["restart"]["round"] == cut.index and "power cut" in snap["restart"]["message"]
    assert snap["last_verdict"]["outcome"] == "interrupted"
    assert any("power cut" in m for m in snap["messages"])

    # The same card comes again at the new boot's time, and is refereed as usual.
    play_a_round(after, "Ben")
    again = after.match.rounds[-1]
    assert again.card == cut.card and again.winner == "Ben"
    assert again.reveal_ns < 10 * S  # the new boot's clock
    assert after.match.scores() == {"Ada": 1, "Ben": 1, "Cleo": 0}
    assert "restart" in after.snapshot() and after.snapshot()["restart"] is None
    after.store.verify(mid)


def test_a_reboot_whose_clock_is_already_past_the_last_event_is_still_a_new_boot(
        tmp_path: Path) -> None:
    before = table(tmp_path, boot=BOOT_A, clock=FakeClock(10 * S))
    open_card(before)
    cut = before.match.current
    assert cut is not None
    before.store.close()
    # The new boot has been up longer than the old one was: only the boot id tells.
    after = table(tmp_path, boot=BOOT_B, clock=FakeClock(600 * S))
    rnd = after.match.rounds[cut.index]
    assert rnd.outcome is Outcome.INTERRUPTED, rnd.reason  # not "nobody took it in time"
    assert isinstance(after.match.events[-1], Booted)


def test_kill_minus_nine_on_the_same_boot_logs_no_boot_and_the_card_times_out(
        tmp_path: Path) -> None:
    before = table(tmp_path, boot=BOOT_A, clock=FakeClock(10 * S))
    open_card(before)
    n = len(before.match.events)
    now = before.clock.now_ns()
    before.store.close()
    after = table(tmp_path, boot=BOOT_A, clock=FakeClock(now + S))  # the clock went on
    assert len(after.match.events) == n and after.restart is None
    run_until(after, lambda s: s.match.phase is not Phase.OPEN)
    assert after.match.rounds[0].outcome is Outcome.BOXED  # the card timed out as usual


def test_a_reboot_between_cards_goes_on_with_the_next_card(tmp_path: Path) -> None:
    before = table(tmp_path, boot=BOOT_A, clock=FakeClock(5_000 * S))
    play_a_round(before, "Cleo")
    before.store.close()
    after = table(tmp_path, boot=BOOT_B, clock=FakeClock(S))
    assert isinstance(after.match.events[-1], Booted)
    assert after.restart is not None and after.restart["round"] is None
    play_a_round(after, "Ada")
    assert after.match.scores() == {"Ada": 1, "Ben": 0, "Cleo": 1}


def test_without_boot_ids_a_clock_behind_the_log_is_a_new_boot(tmp_path: Path) -> None:
    before = table(tmp_path, boot="", clock=FakeClock(5_000 * S))
    open_card(before)
    before.store.close()
    after = table(tmp_path, boot="", clock=FakeClock(3 * S))
    assert after.match.rounds[0].outcome is Outcome.INTERRUPTED
    open_card(after)  # and a card can be shown again


def test_the_review_puts_both_boots_on_one_time_line(tmp_path: Path) -> None:
    before = table(tmp_path, boot=BOOT_A, clock=FakeClock(5_000 * S))
    play_a_round(before, "Ada")
    before.store.close()
    after = table(tmp_path, boot=BOOT_B, clock=FakeClock(S))
    play_a_round(after, "Ben")
    timeline = after.review(after.match_id)["timeline"]
    times = [row["ms"] for row in timeline if "ms" in row]
    assert times == sorted(times) and times[0] == 0.0
    kinds = [row["kind"] for row in timeline]
    assert "booted" in kinds
    # Within a boot, differences stay exact: the second reveal to its grab is 600 ms.
    second = [row for row in timeline[kinds.index("booted"):] if "ms" in row]
    reveal = next(r for r in second if r["kind"] == "revealed")
    grab = next(r for r in second if r["kind"] == "grabbed")
    assert grab["ms"] - reveal["ms"] == pytest.approx(600.0)


def test_booted_is_an_event_of_the_log() -> None:
    m = Match.new(("Ada", "Ben"), shuffled_deck(3))
    m.reveal(m.next_card, 900 * S)  # type: ignore[arg-type]
    [verdict] = m.booted(BOOT_B, 4 * S)
    assert verdict.outcome == "interrupted" and not verdict.provisional
    ev = m.events[-1]
    assert event_from_json(ev.to_json()) == ev
    assert Match.replay(m.events).to_json() == m.to_json()
    with pytest.raises(IllegalEvent, match="went back to the pile"):
        m.void(0, "no")
    m.figures_home(4 * S)
    m.reveal(m.next_card, 5 * S)  # type: ignore[arg-type]  # before: "is before the previous event"
    with pytest.raises(IllegalEvent, match="t_ns must be a non-negative"):
        m.booted(BOOT_A, -1)


def test_the_store_knows_which_boot_a_match_was_written_in(tmp_path: Path) -> None:
    with EventStore(tmp_path / "k.db") as store:
        mid, m = store.new_match(("Ada", "Ben"), shuffled_deck(1), boot=BOOT_A)
        assert store.match_boot(mid) == BOOT_A
        m.booted(BOOT_B, S)
        assert store.match_boot(mid) == BOOT_B


V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches (id TEXT PRIMARY KEY, created_utc TEXT NOT NULL,
                      label TEXT NOT NULL DEFAULT '');
CREATE TABLE events (match_id TEXT NOT NULL REFERENCES matches(id), seq INTEGER NOT NULL,
                     kind TEXT NOT NULL, body TEXT NOT NULL, prev TEXT NOT NULL,
                     hash TEXT NOT NULL, PRIMARY KEY (match_id, seq));
INSERT INTO meta VALUES ('schema', '1');
"""


def test_a_schema_1_store_is_migrated_and_keeps_its_chain(tmp_path: Path) -> None:
    from controller.store import canonical_json, chain_hash, genesis_hash

    m = Match.new(("Ada", "Ben"), shuffled_deck(1))
    m.reveal(m.next_card, S)  # type: ignore[arg-type]
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript(V1_SCHEMA)
    con.execute("INSERT INTO matches VALUES ('m', '2026-01-01T00:00:00Z', '')")
    prev = genesis_hash("m")
    for seq, ev in enumerate(m.events):
        body = canonical_json(ev.to_json())
        digest = chain_hash(prev, body)
        con.execute("INSERT INTO events VALUES ('m', ?, ?, ?, ?, ?)",
                    (seq, ev.kind, body, prev, digest))
        prev = digest
    con.commit()
    con.close()
    with EventStore(db) as store:
        [info] = store.matches()
        assert (info.events, info.head) == (2, prev)
        assert store.match_boot("m") == ""
        store.open_match("m").grab("Ada", "dog", 2 * S)
        assert store.info("m").events == 3 and store.verify("m") == store.info("m").head


def test_read_boot_id_reads_linux_and_says_nothing_elsewhere(tmp_path: Path) -> None:
    fake = tmp_path / "boot_id"
    fake.write_text(BOOT_A + "\n")
    assert read_boot_id(fake) == BOOT_A
    assert read_boot_id(tmp_path / "missing") == ""


def test_a_reboot_onto_a_read_only_disk_logs_the_boot_once_it_can(tmp_path: Path) -> None:
    before = table(tmp_path, boot=BOOT_A, clock=FakeClock(5_000 * S))
    open_card(before)
    before.store.close()
    cfg = before.config
    store = EventStore(tmp_path / "knapp.db")
    store._db.execute("PRAGMA query_only = 1")  # the card came back read-only
    after = TableService(cfg, store=store, clock=FakeClock(S), seed=11, boot_id=BOOT_B)
    assert after.guard.down and after.snapshot()["health"]["disk"]["level"] == "down"
    assert after.match.current is not None  # nothing logged, nothing decided yet
    after.tick()
    assert not isinstance(after.match.events[-1], Booted)
    store._db.execute("PRAGMA query_only = 0")
    after.clock.advance(1.5)  # type: ignore[attr-defined]  # the next retry
    after.tick()
    kinds = [e.kind for e in after.match.events]
    assert kinds[-2:] == ["booted", "figures_home"] and not after.guard.down
    assert after.match.rounds[0].outcome is Outcome.INTERRUPTED
    assert after.snapshot()["restart"]["round"] == 0

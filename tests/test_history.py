"""The review list and statistics cost the same however much the store holds.

Each match is summarised once per head hash; what is asserted is how many
matches are replayed per call (the cost that grew with the store), and that
the answers equal replaying everything (`referee.history_replay`, the way before).
bench/bench_store.py prints the times.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.knapp.deck import shuffled_deck
from controller.knapp.match import Phase
from controller.referee.history import History, summarise
from controller.referee.history_replay import match_list, stats_view
from controller.sim.driver import simulate
from controller.store import EventStore
from tests.web.conftest import make_service, run_until


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the matches replayed from the store, as they are."""
    seen: list[str] = []
    real = EventStore.open_match

    def counting(self: EventStore, match_id: str):  # type: ignore[no-untyped-def]
        seen.append(match_id)
        return real(self, match_id)

    monkeypatch.setattr(EventStore, "open_match", counting)
    return seen


def stored(tmp_path: Path, matches: int = 12) -> EventStore:
    db = tmp_path / "knapp.db"
    with EventStore(db, durable=False) as store:
        simulate(3, matches, 7, store=store)
        # And one abandoned with a card open.
        _mid, m = store.new_match(("Ada", "Ben", "Cleo"), shuffled_deck(99), seed=99)
        m.reveal(m.next_card, 10**9)  # type: ignore[arg-type]
        m.abandon("closing time")
    return EventStore(db)


def test_the_list_and_stats_equal_replaying_everything(tmp_path: Path) -> None:
    store = stored(tmp_path)
    first = store.matches()[-1].id
    m = store.open_match(first)
    m.award(0, next(s for s in m.seats if s != m.rounds[0].winner), "the video")
    live_id = store.matches()[0].id
    live = store.open_match(live_id)
    history = History(store)
    assert history.match_list(live_id, summarise(live)) == match_list(store, live_id, live)
    assert history.stats() == stats_view(store)
    again = History(store)  # after a restart: from the kept summaries
    assert again.match_list(live_id, summarise(live)) == match_list(store, live_id, live)
    assert again.stats() == stats_view(store)


def test_each_match_is_replayed_once_per_head(tmp_path: Path, replays: list[str]) -> None:
    store = stored(tmp_path)
    n = len(store.matches())
    replays.clear()  # filling the store replayed too
    history = History(store)
    history.match_list()
    assert len(replays) == n  # the first call after the store filled
    replays.clear()
    for _ in range(3):
        history.match_list()
        history.stats()
    assert replays == []  # then nothing, however many matches
    History(store).match_list()
    assert replays == []  # a restart reads the kept summaries
    info = store.matches()[3]
    m = store.open_match(info.id)
    replays.clear()
    m.award(0, next(s for s in m.seats if s != m.rounds[0].winner), "the video")
    listed = {i["match_id"]: i for i in history.match_list()}
    assert replays == [info.id]  # only the match whose head moved
    assert listed[info.id]["scores"] == m.scores()


def test_a_match_whose_log_fails_its_check_is_listed_with_the_reason(tmp_path: Path) -> None:
    store = stored(tmp_path, matches=3)
    victim = store.matches()[1].id
    with sqlite3.connect(tmp_path / "knapp.db") as con:
        con.execute("UPDATE events SET body = body || ' ' WHERE match_id = ? AND seq = 3",
                    (victim,))
    listed = {i["match_id"]: i for i in History(store).match_list()}
    assert "record 3 was altered" in listed[victim]["error"]
    assert "error" not in listed[store.matches()[0].id]


def test_the_service_lists_the_live_match_from_memory(tmp_path: Path,
                                                      replays: list[str]) -> None:
    svc = make_service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    [item] = svc.match_list()
    assert item["live"] and item["rounds"] == 1 and replays == []

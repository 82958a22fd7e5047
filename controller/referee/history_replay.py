"""The review list and statistics by replaying every stored match: the reference.

`referee/history.py` answers `/api/matches` and `/api/stats` from summaries kept by
head hash, at a cost that does not grow with the store. These functions compute
the same answers the slow way, by replaying every match; `tests/test_history.py`
holds the fast answers against them and `bench/bench_store.py` times both.
"""

from __future__ import annotations

from typing import Any

from controller.errors import KnappError
from controller.knapp.match import Match, Outcome
from controller.store import EventStore


def match_list(store: EventStore, live_id: str, live: Match) -> list[dict[str, Any]]:
    """Stored matches, newest first, for the review page."""
    out = []
    for info in store.matches():
        item: dict[str, Any] = {"match_id": info.id, "created_utc": info.created_utc,
                                "label": info.label, "events": info.events,
                                "live": info.id == live_id}
        try:
            m = live if info.id == live_id else Match.replay(store.events(info.id))
            item.update(seats=list(m.seats), scores=m.scores(), winners=list(m.winners),
                        phase=m.phase.value, rounds=len(m.rounds), abandoned=m.abandoned)
        except KnappError as exc:
            item["error"] = str(exc)
        out.append(item)
    return out


def stats_view(store: EventStore) -> dict[str, Any]:
    """Players' statistics across every stored match."""
    players: dict[str, dict[str, Any]] = {}
    for info in store.matches():
        try:
            match = Match.replay(store.events(info.id))
        except KnappError:
            continue
        _count_match(players, match)
    out = {}
    for seat, p in sorted(players.items()):
        out[seat] = {
            "matches": p["matches"], "wins": p["wins"], "cards": p["cards"],
            "wrong_grabs": p["wrong"], "anticipations": p["anticipations"],
            "true_colour": _summary(p["direct"]), "wrong_colour": _summary(p["indirect"]),
        }
    return {"players": out}


def _count_match(players: dict[str, dict[str, Any]], match: Match) -> None:
    for seat in match.seats:
        p = players.setdefault(seat, {"matches": 0, "wins": 0, "cards": 0, "direct": [],
                                      "indirect": [], "wrong": 0, "anticipations": 0})
        p["matches"] += 1
        p["wins"] += seat in match.winners
        p["cards"] += match.scores()[seat]
    for rnd in match.rounds:
        if rnd.outcome is Outcome.VOID:
            continue
        for c in rnd.claims:
            p = players[c.seat]
            if c.correct:
                p["direct" if rnd.card.true_colour else "indirect"].append(c.reaction_ns)
            elif c.counted:
                p["wrong"] += 1
            p["anticipations"] += c.anticipation


def _summary(values: list[int]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "median_ms": None, "best_ms": None}
    s = sorted(values)
    return {"n": len(s), "median_ms": round(s[len(s) // 2] / 1e6), "best_ms": round(s[0] / 1e6)}

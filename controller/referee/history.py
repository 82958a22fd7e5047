"""The table's history for the review and statistics pages, at a cost that does not grow.

Replaying every stored match on each request took ~240 ms with 500 matches
(weeks of play) and held the referee's lock meanwhile. Here each match is
summarised once per head hash: the store keeps the summaries
(`EventStore.summaries`), a new record changes the head, and only a match
whose head moved is replayed again (the live one is summarised from memory).
The chain is verified whenever a match is replayed for its summary, and
whenever it is opened for review, export or `knapp verify`.

The list and statistics have the shapes `/api/matches` and `/api/stats`
answered before. They are built outside the table's lock (only the live
match's summary is made under it), so even the first call after an upgrade,
which replays every stored match once, does not hold up the referee.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from controller.errors import KnappError, StoreUnavailable
from controller.knapp.match import Match, Outcome
from controller.store import EventStore, MatchInfo


def summarise(match: Match) -> dict[str, Any]:
    """What the list and the statistics need of one match (JSON-ready)."""
    players: dict[str, dict[str, Any]] = {
        seat: {"wins": int(seat in match.winners), "cards": match.scores()[seat],
               "direct": [], "indirect": [], "wrong": 0, "anticipations": 0}
        for seat in match.seats}
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
    return {"seats": list(match.seats), "scores": match.scores(),
            "winners": list(match.winners), "phase": match.phase.value,
            "rounds": len(match.rounds), "abandoned": match.abandoned, "players": players}


class History:
    """Summaries of a store's matches, kept by head hash.

    Args:
        store: the event store.
    """

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._summaries: dict[str, tuple[str, dict[str, Any]]] | None = None
        self._stats: tuple[tuple[tuple[str, str], ...], dict[str, Any]] | None = None

    def _current(self, infos: list[MatchInfo], live_id: str | None,
                 live: dict[str, Any] | None) -> dict[str, dict[str, Any] | str]:
        """Per match, its summary, or why it has none (an error text)."""
        with self._lock:
            if self._summaries is None:
                self._summaries = self.store.summaries()
            known = self._summaries
            fresh: dict[str, tuple[str, dict[str, Any]]] = {}
            out: dict[str, dict[str, Any] | str] = {}
            for info in infos:
                if info.id == live_id and live is not None:
                    out[info.id] = live
                    continue
                cached = known.get(info.id)
                if cached is not None and cached[0] == info.head:
                    out[info.id] = cached[1]
                    continue
                try:
                    summary = summarise(self.store.open_match(info.id))
                except KnappError as exc:
                    out[info.id] = str(exc)
                    continue
                fresh[info.id] = (info.head, summary)
                out[info.id] = summary
            known.update(fresh)
        # Only finished matches go to disk: an unfinished one's head moves on.
        lasting = {mid: item for mid, item in fresh.items() if item[1]["phase"] == "ended"}
        # A cache: with the disk full it stays in memory, and a restart replays once more.
        with contextlib.suppress(StoreUnavailable):
            self.store.cache_summaries(lasting)
        return out

    def match_list(self, live_id: str | None = None,
                   live: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Stored matches, newest first, for the review page.

        Args:
            live_id: the live match, if any.
            live: its summary (`summarise`), made under the table's lock by the caller.
        """
        infos = self.store.matches()
        summaries = self._current(infos, live_id, live)
        out = []
        for info in infos:
            item: dict[str, Any] = {"match_id": info.id, "created_utc": info.created_utc,
                                    "label": info.label, "events": info.events,
                                    "live": info.id == live_id}
            s = summaries[info.id]
            if isinstance(s, str):
                item["error"] = s
            else:
                item.update({k: s[k] for k in ("seats", "scores", "winners", "phase",
                                                "rounds", "abandoned")})
            out.append(item)
        return out

    def stats(self) -> dict[str, Any]:
        """Players' statistics across every stored match (the live one as stored)."""
        infos = self.store.matches()
        key = tuple((i.id, i.head) for i in infos)
        cached = self._stats
        if cached is not None and cached[0] == key:
            return cached[1]
        summaries = self._current(infos, None, None)
        players: dict[str, dict[str, Any]] = {}
        for s in summaries.values():
            if isinstance(s, str):
                continue
            for seat, c in s["players"].items():
                p = players.setdefault(seat, {"matches": 0, "wins": 0, "cards": 0, "direct": [],
                                              "indirect": [], "wrong": 0, "anticipations": 0})
                p["matches"] += 1
                for k in ("wins", "cards", "wrong", "anticipations"):
                    p[k] += c[k]
                p["direct"] += c["direct"]
                p["indirect"] += c["indirect"]
        out = {seat: {"matches": p["matches"], "wins": p["wins"], "cards": p["cards"],
                      "wrong_grabs": p["wrong"], "anticipations": p["anticipations"],
                      "true_colour": _spread(p["direct"]), "wrong_colour": _spread(p["indirect"])}
               for seat, p in sorted(players.items())}
        result = {"players": out}
        self._stats = (key, result)
        return result


def _spread(values: list[int]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "median_ms": None, "best_ms": None}
    s = sorted(values)
    return {"n": len(s), "median_ms": round(s[len(s) // 2] / 1e6), "best_ms": round(s[0] / 1e6)}

"""What the café derives from verified records: match and room summaries, the leaderboard.

Derived by replaying the records with the table's own code: a match
through `controller.knapp.match.Match`, a room through
`controller.rooms.room.Room`, so the café's scores are the referee's scores
and not a second reading of the events. Nothing hidden leaves here: a
summary holds seats, scores, winners and the last settled verdict, never a
deck, a seed or a hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from controller.errors import IllegalAction, IllegalEvent, KnappError
from controller.knapp.events import event_from_json
from controller.knapp.match import Match
from controller.rooms.room import Room
from controller.rooms.spec import RoomSpec


def match_summary(bodies: Sequence[str]) -> dict[str, Any]:
    """A match's summary from its records' bodies, in order (JSON-ready).

    A log that does not replay is summarised as ``phase = "broken"`` with the
    reason, so the staff page shows it instead of the café failing.
    """
    try:
        match = Match.replay(event_from_json(json.loads(b)) for b in bodies)
    except (IllegalEvent, KnappError, ValueError, TypeError) as exc:
        return {"phase": "broken", "error": str(exc), "seats": [], "scores": {},
                "winners": [], "rounds": 0, "abandoned": None, "last_verdict": None}
    last = next((r for r in reversed(match.rounds) if r.outcome is not None), None)
    verdict = None if last is None else {
        "round": last.index, "card": str(last.card), "outcome": last.outcome.value
        if last.outcome else None, "winner": last.winner}
    return {"phase": match.phase.value, "seats": list(match.seats), "scores": match.scores(),
            "winners": list(match.winners), "rounds": len(match.rounds),
            "abandoned": match.abandoned, "last_verdict": verdict, "error": None}


def room_summary(room_id: str, bodies: Sequence[str]) -> dict[str, Any]:
    """A game room's summary (game, names, and the result once over) from its records."""
    try:
        records = [json.loads(b) for b in bodies]
        first = records[0]
        if first.get("kind") != "created":
            raise ValueError("the first record is not 'created'")
        room = Room(room_id, RoomSpec.parse(first["spec"]), int(first["seed"]))
        for rec in records[1:]:
            room.apply(rec)
    except (IndexError, KeyError, TypeError, ValueError, IllegalAction, KnappError) as exc:
        return {"game": "", "names": [], "over": False, "closed": None, "returns": None,
                "winners": [], "error": f"the room does not replay: {exc}"}
    terminal = room.state.is_terminal()
    return {"game": room.spec.game, "names": room.names, "over": room.over,
            "closed": room.closed,
            "returns": room.state.returns() if terminal else None,
            "winners": [room.names[s] for s in room.state.winners()] if terminal else [],
            "error": None}


def leaderboard(matches: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Players across every finished match: played, won, cards; best first.

    A match counts once it has ended with winners (an abandoned match does not);
    a shared win counts as a win for each winner.
    """
    board: dict[str, dict[str, Any]] = {}
    for m in matches:
        if m.get("phase") != "ended" or m.get("abandoned") or not m.get("winners"):
            continue
        for seat in m["seats"]:
            row = board.setdefault(seat, {"player": seat, "played": 0, "won": 0, "cards": 0})
            row["played"] += 1
            row["won"] += int(seat in m["winners"])
            row["cards"] += int(m["scores"].get(seat, 0))
    rows = sorted(board.values(), key=lambda r: (-r["won"], -r["cards"], r["played"],
                                                 r["player"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
        row["win_share"] = round(row["won"] / row["played"], 3) if row["played"] else 0.0
    return rows

"""What the café derives from verified records: match and room summaries, the leaderboard.

Derived by replaying the records with the table's own code: a match
through `controller.knapp.match.Match`, a room through
`controller.rooms.room.Room`, so the café's scores are the referee's scores
and not a second reading of the events. Nothing hidden leaves here: a
summary holds seats, scores, winners and the last settled verdict, never a
deck, a seed or a hand.

A match or room still sealed (`controller.fleet.seal`: its hidden fields not
yet published) is summarised from what the café may see: a match replays
with a stand-in deck (the cards shown so far, in the order shown, then
unshown cards up to the deck's size), so seats, scores and the last verdict
are the referee's own; a room gives its game and names, its moves withheld.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from typing import Any

from controller.errors import IllegalAction, IllegalEvent, InvalidCard, KnappError
from controller.fleet.seal import ROOM_END_KINDS, SEALED_KEY, stream_kind
from controller.knapp.cards import all_cards, solve
from controller.knapp.events import event_from_json
from controller.knapp.match import Match
from controller.rooms.room import Room
from controller.rooms.spec import RoomSpec


def match_summary(bodies: Sequence[str]) -> dict[str, Any]:
    """A match's summary from its records' bodies, in order (JSON-ready).

    A log that does not replay is summarised as ``phase = "broken"`` with the
    reason, so the staff page shows it instead of the café failing.
    """
    sealed = False
    try:
        records = [json.loads(b) for b in bodies]
        if records and SEALED_KEY in records[0]:
            sealed = True
            records[0] = _stand_in_start(records)
        match = Match.replay(event_from_json(r) for r in records)
    except (IllegalEvent, KnappError, ValueError, TypeError, KeyError) as exc:
        return {"phase": "broken", "error": str(exc), "seats": [], "scores": {},
                "winners": [], "rounds": 0, "abandoned": None, "last_verdict": None,
                "sealed": sealed}
    last = next((r for r in reversed(match.rounds) if r.outcome is not None), None)
    verdict = None if last is None else {
        "round": last.index, "card": str(last.card), "outcome": last.outcome.value
        if last.outcome else None, "winner": last.winner}
    return {"phase": match.phase.value, "seats": list(match.seats), "scores": match.scores(),
            "winners": list(match.winners), "rounds": len(match.rounds),
            "abandoned": match.abandoned, "last_verdict": verdict, "error": None,
            "sealed": sealed}


def _stand_in_start(records: list[dict[str, Any]]) -> dict[str, Any]:
    """A sealed `started` record with a deck that replays what was shown so far.

    A card leaves the top of the pile only when shown, and a card put back goes
    on top again, so the first showings of each card are the deck's order so
    far; the rest of the deck is unknown and never shown yet, so any cards fill it.
    """
    start = {k: v for k, v in records[0].items() if k not in (SEALED_KEY, "deck_size")}
    shown: list[str] = []
    for rec in records[1:]:
        card = rec.get("card") if rec.get("kind") == "revealed" else None
        if isinstance(card, str) and card not in shown:
            shown.append(card)
    size = int(records[0]["deck_size"])
    fill = (c for c in _usable_cards() if c not in shown)
    start["deck"] = shown + [next(fill) for _ in range(max(0, size - len(shown)))]
    return start


@functools.cache
def _usable_cards() -> tuple[str, ...]:
    usable = []
    for card in all_cards():
        try:
            solve(card)
        except InvalidCard:
            continue
        usable.append(str(card))
    return tuple(usable)


def stream_over(stream: str, bodies: Sequence[str]) -> bool:
    """True when the records so far end the stream's match or room (hidden parts may go).

    A match is over once it ended or was abandoned (replayed with the referee's
    code); a room once it finished or was closed.
    """
    kind = stream_kind(stream)
    if kind == "room":
        return any(json.loads(b).get("kind") in ROOM_END_KINDS for b in bodies)
    if kind == "match":
        summary = match_summary(bodies)
        return summary["phase"] == "ended" or summary["abandoned"] is not None
    return False


def room_summary(room_id: str, bodies: Sequence[str]) -> dict[str, Any]:
    """A game room's summary (game, names, and the result once over) from its records."""
    try:
        records = [json.loads(b) for b in bodies]
        first = records[0]
        if first.get("kind") != "created":
            raise ValueError("the first record is not 'created'")
        sealed = any(SEALED_KEY in r for r in records)
        if sealed:
            # No seed and no moves: replay only the seats (names, computers, codes).
            room = Room(room_id, RoomSpec.parse(first["spec"]), 0)
            for rec in records[1:]:
                if rec.get("kind") not in ("action", "undo"):
                    room.apply(rec)
            return {"game": room.spec.game, "names": room.names, "over": room.over,
                    "closed": room.closed, "returns": None, "winners": [], "error": None,
                    "sealed": True}
        room = Room(room_id, RoomSpec.parse(first["spec"]), int(first["seed"]))
        for rec in records[1:]:
            room.apply(rec)
    except (IndexError, KeyError, TypeError, ValueError, IllegalAction, KnappError) as exc:
        return {"game": "", "names": [], "over": False, "closed": None, "returns": None,
                "winners": [], "error": f"the room does not replay: {exc}", "sealed": False}
    terminal = room.state.is_terminal()
    return {"game": room.spec.game, "names": room.names, "over": room.over,
            "closed": room.closed,
            "returns": room.state.returns() if terminal else None,
            "winners": [room.names[s] for s in room.state.winners()] if terminal else [],
            "error": None, "sealed": False}


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

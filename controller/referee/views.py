"""What the pages show, built from the referee's state: the table, a round, a match, statistics.

Plain JSON-ready dicts, built under the service's lock by its callers. Nothing
secret goes in: no seeds, no PIN. The answer of an open card is in the table
screen's state only (`table_state`); `public_state` is what every other screen
gets, and the review shows an open card without its answer.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING, Any

from controller.errors import KnappError
from controller.knapp.cards import Card, solve
from controller.knapp.events import Revealed
from controller.knapp.match import Match, Outcome, Round
from controller.store import EventStore

if TYPE_CHECKING:
    from controller.referee.service import TableService


# What would tell a player the answer of a card that is still open.
SECRET_WHILE_OPEN = ("answer", "answer_title", "true_colour", "explanation")


def table_state(service: TableService) -> dict[str, Any]:
    """The state of a table as the table screen gets it (the open card's answer included)."""
    m = service.match
    rnd = m.current or (m.rounds[-1] if m.rounds else None)
    now = service.now_ns()
    camera = service.camera_health
    evidence = service.evidence
    sim = service.simulation
    return {
        "version": service.version,
        "server_ns": now,
        "table": service.config.name,
        "sim": sim is not None,
        "match_id": service.match_id,
        "seats": list(m.seats),
        "bots": list(sim.seats) if sim is not None else [],
        "scores": m.scores(),
        "target": m.rules.target,
        "variant": m.rules.variant.value,
        "phase": m.phase.value,
        "paused": service.paused,
        "countdown_ms": (None if service.countdown_until is None
                         else max(0, (service.countdown_until - now) // 1_000_000)),
        "turner": m.turner,
        "pile": len(m.pile),
        "boxed": len(m.boxed),
        "winners": list(m.winners),
        "abandoned": m.abandoned,
        "round": round_view(rnd, while_open=True) if rnd is not None else None,
        "open": m.current is not None,
        "last_verdict": service.last_verdict,
        "prompt": service.fusion.prompt(),
        "off_pad": sorted(f.value for f in service.fusion.off_pad),
        "misplaced": [f.value for f in service.misplaced],
        "health": {"pads": service.pads_health.to_json(), "camera": camera.to_json(),
                   "disk": {"level": "ok" if evidence.disk_ok else "degraded",
                            "message": "" if evidence.disk_ok
                            else "almost full: keeping events only"}},
        "evidence": {"enabled": service.kiosk.evidence,
                     "recording": evidence.recording and camera.usable,
                     "retention_days": service.kiosk.retention_days,
                     "retention_mb": service.kiosk.retention_mb},
        "messages": list(service.messages)[-5:],
    }


def public_state(state: dict[str, Any]) -> dict[str, Any]:
    """`state` as players and spectators see it: no answer while the card is open.

    Nor anything that gives it away: whether a grab was correct (or counted),
    and the provisional verdict, wait until the card is settled. Who grabbed
    which figure, and who is out, everyone at the table sees anyway.
    """
    rnd = state.get("round")
    if not state.get("open") or rnd is None:
        return state
    claims = [{**c, "correct": None, "counted": None} for c in rnd["claims"]]
    out = {**state, "round": {**rnd, **dict.fromkeys(SECRET_WHILE_OPEN), "claims": claims}}
    verdict = state.get("last_verdict")
    if verdict is not None and verdict.get("round") == rnd["index"]:
        out["last_verdict"] = None
    return out


def round_view(rnd: Round, held: Set[str] = frozenset(), *,
               while_open: bool = False) -> dict[str, Any]:
    """A round as the screens show it.

    Args:
        held: evidence bundles kept until released.
        while_open: give the answer even while the card is open (the table screen only).
    """
    hide = rnd.outcome is None and not while_open
    return {
        "index": rnd.index,
        "card": str(rnd.card),
        "answer": None if hide else rnd.answer.value,
        "answer_title": None if hide else rnd.answer.title,
        "true_colour": None if hide else rnd.card.true_colour,
        "explanation": None if hide else rnd.explanation,
        "turner": rnd.turner,
        "reveal_ns": rnd.reveal_ns,
        "reveal_measure": rnd.reveal_measure.label,
        "claims": [{"seat": c.seat, "figure": c.figure.value,
                    "reaction_ms": round(c.reaction_ns / 1e6, 1),
                    "t_ns": c.t_ns, "uncertainty_ms": round(c.uncertainty_ns / 1e6, 3),
                    "handicap_ms": round(c.handicap_ns / 1e6, 1),
                    "correct": None if hide else c.correct, "anticipation": c.anticipation,
                    "counted": None if hide else c.counted, "source": c.source}
                   for c in rnd.claims],
        "locked": sorted(rnd.locked),
        "outcome": rnd.outcome.value if rnd.outcome else None,
        "winner": rnd.winner,
        "reason": rnd.reason,
        "margin_ms": None if rnd.margin_ns is None else round(rnd.margin_ns / 1e6, 3),
        "uncertainty_ms": (None if rnd.uncertainty_ns is None
                           else round(rnd.uncertainty_ns / 1e6, 3)),
        "too_close": rnd.too_close,
        "corrections": rnd.corrections,
        "evidence": [{**e, "held": e.get("ref", "") in held} for e in rnd.evidence],
    }


def match_view(match_id: str, match: Match, *,
               held: Set[str] = frozenset()) -> dict[str, Any]:
    """A whole match for the dispute review: rounds and the event timeline.

    Args:
        held: evidence bundles kept until released; each bundle says whether it is.
    """
    first = match.rounds[0].reveal_ns if match.rounds else 0
    # The last card's answer stays out of the timeline while that card is open.
    reveals_told = len(match.rounds) - (match.current is not None)
    timeline = []
    for i, ev in enumerate(match.events):
        data = ev.to_json()
        t = data.get("t_ns")
        if isinstance(t, int):
            data["ms"] = round((t - first) / 1e6, 3)
        data["seq"] = i
        if isinstance(ev, Revealed):
            data["answer"] = (solve(Card.parse(ev.card)).answer.value if reveals_told > 0
                              else None)
            reveals_told -= 1
        timeline.append(data)
    return {
        "match_id": match_id,
        "seats": list(match.seats),
        "scores": match.scores(),
        "winners": list(match.winners),
        "abandoned": match.abandoned,
        "phase": match.phase.value,
        "rules": match.rules.to_json(),
        "rounds": [round_view(r, held) for r in match.rounds],
        "timeline": timeline,
    }


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

"""What the pages show, built from the referee's state: the table, a round, a match, statistics.

Plain JSON-ready dicts, built under the service's lock by its callers. Nothing
secret goes in: no seeds, no PIN. The answer of an open card, or of a card that
went back to the pile to be dealt again (too close, undone, interrupted), is in
the table screen's state only (`table_state`); `public_state` is what every
other screen gets, and the review shows such a card without its answer.

The table screen's verdict (`verdict_view`) is told in words a whole table can
read at once: who won, which figure was right, who came next and by how much,
who grabbed a wrong figure.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING, Any

from controller.knapp.cards import Card, solve
from controller.knapp.events import Revealed
from controller.knapp.match import Claim, Match, Outcome, Phase, Round

if TYPE_CHECKING:
    from controller.referee.service import TableService


# What would tell a player the answer of a card that is still open.
SECRET_WHILE_OPEN = ("answer", "answer_title", "true_colour", "explanation")
# Outcomes that put the card back on the pile: it is dealt again.
BACK_TO_PILE = (Outcome.REDEAL, Outcome.UNDONE, Outcome.INTERRUPTED)
# A won card whose next hand came this close gets its photo-finish strip on the table screen.
CLOSE_CALL_NS = 500_000_000
# The reason the table screen's abandon gives (service.control): no need to say it twice.
_ABANDONED_PREFIX = "abandoned "


def answer_secret(match: Match, rnd: Round) -> bool:
    """True while a round's answer would tell players about a card still to be played.

    That is an open card, and a card that went back to the pile (too close to
    call, a verdict taken back, a restart while it was open) until it is dealt
    and decided again. Once the match has ended, nothing is still to be played.
    """
    if match.phase is Phase.ENDED:
        return False
    if rnd.outcome is None:
        return True
    if rnd.outcome not in BACK_TO_PILE:
        return False
    current = match.current
    return rnd.card in match.pile or (current is not None and current.card == rnd.card)


def card_words(card: Card) -> str:
    """A card in words, for its picture's alt text: 'a yellow ship on red and green'."""
    top, bottom = card.background
    return f"a {card.paint.value} {card.figure.value} on {top.value} and {bottom.value}"


def seconds_words(ns: int) -> str:
    """A time gap as a table reads it: '0.25 s', '38 ms', '4.2 ms'."""
    ms = ns / 1e6
    if ms >= 100:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    return f"{ms:.1f} ms"


def abandoned_words(reason: str) -> str:
    """'Match abandoned at the table', 'Match abandoned: the café closes'."""
    text = reason.strip()
    if text.lower().startswith(_ABANDONED_PREFIX):
        return "Match " + text
    return f"Match abandoned: {text}" if text else "Match abandoned"


def _ranked(rnd: Round) -> list[Claim]:
    return sorted(rnd.claims, key=lambda c: (c.ranked_ns, c.seat))


def _wrong_words(rnd: Round) -> list[dict[str, Any]]:
    out = []
    for c in _ranked(rnd):
        if c.correct:
            continue
        if not c.counted:
            words = f"{c.seat} took the {c.figure.title} after the card was won"
        elif c.anticipation:
            words = f"{c.seat} grabbed too early (the {c.figure.title}): out for this card"
        else:
            words = f"{c.seat} took the {c.figure.title}: wrong, out for this card"
        out.append({"seat": c.seat, "figure": c.figure.value, "title": c.figure.title,
                    "counted": c.counted, "words": words})
    return out


def verdict_view(rnd: Round, match: Match) -> dict[str, Any] | None:
    """What the table screen says about a round: a picture's data and its words.

    `kind` is provisional (a correct grab while the card is open), won, boxed,
    redeal, undone, void or interrupted; None while the card is open and
    nobody has the right figure yet (wrong grabs are listed already).
    `runner_up` is the next hand after the winner's, `margin_words` says by
    how much ("Cleo by 0.25 s"; "nobody else grabbed" for a lone winner).
    """
    wrong = _wrong_words(rnd)
    first = rnd.first_correct()
    kind: str | None = rnd.outcome.value if rnd.outcome is not None else None
    winner = rnd.winner
    if kind is None and first is not None:
        kind, winner = "provisional", first.seat
    if kind is None and not wrong:
        return None
    runner_up: str | None = None
    runner_correct: bool | None = None
    gap_ns: int | None = None
    margin_words: str | None = None
    if winner is not None and first is not None:
        later = [c for c in _ranked(rnd) if c is not first and c.ranked_ns >= first.ranked_ns]
        if later:
            nxt = later[0]
            runner_up, runner_correct = nxt.seat, nxt.correct
            gap_ns = nxt.ranked_ns - first.ranked_ns
            gap = seconds_words(gap_ns)
            margin_words = (f"{nxt.seat} by {gap}" if nxt.correct
                            else f"{nxt.seat} {gap} later, with the wrong figure")
        elif kind != "provisional":
            margin_words = "nobody else grabbed"
    elif rnd.too_close and first is not None:
        rival = next((c for c in _ranked(rnd) if c.correct and c is not first), None)
        if rival is not None:
            gap_ns = rival.ranked_ns - first.ranked_ns
            runner_up, runner_correct = rival.seat, True
            margin_words = f"{first.seat} and {rival.seat}: {seconds_words(gap_ns)} apart"
    headline = _headline(rnd, kind, winner)
    close = rnd.too_close or (gap_ns is not None and gap_ns < CLOSE_CALL_NS)
    return {
        "round": rnd.index, "kind": kind, "winner": winner,
        "figure": rnd.answer.value, "figure_title": rnd.answer.title,
        "runner_up": runner_up, "runner_up_correct": runner_correct,
        "margin_ms": None if gap_ns is None else round(gap_ns / 1e6, 3),
        "margin_words": margin_words, "too_close": rnd.too_close,
        "headline": headline, "wrong": wrong,
        "photo_finish": photo_finish_url(rnd) if close and kind in ("won", "boxed") else None,
    }


def photo_finish_url(rnd: Round) -> str | None:
    """The round's photo-finish strip (the camera's frames around the lift), if it kept one."""
    refs = [e["ref"] for e in rnd.evidence if e.get("name") == "photo-finish" and e.get("ref")]
    return f"/api/photo-finish/{refs[-1]}.jpg" if refs else None


def _headline(rnd: Round, kind: str | None, winner: str | None) -> str:
    if kind == "provisional":
        return f"{winner} has it…"
    if kind == "won":
        return f"{winner} wins the card"
    if kind == "boxed":
        return "Nobody wins the card: it goes to the box"
    if kind == "redeal":
        return "Too close to call: the card is dealt again"
    if kind == "undone":
        return "Verdict taken back: the card is dealt again"
    if kind == "interrupted":
        return "The table restarted: the card is dealt again"
    if kind == "void":
        return "This card does not count"
    return "Wrong figure"


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
        # An ended match is not paused (the pause waits for the next match).
        "paused": service.paused and m.phase is not Phase.ENDED,
        "countdown_ms": (None if service.countdown_until is None
                         else max(0, (service.countdown_until - now) // 1_000_000)),
        "turner": m.turner,
        "pile": len(m.pile),
        "boxed": len(m.boxed),
        "winners": list(m.winners),
        # The cards each seat won, face up on the table anyway (for the winner screen).
        "won": ({s: [{"card": str(c), "words": card_words(c)} for c in cards]
                 for s, cards in m.holdings.items()} if m.phase is Phase.ENDED else None),
        "abandoned": m.abandoned,
        "abandoned_words": abandoned_words(m.abandoned) if m.abandoned else None,
        "round": (None if rnd is None
                  else {**round_view(rnd, while_open=True),
                        "answer_secret": answer_secret(m, rnd)}),
        "verdict": verdict_view(rnd, m) if rnd is not None else None,
        "open": m.current is not None,
        "waiting": sim is not None and sim.waiting,
        "resumed": service.resumed_words(),
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
    """`state` as players and spectators see it: no answer of a card still to be played.

    That is the open card, and a card gone back to the pile to be dealt again.
    Nor anything that gives the answer away: whether a grab was correct (or
    counted), the provisional verdict, the figure in the verdict and its wrong
    grabs wait until the card is decided. Who grabbed which figure, and who is
    out, everyone at the table sees anyway.
    """
    rnd = state.get("round")
    if state.get("verdict") is not None:
        # Camera frames of the guests are for the table screen (and staff) only.
        state = {**state, "verdict": {**state["verdict"], "photo_finish": None}}
    if rnd is None or not rnd.get("answer_secret"):
        return state
    claims = [{**c, "correct": None, "counted": None} for c in rnd["claims"]]
    out = {**state, "round": {**rnd, **dict.fromkeys(SECRET_WHILE_OPEN), "claims": claims,
                              "corrections": _untold(rnd["corrections"])}}
    last = state.get("last_verdict")
    verdict = state.get("verdict")
    if state.get("open"):
        if last is not None and last.get("round") == rnd["index"]:
            out["last_verdict"] = None
        out["verdict"] = None
        return out
    if last is not None and last.get("round") == rnd["index"]:
        # A card back in the pile: its reason names no figure, its answer would.
        out["last_verdict"] = {**last, "answer": None, "explanation": None}
    if verdict is not None:
        out["verdict"] = {**verdict, "figure": None, "figure_title": None, "wrong": [],
                          "runner_up_correct": None}
    return out


def _untold(corrections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Corrections without what the card was before (who had won it tells the answer)."""
    return [{"kind": c.get("kind"), "reason": c.get("reason")} for c in corrections]


def round_view(rnd: Round, held: Set[str] = frozenset(), *,
               while_open: bool = False, secret: bool | None = None) -> dict[str, Any]:
    """A round as the screens show it.

    Args:
        held: evidence bundles kept until released.
        while_open: give the answer even while it is secret (the table screen only).
        secret: the answer is still secret (`answer_secret`); None: while the card is open.
    """
    if secret is None:
        secret = rnd.outcome is None
    hide = secret and not while_open
    return {
        "index": rnd.index,
        "card": str(rnd.card),
        "card_words": card_words(rnd.card),
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
        "corrections": _untold(rnd.corrections) if hide else rnd.corrections,
        "evidence": [{**e, "held": e.get("ref", "") in held} for e in rnd.evidence],
    }


def match_view(match_id: str, match: Match, *,
               held: Set[str] = frozenset()) -> dict[str, Any]:
    """A whole match for the dispute review: rounds and the event timeline.

    Args:
        held: evidence bundles kept until released; each bundle says whether it is.
    """
    first = match.rounds[0].reveal_ns if match.rounds else 0
    # A card still to be played (open, or back in the pile) keeps its answer out of
    # its round and of the timeline's reveals (the n-th reveal is round n).
    secret = [answer_secret(match, r) for r in match.rounds]
    reveals = 0
    timeline = []
    for i, ev in enumerate(match.events):
        data = ev.to_json()
        t = data.get("t_ns")
        if isinstance(t, int):
            data["ms"] = round((t - first) / 1e6, 3)
        data["seq"] = i
        if isinstance(ev, Revealed):
            hidden = reveals >= len(secret) or secret[reveals]
            data["answer"] = None if hidden else solve(Card.parse(ev.card)).answer.value
            reveals += 1
        timeline.append(data)
    return {
        "match_id": match_id,
        "seats": list(match.seats),
        "scores": match.scores(),
        "winners": list(match.winners),
        "abandoned": match.abandoned,
        "phase": match.phase.value,
        "rules": match.rules.to_json(),
        "rounds": [round_view(r, held, secret=hide)
                   for r, hide in zip(match.rounds, secret, strict=True)],
        "timeline": timeline,
    }

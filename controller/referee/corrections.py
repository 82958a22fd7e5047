"""Referee corrections from the review page: undo, award, void, each a new event.

An undo names the round whose verdict it takes back, which must be the last
verdict's: an undo that named round 3 once took back round 7, the winning
card. It is allowed on the live match only, since it deals the card again.
"""

from __future__ import annotations

from controller.errors import IllegalEvent
from controller.knapp.match import Match, Verdict


def apply_correction(match: Match, kind: str, reason: str, round_index: int | None,
                     seat: str | None, *, live: bool) -> list[Verdict]:
    """Log one correction on `match` (`live`: the table's own match); return its verdicts.

    Raises:
        IllegalEvent: naming what is missing or not allowed; nothing is logged.
    """
    if kind == "undo":
        if round_index is None:
            last = match.undo_target()
            raise IllegalEvent(f"undo needs the round it takes back (the last verdict is "
                               f"round {last})")
        if not live:
            raise IllegalEvent("undo deals the card again, which only the live match can "
                               "do; give the card or void the round instead")
        return match.undo(reason, round_index)
    if kind == "award":
        if round_index is None or seat is None:
            raise IllegalEvent("award needs a round and a seat")
        return match.award(round_index, seat, reason)
    if kind == "void":
        if round_index is None:
            raise IllegalEvent("void needs a round")
        return match.void(round_index, reason)
    raise IllegalEvent(f"unknown correction {kind!r} (undo, award, void)")

"""Which measures of when a card appeared belong to it: a light sensor's flash, a paint report.

The service stamps the reveal when it shows a card (`shown`); the display's
own paint report and a light sensor on the pad board measure it better. These
checks decide whether such a measure is about the card in question at all.
"""

from __future__ import annotations

from controller.errors import IllegalEvent
from controller.knapp.match import Match, Round

# A light sensor's "brighter" this long before the service showed the card is
# still that card: the display can paint before the reveal event is logged.
LIGHT_BEFORE_REVEAL_NS = 200_000_000
# A paint report must come this soon after the reveal to be about that card.
PAINT_WITHIN_NS = 1_000_000_000


def photon_is_for(rnd: Round, t_ns: int) -> bool:
    """True when a light sensor's flash at `t_ns` can be the open card appearing."""
    return t_ns >= rnd.reveal_ns - LIGHT_BEFORE_REVEAL_NS


def paint_report_counts(match: Match, round_index: int, t_ns: int) -> bool:
    """True when the display's paint time `t_ns` is to be logged for round `round_index`.

    False when the round's reveal was already measured (the first report, or a
    light sensor, wins).

    Raises:
        IllegalEvent: no such round, a time outside 1 s after the reveal, or
            one after a grab (the card was visible before it was grabbed).
    """
    if not 0 <= round_index < len(match.rounds):
        raise IllegalEvent(f"no round {round_index}")
    rnd = match.rounds[round_index]
    if rnd.reveal_measure.label != "shown":
        return False
    if not 0 <= t_ns - rnd.reveal_ns <= PAINT_WITHIN_NS:
        raise IllegalEvent("a paint time must come within 1 s after the reveal")
    if any(c.t_ns < t_ns for c in rnd.claims):
        raise IllegalEvent("a paint time after a grab cannot be when the card appeared")
    return True

"""Camera decisions become attributions (who took a figure) for the fusion.

The camera decides per lifted figure: the taker's seat with a probability and
its first-contact time, and any rival arms that touched the figure too. This
module turns those decisions into `Attribution` claims (`route`), keeps each
round's decisions for the photo-finish evidence, and tells whether a figure
stands on another figure's pad.

Below `ASK_BELOW` the camera's guess is not used: the pad's lift waits in the
"who took it?" prompt and the table answers, because a wrong seat given with
confidence is the worst outcome the referee can produce. The guess is kept
with the round's decisions (evidence) and shown as the camera's suggestion.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.knapp.cards import Figure
from controller.knapp.match import Phase, Verdict
from controller.referee.camera import CameraLink
from controller.referee.fusion import Attribution, Fusion, misplaced
from controller.referee.health import Health, Level
from controller.vision.confidence import ASK_BELOW

if TYPE_CHECKING:
    from controller.vision.track import Decision


def route(decision: Decision, seats: Sequence[str]) -> list[Attribution] | None:
    """The claims to give the fusion for a grab decision, or None: ask the table.

    None when the camera named no seat, a seat not at this table, or one it is
    less than `ASK_BELOW` sure of.
    """
    if decision.kind != "grab" or decision.seat is None or decision.seat not in seats:
        return None
    if decision.confidence < ASK_BELOW:
        return None
    return claims_of(decision, seats)


def claims_of(decision: Decision, seats: Sequence[str]) -> list[Attribution]:
    """The claims in one grab decision: the taker first, then rival arms with a contact time."""
    assert decision.seat is not None
    touch = decision.touch_ns if decision.touch_ns is not None else decision.lift_ns
    claims = [Attribution(decision.figure, decision.seat, decision.confidence, touch or 0,
                          decision.uncertainty_ns, "camera")]
    claims += [Attribution(decision.figure, c.seat, 0.0, c.touch_ns, c.uncertainty_ns, "camera")
               for c in decision.other_claims
               if c.touch_ns is not None and c.seat in seats]
    return claims


class CameraAttribution:
    """One camera as the referee's source of who took a figure.

    Args:
        link: the live camera.
        camera_only: no pads: the camera's lift times are the grab times too.
    """

    def __init__(self, link: CameraLink, *, camera_only: bool = False) -> None:
        self.link = link
        self.camera_only = camera_only
        self.health: Health = link.health()
        # Per (round, figure): the decision behind an attribution, kept for evidence.
        self.decisions: dict[tuple[int, Figure], Decision] = {}

    def refresh_health(self) -> Health | None:
        """Read the camera's health; return it when it changed."""
        health = self.link.health()
        if health == self.health:
            return None
        self.health = health
        return health

    def drain(self, fusion: Fusion, seats: Sequence[str]) -> list[Verdict]:
        """Feed the camera's new grab decisions to the fusion; return the verdicts.

        A decision the camera is unsure of is kept (evidence, the prompt's
        suggestion) but not used: the lift waits for the table's answer. With
        no pads its lift is still the camera's, waiting the same way.
        """
        verdicts: list[Verdict] = []
        for d in self.link.poll():
            if d.kind != "grab":
                continue
            # Kept with the card that was showing when the figure left its pad (a
            # decision that comes late is still that card's, not the next one's).
            t = d.lift_ns if d.lift_ns is not None else d.touch_ns
            card = fusion.card_at(t) if t is not None else None
            if card is None and fusion.match.current is not None:
                card = fusion.match.current.index
            if card is not None:
                self.decisions[(card, d.figure)] = d
            claims = route(d, seats)
            if claims is None:
                fusion.log.append(f"camera unsure who took the {d.figure.value} "
                                  f"({d.seat or 'no arm seen'}, {d.confidence:.0%}): "
                                  "the table is asked")
            if self.camera_only and d.lift_ns is not None:
                verdicts += fusion.lift(d.figure, d.lift_ns, d.uncertainty_ns, "camera",
                                        claims or ())
            elif claims is not None:
                verdicts += fusion.attribute_claims(d.figure, claims, lift_ns=d.lift_ns)
        return verdicts

    def suggestion(self, round_index: int, figure: Figure) -> tuple[str, float] | None:
        """The camera's unconfirmed guess for a lift the table is asked about (seat, p)."""
        d = self.decisions.get((round_index, figure))
        if d is None or d.seat is None:
            return None
        return d.seat, d.confidence

    def lifts_of_round(self, round_index: int) -> list[tuple[Figure, Decision]]:
        """The round's decisions that carry a lift time (for photo-finish bundles)."""
        return [(fig, d) for (rnd, fig), d in self.decisions.items()
                if rnd == round_index and d.lift_ns is not None]

    def misplaced(self, fusion: Fusion) -> list[Figure]:
        """Figures standing on another figure's pad, as the camera sees the pads now."""
        det = self.link.analyser.last if self.health.level is Level.OK else None
        if det is None or det.status != "ok" or fusion.match.phase is Phase.OPEN:
            return []
        states = {f: r.state for f, r in det.pads.items()}
        return misplaced(states, fusion.off_pad, bool(det.arms))

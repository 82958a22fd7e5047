"""Camera decisions become attributions (who took a figure) for the fusion.

The camera decides per lifted figure: the taker's seat with a confidence and
its first-contact time, and any rival arms that touched the figure too. This
module turns those decisions into `Attribution` claims, keeps each round's
decisions for the photo-finish evidence, and tells whether a figure stands on
another figure's pad.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.knapp.cards import Figure
from controller.knapp.match import Phase, Verdict
from controller.referee.camera import CameraLink
from controller.referee.fusion import Attribution, Fusion, misplaced
from controller.referee.health import Health, Level

if TYPE_CHECKING:
    from controller.vision.track import Decision


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
        """Feed the camera's new grab decisions to the fusion; return the verdicts."""
        verdicts: list[Verdict] = []
        for d in self.link.poll():
            if d.kind != "grab" or d.seat is None or d.seat not in seats:
                continue
            claims = claims_of(d, seats)
            rnd = fusion.match.current
            if rnd is not None:
                self.decisions[(rnd.index, d.figure)] = d
            if self.camera_only and d.lift_ns is not None:
                verdicts += fusion.lift(d.figure, d.lift_ns, d.uncertainty_ns, "camera", claims)
            else:
                verdicts += fusion.attribute_claims(d.figure, claims)
        return verdicts

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

"""Simulated players with human-like reaction times.

The numbers come from the Geistesblitz reaction-time data (ECVP 2023 poster by
Styrnal, Pastukhov, Carbon & Kristjánsson; digested in docs/simulation.md): in
the five-object task the median correct response was 985 ms on direct
(true-colour) cards and 2052 ms on indirect (wrong-colour) cards, per-player
medians spread roughly 0.8-1.6 s and 1.4-5.4 s, 10-90 % ranges 582-1944 ms and
1053-4605 ms, and 6-9 % of responses were wrong. Each player gets a speed
factor and an error rate; each card draws a log-normal reaction time around
the player's median for its card type. A small share of grabs are reflexive
(jumping the gun within 250 ms), which the referee flags as anticipations.

Every draw comes from a generator forked from the match seed by round index,
so a round's plan depends only on (seed, round), never on how far a previous
process got: a killed simulation resumes identically.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.clock import NS_PER_S
from controller.knapp.cards import FIGURE_OF, Card, Figure, solve
from controller.rng import Rng

DIRECT_MEDIAN_S = 0.985
INDIRECT_MEDIAN_S = 2.052
PLAYER_SPREAD = 0.22  # log-space spread of per-player speed factors
DIRECT_SIGMA = 0.33  # within-player log-space spread, direct cards
INDIRECT_SIGMA = 0.42  # within-player log-space spread, indirect cards
REFLEX_RATE = 0.008  # share of cards on which a player jumps the gun


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    """How one simulated player reacts.

    Args:
        name: the seat's name.
        direct_median_s: median reaction on true-colour cards.
        indirect_median_s: median reaction on wrong-colour cards.
        error_rate: share of grabs that take a wrong figure.
    """

    name: str
    direct_median_s: float
    indirect_median_s: float
    error_rate: float

    def to_json(self) -> dict[str, float | str]:
        """JSON form."""
        return {"name": self.name, "direct_median_s": round(self.direct_median_s, 3),
                "indirect_median_s": round(self.indirect_median_s, 3),
                "error_rate": round(self.error_rate, 4)}


@dataclass(frozen=True, slots=True, order=True)
class PlannedGrab:
    """A simulated player's intended grab: `delay_ns` after the reveal."""

    delay_ns: int
    seat: str
    figure: Figure


def make_profiles(names: list[str] | tuple[str, ...], rng: Rng) -> list[PlayerProfile]:
    """Draw one profile per seat from the published spread of players."""
    profiles = []
    for name in names:
        r = rng.fork(f"player:{name}")
        speed = r.lognormal(1.0, PLAYER_SPREAD)
        indirect_extra = r.lognormal(1.0, 0.15)
        profiles.append(PlayerProfile(
            name=name,
            direct_median_s=DIRECT_MEDIAN_S * speed,
            indirect_median_s=INDIRECT_MEDIAN_S * speed * indirect_extra,
            error_rate=0.06 + 0.03 * r.random(),
        ))
    return profiles


def _wrong_figure(card: Card, answer: Figure, rng: Rng) -> Figure:
    """A plausible mistake: the pictured figure, or the figure of a colour on the card."""
    tempting = [card.figure, FIGURE_OF[card.paint], *(FIGURE_OF[c] for c in card.background)]
    choices = [f for f in tempting if f != answer] or [f for f in Figure if f != answer]
    return rng.choice(choices)


def plan_round(card: Card, profiles: list[PlayerProfile], rng: Rng) -> list[PlannedGrab]:
    """Every player's intended grab for one card, earliest first."""
    answer = solve(card).answer
    plans = []
    for p in profiles:
        r = rng.fork(f"seat:{p.name}")
        if r.random() < REFLEX_RATE:
            delay_s = 0.12 + 0.13 * r.random()
            figure = card.figure  # a reflex goes for the pictured figure
        else:
            median = p.direct_median_s if card.true_colour else p.indirect_median_s
            sigma = DIRECT_SIGMA if card.true_colour else INDIRECT_SIGMA
            delay_s = max(0.2, r.lognormal(median, sigma))
            figure = _wrong_figure(card, answer, r) if r.random() < p.error_rate else answer
        plans.append(PlannedGrab(round(delay_s * NS_PER_S), p.name, figure))
    return sorted(plans)

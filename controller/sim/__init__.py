"""Simulated players and the match driver used by `knapp simulate` and the kiosk's
simulation mode. The driver goes through the same `Match` and `EventStore` API
as the hardware."""

from controller.sim.bots import PlannedGrab, PlayerProfile, make_profiles, plan_round
from controller.sim.driver import MatchSummary, SimulationSummary, play_match, simulate

__all__ = [
    "MatchSummary",
    "PlannedGrab",
    "PlayerProfile",
    "SimulationSummary",
    "make_profiles",
    "plan_round",
    "play_match",
    "simulate",
]

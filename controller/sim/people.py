"""Published facts about people at a table, for the camera world (`controller/sim/world.py`).

Every number here has its source in docs/camera.md ("The camera world"); the
short form is in the comment beside it. Nothing here is tuned to the camera
pipeline: change a number only when a better source says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from controller.rng import Rng

BGR = tuple[int, int, int]

# Fitzpatrick skin types I-VI by their individual typology angle (ITA, Chardon,
# Dechamps & Vauthier 1991; classes: very light > 55 deg, light 41-55, intermediate
# 28-41, tan 10-28, brown -30-10, dark < -30) at L*, a*, b* typical of each class in
# Del Bino & Bernerd 2013 (Br J Dermatol 169 s3): (L*, a*, b*), CIE 1976.
SKIN_LAB: dict[str, tuple[float, float, float]] = {
    "I": (71.0, 7.0, 13.0),     # ITA 59 deg
    "II": (65.0, 9.5, 15.5),    # ITA 44 deg
    "III": (60.0, 11.0, 17.0),  # ITA 30 deg
    "IV": (55.0, 12.0, 18.5),   # ITA 15 deg
    "V": (44.0, 12.5, 17.5),    # ITA -19 deg
    "VI": (31.0, 9.0, 11.5),    # ITA -59 deg
}
SKIN_TYPES = tuple(SKIN_LAB)

# Left-handed share of people: 10.6 % (Papadatou-Pastou et al. 2020, Psychol Bull 146).
LEFT_HANDED = 0.106

# Body sizes, mm (ANSUR II, Gordon et al. 2014, 5th-95th percentile of women and men):
HAND_LENGTH = (165.0, 205.0)       # wrist crease to fingertip
HAND_BREADTH = (72.0, 95.0)        # across the knuckles
BIACROMIAL = (340.0, 440.0)        # shoulder breadth
# Segment lengths as a share of stature (Winter 2009, Biomechanics and Motor Control
# of Human Movement, table 4.1): upper arm 0.186, forearm 0.146.
STATURE = (1550.0, 1900.0)
UPPER_ARM = 0.186
FOREARM = 0.146
ARM_DIAMETER = (70.0, 100.0)       # upper arm with a sleeve, seen from above
WRIST_DIAMETER = (48.0, 62.0)
SHOULDER_BEHIND_EDGE = (170.0, 300.0)   # seated at a table: chest 50-150 mm off the edge
SHOULDER_ABOVE_TABLE = (260.0, 360.0)   # seated shoulder height minus table height

# Reaching (Flash & Hogan 1985, J Neurosci 5:1688): hand paths follow the
# minimum-jerk profile s = 10 u^3 - 15 u^4 + 6 u^5, peak speed 1.875 D / T.
PEAK_SPEED_M_S = (1.0, 2.6)        # fast aimed reaches (e.g. Gordon, Ghilardi & Ghez 1994)
# Reach to grasp (Jeannerod 1984, J Mot Behav 16:235): the hand opens to its widest
# 60-70 % into the reach, about 30-50 mm wider than the object, then closes on it.
APERTURE_PEAK_AT = (0.6, 0.7)
APERTURE_EXTRA_MM = (30.0, 50.0)
CLOSE_S = (0.04, 0.10)             # the last closing of the fingers onto the object
# Grip to lift-off (Johansson & Westling 1984, Exp Brain Res 56:550): the preload and
# load phases of a light object take about 60-200 ms from contact to lift-off.
LOAD_S = (0.06, 0.20)
LIFT_HEIGHT_MM = (40.0, 120.0)     # how high a snatched figure is lifted
CARRY_S = (0.28, 0.55)             # lift-off to the figure in front of the player
# Reaction to a card, from the Geistesblitz data (docs/simulation.md): median 565 ms,
# 10-90 % 378-923 ms for direct cards (screen responses; a grab adds the reach).
REACTION_MEDIAN_S = 0.565
REACTION_SIGMA = 0.35


def minimum_jerk(u: float) -> float:
    """Flash & Hogan's minimum-jerk position profile on [0, 1]."""
    u = min(1.0, max(0.0, u))
    return u * u * u * (10.0 + u * (-15.0 + 6.0 * u))


def lab_to_bgr(lab: tuple[float, float, float]) -> BGR:
    """CIE L*a*b* (L 0-100) to 8-bit sRGB as BGR, through OpenCV's D65 conversion."""
    px = np.array([[[lab[0] * 255 / 100, lab[1] + 128, lab[2] + 128]]], np.float64)
    bgr = cv2.cvtColor(np.clip(px, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)[0, 0]
    return int(bgr[0]), int(bgr[1]), int(bgr[2])


def skin_bgr(kind: str, rng: Rng) -> BGR:
    """A skin colour of Fitzpatrick type `kind`, varied within its ITA class."""
    lab = SKIN_LAB[kind]
    return lab_to_bgr((lab[0] + rng.gauss(0, 1.5), lab[1] + rng.gauss(0, 1.5),
                       lab[2] + rng.gauss(0, 1.5)))


def uniform(rng: Rng, span: tuple[float, float]) -> float:
    """A value drawn evenly from `span`."""
    return span[0] + (span[1] - span[0]) * rng.random()


@dataclass(frozen=True)
class Body:
    """One player's body: arm lengths and widths, shoulders, hand, skin."""

    upper_arm: float
    forearm: float
    hand_length: float
    hand_breadth: float
    arm_diameter: float
    wrist_diameter: float
    shoulder_half: float
    shoulder_back: float
    shoulder_up: float
    left_handed: bool
    skin: BGR
    skin_type: str


def draw_body(rng: Rng, skin_type: str | None = None) -> Body:
    """A player drawn from the published spreads (a larger person is larger all over)."""
    size = rng.random()

    def part(span: tuple[float, float]) -> float:
        # Body sizes go together, with some spread of their own.
        v = size * 0.7 + rng.random() * 0.3
        return span[0] + (span[1] - span[0]) * v

    stature = part(STATURE)
    kind = skin_type or rng.choice(SKIN_TYPES)
    return Body(upper_arm=stature * UPPER_ARM, forearm=stature * FOREARM,
                hand_length=part(HAND_LENGTH), hand_breadth=part(HAND_BREADTH),
                arm_diameter=part(ARM_DIAMETER), wrist_diameter=part(WRIST_DIAMETER),
                shoulder_half=part(BIACROMIAL) / 2 - 20.0,
                shoulder_back=uniform(rng, SHOULDER_BEHIND_EDGE),
                shoulder_up=uniform(rng, SHOULDER_ABOVE_TABLE),
                left_handed=rng.random() < LEFT_HANDED, skin=skin_bgr(kind, rng),
                skin_type=kind)


def reach_duration(distance_mm: float, rng: Rng) -> float:
    """A fast reach's duration: the minimum-jerk time for a peak speed in the published range."""
    peak = uniform(rng, PEAK_SPEED_M_S) * 1000.0
    return max(0.18, 1.875 * distance_mm / peak)


def reaction_s(rng: Rng) -> float:
    """Reveal to the hand starting to move (log-normal around the published median)."""
    return max(0.18, REACTION_MEDIAN_S * math.exp(rng.gauss(0.0, REACTION_SIGMA)) - 0.15)

"""Each seat's arm by its colours: who owns which pixels where arms touch.

Arms that touch or cross are one foreground region. Geometry alone (each
arm's straight band from its edge crossing, `detect._band_tips`) parts them
badly where hands lie side by side at the pads, and not at all when an arm
is invisible at the table's edge (a forearm the colour of the wood) and only
its hand shows, joined to a neighbour's arm. People differ in sleeves and
skin, so each seat's arm, seen alone, teaches a colour histogram of it, and a
pixel of a joined region that is far likelier one seat's than any other's is
that seat's. This is the colour-histogram appearance model of kernel-based
tracking (Comaniciu, Ramesh & Meer 2003, IEEE TPAMI 25:564) and of colour
particle filters (Pérez et al. 2002, ECCV): cheap, rotation-free, and robust
to an arm's changing shape. A pixel whose colour does not tell (two players
in the same sweater, or the same skin) is left to geometry.

Histograms are over Lab with the frame's brightness divided out, so a lamp
turned down does not change whose pixels are whose.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

L_BINS, AB_BINS = 8, 16
AB_LO, AB_HI = 64.0, 192.0        # 8-bit Lab a and b of any sleeve or skin lie in here
BINS = L_BINS * AB_BINS * AB_BINS
LEARN_MIN_PX = 150                # an arm seen alone this large (half-resolution px) teaches
KEEP = 0.85                       # of the old histogram at each lesson: a sleeve pushed up shows
RATIO = 8.0                       # this much likelier one seat's than every other's: that seat's
COMMON = 3.0                      # ... and this much likelier than any colour at all
RECENT_S = 0.5                    # how long a seat's last crossing and tip are remembered


class ArmLooks:
    """Per seat: a smoothed colour histogram of its arm, and where it was last seen."""

    def __init__(self) -> None:
        self.hist: dict[int, npt.NDArray[np.float32]] = {}
        # seat -> (t_s, edge crossing, tip), half-resolution pixels, from the last frame
        # the seat's arm was found.
        self.last: dict[int, tuple[float, tuple[float, float], tuple[float, float]]] = {}

    def reset(self) -> None:
        """Forget every seat (after recalibration)."""
        self.hist.clear()
        self.last.clear()

    @staticmethod
    def bins(bgr: npt.NDArray[np.uint8], gain: float = 1.0) -> npt.NDArray[np.intp]:
        """Each pixel's histogram bin (`bgr` is n x 3)."""
        if len(bgr) == 0:
            return np.zeros(0, np.intp)
        if abs(gain - 1.0) > 0.02:
            # The light divided out before the colour is taken: dimming moves a and b too.
            bgr = np.clip(bgr.astype(np.float32) / max(gain, 1e-3), 0, 255).astype(np.uint8)
        lab = cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
        lab = lab.astype(np.float32)
        li = np.clip(lab[:, 0] * (L_BINS / 256.0), 0, L_BINS - 1).astype(np.intp)
        scale = AB_BINS / (AB_HI - AB_LO)
        ai = np.clip((lab[:, 1] - AB_LO) * scale, 0, AB_BINS - 1).astype(np.intp)
        bi = np.clip((lab[:, 2] - AB_LO) * scale, 0, AB_BINS - 1).astype(np.intp)
        out: npt.NDArray[np.intp] = (li * AB_BINS + ai) * AB_BINS + bi
        return out

    def learn(self, seat: int, bins: npt.NDArray[np.intp]) -> None:
        """Take in the pixels of `seat`'s arm, seen alone."""
        if len(bins) < LEARN_MIN_PX:
            return
        h = np.bincount(bins, minlength=BINS).astype(np.float32).reshape(L_BINS, AB_BINS, AB_BINS)
        # Smoothed: noise, blur and JPEG move a colour into the next bin.
        # The a-b plane of every lightness at once: the L slices as channels.
        h = np.asarray(cv2.GaussianBlur(np.ascontiguousarray(h.transpose(1, 2, 0)), (3, 3), 0.8
                                        ).transpose(2, 0, 1), np.float32)
        lo = np.concatenate([h[:1], h[:-1]])
        hi = np.concatenate([h[1:], h[-1:]])
        flat = (0.25 * lo + 0.5 * h + 0.25 * hi).reshape(-1).astype(np.float32)
        flat /= max(float(flat.sum()), 1.0)
        old = self.hist.get(seat)
        self.hist[seat] = flat if old is None else KEEP * old + (1 - KEEP) * flat

    def seen(self, seat: int, t_s: float, entry: tuple[float, float],
             tip: tuple[float, float], *, crossing: bool = True) -> None:
        """Note where `seat`'s arm crossed the edge and ended at `t_s`.

        An arm found only by its colours (`crossing` False) moves the tip on but
        not the time: it is remembered for `RECENT_S` from the last frame it was
        seen crossing the edge, so a still patch of its colours (a ghost in the
        background model) cannot keep itself alive as an arm.
        """
        last = self.last.get(seat)
        if not crossing and last is not None:
            t_s = last[0]
        self.last[seat] = (t_s, entry, tip)

    def recent(self, seat: int, t_s: float
               ) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """Where `seat`'s arm last crossed the edge and ended, if lately."""
        last = self.last.get(seat)
        if last is None or t_s - last[0] > RECENT_S:
            return None
        return last[1], last[2]

    def loglik(self, seats: list[int], bins: npt.NDArray[np.intp]) -> npt.NDArray[np.float32]:
        """n x len(seats): log of how much likelier each pixel is the seat's than any colour."""
        floor = 0.05 / BINS
        out = np.zeros((len(bins), len(seats)), np.float32)
        for j, s in enumerate(seats):
            h = self.hist.get(s)
            if h is not None:
                out[:, j] = np.log((h[bins] + floor) * BINS)
        return out


def decisive(ll: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Per pixel: the likeliest seat (column), and whether its colour settles it."""
    best: npt.NDArray[np.intp] = np.argmax(ll, axis=1).astype(np.intp)
    if ll.shape[1] < 2:
        return best, ll[:, 0] >= math.log(COMMON) if ll.shape[1] else np.zeros(len(ll), bool)
    part = np.partition(ll, ll.shape[1] - 2, axis=1)
    top, second = part[:, -1], part[:, -2]
    sure: npt.NDArray[np.bool_] = (top - second >= math.log(RATIO)) & (top >= math.log(COMMON))
    return best, sure

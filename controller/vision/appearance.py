"""What each figure looks like, learned at calibration: its colours, size and outline.

A painted wooden figure seen from above is several tones (its paint lit and
in shade, details such as a helmet, straps or ears), so a figure's colour is
a few clusters in Lab, not one mean. The table and the empty pads get
clusters of their own. `ColourLut` turns these into a lookup table over all
32768 quantised BGR colours: which of them is nearest to (and within three
spreads of) one of the figures, the table, a pad, or none. Labelling a
window of pixels is then one table lookup per pixel, cheap enough for every
frame, and the same rule everywhere (calibration, pads, lifted figures).

A figure's identity is never a single pixel's label: `FigureModel` also
keeps its silhouette at home (its outline in the image, where parallax puts
it) and its area, so a patch the right colour but the wrong size (a sleeve,
a marker's white border) is not taken for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from controller.knapp.cards import Figure
from controller.vision.frames import Image

Lab = tuple[float, float, float]
# Below these a cluster's spread is noise and JPEG, not the surface (OpenCV 8-bit Lab).
MIN_SPREAD: Lab = (7.0, 4.5, 4.5)
WITHIN = 3.2          # a colour within this many spreads of a cluster is that cluster's
TABLE, PAD, NONE = 5, 6, 7
CLASSES = len(Figure)
QUANT = 3             # bits dropped per BGR channel for the lookup table (32 levels)


@dataclass(frozen=True)
class Clusters:
    """A surface's colours: cluster means and per-axis spreads in OpenCV Lab, and weights."""

    means: tuple[Lab, ...]
    spreads: tuple[Lab, ...]
    weights: tuple[float, ...]

    def distance(self, lab: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Each colour's distance to the nearest cluster, in that cluster's spreads."""
        flat = lab.reshape(-1, 3)
        best = np.full(len(flat), np.inf, np.float32)
        for m, s in zip(self.means, self.spreads, strict=True):
            d = np.sqrt((((flat - np.asarray(m, np.float32)) / np.asarray(s, np.float32)) ** 2)
                        .sum(axis=1))
            best = np.minimum(best, d)
        return best.reshape(lab.shape[:-1])

    def main(self) -> Lab:
        """The dominant cluster's mean."""
        return self.means[int(np.argmax(self.weights))]

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"means": [list(m) for m in self.means], "spreads": [list(s) for s in self.spreads],
                "weights": list(self.weights)}

    @classmethod
    def from_json(cls, data: Any) -> Clusters:
        """Rebuild from `to_json`."""
        means = tuple(_lab3(m) for m in data["means"])
        spreads = tuple(_lab3(s) for s in data["spreads"])
        weights = tuple(float(w) for w in data["weights"])
        if not means or len(means) != len(spreads) or len(means) != len(weights):
            raise ValueError("clusters need as many means, spreads and weights, at least one")
        return cls(means, spreads, weights)


def _lab3(v: Any) -> Lab:
    t = tuple(float(x) for x in v)
    if len(t) != 3:
        raise ValueError("a Lab colour has 3 values")
    return (t[0], t[1], t[2])


def to_lab(bgr: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """BGR pixels (any shape ending in 3) to OpenCV 8-bit Lab as float32."""
    shape = bgr.shape
    lab = cv2.cvtColor(np.ascontiguousarray(bgr.reshape(-1, 1, 3)), cv2.COLOR_BGR2LAB)
    return lab.reshape(shape).astype(np.float32)


def learn_clusters(bgr: npt.NDArray[np.uint8], k: int = 3, *, seed: int = 1) -> Clusters:
    """Learn up to `k` colour clusters from BGR pixels (N x 3); tiny clusters are dropped."""
    lab = to_lab(bgr.reshape(-1, 3))
    k = max(1, min(k, len(lab) // 20))
    if k == 1:
        labels = np.zeros(len(lab), np.int32)
    else:
        cv2.setRNGSeed(seed)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
        # OpenCV's stubs type kmeans differently from release to release; the call
        # is the documented one.
        kmeans: Any = cv2.kmeans
        _c, lab_k, _centres = kmeans(lab, k, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
        labels = np.asarray(lab_k, np.int32).ravel()
    means: list[Lab] = []
    spreads: list[Lab] = []
    weights: list[float] = []
    for j in range(k):
        px = lab[labels == j]
        w = len(px) / len(lab)
        if w < 0.06 and k > 1:
            continue
        med = np.median(px, axis=0)
        mad = np.median(np.abs(px - med), axis=0) * 1.4826
        means.append((float(med[0]), float(med[1]), float(med[2])))
        spreads.append(tuple(max(float(mad[i]), MIN_SPREAD[i]) for i in range(3)))  # type: ignore[arg-type]
        weights.append(w)
    total = sum(weights)
    return Clusters(tuple(means), tuple(spreads), tuple(w / total for w in weights))


def separation(a: Clusters, b: Clusters) -> float:
    """How far apart two surfaces' dominant colours are (Lab units)."""
    return math.dist(a.main(), b.main())


@dataclass(frozen=True)
class FigureModel:
    """One figure at home, as calibrated.

    Args:
        figure: which figure.
        colours: its colour clusters.
        outline: its silhouette at home, image pixels (a polygon).
        centroid: the silhouette's centre, image pixels.
        area_px: the silhouette's area, image pixels.
    """

    figure: Figure
    colours: Clusters
    outline: tuple[tuple[float, float], ...]
    centroid: tuple[float, float]
    area_px: float

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"colours": self.colours.to_json(),
                "outline": [[round(x, 2), round(y, 2)] for x, y in self.outline],
                "centroid": [round(self.centroid[0], 3), round(self.centroid[1], 3)],
                "area_px": round(self.area_px, 2)}

    @classmethod
    def from_json(cls, figure: Figure, data: Any) -> FigureModel:
        """Rebuild from `to_json`."""
        outline = tuple((float(p[0]), float(p[1])) for p in data["outline"])
        if len(outline) < 3:
            raise ValueError(f"the {figure.value}'s outline needs at least 3 points")
        c = data["centroid"]
        return cls(figure, Clusters.from_json(data["colours"]), outline,
                   (float(c[0]), float(c[1])), float(data["area_px"]))

    def mask(self, shape: tuple[int, int], offset: tuple[int, int] = (0, 0),
             scale: float = 1.0) -> npt.NDArray[np.uint8]:
        """The silhouette as a 0/255 mask of `shape`, its pixels shifted by `-offset`."""
        out = np.zeros(shape, np.uint8)
        pts = ((np.asarray(self.outline) * scale - np.asarray(offset)) * 16).round()
        cv2.fillPoly(out, [pts.astype(np.int32)], 255, cv2.LINE_8, 4)
        return out


class ColourLut:
    """Quantised BGR -> the nearest surface class: figure 0-4, TABLE, PAD, or NONE.

    Args:
        figures: each figure's colours, in `Figure` order.
        table: the table's colours.
        pad: the empty pads' colours.
    """

    def __init__(self, figures: list[Clusters], table: Clusters, pad: Clusters) -> None:
        levels = np.arange(1 << (8 - QUANT), dtype=np.uint8) * (1 << QUANT) + (1 << (QUANT - 1))
        b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
        centres = np.stack([b, g, r], axis=-1).reshape(-1, 3).astype(np.uint8)
        lab = to_lab(centres)
        dist = np.stack([c.distance(lab) for c in [*figures, table, pad]], axis=1)
        nearest = np.argmin(dist, axis=1)
        ok = dist[np.arange(len(dist)), nearest] <= WITHIN
        self.classes = np.where(ok, nearest, NONE).astype(np.uint8)
        # Clipped white (every channel at the top) is white whatever the light: the dog.
        self.white = [i for i, c in enumerate(figures) if c.main()[0] > 215]

    def label(self, bgr: npt.NDArray[np.uint8], gain: tuple[float, float, float] | None = None
              ) -> npt.NDArray[np.uint8]:
        """Each pixel's class; `gain` (the light now relative to calibration) is divided out."""
        px = bgr
        if gain is not None and any(abs(g - 1.0) > 0.01 for g in gain):
            px = np.asarray(cv2.multiply(bgr, np.array([1 / gain[0], 1 / gain[1],
                                                        1 / gain[2], 0]), dtype=cv2.CV_8U),
                            np.uint8)
        q = (px >> QUANT).astype(np.int32)
        idx = (q[..., 0] << (2 * (8 - QUANT))) | (q[..., 1] << (8 - QUANT)) | q[..., 2]
        out = self.classes[idx]
        if self.white and gain is not None and min(gain) > 1.0:
            clipped = bgr.min(axis=-1) >= 250
            out = np.where(clipped, np.uint8(self.white[0]), out)
        return np.asarray(out, np.uint8)


def silhouette(labels: npt.NDArray[np.uint8], index: int, seed_mask: npt.NDArray[np.uint8]
               ) -> npt.NDArray[np.uint8]:
    """The connected patch of class `index` that overlaps `seed_mask` most (0/255), holes filled."""
    mine = (labels == index).astype(np.uint8)
    n, comp = cv2.connectedComponents(mine, connectivity=8)
    if n <= 1:
        return np.zeros_like(mine)
    overlap = np.bincount(comp[seed_mask > 0].ravel(), minlength=n)
    overlap[0] = 0
    best = int(np.argmax(overlap))
    if overlap[best] == 0:
        return np.zeros_like(mine)
    out: npt.NDArray[np.uint8] = (comp == best).astype(np.uint8) * 255
    contours, _ = cv2.findContours(out, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cv2.drawContours(out, contours, -1, 255, -1)
    return out


def image_mean(img: Image) -> float:
    """Mean brightness of a picture (a cheap check for a dark frame)."""
    return float(img[::16, ::16].mean())

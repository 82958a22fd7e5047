"""Scoring the camera against labelled rounds: synthetic ones and a table's own.

A labelled round is a video and what really happened in it (`truth`): each
grab's seat, figure and lift time, each feint. For the synthetic world the
truth is exact; at a real table with pads it is what the table settled: the
pads' lift time and the seat of the verdict the table accepted (or its answer
to "who took it?"). `score` compares the camera's decisions with the truth;
`Tally` adds rounds up per kind; `evaluate_dir` analyses a directory of
labelled clips (`knapp vision eval DIR`), and `read_scores` gives a table's
own measured accuracy for its setup page.

Truth times are seconds from the video's first frame; decisions are the
`knapp vision analyze --json` objects (ms from the first frame).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.vision.confidence import ASK_BELOW

SCORES_FILE = "scores.json"
FORMAT = "knapp-camera-scores/1"
LABEL_FORMAT = "knapp-labelled-round/1"
MATCH_WINDOW_MS = 300.0
SAME_FIGURE_MS = 1500.0   # how far off a grab of the same figure may be and still be this one


@dataclass
class Tally:
    """What the camera got right and wrong over some rounds.

    A grab is *asked* when the camera named no seat or named one with less than
    `ASK_BELOW` confidence (the referee then asks the table); a wrong seat
    above it is the worst outcome the camera can produce.
    """

    rounds: int = 0
    frames: int = 0
    grabs: int = 0
    seat_ok: int = 0
    figure_ok: int = 0
    asked: int = 0
    wrong_confident: int = 0
    missed: int = 0
    phantom: int = 0
    feints: int = 0
    feints_as_grabs: int = 0
    lift_within_frame: int = 0
    lift_timed: int = 0
    covered: int = 0
    rivals: int = 0
    rivals_found: int = 0
    lift_err_frames: list[float] = field(default_factory=list)
    # The stated uncertainty of each timed lift (frames): coverage bought with width
    # is no gain, so the width is reported beside it.
    lift_unc_frames: list[float] = field(default_factory=list)
    reliability: list[tuple[float, bool]] = field(default_factory=list)   # (confidence, right)
    failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add another tally's counts to this one."""
        for k, v in vars(other).items():
            setattr(self, k, getattr(self, k) + v)

    def rates(self) -> dict[str, float]:
        """The headline shares (NaN where there is nothing to count)."""

        def share(a: int, b: int) -> float:
            return a / b if b else math.nan

        return {"seat": share(self.seat_ok, self.grabs),
                "figure": share(self.figure_ok, self.grabs),
                "lift_within_frame": share(self.lift_within_frame, self.lift_timed),
                "covered": share(self.covered, self.lift_timed),
                "asked": share(self.asked, self.grabs),
                "seat_answered": share(self.seat_ok, self.grabs - self.asked)}

    def to_json(self) -> dict[str, Any]:
        """The counts, and the shares under "rates" (no per-grab lists).

        The shares have names of their own: "asked" is both a count and a share.
        """
        out: dict[str, Any] = {k: v for k, v in vars(self).items() if not isinstance(v, list)}
        out["rates"] = {k: (None if math.isnan(v) else round(v, 5))
                        for k, v in self.rates().items()}
        return out


def _match(truth_grabs: list[dict[str, Any]], grabs: list[dict[str, Any]]
           ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Pair each true grab with the camera's grab of that figure near its lift."""
    used: set[int] = set()
    paired: dict[int, int] = {}
    order = sorted(range(len(truth_grabs)), key=lambda k: truth_grabs[k]["lift_s"])
    # A figure leaves its pad once a round: the camera's grab of it is about this grab
    # even when its time is far off (a timing error, not a phantom and a wrong seat).
    # Those pairs are made first, so that another figure's grab near in time cannot
    # take a grab whose own figure was taken too (it would count one right grab as a
    # wrong seat and a miss).
    for k in order:
        e = truth_grabs[k]
        lift_ms = e["lift_s"] * 1000
        same = [i for i, d in enumerate(grabs) if i not in used and d["lift_ms"] is not None
                and d["figure"] == e["figure"] and abs(d["lift_ms"] - lift_ms) <= SAME_FIGURE_MS]
        best = min(same, key=lambda i: abs(grabs[i]["lift_ms"] - lift_ms), default=None)
        if best is not None:
            used.add(best)
            paired[k] = best
    for k in order:
        if k in paired:
            continue
        lift_ms = truth_grabs[k]["lift_s"] * 1000
        near = [i for i, d in enumerate(grabs) if i not in used and d["lift_ms"] is not None
                and abs(d["lift_ms"] - lift_ms) <= max(MATCH_WINDOW_MS, d["uncertainty_ms"])]
        best = min(near, key=lambda i: abs(grabs[i]["lift_ms"] - lift_ms), default=None)
        if best is not None:
            used.add(best)
            paired[k] = best
    return [(e, grabs[paired[k]] if k in paired else None) for k, e in enumerate(truth_grabs)]


def score(truth: list[dict[str, Any]], decisions: list[dict[str, Any]], fps: float,
          *, name: str = "", frames: int = 0) -> Tally:
    """Compare one round's decisions with its truth."""
    t = Tally(rounds=1, frames=frames)
    period_ms = 1000 / fps
    grabs = [d for d in decisions if d["kind"] == "grab"]
    pairs = _match([e for e in truth if e["kind"] == "grab"], grabs)
    used = {id(d) for _, d in pairs if d is not None}
    for e, d in pairs:
        t.grabs += 1
        if d is None:
            t.missed += 1
            t.asked += 1
            t.failures.append(f"{name}: {e['seat']} took the {e['figure']}: not seen")
            continue
        t.figure_ok += d["figure"] == e["figure"]
        asked = d["seat"] is None or d["confidence"] < ASK_BELOW
        right = d["seat"] == e["seat"] and d["figure"] == e["figure"]
        t.reliability.append((float(d["confidence"]), right))
        if asked:
            t.asked += 1
        elif right:
            t.seat_ok += 1
        else:
            t.wrong_confident += 1
        if not right:
            t.failures.append(f"{name}: {e['seat']} took the {e['figure']}; camera said "
                              f"{d['seat']} {d['figure']} ({d['confidence']:.2f})")
        if e.get("lift_s") is not None and d["lift_ms"] is not None:
            err = abs(d["lift_ms"] - e["lift_s"] * 1000)
            t.lift_timed += 1
            t.lift_err_frames.append(err / period_ms)
            t.lift_unc_frames.append(d["uncertainty_ms"] / period_ms)
            t.lift_within_frame += err <= period_ms
            t.covered += err <= d["uncertainty_ms"] + 1e-6
        claimed = {c["seat"] for c in d["other_claims"]} | {d["seat"]}
        for seat, _ in e.get("others", []):
            t.rivals += 1
            t.rivals_found += seat in claimed
    extra = [d for d in grabs if id(d) not in used]
    t.phantom += len(extra)
    for d in extra:
        t.failures.append(f"{name}: phantom grab of the {d['figure']} by {d['seat']} at "
                          f"{d['lift_ms']} ms")
    for e in (e for e in truth if e["kind"] == "feint"):
        t.feints += 1
        t.feints_as_grabs += any(d["seat"] == e["seat"] and d["figure"] == e["figure"]
                                 for d in extra)
    return t


# -- labelled clips on disk -----------------------------------------------------------------------


@dataclass(frozen=True)
class Labelled:
    """A labelled clip: the video, its truth, its kind, and its own `[camera]` section if any."""

    video: Path
    truth: list[dict[str, Any]]
    fps: float
    kind: str
    camera: dict[str, Any] | None
    seats: tuple[str, ...]


def read_labels(folder: Path) -> list[Labelled]:
    """Every `NAME.json` label with a video `NAME.*` beside it, in name order.

    Raises:
        ValueError: a label file that is not JSON or not a labelled round, naming it.
    """
    out: list[Labelled] = []
    for label in sorted(folder.glob("*.json")):
        if label.name == SCORES_FILE:
            continue
        try:
            data = json.loads(label.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{label}: not a readable label file: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != LABEL_FORMAT:
            raise ValueError(f"{label}: not a labelled round (format should be {LABEL_FORMAT!r})")
        videos = [p for p in label.parent.glob(label.stem + ".*") if p.suffix != ".json"]
        if not videos:
            raise ValueError(f"{label}: no video {label.stem}.* beside it")
        try:
            out.append(Labelled(videos[0], list(data["truth"]), float(data["fps"]),
                                str(data.get("kind", "table")), data.get("camera"),
                                tuple(data.get("seats", ()))))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{label}: malformed label: {exc!r}") from exc
    return out


def write_label(path: Path, truth: Iterable[dict[str, Any]], *, fps: float, kind: str,
                camera: dict[str, Any] | None = None, seats: tuple[str, ...] = ()) -> None:
    """Write a clip's label file (`NAME.json` beside `NAME.mkv`)."""
    path.write_text(json.dumps({"format": LABEL_FORMAT, "fps": fps, "kind": kind,
                                "seats": list(seats), "camera": camera,
                                "truth": list(truth)}, indent=1) + "\n", encoding="utf-8")


def evaluate(rounds: list[Labelled],
             analyse: Callable[[Labelled], tuple[list[dict[str, Any]], int]]
             ) -> dict[str, Tally]:
    """Score every round with `analyse` (its decisions as JSON, its frame count); per kind."""
    by_kind: dict[str, Tally] = {}
    for r in rounds:
        decisions, frames = analyse(r)
        by_kind.setdefault(r.kind, Tally()).add(score(r.truth, decisions, r.fps,
                                                      name=r.video.name, frames=frames))
    return by_kind


def save_scores(folder: Path, by_kind: dict[str, Tally], *, source: str) -> Path:
    """Write `scores.json`: per kind and overall, as the setup page reads it."""
    total = Tally()
    for t in by_kind.values():
        total.add(t)
    path = folder / SCORES_FILE
    path.write_text(json.dumps({"format": FORMAT, "source": source, "total": total.to_json(),
                                "kinds": {k: t.to_json() for k, t in sorted(by_kind.items())}},
                               indent=1) + "\n", encoding="utf-8")
    return path


def read_scores(folder: Path | None) -> dict[str, Any] | None:
    """A table's measured accuracy from its recorded rounds (`scores.json`), or None."""
    if folder is None:
        return None
    path = folder / SCORES_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    total = data.get("total", {})
    rates = total.get("rates", {})
    return {"rounds": total.get("rounds", 0), "grabs": total.get("grabs", 0),
            "seat": rates.get("seat"), "asked": rates.get("asked"),
            "lift_within_frame": rates.get("lift_within_frame"),
            "wrong_confident": total.get("wrong_confident", 0), "source": data.get("source")}


def _median(xs: list[float]) -> str:
    """The median, one decimal (the column "unc fr": a lift's stated uncertainty in frames)."""
    return f"{statistics.median(xs):.1f}" if xs else "n/a"


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:6.2f}" if b else "   n/a"


def report(name: str, by_kind: dict[str, Tally]) -> tuple[str, Tally]:
    """A per-kind table of `by_kind` (and its total, returned too), as the bench prints it."""
    total = Tally()
    for t in by_kind.values():
        total.add(t)
    lines = [f"{name}: {total.rounds} rounds, {total.frames} frames, {total.grabs} grabs, "
             f"{total.feints} feints",
             f"  {'kind':<9}{'grabs':>6}{'seat %':>8}{'figure %':>9}{'asked %':>8}"
             f"{'wrong>thr':>10}{'lift<=1fr %':>12}{'covered %':>10}{'unc fr':>7}"
             f"{'phantom':>8}{'missed':>7}"]
    for kind, t in [*sorted(by_kind.items()), ("all", total)]:
        lines.append(f"  {kind:<9}{t.grabs:>6}{_pct(t.seat_ok, t.grabs):>8}"
                     f"{_pct(t.figure_ok, t.grabs):>9}{_pct(t.asked, t.grabs):>8}"
                     f"{t.wrong_confident:>10}{_pct(t.lift_within_frame, t.lift_timed):>12}"
                     f"{_pct(t.covered, t.lift_timed):>10}{_median(t.lift_unc_frames):>7}"
                     f"{t.phantom:>8}{t.missed:>7}")
    return "\n".join(lines), total

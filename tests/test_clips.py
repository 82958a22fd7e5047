"""Labelled clips: the truth a settled round gives, the clip's timeline, retention, layout."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from controller.config import parse_config
from controller.evidence.clips import (
    TrueGrab,
    camera_section,
    enforce_clips,
    relabel,
    round_truth,
    truth_json,
    video_seconds,
)
from controller.knapp.cards import Figure
from controller.knapp.match import Claim, Outcome, Round

MS = 1_000_000


def claim(seat: str, figure: Figure, t_ms: int, source: str = "gpio+camera",
          correct: bool = False) -> Claim:
    return Claim(seat, figure, t_ms * MS, 50_000, source, correct, False, t_ms * MS)


def settled(*claims: Claim, outcome: Outcome = Outcome.WON,
            corrections: tuple[dict[str, Any], ...] = ()) -> Round:
    return Round(0, None, Figure.DOG, "", 0, 0, None, "Ada",  # type: ignore[arg-type]
                 claims=list(claims), outcome=outcome, corrections=list(corrections))


def test_the_truth_is_the_pads_lift_times_and_the_accepted_seats() -> None:
    rnd = settled(claim("Ben", Figure.DOG, 900, correct=True), claim("Ada", Figure.SHIP, 700),
                  claim("Cleo", Figure.CHEST, 950, "serial+table"))
    assert round_truth(rnd) == [TrueGrab("Ada", "ship", 700 * MS),
                                TrueGrab("Ben", "dog", 900 * MS),
                                TrueGrab("Cleo", "chest", 950 * MS)]
    # The card given to another seat: the referee says that seat took the right figure.
    given = settled(claim("Ben", Figure.DOG, 900, correct=True), claim("Ada", Figure.SHIP, 700),
                    corrections=({"kind": "awarded", "seat": "Cleo"},))
    assert round_truth(given) == [TrueGrab("Ada", "ship", 700 * MS),
                                  TrueGrab("Cleo", "dog", 900 * MS)]


@pytest.mark.parametrize("rnd", [
    settled(claim("Ben", Figure.DOG, 900, "camera+camera", correct=True)),   # no pads
    settled(claim("Ben", Figure.DOG, 900, "camera contact", correct=True),   # two hands
            claim("Ada", Figure.DOG, 910, "camera contact", correct=True)),
    settled(claim("Ben", Figure.DOG, 900, correct=True), outcome=Outcome.VOID),
    settled(claim("Ben", Figure.DOG, 900, correct=True), outcome=Outcome.UNDONE),
    settled(claim("Ben", Figure.DOG, 900, correct=True), outcome=Outcome.REDEAL),
    settled(outcome=Outcome.BOXED),                                          # nobody grabbed
    settled(claim("Ada", Figure.SHIP, 700), outcome=Outcome.WON,
            corrections=({"kind": "awarded", "seat": "Ben"},)),              # given, no grab
    settled(claim("Ben", Figure.DOG, 900, correct=True), outcome=None),      # not settled # type: ignore[arg-type]
], ids=["camera-only", "contact", "void", "undone", "redeal", "empty", "awarded-blind",
        "open"])
def test_no_truth_when_the_log_does_not_know_it(rnd: Round) -> None:
    assert round_truth(rnd) is None


def test_host_times_land_on_the_videos_timeline_through_the_frames_real_times() -> None:
    # Frame 2 came late and frame 3 never (dropped): the video plays frame k at k / 30 s.
    stamps = [1000 * MS, 1033 * MS, 1080 * MS, 1133 * MS]
    assert video_seconds(1033 * MS, stamps, 30.0) == pytest.approx(1 / 30)
    assert video_seconds(1056 * MS + MS // 2, stamps, 30.0) == pytest.approx(1.5 / 30)
    assert video_seconds(1106 * MS + MS // 2, stamps, 30.0) == pytest.approx(2.5 / 30)
    assert video_seconds(990 * MS, stamps, 30.0) == pytest.approx(-0.010)
    assert video_seconds(1143 * MS, stamps, 30.0) == pytest.approx(3 / 30 + 0.010)
    assert truth_json([TrueGrab("Ada", "dog", 1033 * MS)], stamps, 30.0) == [
        {"kind": "grab", "seat": "Ada", "figure": "dog", "touch_s": None,
         "lift_s": round(1 / 30, 6), "others": []}]


def _clip(root: Path, name: str, age_days: float, size: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    when = time.time() - age_days * 86_400
    for suffix, n in ((".avi", size), (".json", 10)):
        p = root / (name + suffix)
        p.write_bytes(b"x" * n)
        os.utime(p, (when, when))


def test_retention_by_age_and_size_keeps_held_rounds_and_the_scores(tmp_path: Path) -> None:
    d = tmp_path / "clips"
    _clip(d, "m-000", 40, 100)
    _clip(d, "m-001", 40, 100)
    _clip(d, "m-002", 2, 1000)
    _clip(d, "m-003", 1, 1000)
    (d / "scores.json").write_text("{}", encoding="utf-8")
    (d / "notes.txt").write_text("mine", encoding="utf-8")
    report = enforce_clips(d, holds={"m-001-dog"}, max_age_s=30 * 86_400, max_bytes=1500,
                           now_s=time.time())
    assert report.held == ["m-001"]
    assert report.deleted == ["m-000", "m-002"]  # too old; then the oldest until under 1500
    assert report.kept == ["m-003"]
    assert sorted(p.name for p in d.iterdir()) == [
        "m-001.avi", "m-001.json", "m-003.avi", "m-003.json", "notes.txt", "scores.json"]
    assert enforce_clips(tmp_path / "none", holds=set(), max_age_s=0, max_bytes=0,
                         now_s=0).deleted == []


def test_relabel_rewrites_the_truth_and_a_round_without_truth_loses_its_clip(
        tmp_path: Path) -> None:
    stamps = [0, 33 * MS, 66 * MS]
    label = {"format": "knapp-labelled-round/1", "fps": 30.0, "truth": [],
             "recorded": {"frame_t_ns": stamps}}
    (tmp_path / "m-000.json").write_text(json.dumps(label), encoding="utf-8")
    (tmp_path / "m-000.avi").write_bytes(b"v")
    relabel(tmp_path, "m-000", [TrueGrab("Ben", "dog", 33 * MS)])
    truth = json.loads((tmp_path / "m-000.json").read_text(encoding="utf-8"))["truth"]
    assert [(e["seat"], e["lift_s"]) for e in truth] == [("Ben", round(1 / 30, 6))]
    assert relabel(tmp_path, "m-000", None) is None
    assert list(tmp_path.iterdir()) == []


def test_the_labels_camera_section_parses_back_to_the_same_layout() -> None:
    seats = ["Ada", "Ben", "Cleo", "Dan"]
    cam = parse_config({"table": {"seats": seats}, "camera": {
        "table_mm": [1000, 700], "markers": {"size_mm": 60},
        "pads": {"radius_mm": 40, "dog": {"at": [300, 300], "radius_mm": 45}},
        "figures": {"ship": [70, 40, 60]},
        "seats": {"Ada": [500, 700], "Ben": [0, 350],
                  "Cleo": {"at": [500, 0], "zone": [[300, 0], [700, 0], [700, 150], [300, 150]]},
                  "Dan": [1000, 350]}}}).camera
    again = parse_config({"table": {"seats": seats}, "camera": camera_section(cam)}).camera
    assert again == cam

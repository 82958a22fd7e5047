"""`knapp vision eval DIR`: the camera scored on a folder of labelled clips."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.cli import main
from controller.knapp.cards import Figure
from controller.sim.render import Scene, Style, TableRenderer, TruthEvent, write_video
from controller.vision.calibrate import calibrate
from controller.vision.evaluate import Tally, read_scores, score, write_label

from .conftest import SEATS, grab

CONFIG = f'[table]\nseats = {json.dumps(SEATS)}\n[camera]\nsource = "sim"\n'
FPS = 30.0


def _truth(events: list[TruthEvent]) -> list[dict[str, Any]]:
    return [{"kind": e.kind, "seat": e.seat, "figure": e.figure.value, "touch_s": e.touch_s,
             "lift_s": e.lift_s, "others": [list(o) for o in e.others]} for e in events]


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory, cam: Any) -> Path:
    """Two rendered rounds with their labels: one carries its layout, one leaves it to
    the table's file."""
    d = tmp_path_factory.mktemp("clips")
    (d.parent / f"{d.name}.toml").write_text(CONFIG, encoding="utf-8")
    scenes = {
        "a": Scene(cam, (grab("Ada", Figure.CHEST, 0.3, hold=0.15),
                         grab("Cleo", Figure.DOG, 0.3, lifts=False, short_mm=15)),
                   duration_s=1.5, fps=FPS, style=Style(tilt=0.05, noise=2), seed=8),
        "b": Scene(cam, (grab("Ben", Figure.SHIP, 0.2, hold=0.15),),
                   duration_s=1.3, fps=FPS, style=Style(tilt=0.03, noise=2), seed=3),
    }
    for name, scene in scenes.items():
        renderer = write_video(scene, str(d / f"{name}.mkv"))
        write_label(d / f"{name}.json", _truth(renderer.ground_truth()), fps=FPS,
                    kind="grab" if name == "a" else "table",
                    camera={} if name == "a" else None, seats=tuple(SEATS) if name == "a" else ())
    return d


def _config(d: Path) -> str:
    return str(d.parent / f"{d.name}.toml")


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_eval_gives_the_scores_score_gives_for_the_analysed_decisions(
        clips: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The decisions the product's own analyse path gives, clip by clip, scored by hand.
    expected: dict[str, Tally] = {}
    for name, kind in (("a", "grab"), ("b", "table")):
        assert main(["vision", "analyze", str(clips / f"{name}.mkv"), "--config",
                     _config(clips), "--json"]) == 0
        decisions = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        label = json.loads((clips / f"{name}.json").read_text(encoding="utf-8"))
        expected.setdefault(kind, Tally()).add(score(label["truth"], decisions, FPS,
                                                     name=f"{name}.mkv"))
    assert main(["vision", "eval", str(clips), "--config", _config(clips), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for kind, tally in expected.items():
        want = {k: v for k, v in tally.to_json().items() if k != "frames"}
        got = {k: v for k, v in out["kinds"][kind].items() if k != "frames"}
        assert got == want, kind
    assert out["total"]["rounds"] == 2 and out["total"]["grabs"] == 2
    assert out["total"]["frames"] == 45 + 39
    assert out["unscored"] == []


def test_eval_prints_the_table_and_the_overall_lines_and_saves_scores(
        clips: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _copy(clips, tmp_path / "clips")
    assert main(["vision", "eval", str(d), "--config", _config(clips), "--save"]) == 0
    out = capsys.readouterr().out
    assert "clips: 2 rounds, 84 frames, 2 grabs, 1 feints" in out
    assert "overall: rests on 2 round(s), 2 grab(s), 84 frames" in out
    for words in ("seat right", "figure right", "asked", "wrong seat above the threshold",
                  "lift within one frame", "phantom grabs"):
        assert words in out, words
    assert f"wrote {d / 'scores.json'}" in out
    saved = read_scores(d)
    assert saved is not None and (saved["rounds"], saved["grabs"]) == (2, 2)
    # scores.json sits among the labels and is not read as one the next time.
    assert main(["vision", "eval", str(d), "--config", _config(clips), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"]["rounds"] == 2


def test_a_clip_whose_calibration_fails_is_scored_as_missed_and_named(
        clips: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _copy(clips, tmp_path / "clips")
    # A clip of a dark table: no marker to calibrate on.
    writer = cv2.VideoWriter(str(d / "dark.mkv"), cv2.VideoWriter.fourcc(*"FFV1"), FPS,
                             (640, 480))
    for _ in range(20):
        writer.write(np.zeros((480, 640, 3), np.uint8))
    writer.release()
    truth = [{"kind": "grab", "seat": "Dan", "figure": "viking", "touch_s": 0.2,
              "lift_s": 0.4, "others": []}]
    write_label(d / "dark.json", truth, fps=FPS, kind="table", camera={}, seats=tuple(SEATS))
    assert main(["vision", "eval", str(d), "--config", _config(clips), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert len(out["unscored"]) == 1 and out["unscored"][0].startswith("dark.mkv: calibration")
    assert "its 1 grab(s) scored as missed" in captured.err
    assert out["kinds"]["table"]["missed"] >= 1
    assert out["total"]["rounds"] == 3 and out["total"]["grabs"] == 3
    assert out["total"]["frames"] == 84 + 20  # the dark clip's frames count all the same


def test_a_clip_whose_first_frames_do_not_calibrate_uses_the_recorded_calibration(
        tmp_path: Path, cam: Any, capsys: pytest.CaptureFixture[str]) -> None:
    scene = Scene(cam, (grab("Ada", Figure.CHEST, 0.3, hold=0.15),), duration_s=1.5, fps=FPS,
                  style=Style(tilt=0.05, noise=2), seed=8)
    renderer = TableRenderer(scene)
    dark = 16  # more than the frames analyse tries to calibrate on
    writer = cv2.VideoWriter(str(tmp_path / "late.mkv"), cv2.VideoWriter.fourcc(*"FFV1"), FPS,
                             scene.size)
    for _ in range(dark):
        writer.write(np.zeros((scene.size[1], scene.size[0], 3), np.uint8))
    for i in range(renderer.frame_count):
        writer.write(renderer.render(i))
    writer.release()
    truth = _truth(renderer.ground_truth())
    for e in truth:
        e["lift_s"] = e["lift_s"] + dark / FPS
    write_label(tmp_path / "late.json", truth, fps=FPS, kind="table", camera={},
                seats=tuple(SEATS))
    label = json.loads((tmp_path / "late.json").read_text(encoding="utf-8"))
    label["calibration"] = calibrate(renderer.render(0), cam).to_json()
    (tmp_path / "late.json").write_text(json.dumps(label), encoding="utf-8")
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    total = json.loads(captured.out)["total"]
    assert (total["grabs"], total["seat_ok"], total["missed"]) == (1, 1, 0)
    assert "late.mkv: its first frames do not calibrate" in captured.err
    # Without the recorded calibration the same clip is scored as missed, and named.
    label["calibration"] = None
    (tmp_path / "late.json").write_text(json.dumps(label), encoding="utf-8")
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"]["missed"] == 1 and out["unscored"][0].startswith("late.mkv: calibr")


def test_unusable_input_is_one_line_naming_the_file_and_exit_2(
        clips: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _config(clips)
    assert main(["vision", "eval", str(tmp_path / "nowhere"), "--config", cfg]) == 2
    assert capsys.readouterr().err.strip() == \
        f"knapp vision eval: {tmp_path / 'nowhere'}: no such folder"
    (tmp_path / "empty").mkdir()
    assert main(["vision", "eval", str(tmp_path / "empty"), "--config", cfg]) == 2
    assert "no labelled clips" in capsys.readouterr().err

    bad = _copy(clips, tmp_path / "bad")
    (bad / "b.json").write_text('{"format": "knapp-labelled-round/1", "truth": []}',
                                encoding="utf-8")
    assert main(["vision", "eval", str(bad), "--config", cfg]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{bad / 'b.json'}: malformed label" in err[0]

    lost = _copy(clips, tmp_path / "lost")
    (lost / "b.mkv").unlink()
    assert main(["vision", "eval", str(lost), "--config", cfg]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"knapp vision eval: {lost / 'b.json'}: no video b.* beside it"]

    broken = _copy(clips, tmp_path / "broken")
    (broken / "b.mkv").write_bytes(b"not a video")
    assert main(["vision", "eval", str(broken), "--config", cfg]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(broken / "b.mkv") in err[0] and "cannot open" in err[0]

    # Clip b leaves its layout to the table's file: without --config it cannot be scored.
    assert main(["vision", "eval", str(clips)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"knapp vision eval: {clips / 'b.json'}: no camera section in the label: "
                   "give --config TABLE.toml"]

    layout = _copy(clips, tmp_path / "layout")
    label = json.loads((layout / "a.json").read_text(encoding="utf-8"))
    label["camera"] = {"table_mm": [10, 10]}
    (layout / "a.json").write_text(json.dumps(label), encoding="utf-8")
    assert main(["vision", "eval", str(layout), "--config", cfg]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{layout / 'a.json'}: malformed camera section" in err[0]

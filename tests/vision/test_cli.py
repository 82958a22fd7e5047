"""`knapp calibrate` and `knapp vision analyze` on files, and the frame sources."""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
import tomllib

import cv2
import pytest

from controller.cli import main
from controller.knapp.cards import Figure
from controller.sim.render import Scene, Style, write_video
from controller.vision.calibrate import Calibration
from controller.vision.camera import Picamera2Source
from controller.vision.frames import CameraError
from controller.vision.sources import VideoCaptureSource, open_source

from .conftest import SEATS, RestingHands, grab

CONFIG = (f'[table]\nseats = {json.dumps(SEATS)}\n'
          '[camera]\nsource = "sim"\n')


@pytest.fixture(scope="module")
def video(tmp_path_factory, cam) -> tuple:
    d = tmp_path_factory.mktemp("video")
    (d / "table.toml").write_text(CONFIG, encoding="utf-8")
    scene = Scene(cam, (grab("Dan", Figure.CHEST, 0.3, lifts=False, hold=0.3),
                        grab("Ada", Figure.CHEST, 0.4, hold=0.15),
                        grab("Cleo", Figure.DOG, 0.3, lifts=False, short_mm=15)),
                  duration_s=1.5, fps=30, style=Style(tilt=0.05, noise=2), seed=8)
    renderer = write_video(scene, str(d / "round.mkv"))
    return d, renderer


def test_analyze_json_prints_one_object_per_grab_and_feint(video, capsys) -> None:
    d, renderer = video
    assert main(["vision", "analyze", str(d / "round.mkv"), "--config",
                 str(d / "table.toml"), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = sorted((o["kind"], o["seat"], o["figure"]) for o in lines)
    assert kinds == [("feint", "Cleo", "dog"), ("grab", "Ada", "chest")]
    grab_obj = next(o for o in lines if o["kind"] == "grab")
    truth = next(e for e in renderer.ground_truth() if e.kind == "grab")
    assert abs(grab_obj["lift_ms"] - truth.lift_s * 1000) <= grab_obj["uncertainty_ms"]
    assert [c["seat"] for c in grab_obj["other_claims"]] == ["Dan"]
    feint = next(o for o in lines if o["kind"] == "feint")
    assert feint["lift_ms"] is None


def test_calibrate_from_an_image_then_analyze_with_the_file(video, capsys) -> None:
    d, renderer = video
    cv2.imwrite(str(d / "snap.png"), renderer.render(0))
    assert main(["calibrate", "--config", str(d / "table.toml"), "--image",
                 str(d / "snap.png"), "--out", str(d / "cal.json")]) == 0
    assert "calibrated from markers [0, 1, 2, 3]" in capsys.readouterr().out
    assert Calibration.load(d / "cal.json").markers == (0, 1, 2, 3)
    assert cv2.imread(str(d / "cal.preview.png")).shape == (480, 640, 3)
    assert main(["vision", "analyze", str(d / "round.mkv"), "--config",
                 str(d / "table.toml"), "--calibration", str(d / "cal.json")]) == 0
    text = capsys.readouterr().out
    assert "grab   Ada" in text and "also on it: Dan" in text and "feint  Cleo" in text


def test_calibrate_from_the_camera_waits_for_hands_to_leave_the_markers(
        tmp_path, cam, capsys) -> None:
    """The camera (here a video file) shows hands on markers 1 and 2 for its first
    second and a half, then on 0 and 3: no frame shows all four, the frames together do."""
    scene = Scene(cam, duration_s=3.0, fps=30, seed=8)
    source = RestingHands(scene, until=45)
    writer = cv2.VideoWriter(str(tmp_path / "cam.mkv"), cv2.VideoWriter.fourcc(*"FFV1"), 30,
                             scene.size)
    while (frame := source.read()) is not None:
        writer.write(frame.image)
    writer.release()
    (tmp_path / "table.toml").write_text(
        CONFIG.replace('"sim"', json.dumps(str(tmp_path / "cam.mkv"))), encoding="utf-8")
    assert main(["calibrate", "--config", str(tmp_path / "table.toml"),
                 "--out", str(tmp_path / "cal.json")]) == 0
    assert "calibrated from markers [0, 1, 2, 3]" in capsys.readouterr().out
    assert Calibration.load(tmp_path / "cal.json").markers == (0, 1, 2, 3)


class _Service:
    """What `knapp serve` tells the table service about its camera."""

    def __init__(self) -> None:
        self.link = None
        self.unavailable = ""

    def attach_camera(self, link, *, camera_only: bool = False) -> None:
        self.link = link

    def camera_unavailable(self, reason: str) -> None:
        self.unavailable = reason


def test_serve_calibrates_while_hands_leave_the_markers_or_says_why_not(
        tmp_path, cam, capsys) -> None:
    """With no calibration file, `knapp serve` calibrates from the camera's frames as
    they come; a camera whose markers stay hidden leaves the table on its pads, saying
    which markers it never saw."""
    from controller.cli.serve import _camera
    from controller.clock import FakeClock
    from controller.config import parse_config

    for name, until in (("moving", 45), ("resting", None)):
        source = RestingHands(Scene(cam, duration_s=3.0, fps=30, seed=8), until=until)
        writer = cv2.VideoWriter(str(tmp_path / f"{name}.mkv"), cv2.VideoWriter.fourcc(*"FFV1"),
                                 30, (640, 480))
        while (frame := source.read()) is not None:
            writer.write(frame.image)
        writer.release()
    config = tomllib.loads(CONFIG)
    moving, resting = _Service(), _Service()
    config["camera"]["source"] = str(tmp_path / "moving.mkv")
    link = _camera(parse_config(config), FakeClock(), False, moving, camera_only=False)
    assert link is not None and link is moving.link
    link.stop()
    assert not moving.unavailable
    config["camera"]["source"] = str(tmp_path / "resting.mkv")
    assert _camera(parse_config(config), FakeClock(), False, resting, camera_only=False) is None
    assert resting.link is None
    assert "first 90 frames" in resting.unavailable and "missing id 1, 2" in resting.unavailable
    assert "refereeing from the pads" in capsys.readouterr().err


def test_bad_inputs_give_clear_errors(tmp_path, video, capsys) -> None:
    d, _ = video
    assert main(["vision", "analyze", str(tmp_path / "none.mkv"), "--config",
                 str(d / "table.toml")]) == 2
    assert "no such video file" in capsys.readouterr().err
    assert main(["calibrate", "--config", str(d / "table.toml")]) == 2
    assert "camera.source" in capsys.readouterr().err
    (tmp_path / "blank.png").write_bytes(b"not a png")
    assert main(["calibrate", "--config", str(d / "table.toml"), "--image",
                 str(tmp_path / "blank.png")]) == 2
    assert "not a picture" in capsys.readouterr().err


def test_video_file_frames_carry_times_from_the_start(video) -> None:
    d, _ = video
    src = VideoCaptureSource(str(d / "round.mkv"), start_ns=7_000_000_000)
    times = []
    while (f := src.read()) is not None:
        times.append(f.t_ns)
    src.close()
    assert src.frame_count == len(times) == 45
    assert times[0] == 7_000_000_000
    assert all(abs(b - a - 1e9 / 30) < 2e6 for a, b in itertools.pairwise(times))


def test_sources_that_cannot_open_say_why() -> None:
    with pytest.raises(CameraError, match="sim"):
        open_source("sim")
    with pytest.raises(CameraError, match="cannot open"):   # no webcam 9 here: unplugged
        VideoCaptureSource("9")
    if importlib.util.find_spec("picamera2") is None:
        with pytest.raises(CameraError, match=r"install-pi\.sh"):
            Picamera2Source()


def test_markers_page_holds_the_four_ids(tmp_path, capsys) -> None:
    from controller.vision.aruco import detect_markers

    out = tmp_path / "markers.png"
    assert main(["vision", "markers", str(out), "--size-mm", "40", "--dpi", "150"]) == 0
    assert "print at 100 % scale" in capsys.readouterr().out
    page = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    found = detect_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    side = round(40 / 25.4 * 150)
    assert all(abs(cv2.arcLength(q.reshape(-1, 1, 2), True) / 4 - side) < 3
               for q in found.values())


def test_demo_renders_a_round_and_says_what_happened(video, capsys) -> None:
    d, _ = video
    out = d / "demo.mkv"
    assert main(["vision", "demo", str(out), "--config", str(d / "table.toml"),
                 "--seed", "2"]) == 0
    text = capsys.readouterr().out
    assert "what happened" in text and (" grab " in text or " feint " in text)
    src = VideoCaptureSource(str(out))
    assert src.frame_count is not None and src.frame_count > 30
    src.close()


def _knapp(*argv: str, cwd) -> subprocess.CompletedProcess[str]:
    """Run the real `knapp` entry point (`python -m controller`) in a child process."""
    return subprocess.run([sys.executable, "-m", "controller", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def _one_clear_line(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1, proc.stderr            # no OpenCV warning, no traceback before it
    assert "Traceback" not in proc.stderr and "WARN" not in proc.stderr
    assert all(n in lines[0] for n in needles), lines[0]
    return lines[0]


def test_calibrate_with_a_missing_image_names_the_file_in_one_line(tmp_path) -> None:
    (tmp_path / "table.toml").write_text(CONFIG, encoding="utf-8")
    missing = tmp_path / "snap-that-is-not-there.png"
    line = _one_clear_line(_knapp("calibrate", "--config", "table.toml", "--image",
                                  str(missing), cwd=tmp_path), str(missing), "no such")
    assert "not a picture" not in line              # it is missing, not malformed
    (tmp_path / "garbage.png").write_bytes(b"\x89PNG but not really")
    _one_clear_line(_knapp("calibrate", "--config", "table.toml", "--image", "garbage.png",
                           cwd=tmp_path), "garbage.png", "not a picture")
    assert not (tmp_path / "calibration.json").exists()   # nothing written on bad input


def test_analyze_a_missing_video_names_the_video_not_the_calibration(tmp_path) -> None:
    # The table file names a calibration that is not there either: the video is what
    # the person typed, so it is what must be named.
    (tmp_path / "table.toml").write_text(CONFIG + 'calibration = "cal.json"\n',
                                         encoding="utf-8")
    missing = tmp_path / "round-that-is-not-there.mkv"
    line = _one_clear_line(_knapp("vision", "analyze", str(missing), "--config", "table.toml",
                                  cwd=tmp_path), str(missing), "no such video file")
    assert "cal.json" not in line

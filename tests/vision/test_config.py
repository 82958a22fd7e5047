"""The [camera] section: defaults, validation with clear errors, registration."""

from __future__ import annotations

import math

import pytest

from controller.config import load_config, parse_config
from controller.errors import ConfigError
from controller.knapp.cards import Figure

from .conftest import SEATS, table


def test_defaults_put_every_seat_on_the_edge_and_every_figure_on_the_table() -> None:
    cam = table()
    assert cam.seat_names() == tuple(SEATS)
    w, h = cam.table_mm
    for _, (x, y) in cam.seats:
        assert min(x, w - x, y, h - y) < 1e-6
    assert {f for f, _ in cam.pads} == set(Figure)
    pads = [p for _, p in cam.pads]
    assert min(math.dist(a, b) for i, a in enumerate(pads) for b in pads[i + 1:]) > 60
    assert len(cam.marker_corners) == 4


def test_a_file_sets_markers_pads_seats_and_a_calibration_relative_to_itself(tmp_path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nseats = ["Ada", "Ben"]\n'
        '[camera]\nsource = "0"\ncalibration = "cal.json"\nfps = 60\n'
        '[camera.markers]\nsize_mm = 40\n'
        'centres_mm = [[30, 30], [870, 30], [870, 570], [30, 570]]\n'
        '[camera.pads]\nship = [300, 300]\n'
        '[camera.seats]\nAda = [450, 600]\nBen = [450, 0]\n', encoding="utf-8")
    cam = (load_config(path)).camera
    assert cam.source == "0" and cam.fps == 60
    assert cam.calibration == tmp_path / "cal.json"
    assert cam.marker_corners[1][0] == (850.0, 10.0)
    assert cam.pad(Figure.SHIP) == (300.0, 300.0)
    assert dict(cam.seats)["Ben"] == (450.0, 0.0)


@pytest.mark.parametrize(("camera", "key", "words"), [
    ({"seats": {"Ada": [450, 600]}}, "camera.seats.Ben", "missing: Ben, Cleo, Dan"),
    ({"seats": {"Ada": [450, 300], "Ben": [0, 300], "Cleo": [450, 0], "Dan": [900, 300]}},
     "camera.seats.Ada", "from the table edge"),
    ({"markers": {"centres_mm": [[40, 40]]}}, "camera.markers.centres_mm", "needs 4"),
    ({"pads": {"ship": [450, 300], "dog": [460, 300]}}, "camera.pads.dog", "overlaps"),
    ({"pads": {"ship": [5000, 300]}}, "camera.pads.ship", "off the table"),
    ({"pads": {"ship": "middle"}}, "camera.pads.ship", "expected an array"),
    ({"pads": {"ship": [1, 2, 3]}}, "camera.pads.ship", "[x_mm, y_mm]"),
    ({"markers": {"centres_mm": [[40, 40], [860, 40], [860, 560], [40, 5600]]}},
     "camera.markers[3]", "off the"),
    ({"fps": 0}, "camera.fps", "between"),
    ({"lens": "wide"}, "camera.lens", "unknown key"),
])
def test_bad_values_name_the_key_and_the_reason(camera, key, words) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"table": {"seats": SEATS}, "camera": camera})
    assert err.value.key == key
    assert words in err.value.reason

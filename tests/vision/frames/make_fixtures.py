"""Write the recorded frames of `tests/vision/test_frames.py` from the camera world.

Run only on purpose (`python tests/vision/frames/make_fixtures.py`), and review
the pictures: the test holds the detector to these pixels, so a change of the
renderer never changes what the detector is tested on, and a detector tuned
to a changed renderer shows up as a failing test on the old frames.

Each round keeps a few JPEG frames (quality 90, as a camera's stream would
be) and a JSON file with the table's `[camera]` section, the seats, the frame
times and the world's truth.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

from controller.sim.world_render import WorldSource
from controller.sim.world_scenes import world_round

HERE = Path(__file__).parent
# (name, seed, kind, the frames to keep as seconds relative to the first grab's lift)
ROUNDS = (("grab", "fixture:101", "grab", (-0.5, -0.1, 0.0, 0.2, 0.5)),
          ("sleeves", "fixture:103", "sleeves", (-0.5, -0.1, 0.0, 0.2, 0.5)))


def main() -> int:
    for name, seed, kind, offsets in ROUNDS:
        world = world_round(seed, kind, fps=30.0)
        grab = next(e for e in world.truth if e.kind == "grab")
        assert grab.lift_s is not None
        wanted = {0} | {round((grab.lift_s + dt) * world.fps) for dt in offsets}
        source = WorldSource(world)
        kept = []
        while (f := source.read()) is not None:
            if f.index in wanted:
                path = HERE / f"{name}-{f.index:03d}.jpg"
                cv2.imwrite(str(path), f.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
                kept.append({"file": path.name, "index": f.index, "t_s": f.t_ns / 1e9})
            if f.index > max(wanted):
                break
        data = world.to_json()
        data.update({"seed": seed, "camera": world.extra["camera"],
                     "seats": world.extra["seats"], "frames": kept})
        (HERE / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(name, [k["file"] for k in kept])
    return 0


if __name__ == "__main__":
    sys.exit(main())

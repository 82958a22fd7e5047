"""`knapp calibrate`: fit the camera to the table and learn the figures' colours."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from controller.config import load_config
from controller.errors import ConfigError

WARMUP_FRAMES = 15  # let a live camera's exposure and white balance settle


def register(sub: Any) -> None:
    """Add the `calibrate` command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "calibrate", help="calibrate the table camera from a snapshot",
        description="Find the four ArUco markers (DICT_4X4_50, ids 0-3), fit the "
                    "table-to-image homography, learn each figure's colour (all figures "
                    "on their pads), and write the calibration file and a preview picture.")
    p.add_argument("--config", required=True, help="the table configuration file (TOML)")
    p.add_argument("--image", help="a snapshot file (default: the configured camera's frames, "
                                   "for up to 20 s while hands still hide markers)")
    p.add_argument("--out", help="calibration file to write (default: the configuration's "
                                 "camera.calibration, else calibration.json)")
    p.add_argument("--preview", help="preview picture (default: next to the calibration, "
                                     "*.preview.png)")
    p.set_defaults(func=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    import cv2

    from controller.vision.analyze import calibrate_live
    from controller.vision.calibrate import calibrate, draw_preview
    from controller.vision.frames import CameraError
    from controller.vision.sources import open_source

    cfg = load_config(args.config)
    cam = cfg.camera
    if args.image:
        image = _read_picture(Path(args.image))
        cal = calibrate(image, cam)
    else:
        if cam.source == "sim":
            raise ConfigError(cfg.source, "camera.source", "is 'sim': give --image, or set a "
                                                           "webcam index, video or 'picamera2'")
        source = open_source(cam.source, width=cam.width, height=cam.height, fps=cam.fps)
        try:
            for _ in range(WARMUP_FRAMES):
                if source.read() is None:
                    raise CameraError(f"camera {cam.source}: no frames (unplugged?)")
            # Frames as they come, not one snapshot: hands resting on the markers move.
            cal, frame = calibrate_live(source, cam)
            image = frame.image
        finally:
            source.close()
    out = Path(args.out or cam.calibration or "calibration.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    cal.save(out)
    preview = Path(args.preview or out.with_suffix(".preview.png"))
    cv2.imwrite(str(preview), draw_preview(image, cam, cal))
    missing = sorted(set(range(4)) - set(cal.markers))
    print(f"{out}: calibrated from markers {list(cal.markers)}, fit error "
          f"{cal.reprojection_px:.2f} px; preview {preview}")
    if missing:
        print(f"warning: marker id {', '.join(map(str, missing))} not seen; the fit uses the "
              "other three (uncover it and calibrate again for the best fit)")
    return 0


def _read_picture(path: Path) -> Any:
    """The snapshot at `path`; a missing or unreadable file is one clear error naming it.

    Read through `imdecode` rather than `imread`: imread logs its own warning to
    stderr before returning None, which put two lines (one of them OpenCV's) in
    front of the person instead of one.
    """
    import cv2
    import numpy as np

    from controller.vision.calibrate import CalibrationError

    if not path.is_file():
        raise CalibrationError(f"{path}: no such picture file")
    try:
        data = np.frombuffer(path.read_bytes(), np.uint8)
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise CalibrationError(f"{path}: not a picture OpenCV can read")
    return image

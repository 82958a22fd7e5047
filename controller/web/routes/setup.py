"""The setup page: players and rules, the hardware's health, the camera calibration and
its accuracy measured at this table, the icon."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel

from controller.referee.health import Level
from controller.web.deps import NeedsPin, Service, access_of, page
from controller.web.models import Calibration, MatchStarted, Setup

router = APIRouter()


@router.get("/setup", response_class=HTMLResponse)
def setup_page(request: Request) -> Any:
    """The setup page."""
    return page(request, "setup", "/setup")


@router.post("/api/setup", response_model=MatchStarted, dependencies=[NeedsPin])
def setup(body: Setup, service: Service) -> MatchStarted:
    """New players, target and variant: the running match ends and a new one starts."""
    service.setup(body.seats, body.target, body.variant)
    return MatchStarted(match_id=service.match_id)


def _preview(service: Service) -> Path | None:
    cal = service.config.camera.calibration
    preview = cal.with_suffix(".preview.png") if cal is not None else None
    return preview if preview is not None and preview.is_file() else None


@router.get("/api/calibration", response_model=Calibration)
def calibration(request: Request, service: Service) -> Calibration:
    """The camera calibration's status; its path and preview picture only for staff."""
    cal = service.config.camera.calibration
    if cal is None:
        # A table without a camera (simulation, or pads only) has nothing to calibrate:
        # telling its owner to run the calibration would send them looking for a camera.
        if service.camera_health.level is Level.OFF:
            return Calibration(configured=False, file=None, preview_url=None,
                               detail="no camera at this table: nothing to calibrate")
        return Calibration(configured=False, file=None, preview_url=None,
                           detail="no calibration file in [camera]: the camera calibrates "
                                  "from its first frames (to keep one, run knapp calibrate "
                                  "--config TABLE.toml; hardware/bring-up.md, section 5)")
    staff = access_of(request).staff
    return Calibration(configured=True, file=str(cal) if staff else None, exists=cal.is_file(),
                       detail="calibrated" if cal.is_file() else "the calibration file is missing",
                       preview_url="/api/calibration/preview.png"
                       if staff and _preview(service) else None)


@router.get("/api/calibration/preview.png", dependencies=[NeedsPin])
def calibration_preview(service: Service) -> FileResponse:
    """The calibration preview picture (a camera frame of the table and its guests): staff."""
    preview = _preview(service)
    if preview is None:
        raise HTTPException(404, "no calibration preview; run knapp calibrate")
    return FileResponse(preview, media_type="image/png", headers={"Cache-Control": "no-store"})


EVAL_COMMAND = "knapp vision eval CLIPS --save"


class CameraAccuracy(BaseModel):
    """The camera's accuracy measured on this table's own recorded rounds (shares 0 to 1).

    `seat`: the right seat named with confidence; `asked`: the table was asked;
    `lift_within_frame`: the lift timed within one frame of the pads';
    `wrong_confident`: wrong seats named above the confidence threshold (a count).
    `folder`, the clips folder, only for staff.
    """

    measured: bool
    rounds: int = 0
    grabs: int = 0
    seat: float | None = None
    asked: float | None = None
    lift_within_frame: float | None = None
    wrong_confident: int = 0
    clips_kept: bool
    detail: str
    folder: str | None = None


@router.get("/api/camera/accuracy", response_model=CameraAccuracy)
def camera_accuracy(request: Request, service: Service) -> CameraAccuracy:
    """What `knapp vision eval CLIPS --save` measured on this table's clips, or how to."""
    rec = service.evidence
    folder = str(rec.clips_directory) if access_of(request).staff else None
    scores = rec.camera_accuracy()
    if scores is None or not scores.get("rounds"):
        kept = ("this table keeps a labelled clip of each round it referees with pads and "
                "camera" if rec.clips else "this table keeps no labelled clips (evidence is "
                "off in [kiosk]): score recorded rounds from elsewhere")
        return CameraAccuracy(measured=False, clips_kept=rec.clips, folder=folder,
                              detail=f"not measured yet: {kept}; to measure, run "
                                     f"{EVAL_COMMAND} (CLIPS: the clips folder in the "
                                     "table's data directory)")
    return CameraAccuracy(measured=True, rounds=int(scores["rounds"]),
                          grabs=int(scores["grabs"]), seat=scores.get("seat"),
                          asked=scores.get("asked"),
                          lift_within_frame=scores.get("lift_within_frame"),
                          wrong_confident=int(scores.get("wrong_confident") or 0),
                          clips_kept=rec.clips, folder=folder,
                          detail=f"measured on this table's own rounds; {EVAL_COMMAND} "
                                 "measures it again")


_ICON = Path(str(resources.files("controller.web") / "static" / "favicon.ico"))


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The site's icon, for browsers that ask for it before reading a page's `rel=icon`."""
    return FileResponse(_ICON, media_type="image/x-icon",
                        headers={"Cache-Control": "public, max-age=86400"})

"""The setup page: players and rules, the hardware's health, the camera calibration, the icon."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse

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


_ICON = Path(str(resources.files("controller.web") / "static" / "favicon.ico"))


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The site's icon, for browsers that ask for it before reading a page's `rel=icon`."""
    return FileResponse(_ICON, media_type="image/x-icon",
                        headers={"Cache-Control": "public, max-age=86400"})

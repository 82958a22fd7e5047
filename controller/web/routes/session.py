"""Staff login: the table PIN once per device, kept as an HttpOnly session cookie."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from controller.web.auth import SESSION_S, PinThrottled
from controller.web.deps import (
    STAFF_COOKIE,
    NeedsPin,
    access_of,
    client_of,
    pin_of,
    sessions_of,
)
from controller.web.models import Login, Viewer

router = APIRouter()


@router.get("/api/session", response_model=Viewer)
def whoami(request: Request) -> Viewer:
    """Who the asker is: the table screen, staff, or a viewer."""
    access = access_of(request)
    return Viewer(table=access.table, staff=access.staff)


@router.post("/api/session", response_model=Viewer)
def login(request: Request, body: Login) -> Any:
    """Log this device in as staff with the table PIN (wrong PINs are counted per device)."""
    try:
        pin_of(request).check(body.pin, client_of(request))
    except PinThrottled as exc:
        return JSONResponse({"error": str(exc)}, status_code=429,
                            headers={"Retry-After": str(exc.retry_after_s)})
    response = JSONResponse(Viewer(table=access_of(request).table, staff=True).model_dump())
    response.set_cookie(STAFF_COOKIE, sessions_of(request).issue(), max_age=SESSION_S,
                        httponly=True, samesite="strict", path="/")
    return response


@router.delete("/api/session", response_model=Viewer)
def logout(request: Request, response: Response) -> Viewer:
    """Log this device out."""
    response.delete_cookie(STAFF_COOKIE, httponly=True, samesite="strict", path="/")
    return Viewer(table=access_of(request).table, staff=False)


@router.get("/api/openapi.json", dependencies=[NeedsPin])
def openapi(request: Request) -> dict[str, Any]:
    """The API's OpenAPI description, for staff."""
    schema: dict[str, Any] = request.app.openapi()
    return schema

"""What the route modules share: the table service, who is asking, and the role checks."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Request
from starlette.requests import HTTPConnection
from starlette.templating import Jinja2Templates

from controller.referee.service import TableService
from controller.web.auth import (
    Access,
    PinError,
    PinGuard,
    Sessions,
    TableScreen,
    client_key,
    is_loopback,
)

# The pages, in the order the navigation shows them.
NAV = (("/", "Table"), ("/review", "Dispute review"), ("/stats", "Statistics"),
       ("/setup", "Setup"), ("/games", "Other games"))

STAFF_COOKIE = "knapp_staff"
TABLE_COOKIE = "knapp_table"


def service_of(conn: HTTPConnection) -> TableService:
    """The table service the app was built around (HTTP and WebSocket alike)."""
    service: TableService = conn.app.state.service
    return service


def pin_of(conn: HTTPConnection) -> PinGuard:
    """The app's PIN guard."""
    pin: PinGuard = conn.app.state.pin
    return pin


def sessions_of(conn: HTTPConnection) -> Sessions:
    """The staff sessions."""
    sessions: Sessions = conn.app.state.sessions
    return sessions


def table_screen_of(conn: HTTPConnection) -> TableScreen:
    """The table screen's credential."""
    screen: TableScreen = conn.app.state.table_screen
    return screen


def templates_of(request: Request) -> Jinja2Templates:
    """The page templates."""
    templates: Jinja2Templates = request.app.state.templates
    return templates


def client_of(conn: HTTPConnection) -> str:
    """The key wrong PINs are counted under for this connection's client."""
    return client_key(conn.client.host if conn.client else None)


def access_of(conn: HTTPConnection) -> Access:
    """What this connection may do, from its cookies."""
    return Access(table=table_screen_of(conn).valid(conn.cookies.get(TABLE_COOKIE)),
                  staff=sessions_of(conn).valid(conn.cookies.get(STAFF_COOKIE)))


def require_staff(request: Request, x_table_pin: Annotated[str | None, Header()] = None) -> None:
    """Refuse the request unless it comes from a staff session or carries the PIN.

    `X-Table-Pin` is for scripts; the pages log in once (`POST /api/session`).
    A header PIN counts against the client's wrong-PIN budget like a login.
    """
    if access_of(request).staff:
        return
    pin_of(request).check(x_table_pin, client_of(request))


def require_table_or_staff(request: Request,
                           x_table_pin: Annotated[str | None, Header()] = None) -> None:
    """Refuse the request unless it comes from the table screen or staff."""
    if access_of(request).table:
        return
    require_staff(request, x_table_pin)


def staff_or_raise(request: Request, x_table_pin: str | None, what: str) -> None:
    """Inside a route the table screen may call: `what` needs staff even so."""
    if access_of(request).staff:
        return
    if not x_table_pin:
        raise PinError(f"{what} needs staff: log in with the table PIN")
    pin_of(request).check(x_table_pin, client_of(request))


Service = Annotated[TableService, Depends(service_of)]
NeedsPin = Depends(require_staff)
NeedsTableOrStaff = Depends(require_table_or_staff)


def page(request: Request, name: str, here: str) -> Any:
    """Render page `name` with the shared chrome (head, navigation, staff login).

    A browser on the Pi itself gets the table screen's cookie with its first page.
    """
    response = templates_of(request).TemplateResponse(
        request, f"{name}.html", {"nav": NAV, "here": here})
    screen = table_screen_of(request)
    host = request.client.host if request.client else None
    if is_loopback(host) and not screen.valid(request.cookies.get(TABLE_COOKIE)):
        response.set_cookie(TABLE_COOKIE, screen.token, max_age=10 * 365 * 24 * 3600,
                            httponly=True, samesite="strict", path="/")
    return response

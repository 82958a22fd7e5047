"""What the route modules share: the table service and PIN guard of the app, and the PIN check."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from starlette.requests import HTTPConnection
from starlette.templating import Jinja2Templates

from controller.referee.service import TableService
from controller.web.auth import PinGuard

# The pages, in the order the navigation shows them.
NAV = (("/", "Table"), ("/review", "Dispute review"), ("/stats", "Statistics"),
       ("/setup", "Setup"), ("/games", "Other games"))


def service_of(conn: HTTPConnection) -> TableService:
    """The table service the app was built around (HTTP and WebSocket alike)."""
    service: TableService = conn.app.state.service
    return service


def pin_of(conn: HTTPConnection) -> PinGuard:
    """The app's PIN guard."""
    pin: PinGuard = conn.app.state.pin
    return pin


def templates_of(request: Request) -> Jinja2Templates:
    """The page templates."""
    templates: Jinja2Templates = request.app.state.templates
    return templates


def require_pin(request: Request, x_table_pin: Annotated[str | None, Header()] = None) -> None:
    """Refuse the request unless it carries the table PIN in `X-Table-Pin`."""
    pin_of(request).check(x_table_pin)


Service = Annotated[TableService, Depends(service_of)]
NeedsPin = Depends(require_pin)


def page(request: Request, name: str, here: str) -> object:
    """Render page `name` with the shared chrome (head, navigation)."""
    return templates_of(request).TemplateResponse(request, f"{name}.html",
                                                  {"nav": NAV, "here": here})

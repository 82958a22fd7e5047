"""The table screen: its page, the state, card pictures, and the table's verbs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from controller.errors import MalformedCard
from controller.knapp.cards import Card, Figure
from controller.knapp.render import card_svg, figure_svg
from controller.web.deps import (
    NeedsPin,
    NeedsTableOrStaff,
    Service,
    access_of,
    page,
    staff_or_raise,
)
from controller.web.models import Answer, Control, Done, HealthReport, MatchStarted, SimGrab
from controller.web.routes.live import StateCache

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def table_page(request: Request) -> Any:
    """The table screen."""
    return page(request, "table", "/")


@router.get("/api/state")
def state(request: Request) -> dict[str, Any]:
    """The state (the same as every `/ws` push): public, or the table screen's own."""
    cache: StateCache = request.app.state.state_cache
    return cache.state(table=access_of(request).table)


@router.get("/api/health", response_model=HealthReport)
def health(service: Service) -> dict[str, Any]:
    """Is the service up, which match is live, and how the pads, camera and disk are."""
    snap = service.snapshot()
    return {"ok": service.alive(), "match_id": snap["match_id"], "phase": snap["phase"],
            "health": snap["health"], "version": snap["version"]}


@router.get("/api/cards/{text:path}")
def card_image(text: str, cb: bool = False) -> Response:
    """A card's picture; `cb=1` adds the colour-blind patterns."""
    # A card's text holds a '/', so the whole rest of the path is the card.
    if not text.endswith(".svg"):
        raise HTTPException(404, "card pictures are at /api/cards/CARD.svg")
    try:
        card = Card.parse(text.removesuffix(".svg"))
    except MalformedCard as exc:
        raise HTTPException(400, str(exc)) from exc
    return Response(card_svg(card, colour_blind=cb), media_type="image/svg+xml",
                    headers={"Cache-Control": "public, max-age=86400"})


@router.get("/api/figures/{name}")
def figure_image(name: str) -> Response:
    """A figure's picture in its true colour (the verdict shows the correct one)."""
    figures = {f"{f.value}.svg": f for f in Figure}
    if name not in figures:
        raise HTTPException(404, "figure pictures are at /api/figures/FIGURE.svg, FIGURE one of "
                            + ", ".join(f.value for f in Figure))
    return Response(figure_svg(figures[name]), media_type="image/svg+xml",
                    headers={"Cache-Control": "public, max-age=86400"})


@router.get("/api/photo-finish/{name}", dependencies=[NeedsTableOrStaff])
def photo_finish(name: str, service: Service) -> Response:
    """A close call's photo-finish strip, for the table screen and staff (camera frames of
    the guests never go to a phone)."""
    strip = service.photo_finish(name.removesuffix(".jpg")) if name.endswith(".jpg") else None
    if strip is None:
        raise HTTPException(404, "no photo-finish strip of that name in the live match")
    return Response(strip, media_type="image/jpeg", headers={"Cache-Control": "private"})


@router.post("/api/sim/start", response_model=Done)
def sim_start(service: Service) -> Done:
    """Simulation mode: someone is at the table, deal (anyone at the table may press Start)."""
    service.sim_start()
    return Done()


@router.post("/api/sim/grab", response_model=Done)
def sim_grab(body: SimGrab, service: Service) -> Done:
    """Simulation mode: a seat grabs a figure now."""
    service.sim_grab(body.seat, body.figure)
    return Done()


@router.post("/api/answer", response_model=Done, dependencies=[NeedsTableOrStaff])
def answer(body: Answer, service: Service) -> Done:
    """The table says who took a figure (no camera): the table screen or staff."""
    service.answer(body.figure, body.seat)
    return Done()


@router.post("/api/control", response_model=MatchStarted, dependencies=[NeedsTableOrStaff])
def control(request: Request, body: Control, service: Service,
            x_table_pin: Annotated[str | None, Header()] = None) -> MatchStarted:
    """Pause, resume or a rematch (the table screen or staff); abandon (staff only)."""
    if body.action == "abandon":
        staff_or_raise(request, x_table_pin, "abandoning a match")
    service.control(body.action, body.reason)
    return MatchStarted(match_id=service.match_id)


@router.post("/api/pin", response_model=Done, dependencies=[NeedsPin])
def check_pin() -> Done:
    """Check a PIN or a staff session (for scripts; the pages log in at /api/session)."""
    return Done()

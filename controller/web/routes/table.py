"""The table screen: its page, the public state, card pictures, and the table's verbs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from controller.errors import MalformedCard
from controller.knapp.cards import Card
from controller.knapp.render import card_svg
from controller.web.deps import NeedsPin, Service, page, pin_of
from controller.web.models import Answer, Control, Done, HealthReport, MatchStarted, SimGrab

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def table_page(request: Request) -> Any:
    """The table screen."""
    return page(request, "table", "/")


@router.get("/api/state")
def state(request: Request, service: Service) -> dict[str, Any]:
    """The public state (the same as every `/ws` push)."""
    snap = service.snapshot()
    snap["pin_hint"] = pin_of(request).hint
    return snap


@router.get("/api/health", response_model=HealthReport)
def health(service: Service) -> dict[str, Any]:
    """Is the service up, which match is live, and how the pads, camera and disk are."""
    snap = service.snapshot()
    return {"ok": True, "match_id": snap["match_id"], "phase": snap["phase"],
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


@router.post("/api/sim/grab", response_model=Done)
def sim_grab(body: SimGrab, service: Service) -> Done:
    """Simulation mode: a seat grabs a figure now."""
    service.sim_grab(body.seat, body.figure)
    return Done()


@router.post("/api/answer", response_model=Done, dependencies=[NeedsPin])
def answer(body: Answer, service: Service) -> Done:
    """The table says who took a figure (no camera)."""
    service.answer(body.figure, body.seat)
    return Done()


@router.post("/api/control", response_model=MatchStarted, dependencies=[NeedsPin])
def control(body: Control, service: Service) -> MatchStarted:
    """Pause, resume, abandon, or start a rematch."""
    service.control(body.action, body.reason)
    return MatchStarted(match_id=service.match_id)


@router.post("/api/pin", response_model=Done, dependencies=[NeedsPin])
def check_pin() -> Done:
    """Check a PIN (the pages ask before they remember it)."""
    return Done()

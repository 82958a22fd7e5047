"""The companion games' page and their catalogue: every game that loads is playable in a room."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from controller.errors import KnappError
from controller.games import GAME_IDS, get_game
from controller.web.deps import page
from controller.web.models import GameCard

router = APIRouter()


@router.get("/games", response_class=HTMLResponse)
def games_page(request: Request) -> Any:
    """The Other games page."""
    return page(request, "games", "/games")


@router.get("/api/games", response_model=list[GameCard])
def games() -> list[GameCard]:
    """The companion games with their seat ranges: "ready" when a room can play it (its rules
    load), "coming" when its module does not."""
    out: list[GameCard] = []
    for gid in GAME_IDS:
        try:
            g = get_game(gid)
            out.append(GameCard(id=gid, name=g.name, summary=g.summary,
                                seats=(g.min_seats, g.max_seats), status="ready"))
        except (ImportError, AttributeError, KnappError):
            out.append(GameCard(id=gid, name=gid, summary="", seats=None, status="coming"))
    return out

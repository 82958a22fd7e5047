"""Players' statistics across every stored match."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from controller.web.deps import Service, page

router = APIRouter()


@router.get("/stats", response_class=HTMLResponse)
def stats_page(request: Request) -> Any:
    """The statistics page."""
    return page(request, "stats", "/stats")


@router.get("/api/stats")
def stats(service: Service) -> dict[str, Any]:
    """Per player: matches, wins, cards, reaction-time medians, wrong grabs."""
    return service.stats()

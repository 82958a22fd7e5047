"""The dispute review: stored matches, one match's rounds and timeline, corrections."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from controller.web.deps import NeedsPin, Service, page
from controller.web.models import Correction, Done, Hold

router = APIRouter()


@router.get("/review", response_class=HTMLResponse)
def review_page(request: Request) -> Any:
    """The dispute review page."""
    return page(request, "review", "/review")


@router.get("/api/matches")
def matches(service: Service) -> list[dict[str, Any]]:
    """Stored matches, newest first."""
    return service.match_list()


def _plain(text: str) -> bool:
    # Ids are short printable ASCII; anything else (a lone surrogate cannot even
    # be looked up in SQLite) is simply not a stored match or bundle.
    return len(text) <= 100 and text.isascii() and text.isprintable()


def _known(service: Service, match_id: str) -> None:
    if not _plain(match_id) or not service.has_match(match_id):
        raise HTTPException(404, f"no match {match_id[:100].encode('ascii', 'replace').decode()!r}")


@router.get("/api/matches/{match_id}")
def match(match_id: str, service: Service) -> dict[str, Any]:
    """One match: its rounds and its event timeline."""
    _known(service, match_id)
    return service.review(match_id)


@router.post("/api/matches/{match_id}/corrections", response_model=Done,
             dependencies=[NeedsPin])
def correction(match_id: str, body: Correction, service: Service) -> Done:
    """A referee correction, logged as a new event."""
    _known(service, match_id)
    service.correct(match_id, body.kind, body.reason, body.round, body.seat)
    return Done()


@router.post("/api/matches/{match_id}/evidence/{ref}/hold", response_model=Done,
             dependencies=[NeedsPin])
def hold_evidence(match_id: str, ref: str, body: Hold, service: Service) -> Done:
    """Keep a round's evidence past retention while it is disputed, or release it."""
    _known(service, match_id)
    if not _plain(ref):
        raise HTTPException(404, "no such evidence bundle")
    service.hold_evidence(match_id, ref, keep=body.keep)
    return Done()

"""The café's staff pages: every table's health, the leaderboard, the league night, the games.

Read-only pages over the café service: the live part (broker, database,
each table's connection and clock) from memory, the rest from PostgreSQL
(while the database is down the pages say so and show the live part).
Each page is server-rendered from one fragment template; `fleet.js`
fetches the same fragment every few seconds and swaps it in, so there is
one rendering of every page and no inline script (the Content-Security-
Policy allows only the app's own files).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.fleet.cafe import CafeService
from controller.fleet.ingest import Ingestor
from controller.fleet.league import Fixture, standings
from controller.fleet.summaries import leaderboard
from controller.fleet.views import clock_text, table_view

HERE = Path(__file__).parent
PAGES = {"tables": ("/", "Tables"), "leaderboard": ("/leaderboard", "Leaderboard"),
         "league": ("/league", "League night"), "games": ("/games", "Games")}
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


class _SecurityHeaders:
    """Add the security headers to every response (pure ASGI, so streaming is untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


def status_data(cafe: CafeService) -> dict[str, Any]:
    """Every table for the staff page, and the café's own parts."""
    facts = cafe.read(lambda db: db.table_facts())
    up = facts is not None
    lives = cafe.table_states()
    known = {t.table for t in lives}
    now = cafe.wall()
    tolerance = cafe.config.clock_tolerance_s
    tables = [table_view(t, (facts or {}).get(t.table), tolerance_s=tolerance, database_up=up,
                         now=now) for t in lives]
    for extra in sorted(set(facts or {}) - known):  # held in the database, silent since
        tables.append(table_view(cafe.live(extra), facts[extra] if facts else None,
                                 tolerance_s=tolerance, database_up=up, now=now))
    return {"cafe": cafe.config.name, "broker": cafe.broker.to_json(),
            "database": cafe.database.to_json(), "totals": dict(cafe.totals),
            "tables": tables}


def leaderboard_data(cafe: CafeService) -> dict[str, Any]:
    """The café's leaderboard across every table's finished matches."""
    matches = cafe.read(lambda db: db.matches())
    if matches is None:
        return {"available": False, "rows": [], "matches": 0}
    return {"available": True, "rows": leaderboard(matches),
            "matches": sum(1 for m in matches if m.get("phase") == "ended")}


def league_data(cafe: CafeService, league_id: int | None = None) -> dict[str, Any]:
    """A league night: its fixtures with their results, and the standings."""

    def read(db: Ingestor) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        return db.league(league_id), db.matches()

    got = cafe.read(read)
    if got is None:
        return {"available": False, "league": None}
    league, matches = got
    if league is None:
        return {"available": True, "league": None}
    fixtures = [Fixture.from_json(f) for f in league["plan"]["fixtures"]]
    played, rows = standings(fixtures, matches, league["created"])
    return {"available": True, "league": {"id": league["id"], "name": league["name"],
                                          "created": league["created"],
                                          "fixtures": played, "standings": rows}}


def games_data(cafe: CafeService) -> dict[str, Any]:
    """The companion games' rooms and their results."""
    rooms = cafe.read(lambda db: db.rooms())
    return {"available": rooms is not None, "rooms": rooms or []}


def create_cafe_app(cafe: CafeService) -> FastAPI:
    """The staff pages' app over a started café service."""
    app = FastAPI(title="Knapp café", docs_url=None, redoc_url=None, openapi_url=None)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["clock"] = lambda s: clock_text(s) if s else "–"
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    data = {"tables": status_data, "leaderboard": leaderboard_data, "league": league_data,
            "games": games_data}

    def page(request: Request, name: str) -> HTMLResponse:
        context = {"request": request, "page": name, "pages": PAGES, "cafe": cafe.config.name,
                   "data": data[name](cafe), "fragment": f"fleet_{name}.html"}
        return templates.TemplateResponse(request, "fleet_page.html", context)

    @app.get("/", response_class=HTMLResponse)
    def tables_page(request: Request) -> HTMLResponse:
        return page(request, "tables")

    @app.get("/leaderboard", response_class=HTMLResponse)
    def leaderboard_page(request: Request) -> HTMLResponse:
        return page(request, "leaderboard")

    @app.get("/league", response_class=HTMLResponse)
    def league_page(request: Request) -> HTMLResponse:
        return page(request, "league")

    @app.get("/games", response_class=HTMLResponse)
    def games_page(request: Request) -> HTMLResponse:
        return page(request, "games")

    @app.get("/fragment/{name}", response_class=HTMLResponse)
    def fragment(request: Request, name: str) -> HTMLResponse:
        if name not in data:
            raise HTTPException(404, "no such page")
        return templates.TemplateResponse(request, f"fleet_{name}.html",
                                          {"request": request, "data": data[name](cafe)})

    @app.get("/api/{name}")
    def api(name: str) -> JSONResponse:
        if name == "status":
            return JSONResponse(status_data(cafe))
        if name not in data:
            raise HTTPException(404, "no such resource")
        return JSONResponse(data[name](cafe))

    app.add_middleware(_SecurityHeaders)
    return app

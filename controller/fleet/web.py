"""The café's staff pages: every table's health, the leaderboard, the league night, the games.

Read-only pages over the café service: the live part (broker, database,
each table's connection and clock) from memory, the rest from PostgreSQL
(while the database is down the pages say so and show the live part).
Each page is server-rendered from one fragment template; `fleet.js`
fetches the same fragment every few seconds and swaps it in, so there is
one rendering of every page and no inline script (the Content-Security-
Policy allows only the app's own files).

Staff only: every page and every API answer needs a staff session, a signed
HttpOnly cookie given for the café file's staff password (`staff_password`,
kept as an scrypt hash). Wrong passwords are counted per client and slowed
down by the throttle the caller passes in (the table's own,
`controller.web.auth.Throttle`); the Host and Origin checks are the table
web app's (`controller.web.security.HostGuard`), put around this app by
`knapp fleet serve` (`controller.cli.fleet.cafe_app`): the fleet does not
import the web package, the command composes the two.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from controller.fleet.cafe import CafeService
from controller.fleet.config import check_password
from controller.fleet.ingest import Ingestor
from controller.fleet.league import Fixture, standings
from controller.fleet.summaries import leaderboard
from controller.fleet.views import clock_text, table_view
from controller.headers import SecurityHeaders
from controller.signed_tokens import SignedTokens

HERE = Path(__file__).parent
PAGES = {"tables": ("/", "Tables"), "leaderboard": ("/leaderboard", "Leaderboard"),
         "league": ("/league", "League night"), "games": ("/games", "Games")}
STAFF_COOKIE = "knapp_cafe_staff"
SESSION_S = 12 * 3600  # a staff login lasts a café's day
MAX_LOGIN_BODY = 4096
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on the
    # login form's POST, and the Host/Origin guard rightly refuses a null origin.
    (b"referrer-policy", b"same-origin"),
]


class LoginThrottle(Protocol):
    """Counts wrong passwords per client (`controller.web.auth.Throttle` is one)."""

    def wait_ns(self, client: str) -> int:
        """How long `client` must wait before its next try (0: now)."""

    def failed(self, client: str) -> None:
        """Count one wrong password from `client`."""

    def succeeded(self, client: str) -> None:
        """`client` logged in: its count starts again."""


class StaffSessions:
    """Staff session cookies, signed with a key derived from the staff password's hash.

    Derived, not random, so a restart of the service keeps staff logged in, and a
    new password (a new hash) logs every device out.

    Args:
        password_hash: the café file's `staff_password` ("" : nobody can log in).
        wall: wall-clock seconds (sessions outlive restarts).
    """

    def __init__(self, password_hash: str, *, wall: Callable[[], float] = time.time) -> None:
        self.password_hash = password_hash
        key = hmac.new(password_hash.encode(), b"knapp-cafe-staff-session",
                       hashlib.sha256).digest()
        self._tokens = SignedTokens(key, max_age_s=SESSION_S, wall=wall)

    def issue(self) -> str:
        """A new session cookie value."""
        return self._tokens.issue()

    def valid(self, token: str | None) -> bool:
        """True for a cookie this café issued within the last `SESSION_S`."""
        return bool(self.password_hash) and self._tokens.valid(token)


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
    configured = dict(cafe.config.keys)
    for t in tables:  # a key from the café file wins over the one pinned at first contact
        t["key"] = configured.get(t["table"], t["key"])
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


class _NeedsLogin(Exception):
    """The request has no valid staff session."""


def create_cafe_app(cafe: CafeService, *, throttle: LoginThrottle,
                    client_key: Callable[[str | None], str],
                    wall: Callable[[], float] = time.time,
                    secure_cookie: bool = False) -> FastAPI:
    """The staff pages' app over a started café service (staff login required).

    Args:
        cafe: the running café service.
        throttle: counts wrong passwords per client and says how long one must wait.
        client_key: the unit a client is counted by, from its address.
        wall: wall-clock seconds, for the sessions' age.
        secure_cookie: mark the session cookie Secure (the pages behind HTTPS).
    """
    app = FastAPI(title="Knapp café", docs_url=None, redoc_url=None, openapi_url=None)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["clock"] = lambda s: clock_text(s) if s else "–"
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    sessions = StaffSessions(cafe.config.staff_password, wall=wall)
    data = {"tables": status_data, "leaderboard": leaderboard_data, "league": league_data,
            "games": games_data}

    def staff(request: Request) -> None:
        if not sessions.valid(request.cookies.get(STAFF_COOKIE)):
            raise _NeedsLogin

    @app.exception_handler(_NeedsLogin)
    async def needs_login(request: Request, _exc: Exception) -> Response:
        if request.method == "GET" and not request.url.path.startswith(("/api/", "/fragment/")):
            return RedirectResponse("/login", status_code=303)
        return JSONResponse({"detail": "staff only: log in at /login"}, status_code=401)

    _login_routes(app, cafe=cafe, templates=templates, sessions=sessions, throttle=throttle,
                  client_key=client_key, secure_cookie=secure_cookie)

    def page(request: Request, name: str) -> HTMLResponse:
        staff(request)
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
        staff(request)
        if name not in data:
            raise HTTPException(404, "no such page")
        return templates.TemplateResponse(request, f"fleet_{name}.html",
                                          {"request": request, "data": data[name](cafe)})

    @app.get("/api/{name}")
    def api(request: Request, name: str) -> JSONResponse:
        staff(request)
        if name == "status":
            return JSONResponse(status_data(cafe))
        if name not in data:
            raise HTTPException(404, "no such resource")
        return JSONResponse(data[name](cafe))

    app.add_middleware(SecurityHeaders, headers=HEADERS)
    return app


def _login_routes(app: FastAPI, *, cafe: CafeService, templates: Jinja2Templates,
                  sessions: StaffSessions, throttle: LoginThrottle,
                  client_key: Callable[[str | None], str], secure_cookie: bool) -> None:
    """The staff login and logout routes."""

    def login_page(request: Request, message: str = "", status: int = 200) -> HTMLResponse:
        return templates.TemplateResponse(
            request, "fleet_login.html",
            {"request": request, "cafe": cafe.config.name, "message": message,
             "configured": bool(cafe.config.staff_password)}, status_code=status)

    @app.get("/login", response_class=HTMLResponse)
    def login_form(request: Request) -> HTMLResponse:
        return login_page(request)

    @app.post("/login")
    async def login(request: Request) -> Response:
        client = client_key(request.client.host if request.client else None)
        wait = throttle.wait_ns(client)
        if wait:
            seconds = -(-wait // 1_000_000_000)
            response = login_page(request, f"Too many wrong passwords from this device; try "
                                           f"again in {seconds} s.", 429)
            response.headers["retry-after"] = str(seconds)
            return response
        raw = await request.body()
        if len(raw) > MAX_LOGIN_BODY:
            return login_page(request, "That is no password.", 413)
        given = parse_qs(raw.decode("utf-8", "replace")).get("password", [""])[0]
        if not cafe.config.staff_password:
            return login_page(request, status=403)
        if not given or not check_password(cafe.config.staff_password, given):
            if given:
                throttle.failed(client)
            return login_page(request, "Wrong password.", 401)
        throttle.succeeded(client)
        done = RedirectResponse("/", status_code=303)
        done.set_cookie(STAFF_COOKIE, sessions.issue(), max_age=SESSION_S, httponly=True,
                        samesite="strict", secure=secure_cookie, path="/")
        return done

    @app.post("/logout")
    def logout() -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(STAFF_COOKIE, httponly=True, samesite="strict", path="/")
        return response

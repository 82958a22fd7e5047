"""The rules pages: `/rules/GAME` shows docs/rules/GAME.md, with a room's options.

The rule texts are the project's documentation (`docs/rules/`), beside the
package in the source tree that the Makefile installs in editable mode. Only
the six registered game ids are ever turned into a path, so no request can name
another file; the Markdown is rendered with raw HTML off (escaped, never passed
through).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse
from markdown_it import MarkdownIt

import controller
from controller.games import GAME_IDS, get_game
from controller.rooms.errors import NoSuchRoom, RoomStoreError
from controller.web.deps import NAV, templates_of
from controller.web.routes.rooms import rooms_of

router = APIRouter()

# controller/ sits at the top of the source tree; docs/ beside it.
RULES_DIR = Path(controller.__file__).resolve().parent.parent / "docs" / "rules"
ROOM_ID_MAX = 64


def rules_path(game: str) -> Path | None:
    """The rule text of a registered game id, or None for anything else."""
    if game not in GAME_IDS:
        return None
    return RULES_DIR / f"{game}.md"


@lru_cache(maxsize=16)
def _render(path: Path, mtime_ns: int) -> str:
    """The rule text as HTML; raw HTML in it is escaped (`html` off)."""
    _ = mtime_ns  # part of the cache key: an edited file is rendered afresh
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    html: str = md.render(path.read_text(encoding="utf-8"))
    return html


def room_options(request: Request, game: str, room_id: str | None) -> tuple[dict[str, Any],
                                                                            str | None]:
    """The options in force in room `room_id` (only if it plays `game`), and an error."""
    if not room_id:
        return {}, None
    if len(room_id) > ROOM_ID_MAX:
        return {}, "no such room"
    try:
        room = rooms_of(request).room(room_id)
    except (NoSuchRoom, RoomStoreError):
        return {}, f"no room {room_id!r}"
    if room.spec.game != game:
        return {}, f"room {room_id!r} plays {room.spec.game}, not {game}"
    return dict(room.spec.options), None


def _option_rows(game: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    schema = get_game(game).options_schema
    return [{"name": name, "value": value, "help": schema[name].help if name in schema else "",
             "default": name in schema and schema[name].default == value}
            for name, value in options.items()]


def _missing(game: str) -> JSONResponse:
    return JSONResponse({"error": f"no rules for {game[:40]!r}: the games are "
                                  f"{', '.join(GAME_IDS)}"}, status_code=404)


@router.get("/rules/{game}", response_class=HTMLResponse)
def rules_page(request: Request, game: str, room: str | None = None) -> Any:
    """A game's rules as implemented, with the options of `room` when opened from one."""
    path = rules_path(game)
    if path is None:
        return _missing(game)
    if not path.is_file():
        return JSONResponse({"error": f"the rule text {game}.md is not installed with this "
                                      "copy (it lives in the source tree's docs/rules/)"},
                            status_code=404)
    options, problem = room_options(request, game, room)
    body = _render(path, path.stat().st_mtime_ns)
    return templates_of(request).TemplateResponse(request, "rules.html", {
        "nav": NAV, "here": "/games", "game": game, "name": get_game(game).name,
        "body": body, "room": room if options else None,
        "options": _option_rows(game, options), "problem": problem})


@router.get("/api/rules/{game}")
def rules_options(request: Request, game: str, room: str | None = None) -> Any:
    """The options in force in a room of `game` (public: every player may read them)."""
    if rules_path(game) is None:
        return _missing(game)
    options, problem = room_options(request, game, room)
    if problem:
        return JSONResponse({"error": problem}, status_code=404)
    return {"game": game, "room": room, "options": options}

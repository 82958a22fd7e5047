"""The staff page's reading of a table: one level and the sentences behind it.

Levels as on the table itself (ok, degraded, down, off): the worst of the
table's reported parts, its connection, its clock, and what the café had to
refuse or hold back. Pure functions over the café's live state and the
facts read from PostgreSQL, so the wording is tested without a broker.
"""

from __future__ import annotations

import time
from typing import Any

from controller.fleet.live import TableLive
from controller.fleet.wire import SILENT_AFTER_S

_RANK = {"ok": 0, "off": 0, "unknown": 1, "degraded": 2, "down": 3}
PARTS = ("pads", "camera", "disk", "referee")


def clock_text(seconds: float) -> str:
    """A time of day on the café's clock, for the pages."""
    return time.strftime("%H:%M:%S", time.localtime(seconds))


def _span(seconds: float) -> str:
    s = abs(seconds)
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def table_view(live: TableLive, facts: dict[str, Any] | None, *, tolerance_s: float,
               database_up: bool, now: float | None = None) -> dict[str, Any]:
    """One table for the staff page: its level, its parts, and a line per problem.

    Args:
        live: what the broker told the café (online, clock, bad messages).
        facts: what PostgreSQL holds for it (`Ingestor.table_facts`), None when unknown.
        tolerance_s: a clock further off than this is a problem.
        database_up: False while the café cannot read its database.
        now: the café's clock (a table online but silent for long is a problem).
    """
    problems: list[tuple[str, str]] = []
    facts = facts or {}
    if live.online is None:
        problems.append(("degraded", "never connected to the broker"))
        status = "not seen yet"
    elif live.online:
        status = f"online since {clock_text(live.since)}"
        if now is not None and live.last_heard is not None \
                and now - live.last_heard > SILENT_AFTER_S:
            problems.append(("down", f"no word since {clock_text(live.last_heard)}: the "
                                     "broker may have lost its goodbye"))
    else:
        why = {"lost": "connection lost (power, network or crash)",
               "stopped": "stopped"}.get(live.reason, live.reason or "gone")
        problems.append(("down", f"offline since {clock_text(live.since)}: {why}"))
        status = f"offline since {clock_text(live.since)}"
    offset = live.clock_offset()
    if offset is not None and abs(offset) > tolerance_s:
        problems.append(("degraded", f"its clock is {_span(offset)} "
                                     f"{'ahead of' if offset > 0 else 'behind'} the café's"))
    if live.bad_messages:
        problems.append(("degraded", f"{live.bad_messages} unreadable message(s): "
                                     f"{live.last_bad}"))
    if facts.get("refused"):
        problems.append(("degraded", f"{facts['refused']} record(s) refused, the last: "
                                     f"{facts.get('last_refusal')}"))
    if facts.get("waiting"):
        problems.append(("degraded", f"{facts['waiting']} record(s) wait for earlier ones"))
    if not database_up:
        problems.append(("degraded", "the café's database is unavailable: records and "
                                     "health below may be out of date"))
    health = facts.get("health") or {}
    parts = []
    for name in PARTS:
        p = (health.get("parts") or {}).get(name)
        if p is None:
            parts.append({"part": name, "level": "unknown", "message": "not reported"})
            continue
        parts.append({"part": name, "level": p.get("level", "unknown"),
                      "message": p.get("message", "")})
        if p.get("level") in ("degraded", "down"):
            problems.append((p["level"], f"{name}: {p.get('message') or p['level']}"))
    level = max((lvl for lvl, _ in problems), key=_RANK.__getitem__, default="ok")
    match = facts.get("last_match") or None
    return {
        "table": live.table, "name": live.name or live.table, "level": level,
        "status": status, "online": live.online,
        "problems": [text for _, text in problems], "parts": parts,
        "clock_offset_s": None if offset is None else round(offset, 3),
        "records": facts.get("records", 0), "refused": facts.get("refused", 0),
        "waiting": facts.get("waiting", 0),
        "last_record": facts.get("last_record"),
        "key": facts.get("key"),  # the fingerprint pinned at first contact
        "last_verdict": match.get("last_verdict") if match else None,
        "match": None if not match else {
            "id": match.get("match"), "seats": match.get("seats", []),
            "scores": match.get("scores", {}), "phase": match.get("phase"),
            "winners": match.get("winners", [])},
    }

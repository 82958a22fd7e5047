"""A league night: who plays whom at which table, and the standings from the matches played.

The schedule is the circle method (one player stays, the others rotate one
place per round), so with groups of two every pair meets exactly once in
`n - 1` rounds; with bigger groups each round is the rotated line cut into
groups. A round's groups go to the tables in order; a round with more groups
than tables continues in a second wave.

A fixture is played by the first match on its table, started after the
league was planned, whose seats are exactly the fixture's players and that
ended with winners; each match counts for one fixture at most. Standings:
3 points per match won (a shared win counts for each winner), then cards
won, then fewer matches played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from controller.settings import MAX_SEATS, MIN_SEATS, SeatsError, validate_seats

WIN_POINTS = 3
BYE = ""


class LeagueError(ValueError):
    """A league that cannot be planned (the reason says why)."""


@dataclass(frozen=True, slots=True)
class Fixture:
    """One scheduled match: round, wave within the round, table, players."""

    round: int
    wave: int
    table: str
    players: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON form (kept in the café's database)."""
        return {"round": self.round, "wave": self.wave, "table": self.table,
                "players": list(self.players)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fixture:
        """Read the JSON form back."""
        return cls(int(data["round"]), int(data["wave"]), str(data["table"]),
                   tuple(str(p) for p in data["players"]))


def plan(players: Sequence[str], tables: Sequence[str], *, group: int = 2,
         rounds: int | None = None) -> list[Fixture]:
    """The fixtures of a league night.

    Args:
        players: the players' names (as the tables' seats name them).
        tables: the table ids to play at.
        group: players per match (2 to 8).
        rounds: how many rounds (default: every other player met once with pairs,
            else `n - 1`).

    Raises:
        LeagueError: naming what is wrong.
    """
    try:
        names = validate_seats(list(players))
    except SeatsError as exc:
        raise LeagueError(f"players: {exc.reason}") from None
    if not MIN_SEATS <= group <= MAX_SEATS:
        raise LeagueError(f"a match has {MIN_SEATS} to {MAX_SEATS} players, got {group}")
    if len(names) < group:
        raise LeagueError(f"{len(names)} players cannot fill a match of {group}")
    if not tables or len(set(tables)) != len(tables):
        raise LeagueError("needs one or more distinct tables")
    line = list(names) + ([BYE] if len(names) % 2 and group == 2 else [])
    n_rounds = rounds if rounds is not None else len(line) - 1
    if n_rounds < 1:
        raise LeagueError(f"needs one round or more, got {n_rounds}")
    fixtures: list[Fixture] = []
    for r in range(n_rounds):
        rotated = _rotation(line, r)
        groups: list[tuple[str, ...]]
        if group == 2:  # fold the line: first against last, second against second-last...
            half = len(rotated) // 2
            groups = [(rotated[i], rotated[-1 - i]) for i in range(half)]
        else:
            groups = [tuple(rotated[i:i + group])
                      for i in range(0, len(rotated) - group + 1, group)]
        groups = [g for g in groups if BYE not in g]
        for i, g in enumerate(groups):
            fixtures.append(Fixture(r + 1, i // len(tables) + 1, tables[i % len(tables)],
                                    tuple(g)))
    return fixtures


def _rotation(line: list[str], r: int) -> list[str]:
    rest = line[1:]
    k = r % len(rest) if rest else 0
    return [line[0], *rest[len(rest) - k:], *rest[:len(rest) - k]]


def standings(fixtures: Sequence[Fixture], matches: Sequence[dict[str, Any]],
              since: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The fixtures with the match that played each, and the standings.

    Args:
        fixtures: the league's fixtures.
        matches: the café's match summaries (`table`, `match`, `started`, `seats`,
            `scores`, `winners`, `phase`, `abandoned`), oldest first.
        since: when the league was planned (café wall clock, seconds).
    """
    used: set[tuple[str, str]] = set()
    played: list[dict[str, Any]] = []
    table_rows: dict[str, dict[str, Any]] = {}
    for fx in fixtures:
        for p in fx.players:
            table_rows.setdefault(p, {"player": p, "played": 0, "won": 0, "cards": 0,
                                      "points": 0})
    for fx in sorted(fixtures, key=lambda f: (f.round, f.wave, f.table)):
        found = next((m for m in matches if m["table"] == fx.table
                      and (m["table"], m["match"]) not in used and m["started"] >= since
                      and set(m["seats"]) == set(fx.players) and m["phase"] == "ended"
                      and not m.get("abandoned") and m["winners"]), None)
        entry = {**fx.to_json(), "match": None, "winners": [], "scores": {}}
        if found is not None:
            used.add((found["table"], found["match"]))
            entry.update(match=found["match"], winners=list(found["winners"]),
                         scores=dict(found["scores"]))
            for p in fx.players:
                row = table_rows[p]
                row["played"] += 1
                row["cards"] += int(found["scores"].get(p, 0))
                if p in found["winners"]:
                    row["won"] += 1
                    row["points"] += WIN_POINTS
        played.append(entry)
    rows = sorted(table_rows.values(), key=lambda r: (-r["points"], -r["cards"], r["played"],
                                                      r["player"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return played, rows

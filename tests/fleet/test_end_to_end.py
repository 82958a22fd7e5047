"""One table -> the broker -> the café service -> PostgreSQL -> the staff pages, for real."""

from __future__ import annotations

from pathlib import Path

from controller.fleet.cafe import CafeService
from controller.fleet.local import LocalMosquitto
from controller.store import EventStore
from tests.fleet.helpers import Table, held, holds_all, staff_client, table_records, wait_for


def own_leaderboard(*paths: Path) -> dict[str, tuple[int, int, int]]:
    """Played, won, cards per player, computed from the tables' own stores."""
    out: dict[str, list[int]] = {}
    for path in paths:
        store = EventStore(path, durable=False)
        for info in store.matches():
            m = store.open_match(info.id)
            if not m.winners or m.abandoned:
                continue
            for seat in m.seats:
                row = out.setdefault(seat, [0, 0, 0])
                row[0] += 1
                row[1] += seat in m.winners
                row[2] += m.scores()[seat]
        store.close()
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


def test_a_table_s_matches_and_rooms_reach_the_staff_pages(mq: LocalMosquitto, cafe: CafeService,
                                                            tmp_path: Path) -> None:
    health = {"pads": {"level": "ok", "message": "clock synced, error bound 40 us"},
              "camera": {"level": "off", "message": "no camera"},
              "disk": {"level": "ok", "message": ""}, "referee": {"level": "ok", "message": ""}}
    table = Table(mq, "t1", tmp_path / "t1", health=lambda: health).start()
    try:
        table.play(2)
        room_id = table.play_room()
        wait_for(cafe, lambda: holds_all(cafe, table), "every record of t1")
        # Every record, exactly as the table holds it: same streams, seqs and hashes.
        rows = cafe.read(lambda db: db.conn.execute(
            "SELECT table_id, stream, seq, hash FROM fleet_records").fetchall())
        assert len(rows) == len(set(rows))
        assert set(rows) == table_records(table.db_path, "t1")

        client = staff_client(cafe)
        status = client.get("/api/status").json()
        t1 = next(t for t in status["tables"] if t["table"] == "t1")
        assert t1["online"] is True and t1["name"] == "Table t1"
        assert t1["records"] == sum(n for k, n in held(cafe).items() if k[0] == "t1")
        assert {p["part"]: p["level"] for p in t1["parts"]} == {
            "pads": "ok", "camera": "off", "disk": "ok", "referee": "ok"}
        assert t1["level"] == "ok", t1["problems"]
        assert t1["last_verdict"] is not None and t1["match"]["winners"]
        # t2 and t3 are configured but were never seen: listed, and said so.
        t2 = next(t for t in status["tables"] if t["table"] == "t2")
        assert t2["online"] is None and "never connected" in " ".join(t2["problems"])

        board = client.get("/api/leaderboard").json()
        assert {r["player"]: (r["played"], r["won"], r["cards"]) for r in board["rows"]} == \
            own_leaderboard(table.db_path)
        games = client.get("/api/games").json()["rooms"]
        assert [g["room"] for g in games] == [room_id]
        assert games[0]["game"] == "kobbla" and games[0]["over"] and games[0]["winners"]

        page = client.get("/")
        assert page.status_code == 200 and "Table t1" in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        assert "<script>" not in page.text  # no inline script: the CSP would block it
        assert "Ada" in client.get("/leaderboard").text
    finally:
        table.close()

"""`knapp verify` checks the game rooms' chains as well as the matches' (they share the file)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main
from tests.rooms.helpers import make_manager


def _two_rooms(db: Path) -> tuple[str, str]:
    manager = make_manager(db)
    rooms = []
    for game in ("kobbla", "koob"):
        room, _ = manager.create({"game": game, "bot_delay_s": 0,
                                  "plan": [{"kind": "bot", "level": "random"}] * 2})
        rooms.append(room.room_id)
    for _ in range(6):
        manager.tick()
    return rooms[0], rooms[1]


def test_verify_names_every_room_and_its_head(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "knapp.db"
    first, second = _two_rooms(db)
    assert main(["verify", str(db)]) == 0
    out = capsys.readouterr().out
    for rid in (first, second):
        assert f"ok: room {rid}: " in out and "hash chain intact" in out
    assert main(["verify", str(db), "--room", second]) == 0
    only = capsys.readouterr().out
    assert second in only and first not in only


def test_verify_reports_an_altered_room_and_fails(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "knapp.db"
    first, second = _two_rooms(db)
    with sqlite3.connect(db) as con:
        body = con.execute("SELECT body FROM room_events WHERE room_id=? AND kind='action' "
                           "ORDER BY seq LIMIT 1", (first,)).fetchone()[0]
        data = json.loads(body)
        data["seat"] = 1 - data["seat"]
        con.execute("UPDATE room_events SET body=? WHERE room_id=? AND body=?",
                    (json.dumps(data), first, body))
    assert main(["verify", str(db)]) == 1
    captured = capsys.readouterr()
    assert "ALTERED" in captured.err and first in captured.err
    assert f"ok: room {second}" in captured.out  # the untouched room still reads as intact


def test_verify_names_an_unknown_room(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "knapp.db"
    _two_rooms(db)
    assert main(["verify", str(db), "--room", "nope"]) == 1
    assert "no room 'nope'" in capsys.readouterr().err


def test_knapp_help_says_verify_checks_game_rooms_too(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # argparse wraps at the terminal's width
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("verify"))
    assert "matches and game rooms" in " ".join(line.split())

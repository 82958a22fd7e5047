"""One service per data folder, and a data folder that cannot be one says so in a line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli.serve import LOCK_FILE, DataDirError, lock_data_dir


def test_the_data_folder_is_locked_while_its_holder_lives(tmp_path: Path) -> None:
    held = lock_data_dir(tmp_path / "data")
    try:
        assert (tmp_path / "data" / LOCK_FILE).read_text().strip() == str(os.getpid())
        who = rf"in use by another knapp serve \(pid {os.getpid()}\)"
        with pytest.raises(DataDirError, match=who):
            lock_data_dir(tmp_path / "data")
    finally:
        held.close()
    lock_data_dir(tmp_path / "data").close()  # released with its holder


def test_serve_refuses_a_locked_folder_with_one_line(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    held = lock_data_dir(tmp_path)
    try:
        assert main(["serve", "--sim", "--data-dir", str(tmp_path)]) == 2
    finally:
        held.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "in use by another knapp serve" in err[0]
    assert not (tmp_path / "knapp.db").exists()  # the store was never opened


@pytest.mark.parametrize(("where", "says"), [
    ("file", "not a folder"),
    ("file/below", "a part of the path is a file"),
    ("/proc/knapp-data", "cannot use it as the data folder"),
    ("/proc", "cannot use it as the data folder"),
])
def test_a_data_dir_that_cannot_be_one_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, says: str) -> None:
    (tmp_path / "file").write_text("not a folder")
    path = where if where.startswith("/") else str(tmp_path / where)
    assert main(["serve", "--sim", "--data-dir", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("knapp serve: --data-dir ") and says in err[0]


def test_no_room_for_a_first_match_is_one_line_and_a_failure_exit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.errors import StoreUnavailable
    from controller.store import EventStore

    def full(*_a: object, **_k: object) -> str:
        raise StoreUnavailable("knapp.db: cannot write the event log: database or disk is full")

    monkeypatch.setattr(EventStore, "create_match", full)
    assert main(["serve", "--sim", "--data-dir", str(tmp_path)]) == 1  # systemd starts it again
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("knapp serve: cannot start the table:") and "disk is full" in line

"""`knapp games play` deals from OS entropy unless --seed asks for a replay, and never
shows the seed to a person playing at the terminal."""

from __future__ import annotations

import io
import secrets

import pytest

from controller.cli import main


def play(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(["games", "play", *argv])
    out, err = capsys.readouterr()
    return status, out + err


def test_without_a_seed_every_game_is_dealt_afresh(capsys: pytest.CaptureFixture[str]) -> None:
    games = {play(capsys, "manni", "--json", "--bots", "random")[1] for _ in range(3)}
    assert len(games) == 3  # 2^64 seeds: three equal deals would be a fixed seed


def test_with_a_seed_the_game_replays(capsys: pytest.CaptureFixture[str]) -> None:
    first = play(capsys, "manni", "--json", "--bots", "random", "--seed", "12")[1]
    assert play(capsys, "manni", "--json", "--bots", "random", "--seed", "12")[1] == first


def test_a_person_at_the_terminal_never_sees_the_seed(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seed = 8_421_337_190_552_013_977
    monkeypatch.setattr(secrets, "randbits", lambda bits: seed)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    status, text = play(capsys, "kobbla", "--human", "0")
    assert status == 1 and "-- seat 0 to play --" in text
    assert str(seed) not in text and "seed" not in text.splitlines()[0]
    # Between computers the seed is shown, so a game worth keeping can be replayed.
    status, text = play(capsys, "kobbla", "--bots", "random")
    assert status == 0 and f"seed {seed};" in text.splitlines()[0]

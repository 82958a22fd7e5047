"""Evidence that proves what it says: signed exports, and corrections that change what they name."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from controller.cli import main
from controller.errors import IllegalEvent
from controller.evidence.signing import KEY_FILE, TableKey
from controller.knapp.match import Phase
from tests.web.conftest import make_service, run_until


def played(tmp_path: Path, rounds: int = 3) -> tuple[object, str]:
    """A table that played `rounds` cards, with a correction in the log."""
    svc = make_service(tmp_path)
    for i in range(rounds):
        run_until(svc, lambda s: s.match.phase is Phase.OPEN)
        svc.clock.advance(0.5)  # type: ignore[attr-defined]
        svc.sim_grab(("Ada", "Ben", "Cleo")[i % 3], svc.match.current.answer)  # type: ignore[union-attr]
        run_until(svc, lambda s: s.match.phase is Phase.READY)
    svc.correct(svc.match_id, "award", "the video shows Cleo", 0, "Cleo")
    return svc, svc.match_id


def exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str, object]:
    svc, mid = played(tmp_path)
    review = svc.review(mid)  # type: ignore[attr-defined]
    svc.store.close()  # type: ignore[attr-defined]
    out = tmp_path / "dispute"
    assert main(["export", "--data-dir", str(tmp_path), mid, str(out)]) == 0
    capsys.readouterr()
    return out, mid, review


def test_a_table_key_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    svc = make_service(tmp_path)
    key_file = tmp_path / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    first = svc.review(svc.match_id)["table_key"]
    assert first.startswith("SHA256:") and first == TableKey.load(tmp_path).fingerprint
    svc.store.close()
    again = make_service(tmp_path)
    assert again.review(again.match_id)["table_key"] == first  # the same table, the same key


def test_the_review_shows_the_numbers_an_export_must_match(tmp_path: Path) -> None:
    svc, mid = played(tmp_path)
    review = svc.review(mid)  # type: ignore[attr-defined]
    assert review["records"] == len(svc.store.records(mid))  # type: ignore[attr-defined]
    assert review["head"] == svc.store.verify(mid)  # type: ignore[attr-defined]


def test_an_export_cut_short_does_not_verify(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out, _mid, review = exported(tmp_path, capsys)
    assert main(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"signed by table key {review['table_key']}" in text  # type: ignore[index]
    assert f"all {review['records']} records" in text  # type: ignore[index]
    lines = (out / "match.jsonl").read_text().splitlines()
    cut = next(n for n, line in enumerate(lines) if '"kind":"awarded"' in line)
    # `head -n CUT`: the correction and everything after it dropped; still a valid chain.
    (out / "match.jsonl").write_text("\n".join(lines[:cut]) + "\n")
    assert main(["verify", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"the table signed {len(lines)} records but the log holds {cut}" in err


def test_a_resigned_or_edited_statement_is_caught(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out, mid, review = exported(tmp_path, capsys)
    meta = json.loads((out / "dispute.json").read_text())
    # Someone edits the signed count to match a cut log: the signature no longer holds.
    edited = {**meta, "signed": {**meta["signed"], "statement": {
        **meta["signed"]["statement"], "records": 3}}}
    (out / "dispute.json").write_text(json.dumps(edited))
    assert main(["verify", str(out)]) == 1
    assert "does not match what it signs" in capsys.readouterr().err
    # Someone re-signs with a key of their own: it verifies, but not as this table.
    forged = TableKey.load_or_create(tmp_path / "elsewhere")
    records = len((out / "match.jsonl").read_text().splitlines())
    (out / "dispute.json").write_text(json.dumps(
        {**meta, "signed": forged.sign(mid, records, meta["head"])}))
    assert main(["verify", str(out)]) == 0
    assert forged.fingerprint in capsys.readouterr().out
    assert main(["verify", str(out), "--table-key", str(review["table_key"])]) == 1  # type: ignore[index]
    assert f"signed by table key {forged.fingerprint}, not by" in capsys.readouterr().err


def test_an_unsigned_export_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _mid, _review = exported(tmp_path, capsys)
    meta = json.loads((out / "dispute.json").read_text())
    (out / "dispute.json").write_text(json.dumps(
        {"format": "knapp-dispute/1", "match_id": meta["match_id"], "bundles": []}))
    assert main(["verify", str(out)]) == 1
    assert "unsigned export" in capsys.readouterr().err


def test_export_without_a_table_key_says_so(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    svc, mid = played(tmp_path, rounds=1)
    svc.store.close()  # type: ignore[attr-defined]
    (tmp_path / KEY_FILE).unlink()
    assert main(["export", "--data-dir", str(tmp_path), mid, str(tmp_path / "o")]) == 1
    assert "no table key" in capsys.readouterr().err


def test_an_undo_must_name_the_round_it_takes_back(tmp_path: Path) -> None:
    svc, mid = played(tmp_path, rounds=3)
    before = svc.match.to_json()  # type: ignore[attr-defined]
    with pytest.raises(IllegalEvent, match="round 0 is not the last verdict; only round 2"):
        svc.correct(mid, "undo", "wrong round named", 0)  # type: ignore[attr-defined]
    with pytest.raises(IllegalEvent, match=r"undo needs the round it takes back \(the last "
                                           r"verdict is round 2\)"):
        svc.correct(mid, "undo", "no round named")  # type: ignore[attr-defined]
    assert svc.match.to_json() == before  # type: ignore[attr-defined]  # nothing changed
    svc.correct(mid, "undo", "the right round", 2)  # type: ignore[attr-defined]
    assert svc.match.rounds[2].outcome.value == "undone"  # type: ignore[attr-defined]


def test_undoing_the_winning_card_goes_on_playing(tmp_path: Path) -> None:
    svc = make_service(tmp_path, target=1)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    won = svc.match.current
    assert won is not None
    svc.clock.advance(0.5)  # type: ignore[attr-defined]
    svc.sim_grab("Ben", won.answer)
    run_until(svc, lambda s: s.match.phase is Phase.ENDED)
    run_until(svc, lambda s: not s.fusion.off_pad)  # the figure is back on its pad
    svc.correct(svc.match_id, "undo", "Ben's hand was not first", won.index)
    assert svc.match.winners == ()
    # Not stuck in "clearing": every figure is home, so the card is dealt again.
    run_until(svc, lambda s: s.match.phase is Phase.OPEN, limit_s=10)
    assert svc.match.current is not None and svc.match.current.card == won.card


def test_an_undo_on_a_past_match_is_refused(tmp_path: Path) -> None:
    svc, mid = played(tmp_path, rounds=1)
    svc.control("rematch")  # type: ignore[attr-defined]
    with pytest.raises(IllegalEvent, match="only the live match"):
        svc.correct(mid, "undo", "too late", 0)  # type: ignore[attr-defined]

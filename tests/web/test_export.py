"""`knapp export` writes a dispute bundle that `knapp verify` accepts, and catches edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.knapp.match import Phase
from tests.web.conftest import make_service, run_until


def test_export_and_verify_a_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svc = make_service(tmp_path)
    run_until(svc, lambda s: s.match.phase is Phase.OPEN)
    svc.sim_grab("Ada", svc.match.current.answer)  # type: ignore[union-attr]
    run_until(svc, lambda s: s.match.phase is Phase.CLEARING)
    mid = svc.match_id
    svc.store.close()
    out = tmp_path / "dispute"
    assert main(["export", "--data-dir", str(tmp_path), mid, str(out)]) == 0
    assert "check it with: knapp verify" in capsys.readouterr().out
    assert main(["verify", str(out)]) == 0
    assert "hash chain intact" in capsys.readouterr().out
    # an edited record is found
    lines = (out / "match.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace("Ada", "Ben")
    (out / "match.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["verify", str(out)]) == 1
    assert "ALTERED" in capsys.readouterr().err


def test_export_lists_and_names_bad_input(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--data-dir", str(tmp_path), "x", "y"]) == 2
    assert "no event store" in capsys.readouterr().err
    svc = make_service(tmp_path)
    mid = svc.match_id
    svc.store.close()
    assert main(["export", "--data-dir", str(tmp_path), "--list"]) == 0
    assert mid in capsys.readouterr().out
    assert main(["export", "--data-dir", str(tmp_path), "nope", str(tmp_path / "o")]) == 2
    assert "no match 'nope'" in capsys.readouterr().err

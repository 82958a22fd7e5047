"""Photo-finish bundles, the hash-chained log and `knapp verify` (`controller.evidence`)."""

from __future__ import annotations

import json
import sqlite3

import cv2
import pytest

from controller.cli import main
from controller.evidence.bundles import EvidenceError, verify_bundle
from controller.evidence.bundles import write_bundle as write
from controller.evidence.disputes import export_dispute, verify_dispute
from controller.evidence.signing import TableKey
from controller.knapp.cards import Figure
from controller.knapp.deck import standard_deck
from controller.sim.render import Scene, TableRenderer
from controller.store import EventStore
from controller.vision.detect import build_view
from controller.vision.frames import Frame
from controller.vision.track import Claim, Decision

from .conftest import grab

FPS = 30.0


@pytest.fixture(scope="module")
def frames(cam) -> list[Frame]:
    renderer = TableRenderer(Scene(cam, (grab("Ada", Figure.SHIP, 0.1, hold=0.05),),
                                   duration_s=1.0, seed=2))
    return [Frame(renderer.render(i), 10**9 + round(i * 1e9 / FPS), i, True)
            for i in range(renderer.frame_count)]


DECISION = Decision("grab", "Ada", Figure.SHIP, 10**9 + 400_000_000, 10**9 + 450_000_000,
                    33_333_333, 0.97, (Claim("Ben", 10**9 + 420_000_000, 33_333_333),),
                    lift_index=13)


def test_a_bundle_holds_strip_clip_and_decision_and_detects_tampering(
        tmp_path, frames, cam, calibration) -> None:
    bundle = write(tmp_path / "r0", DECISION, frames[5:25], view=build_view(cam, calibration),
                   origin_ns=10**9, fps=FPS)
    assert verify_bundle(bundle.path) == bundle.sha256
    strip = cv2.imread(str(bundle.path / "strip.jpg"))
    assert strip.shape[1] == 6 * frames[0].image.shape[1] // 2     # six half-size frames
    clip = cv2.VideoCapture(str(bundle.path / "clip.webm"))
    n = 0
    while clip.read()[0]:
        n += 1
    assert n == 20
    decision = json.loads((bundle.path / "decision.json").read_text())
    assert decision["decision"]["seat"] == "Ada"
    assert decision["decision"]["lift_ms"] == 450.0
    assert decision["decision"]["other_claims"][0]["seat"] == "Ben"
    (bundle.path / "decision.json").write_text(
        json.dumps({**decision, "decision": {**decision["decision"], "seat": "Ben"}}))
    with pytest.raises(EvidenceError, match=r"decision\.json was altered"):
        verify_bundle(bundle.path)
    with pytest.raises(EvidenceError, match="already holds"):
        write(bundle.path, DECISION, frames[5:25])


def _stored_match(tmp_path, frames):
    db = tmp_path / "matches.db"
    store = EventStore(db, durable=False)
    _mid, match = store.new_match(["Ada", "Ben"], standard_deck()[:10], match_id="m1")
    match.reveal(match.next_card, 10**9)
    bundle = write(tmp_path / "evidence" / "m1-r0", DECISION, frames[5:25], fps=FPS)
    match.evidence(0, bundle.sha256, "photo-finish", "m1-r0")
    return store, db, bundle


def test_verify_a_stored_match_its_evidence_and_an_exported_dispute(
        tmp_path, frames, capsys) -> None:
    store, db, bundle = _stored_match(tmp_path, frames)
    out = export_dispute(store, "m1", [bundle.path], tmp_path / "dispute",
                         key=TableKey.load_or_create(tmp_path))
    store.close()
    assert main(["verify", str(db), "--evidence", str(tmp_path / "evidence")]) == 0
    text = capsys.readouterr().out
    assert "match m1: 3 records, hash chain intact" in text
    assert "bundle m1-r0" in text and "matches the log" in text
    assert verify_dispute(out)[2].startswith("bundle m1-r0: files intact")
    assert main(["verify", str(out)]) == 0


def test_verify_finds_an_edited_record_and_a_swapped_bundle(tmp_path, frames, capsys) -> None:
    store, db, bundle = _stored_match(tmp_path, frames)
    out = export_dispute(store, "m1", [bundle.path], tmp_path / "dispute",
                         key=TableKey.load_or_create(tmp_path))
    store.close()
    # A bundle rewritten with another decision has a valid manifest but another hash.
    (out / "m1-r0" / "manifest.json").unlink()
    other = Decision("grab", "Ben", Figure.SHIP, None, 10**9, 1, 0.5)
    write(out / "m1-r0", other, frames[5:25], fps=FPS)
    assert main(["verify", str(out)]) == 1
    assert "not in the match log" in capsys.readouterr().err
    with sqlite3.connect(db) as con:
        con.execute("UPDATE events SET body = replace(body, 'photo-finish', 'photo') "
                    "WHERE seq = 2")
    assert main(["verify", str(db)]) == 1
    assert "record 2 was altered" in capsys.readouterr().err

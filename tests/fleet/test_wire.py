"""The record message and its checks: a record counts only where its chain puts it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from controller.fleet.wire import (
    Acks,
    BadMessage,
    WireRecord,
    check_link,
    health_genesis,
    stream_genesis,
    table_of,
)
from controller.rooms.persist import room_genesis
from controller.store import canonical_json, chain_hash, genesis_hash


def chain(stream: str, bodies: list[dict[str, object]], table: str = "t1") -> list[WireRecord]:
    prev = stream_genesis(table, stream)
    assert prev is not None
    out = []
    for seq, body in enumerate(bodies):
        text = canonical_json(body)
        h = chain_hash(prev, text)
        out.append(WireRecord(table, "0123456789abcdef", "events", seq + 1, seq, stream, seq,
                              str(body["kind"]), text, prev, h, 1_700_000_000.0))
        prev = h
    return out


RECS = chain("match/m1", [{"kind": "started", "n": 1}, {"kind": "revealed", "n": 2},
                          {"kind": "grabbed", "n": 3}])
OTHER = chain("match/m2", [{"kind": "started", "n": 1}])


def test_a_record_round_trips_through_its_payload() -> None:
    rec = RECS[1]
    assert WireRecord.decode(rec.encode(), "t1") == rec


def test_each_stream_starts_from_its_own_genesis() -> None:
    assert stream_genesis("t1", "match/abc") == genesis_hash("abc")
    assert stream_genesis("t1", "room/abc") == room_genesis("abc")
    assert stream_genesis("t1", "health") == health_genesis("t1") != health_genesis("t2")
    assert stream_genesis("t1", "matches/abc") is None
    assert table_of("knapp/tables/t1/records") == "t1"
    assert table_of("knapp/tables/t1/records/x") is None
    assert table_of("knapp/cafe/acks/t1") is None


def test_records_follow_their_chain() -> None:
    assert check_link(RECS[0], None) is None
    assert check_link(RECS[1], RECS[0].hash) is None
    assert check_link(RECS[2], RECS[1].hash) is None


@pytest.mark.parametrize(("change", "before", "reason"), [
    (lambda r: dataclasses.replace(r, body=r.body.replace('"n":2', '"n":9')), 0, "altered"),
    (lambda r: dataclasses.replace(r, seq=r.seq), 2, "chain broken"),  # follows the wrong one
    # Moved into another match: it does not follow that match's record 0.
    (lambda r: dataclasses.replace(r, stream="match/m2"), -1, "chain broken"),
    (lambda r: dataclasses.replace(r, stream="elsewhere"), 0, "no stream name"),
])
def test_an_altered_or_moved_record_is_refused(change: object, before: int,
                                               reason: str) -> None:
    rec = change(RECS[1])  # type: ignore[operator]
    head = OTHER[0].hash if before < 0 else RECS[before].hash
    why = check_link(rec, head)
    assert why is not None and reason in why


def test_a_first_record_must_follow_the_genesis() -> None:
    other = chain("match/m2", [{"kind": "started"}])[0]
    moved = dataclasses.replace(other, stream="match/m1")
    why = check_link(moved, None)
    assert why is not None and "chain broken" in why


def test_a_record_whose_body_is_not_what_the_table_writes_is_refused() -> None:
    for body, why in (('{"n": 1, "kind": "started"}', "canonical"), ('{"kind":"other"}', "kind"),
                      ("[1]", "kind")):
        rec = dataclasses.replace(RECS[0], body=body, hash=chain_hash(RECS[0].prev, body))
        reason = check_link(rec, None)
        assert reason is not None and why in reason


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda d: d.update(table="t2"), "claims table 't2'"),
    (lambda d: d.pop("hash"), "'hash'"),
    (lambda d: d.update(seq=True), "'seq'"),
    (lambda d: d.update(v=1), "protocol"),
    (lambda d: d.update(source="elsewhere"), "source"),
    (lambda d: d.update(epoch="NOT-HEX"), "epoch"),
    (lambda d: d.update(after=5, pos=5), "positions"),
    (lambda d: d.update(body="x\x00"), "NUL"),
])
def test_a_bad_message_is_named(edit: object, reason: str) -> None:
    data = json.loads(RECS[0].encode())
    edit(data)  # type: ignore[operator]
    with pytest.raises(BadMessage, match=reason):
        WireRecord.decode(json.dumps(data).encode(), "t1")
    with pytest.raises(BadMessage, match="not JSON"):
        WireRecord.decode(b"\xff", "t1")


def test_positions_are_confirmed_only_without_a_gap() -> None:
    acks = Acks("e1")
    assert acks.add("events", 3, 0)
    assert not acks.add("events", 9, 7)  # 4..7 not here yet: 9 waits
    assert acks.upto["events"] == 3 and acks.waiting() == 1
    assert not acks.add("events", 3, 0)  # a duplicate moves nothing
    assert acks.add("events", 7, 3)  # the gap fills: 7, then the 9 that waited
    assert acks.upto["events"] == 9 and acks.waiting() == 0
    assert acks.add("health", 1, 0) and acks.upto == {"events": 9, "room_events": 0, "health": 1,
                                                      "reveals": 0}
    copy = acks.copy()
    copy.add("events", 10, 9)
    assert acks.upto["events"] == 9 and copy.upto["events"] == 10
    assert acks.to_json() == {"v": 2, "epoch": "e1",
                              "upto": {"events": 9, "room_events": 0, "health": 1,
                                       "reveals": 0}}

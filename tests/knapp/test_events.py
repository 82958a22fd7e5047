"""Match events in their JSON form: every kind comes back as it went, bad records are named.

The log on disk, exports and replays hold these JSON objects; `event_from_json`
is the only way back, so each refusal says which record and field is wrong.
"""

from __future__ import annotations

import pytest

from controller.errors import IllegalEvent
from controller.knapp.events import (
    EVENT_TYPES,
    Abandoned,
    Awarded,
    Booted,
    Evidenced,
    FiguresHome,
    Grabbed,
    MatchRules,
    Revealed,
    RevealMeasure,
    RevealTimed,
    Settled,
    Started,
    TieRule,
    Undone,
    Variant,
    Voided,
    event_from_json,
)

RULES = MatchRules(variant=Variant.UNRULY, target=0, anticipation_ns=200_000_000,
                   anticipation_is_wrong=True, tie_min_ns=3_000_000, tie_rule=TieRule.BOX,
                   collection_window_ns=250_000_000, card_timeout_ns=9_000_000_000)
ONE_OF_EACH = [
    Started(("Ada", "Ben"), RULES, ("ship:yellow/red+green", "viking:red/blue+white"), 1, 42),
    Revealed("ship:yellow/red+green", 10, 5, "paint"),
    RevealTimed(0, 12, 1, "photon"),
    Grabbed("Ada", "dog", 20, 3, "serial", 7),
    Settled(30),
    FiguresHome(40),
    Undone("video", 0),
    Awarded(0, "Ben", "video"),
    Voided(1, "misdeal"),
    Evidenced(0, "ab" * 32, "photo-finish", "r0"),
    Abandoned("fire alarm"),
    Booted("b-2", 50),
]


def test_there_is_one_of_each_kind_here():
    assert sorted(type(e).kind for e in ONE_OF_EACH) == sorted(EVENT_TYPES)


@pytest.mark.parametrize("event", ONE_OF_EACH, ids=lambda e: type(e).kind)
def test_every_kind_comes_back_from_its_json_as_it_went(event):
    data = event.to_json()
    assert data["kind"] == type(event).kind
    assert event_from_json(data) == event
    assert event_from_json(dict(data)).to_json() == data


def test_the_json_of_a_start_and_a_grab():
    start = ONE_OF_EACH[0].to_json()
    assert start == {"kind": "started", "seats": ["Ada", "Ben"],
                     "deck": ["ship:yellow/red+green", "viking:red/blue+white"],
                     "first_turner": 1, "seed": 42,
                     "rules": {"variant": "unruly", "target": 0,
                               "anticipation_ns": 200_000_000, "anticipation_is_wrong": True,
                               "tie_min_ns": 3_000_000, "tie_rule": "box",
                               "collection_window_ns": 250_000_000,
                               "card_timeout_ns": 9_000_000_000}}
    assert MatchRules.from_json(start["rules"]) == RULES
    assert Grabbed("Ada", "dog", 20, 3, "serial", 7).to_json() == {
        "kind": "grabbed", "seat": "Ada", "figure": "dog", "t_ns": 20, "uncertainty_ns": 3,
        "source": "serial", "handicap_ns": 7}
    # No handicap: the key is left out, as in logs written before handicaps.
    assert Grabbed("Ada", "dog", 20).to_json() == {
        "kind": "grabbed", "seat": "Ada", "figure": "dog", "t_ns": 20, "uncertainty_ns": 0,
        "source": "sim"}
    assert Undone("video").to_json() == {"kind": "undone", "reason": "video"}
    assert Undone("video", 2).to_json() == {"kind": "undone", "reason": "video", "round": 2}


@pytest.mark.parametrize(("data", "message"), [
    ([1, 2], "an event is a JSON object, got list"),
    ({"t_ns": 1}, "unknown event kind None"),
    ({"kind": 7}, "unknown event kind 7"),
    ({"kind": ["settled"]}, "unknown event kind ['settled']"),  # not even a dict key
    ({"kind": "exploded"}, "unknown event kind 'exploded'"),
    ({"kind": "settled", "t_ns": 1, "when": 2, "by": 3},
     "settled: unknown field(s) ['by', 'when']"),
    ({"kind": "settled", "t_ns": "soon"}, "settled.t_ns must be an integer, got 'soon'"),
    ({"kind": "settled", "t_ns": True}, "settled.t_ns must be an integer, got True"),
    ({"kind": "abandoned", "reason": 5}, "abandoned.reason must be a string, got 5"),
    ({"kind": "voided", "round": 1}, "voided: bad fields: Voided.__init__() missing 1 "
                                     "required positional argument: 'reason'"),
    ({"kind": "started", "seats": ["Ada"], "deck": []},
     "started: bad fields: 'rules'"),
])
def test_a_bad_record_is_named(data, message):
    with pytest.raises(IllegalEvent) as err:
        event_from_json(data)
    assert str(err.value) == message


def test_reveal_measures_parse_by_name_and_order_by_quality():
    assert [RevealMeasure.parse(t) for t in ("shown", "Paint", "PHOTON")] == [
        RevealMeasure.SHOWN, RevealMeasure.PAINT, RevealMeasure.PHOTON]
    assert RevealMeasure.SHOWN < RevealMeasure.PAINT < RevealMeasure.PHOTON
    assert RevealMeasure.PHOTON.label == "photon"
    with pytest.raises(IllegalEvent) as err:
        RevealMeasure.parse("guess")
    assert str(err.value) == "unknown reveal measure 'guess' (expected shown, paint or photon)"

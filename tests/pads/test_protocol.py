"""Host protocol: shared vectors, fuzzed frame parser, tick unwrapping."""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.pads import protocol as wire
from controller.sim.virtual_board import firmware_dir

VECTORS = json.loads((firmware_dir() / "protocol_vectors.json").read_text())


def test_crc_and_cobs_vectors():
    for v in VECTORS["crc16"]:
        assert wire.crc16(bytes.fromhex(v["data"])) == v["crc"]
    for v in VECTORS["cobs"]:
        assert wire.cobs_encode(bytes.fromhex(v["raw"])).hex() == v["encoded"]
        assert wire.cobs_decode(bytes.fromhex(v["encoded"])).hex() == v["raw"]


@pytest.mark.parametrize("v", VECTORS["frames"], ids=lambda v: v["name"])
def test_frame_vectors_match_the_firmware(v):
    data = bytes.fromhex(v["wire"])
    assert wire.pack(v["type"], v["seq"], *v["fields"]) == data
    (frame,) = wire.FrameReader().feed(data)
    assert isinstance(frame, wire.Frame)
    assert (frame.type, frame.seq, list(frame.fields())) == (v["type"], v["seq"], v["fields"])


@pytest.mark.parametrize("v", VECTORS["bad"], ids=lambda v: v["why"])
def test_bad_vectors_are_named(v):
    (bad,) = wire.FrameReader().feed(bytes.fromhex(v["wire"]))
    assert isinstance(bad, wire.BadFrame)
    word = {"crc": "CRC", "cobs": "COBS", "short": "shorter", "truncated": "COBS"}[v["why"]]
    assert word in bad.reason


def test_field_errors_name_the_frame():
    with pytest.raises(wire.ProtocolError, match="ping frame body has 3 bytes, expected 2"):
        wire.Frame(wire.PING, 1, b"abc").fields()
    with pytest.raises(wire.ProtocolError, match="unknown frame type 0x7f"):
        wire.Frame(0x7F, 1, b"").fields()
    with pytest.raises(wire.ProtocolError, match="ping fields"):
        wire.pack(wire.PING, 1, 70000)


frames = st.builds(
    lambda t, seq, body: (t, seq, body),
    st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=wire.MAX_FRAME - 5))


@given(frames)
def test_any_frame_round_trips(f):
    t, seq, body = f
    data = wire.encode_frame(t, seq, body)
    assert data.count(0) == 1 and data.endswith(b"\x00")
    assert wire.parse_frame(data[:-1]) == wire.Frame(t, seq, body)


@given(st.binary(max_size=400), st.lists(st.integers(1, 50), max_size=20))
def test_garbage_never_raises_and_chunking_does_not_matter(data, cuts):
    whole = wire.FrameReader().feed(data)
    reader, parts, at = wire.FrameReader(), [], 0
    for c in cuts:
        parts += reader.feed(data[at:at + c])
        at += c
    parts += reader.feed(data[at:])
    assert parts == whole
    assert all(isinstance(x, wire.Frame | wire.BadFrame) for x in whole)


@given(st.binary(max_size=200), st.lists(frames, min_size=1, max_size=5))
def test_valid_frames_after_garbage_are_all_recovered(garbage, fs):
    data = b"".join(wire.encode_frame(*f) for f in fs)
    out = wire.FrameReader().feed(garbage + b"\x00" + data)
    good = [x for x in out if isinstance(x, wire.Frame)]
    # garbage may itself hold a valid-looking frame only with a matching CRC;
    # the real frames always come out intact, in order, at the end.
    assert good[-len(fs):] == [wire.Frame(*f) for f in fs]


@given(st.lists(frames, min_size=2, max_size=6), st.data())
def test_a_damaged_frame_costs_only_itself(fs, data):
    wires = [wire.encode_frame(*f) for f in fs]
    i = data.draw(st.integers(0, len(wires) - 1))
    w = bytearray(wires[i])
    pos = data.draw(st.integers(0, len(w) - 2))
    w[pos] = data.draw(st.integers(1, 255).filter(lambda b: b != w[pos]))
    wires[i] = bytes(w)
    out = wire.FrameReader().feed(b"".join(wires))
    good = [x for x in out if isinstance(x, wire.Frame)]
    expect = [wire.Frame(*f) for j, f in enumerate(fs) if j != i]
    assert len(good) <= len(fs)
    for e in expect:
        assert e in good


def test_unwrapper_follows_wraps_and_takes_hints():
    u = wire.TickUnwrapper()
    assert u.unwrap(wire.TICKS_PERIOD - 10) == wire.TICKS_PERIOD - 10
    assert u.unwrap(5) == wire.TICKS_PERIOD + 5
    assert u.unwrap(wire.TICKS_PERIOD - 3, advance=False) == wire.TICKS_PERIOD - 3  # an older tick
    assert u.last == wire.TICKS_PERIOD + 5
    # after a long silence the clock fit says we are three wraps further on
    assert u.unwrap(100, hint=4 * wire.TICKS_PERIOD + 90) == 4 * wire.TICKS_PERIOD + 100
    with pytest.raises(wire.ProtocolError, match="not a 30-bit"):
        u.unwrap(wire.TICKS_PERIOD)


@given(st.integers(0, 2**40), st.lists(st.integers(0, wire.TICKS_HALF - 1), max_size=50))
def test_unwrapping_recovers_any_forward_walk(start, steps):
    u = wire.TickUnwrapper()
    t = start
    assert u.unwrap(t % wire.TICKS_PERIOD) == t % wire.TICKS_PERIOD
    base = t - t % wire.TICKS_PERIOD
    for s in steps:
        t += s
        assert u.unwrap(t % wire.TICKS_PERIOD) + base == t


def test_a_cut_frame_does_not_take_the_next_one_with_it():
    ping, hello = wire.pack(wire.PING, 1, 1), wire.pack(wire.HELLO_REQ, 2)
    out = wire.FrameReader().feed(ping[:4] + hello)
    assert isinstance(out[0], wire.BadFrame) and "recovered" in out[0].reason
    assert out[1] == wire.Frame(wire.HELLO_REQ, 2, b"")


def test_both_sides_and_the_vectors_name_one_protocol_version():
    from controller.sim.virtual_board import load_firmware

    assert wire.PROTOCOL_VERSION == load_firmware()["protocol"].VERSION
    assert list(wire.PROTOCOL_VERSION) == VECTORS["version"]
    (hello,) = [v for v in VECTORS["frames"] if v["type"] == wire.HELLO]
    assert tuple(hello["fields"][1:4]) == wire.PROTOCOL_VERSION
    version_line = (firmware_dir() / "PROTOCOL.md").read_text().splitlines()[0]
    assert version_line.endswith("version " + ".".join(map(str, wire.PROTOCOL_VERSION)))


def test_the_longest_frame_parses_and_a_longer_one_is_named():
    longest = wire.encode_frame(0x7F, 1, bytes(range(1, 44)))  # 48 bytes before COBS
    assert len(longest) == wire.MAX_FRAME + 2  # COBS adds one, the delimiter another
    assert wire.parse_frame(longest[:-1]).body == bytes(range(1, 44))
    too_long = wire.encode_frame(0x7F, 1, bytes(range(1, 46)))  # 50 bytes before COBS
    with pytest.raises(wire.ProtocolError, match=r"^frame of 51 bytes is longer than 50$"):
        wire.parse_frame(too_long[:-1])


def test_a_tick_of_exactly_2_to_the_30_is_refused():
    beat = wire.Frame(wire.HEARTBEAT, 1, struct.pack("<IIHB", 7, wire.TICKS_PERIOD, 0, 0))
    with pytest.raises(wire.ProtocolError, match="heartbeat frame: tick 1073741824 is not a "
                                                 "30-bit value"):
        beat.fields()
    ok = wire.Frame(wire.HEARTBEAT, 1, struct.pack("<IIHB", 7, wire.TICKS_PERIOD - 1, 0, 0))
    assert ok.fields()[1] == wire.TICKS_PERIOD - 1


def test_packing_an_unknown_type_names_it():
    with pytest.raises(wire.ProtocolError, match=r"^unknown frame type 0x7f$"):
        wire.pack(0x7F, 1)


def test_a_damaged_run_keeps_its_bytes_and_says_how_much_was_recovered():
    good = wire.pack(wire.PING, 9, 9)[:-1]  # without its delimiter
    for junk in (b"\x07", b"\x07\x07\x07"):  # one stray byte is enough to damage a frame
        bad, frame = wire.FrameReader().feed(junk + good + b"\x00")
        assert isinstance(bad, wire.BadFrame) and isinstance(frame, wire.Frame)
        assert bad.raw == junk
        assert bad.reason.endswith(f"recovered the frame in its last {len(good)} bytes")
        assert (frame.type, frame.seq, frame.fields()) == (wire.PING, 9, (9,))
    (only,) = wire.FrameReader().feed(b"\x07\x07\x07\x07\x07\x07\x00")
    assert isinstance(only, wire.BadFrame) and only.raw == b"\x07" * 6


def test_cobs_errors_name_the_offset():
    with pytest.raises(wire.ProtocolError) as err:
        wire.cobs_decode(b"\x01\x00\x01")
    assert str(err.value) == "COBS: zero byte at offset 1"
    with pytest.raises(wire.ProtocolError) as err:
        wire.cobs_decode(b"\x03\x05\x00")
    assert str(err.value) == "COBS: zero byte inside the block at offset 0"


def test_frame_types_are_bytes_and_the_body_defaults_to_empty():
    assert wire.encode_frame(0x42, 3) == wire.encode_frame(0x42, 3, b"")
    assert wire.parse_frame(wire.encode_frame(0x42, 3)[:-1]).body == b""
    assert wire.parse_frame(wire.encode_frame(0xFF, 3)[:-1]).type == 0xFF
    for bad in (256, -1):
        with pytest.raises(wire.ProtocolError) as err:
            wire.encode_frame(bad, 3)
        assert str(err.value) == f"frame type {bad} is not a byte"


def test_a_run_is_cut_off_only_past_the_reader_limit_and_counted_whole():
    limit = wire.FrameReader.LIMIT
    assert limit == wire.MAX_FRAME + 2
    # Exactly the limit: parsed (and refused for what it holds), its bytes kept.
    (bad,) = wire.FrameReader().feed(b"\x01" * limit + b"\x00")
    assert bad.reason.startswith("CRC mismatch") and bad.raw == b"\x01" * limit
    # One more, in a fresh reader: skipped to the delimiter and counted.
    assert wire.FrameReader().feed(b"\x01" * (limit + 1) + b"\x00") == [
        wire.BadFrame(f"{limit + 1} bytes without a delimiter", b"")]
    # Across two reads the count is the whole run's, and the next frame is intact.
    reader = wire.FrameReader()
    assert reader.feed(b"\x01" * 40) == []
    ping = wire.pack(wire.PING, 9, 9)
    out = reader.feed(b"\x01" * 30 + b"\x00" + ping)
    assert out[0] == wire.BadFrame("70 bytes without a delimiter", b"")
    assert (out[1].type, out[1].seq) == (wire.PING, 9) and len(out) == 2


def test_a_delimiter_first_in_a_read_ends_nothing():
    ping = wire.pack(wire.PING, 9, 9)
    (frame,) = wire.FrameReader().feed(b"\x00" + ping)
    assert (frame.type, frame.seq, frame.fields()) == (wire.PING, 9, (9,))
    reader = wire.FrameReader()
    assert reader.feed(ping[:-1]) == []
    (frame,) = reader.feed(b"\x00")  # the delimiter alone, first in its read, ends the frame
    assert frame.seq == 9

"""The board's protocol module against the shared vectors and COBS references."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.pads import protocol as host
from controller.sim.virtual_board import load_firmware

# COBS examples from the COBS paper / Wikipedia's table (raw, encoded).
WIKI_COBS = [
    ("", "01"), ("00", "0101"), ("0000", "010101"), ("001100", "01021101"),
    ("11220033", "0311220233"), ("11223344", "0511223344"), ("11000000", "0211010101"),
]


def test_crc_vectors(fw, vectors):
    P = fw["protocol"]
    for v in vectors["crc16"]:
        assert P.crc16(bytes.fromhex(v["data"])) == v["crc"]
    assert P.crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE check value


@pytest.mark.parametrize(("raw", "enc"), WIKI_COBS)
def test_cobs_reference(fw, raw, enc):
    P = fw["protocol"]
    assert P.cobs_encode(bytes.fromhex(raw)).hex() == enc
    assert P.cobs_decode(bytes.fromhex(enc)) == bytes.fromhex(raw)


def test_cobs_long_blocks(fw):
    P = fw["protocol"]
    d = bytes(range(1, 255))
    assert P.cobs_encode(d) == b"\xff" + d
    d = bytes(range(1, 256))
    assert P.cobs_encode(d) == b"\xff" + bytes(range(1, 255)) + b"\x02\xff"
    for v in (bytes(range(256)) * 3, b"\x00" * 300, b"\x01" * 600):
        assert P.cobs_decode(P.cobs_encode(v)) == v


def test_frame_vectors(fw, vectors):
    P = fw["protocol"]
    for v in vectors["frames"]:
        wire = bytes.fromhex(v["wire"])
        assert P.pack(v["type"], v["seq"], *v["fields"]) == wire, v["name"]
        items = P.Reader().feed(wire)
        assert len(items) == 1
        ftype, seq, body = items[0]
        assert (ftype, seq) == (v["type"], v["seq"])
        assert list(P.unpack(ftype, body)) == v["fields"]


def test_bad_vectors_are_reported_not_raised(fw, vectors):
    P = fw["protocol"]
    for v in vectors["bad"]:
        assert P.Reader().feed(bytes.fromhex(v["wire"])) == [P.N_BAD_FRAME], v["why"]


def test_reader_resyncs_after_garbage_and_overflow(fw):
    P = fw["protocol"]
    r = P.Reader()
    ping = P.pack(P.PING, 1, 5)
    out = r.feed(b"\x13\x37garbage" + ping[:3])  # a cut frame, then garbage, then good frames
    assert out == []
    out = r.feed(b"\x00" + ping + bytes(range(1, 200)) + b"\x00" + ping)
    assert out[0] == P.N_BAD_FRAME  # the cut frame
    assert out[1][:2] == (P.PING, 1)
    assert out[2] == P.N_BAD_FRAME  # 199 bytes without a delimiter
    assert out[3][:2] == (P.PING, 1)


def test_unpack_rejects_wrong_length(fw):
    P = fw["protocol"]
    assert P.unpack(P.PING, b"\x01") is None
    assert P.unpack(0x7F, b"") is None


# Cross-implementation properties: the board's MicroPython code and the host's
# typed code must agree on every frame, not only on the vectors.
FW = load_firmware()["protocol"]


@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=40))
def test_board_and_host_encode_identically(ftype, seq, body):
    wire = FW.encode(ftype, seq, body)
    assert wire == host.encode_frame(ftype, seq, body)
    assert FW.Reader().feed(wire) == [(ftype, seq, body)]


@given(st.binary(max_size=300))
def test_board_reader_survives_garbage_and_agrees_with_the_host(data):
    board_items = FW.Reader().feed(data)
    host_items = [x for x in host.FrameReader().feed(data) if isinstance(x, host.Frame)]
    board_frames = [x for x in board_items if not isinstance(x, int)]
    # the host may additionally salvage a frame from the end of a damaged run
    assert all(host.Frame(*f) in host_items for f in board_frames)

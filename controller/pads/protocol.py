"""The pad board's wire protocol, host side: pure encode and parse.

Frame on the wire: COBS(type u8 | seq u16 | body | crc16 u16) + 0x00, all little
endian, CRC-16/CCITT-FALSE over type..body. Specified in firmware/PROTOCOL.md;
the board's own implementation is firmware/protocol.py and both test suites
check the vectors in firmware/protocol_vectors.json.

We write our own framing because pyserial's `FramedPacket` has no CRC and no
COBS, and the board side must be plain MicroPython anyway. The CRC is the
standard library's `binascii.crc_hqx` (CRC-16/CCITT with initial value 0xFFFF
is CRC-16/CCITT-FALSE); the board computes the same CRC in pure Python because
MicroPython's binascii has no crc_hqx, and the shared vectors tie the two.

>>> encode_frame(0x81, 7, b"\\x07\\x00").hex()
'038107020703375100'
>>> parse_frame(bytes.fromhex('0381070207033751'))
Frame(type=129, seq=7, body=b'\\x07\\x00')
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass
from typing import ClassVar

from controller.errors import KnappError

# Frame types (firmware/protocol.py has the same numbers).
HELLO = 0x01
EVENT = 0x02
PONG = 0x03
HEARTBEAT = 0x04
LIGHT = 0x05
LEVELS = 0x06
SELFTEST = 0x07
NOTICE = 0x0E
PING = 0x81
HELLO_REQ = 0x82
RESEND = 0x83
CALIBRATE = 0x84
SELFTEST_REQ = 0x85
LED = 0x86
LEVELS_REQ = 0x87
SETUP = 0x88

TYPE_NAMES = {
    HELLO: "hello", EVENT: "event", PONG: "pong", HEARTBEAT: "heartbeat", LIGHT: "light",
    LEVELS: "levels", SELFTEST: "selftest", NOTICE: "notice", PING: "ping",
    HELLO_REQ: "hello_req", RESEND: "resend", CALIBRATE: "calibrate",
    SELFTEST_REQ: "selftest_req", LED: "led", LEVELS_REQ: "levels_req", SETUP: "setup",
}

# The protocol version both sides speak (firmware/protocol.py VERSION). A board
# with another major version cannot be understood: its HELLO says so.
PROTOCOL_VERSION = (2, 0, 0)

BODY_FORMATS: dict[int, str] = {
    HELLO: "<IBBBBIHBBH", EVENT: "<HBBIHB", PONG: "<HII", HEARTBEAT: "<IIHB", LIGHT: "<IHB",
    LEVELS: "<BHHHHHB", SELFTEST: "<BBBHHH", NOTICE: "<BH", PING: "<H", HELLO_REQ: "<",
    RESEND: "<H", CALIBRATE: "<BB", SELFTEST_REQ: "<", LED: "<BBBB", LEVELS_REQ: "<",
    SETUP: "<BBBH",
}

LIFT = 1
PLACE = 0
FLAG_RESENT = 1
RING = 32  # events the board keeps for RESEND (firmware/board.py RING)
FEATURE_LIGHT = 1
FEATURE_LEDS = 2
MAX_FRAME = 48

NOTICE_CODES = {1: "board got a bad frame", 2: "board got an unknown frame type",
                3: "board got a frame of the wrong length",
                4: "board no longer holds an event asked for"}
SELFTEST_CODES = {0: "ok", 1: "stuck high (short to 3V3 or divider resistor missing)",
                  2: "noisy (check wiring and ground)",
                  3: "empty and loaded levels too close: weak sensor or puck (fsr-divider.md)",
                  4: "reading sits between the thresholds (figure half on the pad?)"}

TICKS_PERIOD = 1 << 30
# Which fields of each board frame are board ticks (indices into `fields()`).
TICK_FIELDS: dict[int, tuple[int, ...]] = {HELLO: (5,), EVENT: (3,), PONG: (1, 2),
                                           HEARTBEAT: (1,), LIGHT: (0,)}
TICKS_HALF = TICKS_PERIOD >> 1


class ProtocolError(KnappError, ValueError):
    """A frame or field that does not follow firmware/PROTOCOL.md."""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """Return the CRC-16/CCITT-FALSE of `data` (the standard library's crc_hqx).

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, crc)


def cobs_encode(data: bytes) -> bytes:
    """Return `data` COBS-encoded, without the trailing 0x00 delimiter.

    >>> cobs_encode(bytes.fromhex("11220033")).hex()
    '0311220233'
    """
    out = bytearray()
    i, n = 0, len(data)
    while True:
        j = i
        while j < n and j - i < 254 and data[j] != 0:
            j += 1
        out.append(j - i + 1)
        out += data[i:j]
        if j == n:
            return bytes(out)
        # A full 254-byte block ends without a zero; otherwise skip the zero.
        i = j if j - i == 254 else j + 1


def cobs_decode(data: bytes) -> bytes:
    """Decode COBS bytes (without delimiter).

    Raises:
        ProtocolError: a zero byte inside, or a block running past the end.
    """
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError(f"COBS: zero byte at offset {i}")
        end = i + code
        if end > n:
            raise ProtocolError(f"COBS: block at offset {i} runs past the end ({end} > {n})")
        block = data[i + 1:end]
        if 0 in block:
            raise ProtocolError(f"COBS: zero byte inside the block at offset {i}")
        out += block
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    """One decoded, CRC-checked frame."""

    type: int
    seq: int
    body: bytes

    def fields(self) -> tuple[int, ...]:
        """Unpack the body per the type's layout.

        Raises:
            ProtocolError: unknown type or a body of the wrong length.
        """
        fmt = BODY_FORMATS.get(self.type)
        if fmt is None:
            raise ProtocolError(f"unknown frame type 0x{self.type:02x}")
        if struct.calcsize(fmt) != len(self.body):
            raise ProtocolError(
                f"{TYPE_NAMES[self.type]} frame body has {len(self.body)} bytes, "
                f"expected {struct.calcsize(fmt)}")
        fields = tuple(struct.unpack(fmt, self.body))
        # A good CRC only says the bytes arrived as sent: a board with a bug can
        # still send a tick the 30-bit counter never shows. Refuse it here, before
        # it reaches the clock fit or the unwrapper.
        for i in TICK_FIELDS.get(self.type, ()):
            if fields[i] >= TICKS_PERIOD:
                raise ProtocolError(f"{TYPE_NAMES[self.type]} frame: tick {fields[i]} is not "
                                    "a 30-bit value")
        return fields


def encode_frame(ftype: int, seq: int, body: bytes = b"") -> bytes:
    """Return one frame ready for the wire, 0x00 delimiter included."""
    if not 0 <= ftype <= 0xFF:
        raise ProtocolError(f"frame type {ftype} is not a byte")
    raw = struct.pack("<BH", ftype, seq & 0xFFFF) + body
    raw += struct.pack("<H", crc16(raw))
    return cobs_encode(raw) + b"\x00"


def pack(ftype: int, seq: int, *fields: int) -> bytes:
    """Return a frame of `ftype` whose body packs `fields` per BODY_FORMATS."""
    try:
        body = struct.pack(BODY_FORMATS[ftype], *fields)
    except KeyError:
        raise ProtocolError(f"unknown frame type 0x{ftype:02x}") from None
    except struct.error as exc:
        raise ProtocolError(f"{TYPE_NAMES[ftype]} fields {fields}: {exc}") from None
    return encode_frame(ftype, seq, body)


def parse_frame(data: bytes) -> Frame:
    """Decode one frame (without its delimiter) and check its CRC.

    Raises:
        ProtocolError: bad COBS, too short, too long, or CRC mismatch.
    """
    if len(data) > MAX_FRAME + 2:
        raise ProtocolError(f"frame of {len(data)} bytes is longer than {MAX_FRAME + 2}")
    raw = cobs_decode(data)
    if len(raw) < 5:
        raise ProtocolError(f"frame of {len(raw)} bytes is shorter than 5")
    want = raw[-2] | (raw[-1] << 8)
    got = crc16(raw[:-2])
    if want != got:
        raise ProtocolError(f"CRC mismatch: frame says 0x{want:04x}, content gives 0x{got:04x}")
    return Frame(raw[0], raw[1] | (raw[2] << 8), bytes(raw[3:-2]))


@dataclass(frozen=True)
class BadFrame:
    """A damaged stretch of the byte stream, with why it was rejected."""

    reason: str
    raw: bytes


class FrameReader:
    """Split a byte stream at 0x00 delimiters into `Frame`s and `BadFrame`s.

    Holds at most one frame's worth of bytes: an over-long run is reported once
    as a `BadFrame` and skipped up to the next delimiter.
    """

    LIMIT: ClassVar[int] = MAX_FRAME + 2

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = 0

    def feed(self, data: bytes) -> list[Frame | BadFrame]:
        """Add bytes; return the frames (good and bad) they completed."""
        out: list[Frame | BadFrame] = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            chunk = data[start:] if end < 0 else data[start:end]
            if self._overflow or len(self._buf) + len(chunk) > self.LIMIT:
                self._overflow += len(self._buf) + len(chunk)
                self._buf.clear()
            else:
                self._buf += chunk
            if end < 0:
                return out
            if self._overflow:
                out.append(BadFrame(f"{self._overflow} bytes without a delimiter", b""))
                self._overflow = 0
            elif self._buf:
                raw = bytes(self._buf)
                self._buf.clear()
                try:
                    out.append(parse_frame(raw))
                except ProtocolError as exc:
                    out += _salvage(raw, str(exc))
            start = end + 1

    def reset(self) -> None:
        """Drop any partial frame (after a reconnect)."""
        self._buf.clear()
        self._overflow = 0


def _salvage(raw: bytes, reason: str) -> list[Frame | BadFrame]:
    """Report a damaged run, and recover a whole frame at its end if there is one.

    A frame cut short (an unplug, a board reset mid-write) runs into the next
    frame, which then ends the run intact: we look for the longest suffix that
    decodes, passes its CRC and has the right body length for its type.
    """
    for k in range(1, len(raw) - 4):
        try:
            frame = parse_frame(raw[k:])
            frame.fields()
        except ProtocolError:
            continue
        return [BadFrame(f"{reason}; recovered the frame in its last {len(raw) - k} bytes",
                         raw[:k]), frame]
    return [BadFrame(reason, raw)]


class TickUnwrapper:
    """Turn the board's 30-bit microsecond ticks into a 64-bit count.

    Each tick is taken as the nearest unwrapped value to the previous one
    (within +-2**29 us, about 8.9 minutes; the board sends a heartbeat every
    second). After a long gap the caller passes `hint`, the expected unwrapped
    value from the clock fit, to pick the right wrap.
    """

    def __init__(self) -> None:
        self.last: int | None = None

    def unwrap(self, raw: int, *, hint: int | None = None, advance: bool = True) -> int:
        """Return the unwrapped tick of `raw`.

        Args:
            raw: a 30-bit board tick.
            hint: expected unwrapped value, used instead of the last one.
            advance: move the reference forward (False for resent old events).
        """
        if not 0 <= raw < TICKS_PERIOD:
            raise ProtocolError(f"tick {raw} is not a 30-bit value")
        ref = hint if hint is not None else self.last
        if ref is None:
            value = raw
        else:
            d = ((raw - ref + TICKS_HALF) % TICKS_PERIOD) - TICKS_HALF
            value = ref + d
        if advance and (self.last is None or value > self.last):
            self.last = value
        return value

    def reset(self) -> None:
        """Forget the reference (the board rebooted)."""
        self.last = None

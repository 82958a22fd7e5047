"""Pad board wire protocol, board side (see PROTOCOL.md).

A frame is ``type u8 | seq u16 | body | crc16 u16`` (little endian), with a
CRC-16/CCITT-FALSE over type..body, then COBS-encoded and ended by one 0x00
byte. COBS keeps 0x00 out of the frame, so after garbage or a cut frame the
reader resynchronises at the next 0x00 and loses at most that one frame.

Pure logic: runs under MicroPython and CPython alike (the host keeps its own
typed implementation in controller/pads/protocol.py; both read
protocol_vectors.json in their tests).
"""

import struct

VERSION = (2, 0, 0)

# Board -> host
HELLO = 0x01
EVENT = 0x02
PONG = 0x03
HEARTBEAT = 0x04
LIGHT = 0x05
LEVELS = 0x06
SELFTEST = 0x07
NOTICE = 0x0E
# Host -> board
PING = 0x81
HELLO_REQ = 0x82
RESEND = 0x83
CALIBRATE = 0x84
SELFTEST_REQ = 0x85
LED = 0x86
LEVELS_REQ = 0x87
SETUP = 0x88

LIFT = 1
PLACE = 0

# Notice codes
N_BAD_FRAME = 1
N_UNKNOWN_TYPE = 2
N_BAD_LENGTH = 3
N_RESEND_GONE = 4

MAX_FRAME = 48  # longest decoded frame (type..crc); longer input is garbage

BODY_FORMATS = {
    HELLO: "<IBBBBIHBBH",     # boot_id, major, minor, patch, npads, tick, scan_us, features,
                              # placed, last_n
    EVENT: "<HBBIHB",         # n, pad, kind, tick, level, flags
    PONG: "<HII",             # ping_id, t2, t3
    HEARTBEAT: "<IIHB",       # boot_id, tick, last_n, placed
    LIGHT: "<IHB",            # tick, level, kind (1 = brighter)
    LEVELS: "<BHHHHHB",       # pad, empty, loaded, lo, hi, value, placed
    SELFTEST: "<BBBHHH",      # pad, ok, code, minimum, maximum, noise
    NOTICE: "<BH",            # code, arg
    PING: "<H",               # ping_id
    HELLO_REQ: "<",
    RESEND: "<H",             # from_n
    CALIBRATE: "<BB",         # pad (255 = all), which (0 empty, 1 loaded)
    SELFTEST_REQ: "<",
    LED: "<BBBB",             # pad (255 = all), r, g, b
    LEVELS_REQ: "<",
    SETUP: "<BBBH",           # hysteresis %, confirm samples, lockout ms, min spread
}

FLAG_RESENT = 1
FEATURE_LIGHT = 1
FEATURE_LEDS = 2

_CRC_TABLE = None


def _table():
    global _CRC_TABLE
    if _CRC_TABLE is None:
        t = []
        for i in range(256):
            c = i << 8
            for _ in range(8):
                c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
            t.append(c & 0xFFFF)
        _CRC_TABLE = t
    return _CRC_TABLE


def crc16(data, crc=0xFFFF):
    """Return the CRC-16/CCITT-FALSE of `data` (check value 0x29B1 for b"123456789")."""
    t = _table()
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data):
    """Return `data` COBS-encoded (no 0x00 inside, no trailing delimiter)."""
    out = bytearray()
    i = 0
    n = len(data)
    while True:
        j = i
        while j < n and j - i < 254 and data[j] != 0:
            j += 1
        out.append(j - i + 1)
        out.extend(data[i:j])
        if j == n:
            return bytes(out)
        # a full 254-byte block ends without a zero; otherwise skip the zero
        i = j if j - i == 254 else j + 1


def cobs_decode(data):
    """Return the decoded bytes, or None if `data` is not valid COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            return None
        i += 1
        end = i + code - 1
        if end > n:
            return None
        for j in range(i, end):
            if data[j] == 0:
                return None
        out.extend(data[i:end])
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(ftype, seq, body=b""):
    """Return one complete frame on the wire, delimiter included."""
    raw = bytearray(struct.pack("<BH", ftype, seq & 0xFFFF))
    raw.extend(body)
    c = crc16(raw)
    raw.extend(struct.pack("<H", c))
    return cobs_encode(raw) + b"\x00"


def pack(ftype, seq, *fields):
    """Return a frame of type `ftype` with its fields packed per BODY_FORMATS."""
    return encode(ftype, seq, struct.pack(BODY_FORMATS[ftype], *fields))


def unpack(ftype, body):
    """Return the field tuple of `body`, or None if its length is wrong."""
    fmt = BODY_FORMATS.get(ftype)
    if fmt is None or struct.calcsize(fmt) != len(body):
        return None
    return struct.unpack(fmt, body)


def decode(frame):
    """Decode one frame without its delimiter.

    Returns (type, seq, body) or an int notice code (N_BAD_FRAME) when the
    COBS or the CRC is wrong.
    """
    raw = cobs_decode(frame)
    if raw is None or len(raw) < 5:
        return N_BAD_FRAME
    if crc16(raw[:-2]) != raw[-2] | (raw[-1] << 8):
        return N_BAD_FRAME
    return raw[0], raw[1] | (raw[2] << 8), raw[3:-2]


class Reader:
    """Split a byte stream into frames; keeps at most MAX_FRAME pending bytes.

    `feed(data)` returns a list whose items are (type, seq, body) tuples or
    N_BAD_FRAME for each damaged frame.
    """

    def __init__(self):
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data):
        out = []
        for b in data:
            if b == 0:
                if self._overflow:
                    out.append(N_BAD_FRAME)
                elif self._buf:
                    out.append(decode(bytes(self._buf)))
                self._buf = bytearray()
                self._overflow = False
            elif not self._overflow:
                if len(self._buf) >= MAX_FRAME + 2:
                    self._overflow = True
                else:
                    self._buf.append(b)
        return out

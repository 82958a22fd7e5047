"""The pad board's application logic, independent of the hardware.

`main.py` builds a `Board` with the real ADC reader, `time.ticks_us` and the USB
writer; the tests and the host's virtual board build it with simulated ones.
One `scan()` samples every pad once (and the light sensor), emits events and
heartbeats; `feed(data)` handles bytes from the host.
"""

import protocol as P
from calibrate import calibrate
from pads import Pad
from selftest import check
from ticks import ticks_diff

RING = 32
BURST = 64  # samples per calibration / self-test measurement


class Board:
    """Firmware logic for N pads.

    Args:
        read_pad: read_pad(i) -> u16 ADC value of pad i.
        ticks_us: the 30-bit microsecond tick clock.
        write: write(bytes) sends to the host.
        boot_id: 32-bit number that differs on every boot.
        npads: number of pads.
        pads: optional list of configured `Pad` objects.
        read_light: optional read_light() -> u16 for the display light sensor.
        light: the `LightSensor` used with read_light.
        leds: optional `Leds`.
        scan_us: the nominal scan period. HELLO reports the measured average
            period instead when `note_period` shows the loop runs slower.
        heartbeat_us: heartbeat interval (well inside the 2**29 us tick half-range).
        store: optional object with load() -> [(empty, loaded, raw_empty,
            raw_loaded), ...] or None and
            save(levels), keeping calibrated levels across reboots (main.py: a file).
    """

    def __init__(self, read_pad, ticks_us, write, boot_id, npads=5, pads=None,
                 read_light=None, light=None, leds=None, scan_us=250,
                 heartbeat_us=1000000, store=None):
        self.read_pad = read_pad
        self.ticks_us = ticks_us
        self.write = write
        self.boot_id = boot_id & 0xFFFFFFFF
        self.npads = npads
        self.pads = pads if pads is not None else [Pad() for _ in range(npads)]
        self.read_light = read_light
        self.light = light
        self.leds = leds
        self.scan_us = scan_us
        self.heartbeat_us = heartbeat_us
        self.reader = P.Reader()
        self.seq = 0
        self.n = 0  # last event number sent (0 = none yet; first is 1)
        self.ring = []
        self.bad_frames = 0
        self._last_hb = ticks_us()
        self._period256 = scan_us << 8  # average scan loop period, in 1/256 us
        self._burst = None  # (kind, pad, which, samples per pad)
        self.store = store
        saved = store.load() if store is not None else None
        if saved and len(saved) == npads:
            for pad, levels in zip(self.pads, saved):
                # A file from before the raw levels were kept holds two values.
                raw = (levels[2], levels[3]) if len(levels) >= 4 else None
                pad.set_levels(levels[0], levels[1], raw)
        self.hello()

    # -- output -------------------------------------------------------------

    def send(self, ftype, *fields):
        self.seq = (self.seq + 1) & 0xFFFF
        self.write(P.pack(ftype, self.seq, *fields))

    def placed_mask(self):
        m = 0
        for i, pad in enumerate(self.pads):
            if pad.placed:
                m |= 1 << i
        return m

    def features(self):
        f = 0
        if self.read_light is not None:
            f |= P.FEATURE_LIGHT
        if self.leds is not None:
            f |= P.FEATURE_LEDS
        return f

    def period_us(self):
        """The scan period HELLO reports: the measured average, never below the nominal."""
        return min(max(self.scan_us, self._period256 >> 8), 0xFFFF)

    def note_period(self, us):
        """Record how long one pass of the scan loop took (main.py measures it).

        A moving average over about 256 loops: a single USB stall barely moves it.
        """
        if us > 0:
            self._period256 += us - (self._period256 >> 8)

    def hello(self):
        major, minor, patch = P.VERSION
        self.send(P.HELLO, self.boot_id, major, minor, patch, self.npads, self.ticks_us(),
                  self.period_us(), self.features(), self.placed_mask(), self.n)

    def heartbeat(self, tick):
        self._last_hb = tick
        self.send(P.HEARTBEAT, self.boot_id, tick, self.n, self.placed_mask())

    # -- sampling -----------------------------------------------------------

    def scan(self):
        """Sample every pad once; emit events, bursts and heartbeats as due."""
        burst = self._burst
        for i in range(self.npads):
            v = self.read_pad(i)
            t = self.ticks_us()
            ev = self.pads[i].update(v, t)
            if ev is not None:
                self.event(i, ev[0], ev[1], ev[2])
            if burst is not None:
                burst[3][i].append(v)
        if self.read_light is not None and self.light is not None:
            v = self.read_light()
            t = self.ticks_us()
            ev = self.light.update(v, t)
            if ev is not None:
                self.send(P.LIGHT, ev[1], ev[2], ev[0])
        if burst is not None and len(burst[3][0]) >= BURST:
            self._burst = None
            self.finish_burst(burst)
        t = self.ticks_us()
        if ticks_diff(t, self._last_hb) >= self.heartbeat_us:
            self.heartbeat(t)

    def event(self, pad, kind, tick, value):
        self.n = (self.n % 0xFFFF) + 1  # 1..65535, 0 means "none yet"
        rec = (self.n, pad, kind, tick, min(value, 0xFFFF))
        self.ring.append(rec)
        if len(self.ring) > RING:
            self.ring.pop(0)
        self.send(P.EVENT, rec[0], rec[1], rec[2], rec[3], rec[4], 0)

    def finish_burst(self, burst):
        kind, target, which, samples = burst
        for i in range(self.npads):
            if target not in (255, i):
                continue
            pad = self.pads[i]
            if kind == P.CALIBRATE:
                calibrate(pad, samples[i], which)
                self.send_levels(i)
            else:
                ok, code, lo, hi, noise = check(pad, samples[i])
                self.send(P.SELFTEST, i, ok, code, lo, hi, noise)
        if kind == P.CALIBRATE and self.store is not None:
            self.store.save([(p.empty, p.loaded) + p.raw_levels() for p in self.pads])

    def send_levels(self, i):
        pad = self.pads[i]
        self.send(P.LEVELS, i, pad.empty, pad.loaded, max(pad.lo, 0), min(pad.hi, 0xFFFF),
                  pad.value, 1 if pad.placed else 0)

    # -- input --------------------------------------------------------------

    def feed(self, data, tick=None):
        """Handle bytes from the host; `tick` is when they arrived (default: now)."""
        for item in self.reader.feed(data):
            if isinstance(item, int):
                self.bad_frames += 1
                self.send(P.NOTICE, item, self.bad_frames & 0xFFFF)
                continue
            ftype, _seq, body = item
            fields = P.unpack(ftype, body)
            if fields is None:
                code = P.N_UNKNOWN_TYPE if ftype not in P.BODY_FORMATS else P.N_BAD_LENGTH
                self.send(P.NOTICE, code, ftype)
                continue
            self.handle(ftype, fields, self.ticks_us() if tick is None else tick)

    def handle(self, ftype, fields, t2):
        if ftype == P.PING:
            self.send(P.PONG, fields[0], t2, self.ticks_us())
        elif ftype == P.HELLO_REQ:
            self.hello()
        elif ftype == P.RESEND:
            self.resend(fields[0])
        elif ftype in (P.CALIBRATE, P.SELFTEST_REQ):
            pad = fields[0] if ftype == P.CALIBRATE else 255
            which = fields[1] if ftype == P.CALIBRATE else 0
            self._burst = (ftype, pad, which, [[] for _ in range(self.npads)])
        elif ftype == P.LED:
            if self.leds is not None:
                self.leds.set(fields[0], fields[1], fields[2], fields[3])
        elif ftype == P.SETUP:
            hyst, confirm, lockout_ms, min_spread = fields
            for pad in self.pads:
                pad.configure(hyst / 100, confirm, lockout_ms * 1000, min_spread)
            for i in range(self.npads):
                self.send_levels(i)
        elif ftype == P.LEVELS_REQ:
            for i in range(self.npads):
                self.send_levels(i)
        else:
            self.send(P.NOTICE, P.N_UNKNOWN_TYPE, ftype)

    def resend(self, from_n):
        if not self.ring:
            return
        if from_n == (self.n % 0xFFFF) + 1:
            return  # the host already has everything
        # how far from_n lies behind the newest event, in the cyclic 1..65535 numbering
        behind = (self.n - from_n) % 0xFFFF
        if behind >= len(self.ring):
            self.send(P.NOTICE, P.N_RESEND_GONE, from_n)
            behind = len(self.ring) - 1
        for rec in self.ring[len(self.ring) - 1 - behind:]:
            self.send(P.EVENT, rec[0], rec[1], rec[2], rec[3], rec[4], P.FLAG_RESENT)

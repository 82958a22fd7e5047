"""The host's side of the pad board link, without I/O: bytes in, pad items and frames out.

`LinkSession` speaks firmware/PROTOCOL.md over whatever carries the bytes. The
port owner (`controller.pads.serial_link.SerialPads`) hands it what it read
with the host time of the read, asks it for due pings with `tick`, and writes
the frames `frames_to_send` returns. The session frames and parses, checks
sequence numbers, asks for lost events again (RESEND) and drops duplicates,
greets (HELLO, protocol version), notices reboots, and keeps the board's time
on the host clock through `controller.pads.boardtime.BoardTime` (pings, the
`ClockSync` feed, tick unwrapping). It never reads a clock, sleeps, or touches
a port, so a whole conversation can be tested with bytes alone.

Why this module is long: it is one state machine over shared per-boot state
(frame sequence, event numbering, events held until the first clock fit), kept
together so each rule sits next to the state it changes; its timing half and
the board's reports already live in `boardtime.py` and `boardinfo.py`.

Every time it is given and every time it reports is host CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.knapp.cards import Figure
from controller.pads import protocol as wire
from controller.pads.boardinfo import (
    BoardSettings,
    Levels,
    SelfTestResult,
    hello_version,
    version_status,
)
from controller.pads.boardtime import BoardTime
from controller.pads.clocksync import ClockSync
from controller.pads.events import Item, LightEvent, PadEvent, PadStatus
from controller.pads.numbering import EVENT_SPACE, EventNumbers, FrameSequence

FUTURE_SLACK_NS = 1_000_000  # an event's tick may map this far past its arrival


class LinkSession:
    """The link state machine of one host and one pad board.

    Args:
        figures: the figure on each board pad, in pad order.
        ping_interval_ns: steady-state ping period.
        burst: pings sent quickly after each hello, to sync fast.
        burst_interval_ns: the period of those quick pings.
        settings: detector settings for the board (None: keep the firmware's).
        sync: the clock fit to feed (default: `ClockSync()`).
    """

    def __init__(self, *, figures: Sequence[Figure] = tuple(Figure),
                 ping_interval_ns: int = 1_000_000_000, burst: int = 8,
                 burst_interval_ns: int = 20_000_000, settings: BoardSettings | None = None,
                 sync: ClockSync | None = None) -> None:
        self.figures = tuple(figures)
        self.settings = settings
        self.time = BoardTime(ping_interval_ns=ping_interval_ns, burst=burst,
                              burst_interval_ns=burst_interval_ns, sync=sync)
        self.reader = wire.FrameReader()
        self.port = ""  # named in statuses
        self.levels: dict[Figure, Levels] = {}
        self.selftest: dict[Figure, SelfTestResult] = {}
        self.stats = {"frames": 0, "bad_frames": 0, "lost_frames": 0, "duplicate_frames": 0,
                      "events": 0, "duplicate_events": 0, "resent_events": 0}
        self.boot_id: int | None = None
        self.version: tuple[int, int, int] | None = None
        self.features: int | None = None  # from the last trusted HELLO
        self.scan_ns = 0
        self.greetings = 0  # trusted HELLOs so far, for the owner's back-off
        self._outbox: list[bytes] = []
        self._placed: dict[Figure, bool | None] = dict.fromkeys(self.figures)
        self._frames = FrameSequence(self.stats)
        self._numbers = EventNumbers(self.stats)
        self._tx_seq = 0
        self._held: list[tuple[Figure, str, int]] = []
        self._greeted = False
        self._echo_reported = False

    # -- what the owner calls ---------------------------------------------------

    @property
    def sync(self) -> ClockSync:
        """The clock fit of the board's ticks onto the host clock."""
        return self.time.sync

    @sync.setter
    def sync(self, sync: ClockSync) -> None:
        self.time.sync = sync

    @property
    def synced(self) -> bool:
        """True once the board's clock is mapped onto the host's."""
        return self.time.synced

    @property
    def greeted(self) -> bool:
        """True once a HELLO named the board on this connection."""
        return self._greeted

    @property
    def has_leds(self) -> bool:
        """True when the board's HELLO said it drives an LED under each pad."""
        return self.features is not None and bool(self.features & wire.FEATURE_LEDS)

    def placed(self) -> dict[Figure, bool | None]:
        """Return which figures stand on their pads, as last reported by the board."""
        return dict(self._placed)

    def error_bound_ns(self, now_ns: int) -> int | None:
        """The clock error bound at host time `now_ns`, or None before sync."""
        return self.time.error_bound_ns(now_ns)

    def connection_made(self, port: str) -> None:
        """Start a new connection on `port`: forget partial frames, ask for a HELLO."""
        self.port = port
        self.reader.reset()
        self._frames.restart()
        self._greeted = False
        self.time.forget_pings()
        self._send(wire.HELLO_REQ)

    def receive(self, data: bytes, now_ns: int) -> list[Item]:
        """Take bytes read from the board at host time `now_ns`; return what they said."""
        out: list[Item] = []
        if not data:
            return out
        for frame in self.reader.feed(data):
            self._handle(frame, now_ns, out)
        self.time.note_wrap(out)
        return out

    def tick(self, now_ns: int) -> None:
        """Let host time reach `now_ns`: queue a PING if one is due."""
        if self._greeted and self.time.ping_due(now_ns):
            ping_id = self._send(wire.PING, (self._tx_seq + 1) & 0xFFFF)
            self.time.ping_sent(ping_id, now_ns)

    def frames_to_send(self) -> list[bytes]:
        """Return (and forget) the frames queued for the board, oldest first."""
        frames, self._outbox = self._outbox, []
        return frames

    def set_led(self, figure: Figure | None, rgb: tuple[int, int, int]) -> None:
        """Queue an LED frame: one pad's LED (None: all pads) in `rgb`."""
        self._send(wire.LED, self._pad(figure), *rgb)

    def calibrate(self, figure: Figure | None, loaded: bool) -> None:
        """Queue a CALIBRATE: learn one pad's (None: every pad's) empty or loaded level."""
        self._send(wire.CALIBRATE, self._pad(figure), 1 if loaded else 0)

    def request_selftest(self) -> None:
        """Queue a SELFTEST_REQ (answers arrive as `selftest` statuses)."""
        self._send(wire.SELFTEST_REQ)

    def request_levels(self) -> None:
        """Queue a LEVELS_REQ for every pad's levels and thresholds."""
        self._send(wire.LEVELS_REQ)

    # -- sending ------------------------------------------------------------------

    def _pad(self, figure: Figure | None) -> int:
        return 255 if figure is None else self.figures.index(figure)

    def _send(self, ftype: int, *fields: int) -> int:
        """Queue one frame; return its seq (the ping id for pings)."""
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        self._outbox.append(wire.pack(ftype, self._tx_seq, *fields))
        return self._tx_seq

    # -- frames -------------------------------------------------------------------

    def _handle(self, frame: wire.Frame | wire.BadFrame, t_rx: int, out: list[Item]) -> None:
        fields = self._fields(frame, out)
        if fields is None:
            return
        assert isinstance(frame, wire.Frame)
        if frame.type & 0x80:
            self._echo(frame, out)
        elif frame.type == wire.HELLO:
            self._hello(frame, fields, t_rx, out)
        elif not self._greeted:
            if frame.type == wire.HEARTBEAT and self.boot_id is not None:
                self._send(wire.HELLO_REQ)
            # nothing is trusted before a HELLO names the boot
        elif frame.type == wire.HEARTBEAT and fields[0] != self.boot_id:
            self._heartbeat(fields, t_rx, 1, out)  # another boot: its seq numbers start over
        else:
            gap = self._frames.check(frame, t_rx, out)
            if gap is not None:
                self._dispatch(frame.type, fields, t_rx, gap, out)
        from_n = self._numbers.take_resend()
        if from_n is not None:
            self._send(wire.RESEND, from_n)

    def _fields(self, frame: wire.Frame | wire.BadFrame, out: list[Item]) -> tuple[int, ...] | None:
        """The frame's fields, or None (and a status) for a frame that cannot be read."""
        if isinstance(frame, wire.BadFrame):
            self.stats["bad_frames"] += 1
            out.append(PadStatus("bad_frame", frame.reason))
            return None
        try:
            fields = frame.fields()
        except wire.ProtocolError as exc:
            self.stats["bad_frames"] += 1
            version = hello_version(frame)
            if version is not None and version[0] != wire.PROTOCOL_VERSION[0]:
                out.append(version_status(version))
            else:
                out.append(PadStatus("bad_frame", str(exc)))
            return None
        self.stats["frames"] += 1
        return fields

    def _echo(self, frame: wire.Frame, out: list[Item]) -> None:
        # Host-to-board types coming back: the line echoes what we send.
        if not self._echo_reported:
            self._echo_reported = True
            out.append(PadStatus("notice", f"echo of a host frame "
                                           f"({wire.TYPE_NAMES[frame.type]}): the port "
                                           "sends back what we write (tty echo on?)"))

    def _dispatch(self, ftype: int, fields: tuple[int, ...], t_rx: int, gap: int,
                  out: list[Item]) -> None:
        if ftype == wire.EVENT:
            self._event(fields, t_rx, gap, out)
            return
        if ftype == wire.HEARTBEAT:
            self._heartbeat(fields, t_rx, gap, out)
            return
        self._numbers.event_free_frame(gap)
        if ftype == wire.PONG:
            self._pong(fields, t_rx, out)
        elif ftype == wire.LIGHT:
            self._light(fields, t_rx, out)
        elif ftype == wire.LEVELS:
            self._levels(fields, out)
        elif ftype == wire.SELFTEST:
            self._selftest(fields, out)
        elif ftype == wire.NOTICE:
            code, arg = fields
            text = wire.NOTICE_CODES.get(code, f"notice {code}")
            out.append(PadStatus("notice", f"{text} ({arg})"))

    # -- HELLO --------------------------------------------------------------------

    def _hello(self, frame: wire.Frame, fields: tuple[int, ...], t_rx: int,
               out: list[Item]) -> None:
        boot_id, major, minor, patch, npads, tick, scan_us, features, placed, last_n = fields
        if major != wire.PROTOCOL_VERSION[0]:
            out.append(version_status((major, minor, patch)))
            return  # nothing from this board can be trusted
        self.version = (major, minor, patch)
        self.features = features
        self.scan_ns = scan_us * 1000
        if self.boot_id is None:
            self._first_contact(fields, out)
        elif boot_id != self.boot_id:
            self._rebooted(boot_id, last_n, out)
        elif not self._greeted:
            self._came_back(boot_id, last_n, out)
        else:  # the answer to our own HELLO_REQ on this connection
            self._numbers.announced(last_n)
        if npads != len(self.figures):
            out.append(PadStatus("notice", f"board has {npads} pads but {len(self.figures)} "
                                           "figures are configured"))
        self.boot_id = boot_id
        self._greeted = True
        self.greetings += 1
        self._frames.restart(frame, t_rx)  # the frames after it number on from its seq
        self.time.unwrap(tick, t_rx)
        self._set_placed(placed)
        self.time.start_burst(t_rx)
        if self.settings is not None:
            s = self.settings
            self._send(wire.SETUP, s.hysteresis_pct, s.confirm_samples, s.lockout_ms,
                       s.min_spread)

    def _first_contact(self, hello: tuple[int, ...], out: list[Item]) -> None:
        boot_id, major, minor, patch, npads, _tick, scan_us, _features, _placed, last_n = hello
        # What the board did before we listened is history, not news: number on
        # from its newest event (`last_n`, 0: none yet this boot).
        self._numbers.first_contact(last_n)
        version = f"{major}.{minor}.{patch}"
        out.append(PadStatus("connected", f"pad board firmware {version} on {self.port}, "
                                          f"boot id {boot_id:08x}, {npads} pads, "
                                          f"scan {scan_us} us "
                                          f"({1e6 / max(scan_us, 1):.0f} samples/s per pad)"))

    def _rebooted(self, boot_id: int, last_n: int, out: list[Item]) -> None:
        self._flush_held(out)
        self.time.reboot()
        self._numbers.rebooted(last_n)
        out.append(PadStatus("rebooted", f"pad board rebooted (boot id {self.boot_id or 0:08x} "
                                         f"-> {boot_id:08x}); clock sync restarts"))
        if last_n:
            # Events since the reboot came before this hello and were not trusted.
            self._numbers.resend_from = 1

    def _came_back(self, boot_id: int, last_n: int, out: list[Item]) -> None:
        """The same boot on a new connection: fetch what happened meanwhile."""
        if self._numbers.announced(last_n):
            out.append(PadStatus("connected", f"pad board back on {self.port}, same boot "
                                              f"{boot_id:08x}; asking for missed events"))
            self._numbers.resend_from = self._numbers.next_n
        else:
            out.append(PadStatus("connected", f"pad board back on {self.port}, same boot "
                                              f"{boot_id:08x}; no events missed"))

    # -- board state --------------------------------------------------------------

    def _set_placed(self, mask: int) -> None:
        for i, figure in enumerate(self.figures):
            self._placed[figure] = bool(mask >> i & 1)

    def _pong(self, fields: tuple[int, ...], t_rx: int, out: list[Item]) -> None:
        if self.time.pong(fields, t_rx, out):
            self._flush_held(out)  # the first fit: time the events held until now

    # -- events -------------------------------------------------------------------

    def _event(self, fields: tuple[int, ...], t_rx: int, gap: int, out: list[Item]) -> None:
        n, pad, kind_code, tick, level, flags = fields
        bad = self._bad_event(n, pad, kind_code, tick, t_rx)
        if bad is not None:
            self._numbers.event_free_frame(gap)
            out.append(PadStatus("bad_frame", bad))
            return
        in_order = self._numbers.event(n, (pad, kind_code, tick, level),
                                       bool(flags & wire.FLAG_RESENT), gap, out)
        if in_order is None:
            return
        figure = self.figures[pad]
        kind = "lift" if kind_code == wire.LIFT else "place"
        board_us = self.time.unwrap(tick, t_rx, advance=in_order)
        if in_order:
            self._placed[figure] = kind == "place"
        self.stats["events"] += 1
        if not self.time.synced:
            self._held.append((figure, kind, board_us))
            return
        out.append(self._pad_event(figure, kind, board_us))

    def _bad_event(self, n: int, pad: int, kind_code: int, tick: int, t_rx: int) -> str | None:
        """Why an EVENT's fields cannot be the board's (None: they can)."""
        if not 1 <= n <= EVENT_SPACE:
            return f"event number {n} out of range"
        if pad >= len(self.figures):
            return f"event for pad {pad}, but only {len(self.figures)} figures are configured"
        if kind_code not in (wire.LIFT, wire.PLACE):
            return f"event kind {kind_code} is neither lift nor place"
        if self.time.synced:
            t_ns, bound = self.time.to_host(self.time.unwrap(tick, t_rx, advance=False))
            if t_ns - bound > t_rx + FUTURE_SLACK_NS:
                return (f"event {n} is timed {(t_ns - bound - t_rx) / 1e6:.1f} ms after it "
                        "arrived")
        return None

    def _pad_event(self, figure: Figure, kind: str, board_us: int) -> PadEvent:
        t_ns, bound = self.time.to_host(board_us)
        return PadEvent(figure, "lift" if kind == "lift" else "place", t_ns,
                        bound + self.scan_ns, "serial")

    def _flush_held(self, out: list[Item]) -> None:
        if not self.time.synced:
            if self._held:
                out.append(PadStatus("notice", f"{len(self._held)} event(s) before the first "
                                               "clock sync could not be timed; dropped"))
            self._held.clear()
            return
        for figure, kind, board_us in self._held:
            out.append(self._pad_event(figure, kind, board_us))
        self._held.clear()

    def _heartbeat(self, fields: tuple[int, ...], t_rx: int, gap: int, out: list[Item]) -> None:
        boot_id, tick, last_n, placed = fields
        if boot_id != self.boot_id:
            out.append(PadStatus("rebooted", f"heartbeat from boot {boot_id:08x}, expected "
                                             f"{self.boot_id or 0:08x}; asking for a hello"))
            self._greeted = False
            self._send(wire.HELLO_REQ)
            return
        if not self._numbers.heartbeat(last_n, gap, out):
            return
        self.time.unwrap(tick, t_rx)
        # The newest word on the pads, whatever is still missing: a late event
        # (resent) never changes what stands where, so nothing is left to wait for.
        self._set_placed(placed)

    # -- other board frames -------------------------------------------------------

    def _light(self, fields: tuple[int, ...], t_rx: int, out: list[Item]) -> None:
        tick, level, kind = fields
        if not self.time.synced:
            return
        t_ns, bound = self.time.to_host(self.time.unwrap(tick, t_rx))
        out.append(LightEvent(kind == 1, t_ns, bound + self.scan_ns, level))

    def _levels(self, fields: tuple[int, ...], out: list[Item]) -> None:
        pad, empty, loaded, lo, hi, value, placed = fields
        if pad < len(self.figures):
            lv = Levels(empty, loaded, lo, hi, value, bool(placed))
            self.levels[self.figures[pad]] = lv
            out.append(PadStatus("levels", f"{self.figures[pad]}: empty {empty}, loaded "
                                           f"{loaded}, thresholds {lo}/{hi}, now {value}"))

    def _selftest(self, fields: tuple[int, ...], out: list[Item]) -> None:
        pad, ok, code, minimum, maximum, noise = fields
        if pad < len(self.figures):
            res = SelfTestResult(bool(ok), code, minimum, maximum, noise)
            self.selftest[self.figures[pad]] = res
            out.append(PadStatus("selftest", f"{self.figures[pad]}: "
                                             f"{'pass' if ok else 'FAIL'}: {res.reason}"))

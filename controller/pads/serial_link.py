"""The serial pad board backend: owns the pyserial port and the link state.

`SerialPads` opens the board's port exclusively (by its stable
``/dev/serial/by-id/`` name), reconnects with back-off after an unplug or when
another process holds the port, keeps the board's clock mapped onto the host
clock (`ClockSync`), unwraps the 30-bit ticks, notices a board reboot by its
boot id, and turns EVENT frames into `PadEvent`s on the host clock. Lost
events are asked for again (RESEND) and duplicates dropped, so each board
event reaches the caller exactly once.

It never blocks unless told to: `poll(0)` reads what is waiting, which is how
the virtual board drives it in simulated time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import serial

from controller.clock import Clock, MonotonicClock
from controller.knapp.cards import Figure
from controller.pads import protocol as wire
from controller.pads.clocksync import ClockSync, SyncSample
from controller.pads.events import Item, LightEvent, PadEvent, PadStatus

log = logging.getLogger(__name__)

BY_ID_DIR = "/dev/serial/by-id/"
EVENT_SPACE = 0xFFFF  # board event numbers run 1..65535
QUIET_STATUSES = frozenset({"connected", "synced", "levels", "selftest", "wrapped"})


AUTO = "auto"
# USB names a pad board shows under /dev/serial/by-id/: stock MicroPython on a
# Pico, and boards built with the product name "Knapp Pad Board" (the virtual one too).
BOARD_NAME_HINTS = ("MicroPython", "Knapp_Pad_Board")


def find_board(directory: str = BY_ID_DIR) -> str:
    """Return the path of the one pad board under `directory` (for ``port = "auto"``).

    Looked up again at every connect, so a board swapped for another still works.

    Raises:
        serial.SerialException: no board, or several (the message names them).
    """
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        names = []
    hits = [n for n in names if any(h.lower() in n.lower() for h in BOARD_NAME_HINTS)]
    if len(hits) == 1:
        return os.path.join(directory, hits[0])
    if not hits:
        others = f" (found only: {', '.join(names)})" if names else ""
        raise serial.SerialException(
            f"no pad board under {directory}{others}; plug the board in, or set "
            "[pads.serial] port to its name")
    raise serial.SerialException(
        f"{len(hits)} pad boards under {directory} ({', '.join(hits)}); set [pads.serial] "
        "port to this table's one")


def resolve_port(port: str) -> str:
    """Return the path or URL pyserial should open for a configured port name.

    A bare name is looked up under /dev/serial/by-id/ (stable across replugs,
    unlike /dev/ttyACM0); paths and pyserial URLs (loop://, socket://) pass through.
    """
    if "://" in port or port.startswith("/"):
        return port
    return BY_ID_DIR + port


def open_serial(url: str) -> serial.Serial:
    """Open `url` with pyserial, exclusively and non-blocking."""
    return serial.serial_for_url(url, baudrate=115200, timeout=0, write_timeout=0.5,
                                 exclusive=True)


@dataclass(frozen=True)
class Levels:
    """A pad's learned levels and thresholds as the board reports them (ADC u16)."""

    empty: int
    loaded: int
    lo: int
    hi: int
    value: int
    placed: bool


@dataclass(frozen=True)
class SelfTestResult:
    """One pad's self-test verdict from the board."""

    ok: bool
    code: int
    minimum: int
    maximum: int
    noise: int

    @property
    def reason(self) -> str:
        return wire.SELFTEST_CODES.get(self.code, f"code {self.code}")


@dataclass(frozen=True)
class BoardSettings:
    """Detector settings sent to the board (SETUP frame) after every hello."""

    hysteresis_pct: int = 15
    confirm_samples: int = 3
    lockout_ms: int = 10
    min_spread: int = 4000


class SerialPads:
    """Pad events from the serial pad board.

    Args:
        port: a /dev/serial/by-id/ name, a path, a pyserial URL, or "auto"
            (the one board found under `by_id_dir`, looked up at every connect).
        clock: host clock (CLOCK_MONOTONIC ns).
        figures: the figure on each board pad, in pad order.
        opener: opens a resolved port (tests pass their own pyserial opener).
        backoff_s: first and longest wait between reconnect attempts.
        ping_interval_s: steady-state ping period.
        burst: pings sent quickly after connecting, to sync fast.
        settings: detector settings for the board (None: keep the firmware's).
        by_id_dir: where "auto" looks for the board.
    """

    name = "serial"

    def __init__(self, port: str, *, clock: Clock | None = None,
                 figures: Sequence[Figure] = tuple(Figure),
                 opener: Callable[[str], serial.Serial] = open_serial,
                 backoff_s: tuple[float, float] = (0.5, 5.0), ping_interval_s: float = 1.0,
                 burst: int = 8, burst_interval_s: float = 0.02,
                 settings: BoardSettings | None = None, by_id_dir: str = BY_ID_DIR) -> None:
        self.auto = port == AUTO
        self.by_id_dir = by_id_dir
        self.port = port if self.auto else resolve_port(port)
        self.clock = clock or MonotonicClock()
        self.figures = tuple(figures)
        self.opener = opener
        self.backoff_s = backoff_s
        self.ping_interval_ns = round(ping_interval_s * 1e9)
        self.burst = burst
        self.burst_interval_ns = round(burst_interval_s * 1e9)
        self.settings = settings
        self.sync = ClockSync()
        self.unwrapper = wire.TickUnwrapper()
        self.reader = wire.FrameReader()
        self.levels: dict[Figure, Levels] = {}
        self.selftest: dict[Figure, SelfTestResult] = {}
        self.stats = {"frames": 0, "bad_frames": 0, "lost_frames": 0, "duplicate_frames": 0,
                      "events": 0, "duplicate_events": 0, "resent_events": 0, "reconnects": 0}
        self.boot_id: int | None = None
        self.version: tuple[int, int, int] | None = None
        self.scan_ns = 0
        self._ser: serial.Serial | None = None
        self._placed: dict[Figure, bool | None] = dict.fromkeys(self.figures)
        self._seq: int | None = None
        self._tx_seq = 0
        self._next_n = 1
        self._missing: set[int] = set()
        self._held: list[tuple[Figure, str, int]] = []
        self._pings: dict[int, int] = {}
        self._pings_left = 0
        self._next_ping = 0
        self._next_attempt = 0
        self._backoff = backoff_s[0]
        self._greeted = False
        self._closed = False
        self._last_error = ""
        self._pending_loss: Exception | None = None
        self._echo_reported = False
        self._ping_count = 0
        self._epoch: int | None = None  # tick wraps seen on this boot
        self.rx_bytes = 0  # since the port was opened, for harnesses that must know
        self.tx_bytes = 0  # what is still in flight

    # -- public API -----------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._ser is not None

    @property
    def synced(self) -> bool:
        return self.sync.synced

    def error_bound_ns(self) -> int | None:
        """The clock error bound at the current host time, or None before sync."""
        if not self.sync.synced:
            return None
        return self.sync.to_host(self.sync.to_board(self.clock.now_ns()))[1]

    def placed(self) -> dict[Figure, bool | None]:
        """Return which figures stand on their pads, as last reported by the board."""
        return dict(self._placed)

    def poll(self, timeout_s: float = 0.0) -> list[Item]:
        """Connect if due, read what the board sent, ping if due; return what happened."""
        out = self._poll(timeout_s)
        self._log(out)
        return out

    def _poll(self, timeout_s: float) -> list[Item]:
        out: list[Item] = []
        if self._closed:
            return out
        now = self.clock.now_ns()
        if self._ser is None:
            if now < self._next_attempt:
                if timeout_s > 0:
                    time.sleep(min(timeout_s, (self._next_attempt - now) / 1e9))
                return out
            self._open(out)
            if self._ser is None:
                return out
        data = self._read(timeout_s, out)
        self.rx_bytes += len(data)
        if data:
            t_rx = self.clock.now_ns()
            for frame in self.reader.feed(data):
                self._handle(frame, t_rx, out)
            self._note_wrap(out)
        if self._ser is not None:
            self._maybe_ping(out)
        if self._pending_loss is not None and self._ser is not None:
            exc, self._pending_loss = self._pending_loss, None
            self._lost(out, exc)
        return out

    def _note_wrap(self, out: list[Item]) -> None:
        """Report each wrap of the board's 30-bit tick counter (every 17.9 minutes)."""
        if self.unwrapper.last is None:
            return
        epoch = self.unwrapper.last // wire.TICKS_PERIOD
        if self._epoch is not None and epoch > self._epoch:
            out.append(PadStatus("wrapped", f"the board's microsecond counter wrapped "
                                            f"(every {wire.TICKS_PERIOD / 60e6:.1f} min); "
                                            "event times stay continuous"))
        self._epoch = epoch

    def _log(self, items: list[Item]) -> None:
        """One log line per status; a retry repeating the last fault is not logged again."""
        for item in items:
            if not isinstance(item, PadStatus):
                continue
            if item.status in QUIET_STATUSES:
                log.info("pads %s: %s: %s", self.port, item.status, item.detail)
                continue
            key = item.detail.split("; retrying")[0]
            if key != self._last_error:
                log.warning("pads %s: %s: %s", self.port, item.status, item.detail)
            self._last_error = key

    def set_led(self, figure: Figure | None, rgb: tuple[int, int, int]) -> None:
        """Light one pad's LED (None: all pads) in `rgb`."""
        pad = 255 if figure is None else self.figures.index(figure)
        self._send(wire.LED, pad, *rgb)

    def calibrate(self, figure: Figure | None, loaded: bool) -> None:
        """Ask the board to learn the empty or loaded level of one pad (None: all)."""
        pad = 255 if figure is None else self.figures.index(figure)
        self._send(wire.CALIBRATE, pad, 1 if loaded else 0)

    def request_selftest(self) -> None:
        """Ask the board to self-test every pad (answers arrive as `selftest` statuses)."""
        self._send(wire.SELFTEST_REQ)

    def request_levels(self) -> None:
        """Ask the board for every pad's levels and thresholds."""
        self._send(wire.LEVELS_REQ)

    def close(self) -> None:
        """Close the port; further polls return nothing."""
        self._closed = True
        self._drop_port()

    def __enter__(self) -> SerialPads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the port -------------------------------------------------------------

    def _open(self, out: list[Item]) -> None:
        if self.auto:
            try:
                self.port = find_board(self.by_id_dir)
            except serial.SerialException as exc:
                self._retry_later(out, "disconnected", str(exc))
                return
        try:
            self._ser = self.opener(self.port)
        except (serial.SerialException, OSError, ValueError) as exc:
            text = str(exc)
            busy = "lock" in text.lower() or "busy" in text.lower()
            self._retry_later(out, "busy" if busy else "disconnected",
                              f"cannot open {self.port}: {text}")
            return
        self.reader.reset()
        self.rx_bytes = self.tx_bytes = 0
        self._seq = None
        self._greeted = False
        self._pings.clear()
        self._send(wire.HELLO_REQ)

    def _retry_later(self, out: list[Item], status: str, detail: str) -> None:
        wait = self._backoff
        self._backoff = min(self._backoff * 2, self.backoff_s[1])
        self._next_attempt = self.clock.now_ns() + round(wait * 1e9)
        out.append(PadStatus(status, f"{detail}; retrying in {wait:g} s"))

    def _drop_port(self) -> None:
        self.rx_bytes = self.tx_bytes = 0
        ser, self._ser = self._ser, None
        if ser is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                ser.close()

    def _lost(self, out: list[Item], exc: Exception) -> None:
        self._drop_port()
        self.stats["reconnects"] += 1
        self._retry_later(out, "disconnected", f"lost {self.port}: {exc}")

    def _read(self, timeout_s: float, out: list[Item]) -> bytes:
        ser = self._ser
        assert ser is not None
        try:
            waiting = ser.in_waiting
            if waiting:
                return bytes(ser.read(waiting))
            if timeout_s > 0:
                fileno = getattr(ser, "fileno", None)
                if fileno is not None:
                    # Wait on the descriptor: changing pyserial's timeout would
                    # reprogram the tty (tcsetattr) on every poll.
                    select.select([fileno()], [], [], timeout_s)
                else:
                    ser.timeout = timeout_s
                    try:
                        first = bytes(ser.read(1))
                    finally:
                        ser.timeout = 0
                    return first + bytes(ser.read(ser.in_waiting)) if first else b""
            return bytes(ser.read(max(1, ser.in_waiting)))
        except (serial.SerialException, OSError) as exc:
            self._lost(out, exc)
            return b""

    def _send(self, ftype: int, *fields: int) -> int:
        """Write one frame; return its seq (the ping id for pings), -1 if not sent."""
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        if self._ser is None:
            return -1
        try:
            frame = wire.pack(ftype, self._tx_seq, *fields)
            self._ser.write(frame)
            self.tx_bytes += len(frame)
        except (serial.SerialException, OSError) as exc:
            self._pending_loss = exc
            return -1
        return self._tx_seq

    # -- frames ---------------------------------------------------------------

    def _handle(self, frame: wire.Frame | wire.BadFrame, t_rx: int, out: list[Item]) -> None:
        if isinstance(frame, wire.BadFrame):
            self.stats["bad_frames"] += 1
            out.append(PadStatus("bad_frame", frame.reason))
            return
        try:
            fields = frame.fields()
        except wire.ProtocolError as exc:
            self.stats["bad_frames"] += 1
            version = _hello_version(frame)
            if version is not None and version[0] != wire.PROTOCOL_VERSION[0]:
                out.append(_version_status(version))
            else:
                out.append(PadStatus("bad_frame", str(exc)))
            return
        self.stats["frames"] += 1
        if frame.type & 0x80:
            # Host-to-board types coming back: the line echoes what we send.
            if not self._echo_reported:
                self._echo_reported = True
                out.append(PadStatus("notice", f"echo of a host frame "
                                               f"({wire.TYPE_NAMES[frame.type]}): the port "
                                               "sends back what we write (tty echo on?)"))
            return
        if frame.type == wire.HELLO:
            self._hello(fields, t_rx, out)
            return
        if not self._greeted:
            if frame.type == wire.HEARTBEAT and self.boot_id is not None:
                self._send(wire.HELLO_REQ)
            return  # nothing is trusted before a HELLO names the boot
        if frame.type == wire.HEARTBEAT and fields[0] != self.boot_id:
            self._heartbeat(fields, t_rx, out)  # another boot: its seq numbers start over
            return
        if not self._check_seq(frame.seq, out):
            return
        if frame.type == wire.EVENT:
            self._event(fields, out)
        elif frame.type == wire.PONG:
            self._pong(fields, t_rx, out)
        elif frame.type == wire.HEARTBEAT:
            self._heartbeat(fields, t_rx, out)
        elif frame.type == wire.LIGHT:
            self._light(fields, out)
        elif frame.type == wire.LEVELS:
            self._levels(fields, out)
        elif frame.type == wire.SELFTEST:
            self._selftest(fields, out)
        elif frame.type == wire.NOTICE:
            code, arg = fields
            text = wire.NOTICE_CODES.get(code, f"notice {code}")
            out.append(PadStatus("notice", f"{text} ({arg})"))

    def _check_seq(self, seq: int, out: list[Item]) -> bool:
        last, self._seq = self._seq, seq
        if last is None:
            return True
        gap = (seq - last) & 0xFFFF
        if gap == 0 or gap >= 0x8000:
            # A repeat (or an older frame again): the link never reorders, so
            # it carries nothing new, and an old HEARTBEAT would undo newer state.
            self._seq = last
            self.stats["duplicate_frames"] += 1
            what = "arrived twice" if gap == 0 else f"arrived again after frame {last}"
            out.append(PadStatus("duplicate", f"frame {seq} {what}; dropped the copy"))
            return False
        if gap > 1 and gap < 0x8000:
            self.stats["lost_frames"] += gap - 1
            out.append(PadStatus("lost_frames",
                                 f"{gap - 1} frame(s) lost between seq {last} and {seq}"))
        return True

    def _hello(self, fields: tuple[int, ...], t_rx: int, out: list[Item]) -> None:
        boot_id, major, minor, patch, npads, tick, scan_us, _features, placed, last_n = fields
        if major != wire.PROTOCOL_VERSION[0]:
            out.append(_version_status((major, minor, patch)))
            return  # nothing from this board can be trusted
        self.version = (major, minor, patch)
        self.scan_ns = scan_us * 1000
        version = f"{major}.{minor}.{patch}"
        # `last_n` is the board's newest event number (0: none yet this boot).
        newest_known = (self._next_n - 2) % EVENT_SPACE + 1 if self._next_n > 1 else 0
        if self.boot_id is None:
            # First contact: what the board did before we listened is history,
            # not news; number on from its newest event.
            self._next_n = last_n % EVENT_SPACE + 1
            out.append(PadStatus("connected", f"pad board firmware {version} on {self.port}, "
                                              f"boot id {boot_id:08x}, {npads} pads, "
                                              f"scan {scan_us} us "
                                              f"({1e6 / max(scan_us, 1):.0f} samples/s per pad)"))
        elif boot_id != self.boot_id:
            self._flush_held(out)
            self.sync.reset()
            self.unwrapper.reset()
            self._epoch = None
            self._next_n = 1
            self._missing.clear()
            out.append(PadStatus("rebooted", f"pad board rebooted (boot id {self.boot_id:08x} "
                                             f"-> {boot_id:08x}); clock sync restarts"))
            if last_n:
                # Events since the reboot came before this hello and were not trusted.
                self._send(wire.RESEND, 1)
        elif self._greeted:
            pass  # the answer to our own HELLO_REQ on this connection
        elif last_n != newest_known:
            out.append(PadStatus("connected", f"pad board back on {self.port}, same boot "
                                              f"{boot_id:08x}; asking for missed events"))
            self._send(wire.RESEND, self._next_n)
        else:
            out.append(PadStatus("connected", f"pad board back on {self.port}, same boot "
                                              f"{boot_id:08x}; no events missed"))
        if npads != len(self.figures):
            out.append(PadStatus("notice", f"board has {npads} pads but {len(self.figures)} "
                                           "figures are configured"))
        self.boot_id = boot_id
        self._greeted = True
        self._seq = None
        self._backoff = self.backoff_s[0]
        self._last_error = ""
        self._unwrap(tick, t_rx)
        self._set_placed(placed)
        self._pings_left = self.burst
        self._next_ping = self.clock.now_ns()
        if self.settings is not None:
            s = self.settings
            self._send(wire.SETUP, s.hysteresis_pct, s.confirm_samples, s.lockout_ms,
                       s.min_spread)

    def _unwrap(self, tick: int, t_rx: int, *, advance: bool = True) -> int:
        hint = None
        if self.sync.synced and self.unwrapper.last is not None:
            # After a long silence the last tick may be more than a wrap old.
            expected = self.sync.to_board(t_rx)
            if abs(expected - self.unwrapper.last) > wire.TICKS_HALF // 2:
                hint = round(expected)
        return self.unwrapper.unwrap(tick, hint=hint, advance=advance)

    def _set_placed(self, mask: int) -> None:
        for i, figure in enumerate(self.figures):
            self._placed[figure] = bool(mask >> i & 1)

    def _event(self, fields: tuple[int, ...], out: list[Item]) -> None:
        n, pad, kind_code, tick, _level, flags = fields
        if not 1 <= n <= EVENT_SPACE:
            out.append(PadStatus("bad_frame", f"event number {n} out of range"))
            return
        ahead = (n - self._next_n) % EVENT_SPACE
        resent = bool(flags & wire.FLAG_RESENT)
        if ahead == 0:
            in_order = True
        elif ahead < EVENT_SPACE // 2:
            skipped = [(self._next_n - 1 + k) % EVENT_SPACE + 1 for k in range(ahead)]
            self._missing.update(skipped)
            out.append(PadStatus("lost_frames", f"events {skipped[0]}..{skipped[-1]} missing; "
                                                "asked the board to send them again"))
            self._send(wire.RESEND, self._next_n)
            in_order = True
        elif n in self._missing:
            self._missing.discard(n)
            self.stats["resent_events"] += 1
            in_order = False
        else:
            self.stats["duplicate_events"] += 1
            if not resent:
                out.append(PadStatus("duplicate", f"event {n} arrived twice; dropped the copy"))
            return
        if in_order:
            self._next_n = n % EVENT_SPACE + 1
        if pad >= len(self.figures):
            out.append(PadStatus("bad_frame", f"event for pad {pad}, but only "
                                              f"{len(self.figures)} figures are configured"))
            return
        if kind_code not in (wire.LIFT, wire.PLACE):
            out.append(PadStatus("bad_frame", f"event kind {kind_code} is neither lift nor place"))
            return
        figure = self.figures[pad]
        kind = "lift" if kind_code == wire.LIFT else "place"
        board_us = self._unwrap(tick, self.clock.now_ns(), advance=in_order)
        if in_order:
            self._placed[figure] = kind == "place"
        self.stats["events"] += 1
        if not self.sync.synced:
            self._held.append((figure, kind, board_us))
            return
        out.append(self._pad_event(figure, kind, board_us))

    def _pad_event(self, figure: Figure, kind: str, board_us: int) -> PadEvent:
        t_ns, bound = self.sync.to_host(board_us)
        return PadEvent(figure, "lift" if kind == "lift" else "place", t_ns,
                        bound + self.scan_ns, "serial")

    def _flush_held(self, out: list[Item]) -> None:
        if not self.sync.synced:
            if self._held:
                out.append(PadStatus("notice", f"{len(self._held)} event(s) before the first "
                                               "clock sync could not be timed; dropped"))
            self._held.clear()
            return
        for figure, kind, board_us in self._held:
            out.append(self._pad_event(figure, kind, board_us))
        self._held.clear()

    def _pong(self, fields: tuple[int, ...], t_rx: int, out: list[Item]) -> None:
        ping_id, t2, t3 = fields
        t1 = self._pings.pop(ping_id, None)
        if t1 is None:
            return  # an answer to a ping from before a reconnect
        b2 = self._unwrap(t2, t_rx)
        b3 = self._unwrap(t3, t_rx)
        first = not self.sync.synced
        try:
            self.sync.add(SyncSample(t1, t_rx, b2, b3))
        except ValueError as exc:
            out.append(PadStatus("bad_frame", f"pong {ping_id}: {exc}"))
            return
        if first:
            bound = self.sync.to_host(b3)[1]
            out.append(PadStatus("synced", f"clock synced, error bound {bound / 1000:.0f} us"))
            self._flush_held(out)

    def _heartbeat(self, fields: tuple[int, ...], t_rx: int, out: list[Item]) -> None:
        boot_id, tick, last_n, placed = fields
        if boot_id != self.boot_id:
            out.append(PadStatus("rebooted", f"heartbeat from boot {boot_id:08x}, expected "
                                             f"{self.boot_id or 0:08x}; asking for a hello"))
            self._greeted = False
            self._send(wire.HELLO_REQ)
            return
        self._unwrap(tick, t_rx)
        if last_n and last_n != (self._next_n - 2) % EVENT_SPACE + 1:
            ahead = (last_n - self._next_n) % EVENT_SPACE
            if ahead < EVENT_SPACE // 2:
                missing = [(self._next_n - 1 + k) % EVENT_SPACE + 1 for k in range(ahead + 1)]
                self._missing.update(missing)
                out.append(PadStatus("lost_frames", f"heartbeat says event {last_n} was sent; "
                                                    f"asking for {len(missing)} missed event(s)"))
                self._next_n = last_n % EVENT_SPACE + 1
                self._send(wire.RESEND, missing[0])
        if not self._missing:
            self._set_placed(placed)

    def _light(self, fields: tuple[int, ...], out: list[Item]) -> None:
        tick, level, kind = fields
        if not self.sync.synced:
            return
        t_ns, bound = self.sync.to_host(self._unwrap(tick, self.clock.now_ns()))
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

    def _maybe_ping(self, out: list[Item]) -> None:
        if not self._greeted or self._pending_loss is not None:
            return
        now = self.clock.now_ns()
        if now < self._next_ping:
            return
        ping_id = (self._tx_seq + 1) & 0xFFFF
        self._pings[ping_id] = self.clock.now_ns()
        if self._send(wire.PING, ping_id) < 0:
            self._pings.pop(ping_id, None)
            return
        if len(self._pings) > 16:  # unanswered pings from a stalled link
            for stale in list(self._pings)[:-16]:
                del self._pings[stale]
        # Dither the ping times over a millisecond (a golden-ratio sequence, no
        # randomness needed) so they do not keep one phase against the 1 ms USB
        # frames, which would skew every round trip the same way.
        self._ping_count += 1
        dither = round((self._ping_count * 0.6180339887) % 1.0 * 1_000_000)
        if self._pings_left > 0:
            self._pings_left -= 1
            self._next_ping = now + self.burst_interval_ns + dither
        else:
            self._next_ping = now + self.ping_interval_ns + dither


def _hello_version(frame: wire.Frame) -> tuple[int, int, int] | None:
    """The protocol version a HELLO of any layout announces (bytes 4-6 of its body)."""
    if frame.type != wire.HELLO or len(frame.body) < 7:
        return None
    return frame.body[4], frame.body[5], frame.body[6]


def _version_status(version: tuple[int, int, int]) -> PadStatus:
    theirs = ".".join(map(str, version))
    ours = ".".join(map(str, wire.PROTOCOL_VERSION))
    return PadStatus("version", f"the pad board speaks protocol {theirs}, this host "
                                f"{ours}: flash the firmware from this checkout "
                                "(hardware/flashing.md)")

"""The serial pad board backend: owns the pyserial port, hands its bytes to the link.

`SerialPads` opens the board's port exclusively (by its stable
``/dev/serial/by-id/`` name, or the one board found there with ``"auto"``),
reconnects with back-off after an unplug or when another process holds the
port, reads and writes bytes, and logs each status once. Everything the bytes
mean (frames, sequence numbers, resends, hello, pings, the clock fit, reboots)
is `controller.pads.link.LinkSession`'s, which has no I/O and is tested with
bytes alone; this module is tested over pyserial's ``loop://`` and pty pairs.

It never blocks unless told to: `poll(0)` reads what is waiting, which is how
the virtual board drives it in simulated time. Back-off is timed on the
injected clock; `poll(timeout_s)` waits on the port's descriptor, or, while the
next reconnect is not due, through the injected `wait`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable, Sequence

import serial

from controller.clock import Clock, MonotonicClock
from controller.knapp.cards import Figure
from controller.pads.boardinfo import BoardSettings, Levels, SelfTestResult
from controller.pads.clocksync import ClockSync
from controller.pads.events import Item, PadStatus
from controller.pads.link import LinkSession

__all__ = ["AUTO", "BoardSettings", "Levels", "SelfTestResult", "SerialPads", "find_board",
           "open_serial", "resolve_port"]

log = logging.getLogger(__name__)

BY_ID_DIR = "/dev/serial/by-id/"
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
        wait: idles `poll(timeout_s)` while the next reconnect is not due
            (default: on the real clock, a wait that `close()` cuts short; on
            any other clock, none, as simulated time is the caller's to move).
    """

    name = "serial"

    def __init__(self, port: str, *, clock: Clock | None = None,
                 figures: Sequence[Figure] = tuple(Figure),
                 opener: Callable[[str], serial.Serial] = open_serial,
                 backoff_s: tuple[float, float] = (0.5, 5.0), ping_interval_s: float = 1.0,
                 burst: int = 8, burst_interval_s: float = 0.02,
                 settings: BoardSettings | None = None, by_id_dir: str = BY_ID_DIR,
                 wait: Callable[[float], object] | None = None) -> None:
        self.auto = port == AUTO
        self.by_id_dir = by_id_dir
        self.port = port if self.auto else resolve_port(port)
        self.clock = clock or MonotonicClock()
        self.opener = opener
        self.backoff_s = backoff_s
        self.session = LinkSession(figures=figures, ping_interval_ns=round(ping_interval_s * 1e9),
                                   burst=burst, burst_interval_ns=round(burst_interval_s * 1e9),
                                   settings=settings)
        self.reconnects = 0
        self._woken = threading.Event()
        self._wait = wait if wait is not None else self._default_wait
        self._ser: serial.Serial | None = None
        self._next_attempt = 0
        self._backoff = backoff_s[0]
        self._closed = False
        self._last_error = ""
        self._pending_loss: Exception | None = None
        self.rx_bytes = 0  # since the port was opened, for harnesses that must know
        self.tx_bytes = 0  # what is still in flight

    # -- public API -----------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the port is open."""
        return self._ser is not None

    @property
    def synced(self) -> bool:
        """True once the board's clock is mapped onto the host's."""
        return self.session.synced

    @property
    def has_leds(self) -> bool:
        """True when the connected board said (in its HELLO) that it drives pad LEDs."""
        return self.session.has_leds

    @property
    def figures(self) -> tuple[Figure, ...]:
        """The figure on each board pad, in pad order."""
        return self.session.figures

    @property
    def sync(self) -> ClockSync:
        """The clock fit (benchmarks swap in one with another window)."""
        return self.session.time.sync

    @sync.setter
    def sync(self, sync: ClockSync) -> None:
        self.session.time.sync = sync

    @property
    def stats(self) -> dict[str, int]:
        """Counts of frames, events, faults and reconnects since the driver started."""
        return {**self.session.stats, "reconnects": self.reconnects}

    @property
    def levels(self) -> dict[Figure, Levels]:
        """Each pad's levels and thresholds, as last reported by the board."""
        return self.session.levels

    @property
    def selftest(self) -> dict[Figure, SelfTestResult]:
        """Each pad's last self-test verdict from the board."""
        return self.session.selftest

    @property
    def boot_id(self) -> int | None:
        """The board's boot id from its last trusted HELLO."""
        return self.session.boot_id

    @property
    def version(self) -> tuple[int, int, int] | None:
        """The protocol version of the board's last trusted HELLO."""
        return self.session.version

    @property
    def scan_ns(self) -> int:
        """The board's measured scan period (0 before its first HELLO)."""
        return self.session.scan_ns

    def error_bound_ns(self) -> int | None:
        """The clock error bound at the current host time, or None before sync."""
        return self.session.error_bound_ns(self.clock.now_ns())

    def placed(self) -> dict[Figure, bool | None]:
        """Return which figures stand on their pads, as last reported by the board."""
        return self.session.placed()

    def poll(self, timeout_s: float = 0.0) -> list[Item]:
        """Connect if due, read what the board sent, ping if due; return what happened."""
        out = self._poll(timeout_s)
        self._log(out)
        return out

    def set_led(self, figure: Figure | None, rgb: tuple[int, int, int]) -> None:
        """Light one pad's LED (None: all pads) in `rgb`; dropped while disconnected."""
        self.session.set_led(figure, rgb)
        self._flush()

    def calibrate(self, figure: Figure | None, loaded: bool) -> None:
        """Ask the board to learn the empty or loaded level of one pad (None: all)."""
        self.session.calibrate(figure, loaded)
        self._flush()

    def request_selftest(self) -> None:
        """Ask the board to self-test every pad (answers arrive as `selftest` statuses)."""
        self.session.request_selftest()
        self._flush()

    def request_levels(self) -> None:
        """Ask the board for every pad's levels and thresholds."""
        self.session.request_levels()
        self._flush()

    def close(self) -> None:
        """Close the port; further polls return nothing."""
        self._closed = True
        self._woken.set()
        self._drop_port()

    def __enter__(self) -> SerialPads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one poll ---------------------------------------------------------------

    def _poll(self, timeout_s: float) -> list[Item]:
        out: list[Item] = []
        if self._closed:
            return out
        if self._ser is None and not self._connect(timeout_s, out):
            return out
        data = self._read(timeout_s, out)
        self.rx_bytes += len(data)
        if data:
            self._receive(data, out)
        if self._ser is not None and self._pending_loss is None:
            self.session.tick(self.clock.now_ns())
            self._flush()
        if self._pending_loss is not None and self._ser is not None:
            exc, self._pending_loss = self._pending_loss, None
            self._lost(out, exc)
        return out

    def _connect(self, timeout_s: float, out: list[Item]) -> bool:
        """Open the port if a reconnect is due; True if it is open now."""
        now = self.clock.now_ns()
        if now < self._next_attempt:
            if timeout_s > 0:
                self._wait(min(timeout_s, (self._next_attempt - now) / 1e9))
            return False
        self._open(out)
        return self._ser is not None

    def _receive(self, data: bytes, out: list[Item]) -> None:
        greetings = self.session.greetings
        out += self.session.receive(data, self.clock.now_ns())
        self._flush()
        if self.session.greetings != greetings:
            # The board answered: the next fault backs off from the start and is
            # logged even if it repeats the last one.
            self._backoff = self.backoff_s[0]
            self._last_error = ""

    def _default_wait(self, seconds: float) -> None:
        if isinstance(self.clock, MonotonicClock):
            self._woken.wait(seconds)

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
        self.rx_bytes = self.tx_bytes = 0
        self.session.connection_made(self.port)
        self._flush()

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
        self.reconnects += 1
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

    def _flush(self) -> None:
        """Write the frames the session queued; without a port they are dropped."""
        frames = self.session.frames_to_send()
        if self._ser is None:
            return
        for frame in frames:
            try:
                self._ser.write(frame)
                self.tx_bytes += len(frame)
            except (serial.SerialException, OSError) as exc:
                self._pending_loss = exc  # reported once this poll is done

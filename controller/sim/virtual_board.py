"""The virtual pad board: the real firmware logic on the host, behind a pty.

`VirtualBoard` loads the modules of `firmware/` (the same files that run on the
Pico), feeds its `Board` simulated pad pressures (noise, a ramp as the figure
leaves, contact bounce as it lands), gives it a tick clock with its own offset,
drift and 2**30 µs wrap, and carries its bytes through a real pty pair with
USB-like latency and jitter in both directions. The host side opens the pty
with pyserial like a real board, so `SerialPads` is tested end to end against
the real firmware code.

Everything runs in simulated time on one `FakeClock`: `run_until` steps the
board's scans, the deliveries and the host's polls in time order, so a match
of many minutes takes a second and replays identically from its seed.
"""

from __future__ import annotations

import bisect
import errno
import fcntl
import importlib
import math
import os
import select
import shutil
import struct
import sys
import tempfile
import termios
import time
import tty
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from controller.clock import FakeClock
from controller.knapp.cards import Figure
from controller.pads.events import PadError
from controller.rng import Rng

FIRMWARE_MODULES = ("ticks", "protocol", "pads", "calibrate", "selftest", "light", "leds",
                    "board")
TICKS_PERIOD = 1 << 30
LINK_NAME = "usb-Knapp_Pad_Board_virtual-if00"


def firmware_dir() -> Path:
    """Return the firmware/ folder of this checkout."""
    here = Path(__file__).resolve().parents[2] / "firmware"
    if not (here / "board.py").is_file():
        raise PadError(f"firmware sources not found at {here}; the virtual board needs a "
                       "source checkout of the project")
    return here


def pending_bytes(fd: int) -> int:
    """Bytes waiting to be read on a tty or pty fd (FIONREAD)."""
    buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", buf)[0])


def wait_pending(fd: int, n: int, timeout_s: float = 2.0) -> None:
    """Wait until `fd` has at least `n` bytes to read.

    A pty hands bytes to the other side through a kernel work queue, so they
    may not be readable the instant `write` returns. Waiting for them keeps
    the simulated-time harness deterministic; it never waits for simulated time.

    Raises:
        PadError: the bytes did not arrive within `timeout_s` (a broken pty).
    """
    deadline = time.monotonic() + timeout_s
    while pending_bytes(fd) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise PadError(f"pty: {n} bytes expected, {pending_bytes(fd)} arrived")
        select.select([fd], [], [], min(left, 0.001))


_FIRMWARE: dict[str, ModuleType] = {}


def load_firmware() -> dict[str, ModuleType]:
    """Import the firmware's logic modules by path, once, as `knapp_firmware.<name>`.

    The firmware imports its siblings by bare name (`import protocol`), as
    MicroPython does from the board's root folder. We import them with the
    folder on sys.path, then move them to private names and restore whatever
    held those bare names before, so nothing else in the process sees them.
    """
    if _FIRMWARE:
        return _FIRMWARE
    path = str(firmware_dir())
    saved = {n: sys.modules.pop(n) for n in FIRMWARE_MODULES if n in sys.modules}
    sys.path.insert(0, path)
    try:
        for name in FIRMWARE_MODULES:
            importlib.import_module(name)
    finally:
        sys.path.remove(path)
        for name in FIRMWARE_MODULES:
            mod = sys.modules.pop(name, None)
            if mod is not None:
                sys.modules[f"knapp_firmware.{name}"] = mod
                _FIRMWARE[name] = mod
        sys.modules.update(saved)
    return _FIRMWARE


@dataclass(frozen=True)
class BoardClock:
    """The board's microsecond timer against the host clock.

    Args:
        boot_ns: host time at which the board's timer read `tick0`.
        tick0: the timer's reading at boot_ns (µs, unwrapped).
        drift_ppm: how much faster the board's crystal runs.
    """

    boot_ns: int
    tick0: int
    drift_ppm: float

    @property
    def rate(self) -> float:
        return 1.0 + self.drift_ppm * 1e-6

    def elapsed_us(self, host_ns: int) -> int:
        """Unwrapped board µs at host time `host_ns` (floored like a hardware timer)."""
        return self.tick0 + math.floor((host_ns - self.boot_ns) * self.rate / 1000)

    def ticks_us(self, host_ns: int) -> int:
        """The 30-bit tick MicroPython's `ticks_us()` returns at `host_ns`."""
        return self.elapsed_us(host_ns) % TICKS_PERIOD

    def host_ns(self, elapsed_us: float) -> float:
        """Host time at which the unwrapped board time was `elapsed_us`."""
        return self.boot_ns + (elapsed_us - self.tick0) * 1000 / self.rate

    def unwrap_near(self, tick: int, host_ns: int) -> int:
        """Unwrapped value of a 30-bit tick taken near host time `host_ns`."""
        ref = self.elapsed_us(host_ns)
        d = ((tick - ref + TICKS_PERIOD // 2) % TICKS_PERIOD) - TICKS_PERIOD // 2
        return ref + d


@dataclass(frozen=True)
class UsbJitter:
    """USB full-speed CDC latency: 1 ms frames plus host scheduling noise.

    Args:
        frame_ns: the bus frame period (data moves on frame boundaries).
        median_ns: median extra latency (host controller, driver, reader wake-up).
        sigma: log-normal spread of that latency.
        stall_rate: share of transfers delayed by a stall of 1 to `stall_ns`.
    """

    frame_ns: int = 1_000_000
    median_ns: int = 150_000
    sigma: float = 0.6
    stall_rate: float = 0.01
    stall_ns: int = 4_000_000

    def delay(self, t_ns: int, phase_ns: int, rng: Rng) -> int:
        """Delivery time of bytes handed to the USB stack at `t_ns`."""
        if self.frame_ns <= 0:
            return t_ns + round(rng.lognormal(self.median_ns, self.sigma))
        frame_end = t_ns + (phase_ns - t_ns) % self.frame_ns
        extra = rng.lognormal(self.median_ns, self.sigma) if self.median_ns else 0.0
        if self.stall_rate and rng.random() < self.stall_rate:
            extra += self.frame_ns + rng.random() * (self.stall_ns - self.frame_ns)
        return frame_end + round(extra)


USB_JITTER = UsbJitter()
NO_JITTER = UsbJitter(frame_ns=0, median_ns=0, sigma=0.0, stall_rate=0.0)


@dataclass
class PadModel:
    """Simulated force on one pad, as the ADC sees it through the FSR divider.

    Args:
        loaded: mean ADC reading with the figure standing.
        empty: mean reading with the pad empty.
        ramp_ns: time the force takes to go from one level to the other; the
            true event time is the middle of the ramp.
        bounce_ns: after a placement, the reading dips once for this long.
    """

    loaded: int = 26000
    empty: int = 900
    ramp_ns: int = 1_000_000
    bounce_ns: int = 600_000
    changes: list[tuple[int, bool]] = field(default_factory=list)

    def placed_at(self, t_ns: int) -> bool:
        i = bisect.bisect_right(self.changes, (t_ns, True)) - 1
        return self.changes[i][1] if i >= 0 else True

    def value(self, t_ns: int) -> float:
        """The noiseless reading at host time `t_ns`."""
        i = bisect.bisect_right(self.changes, (t_ns + self.ramp_ns, True)) - 1
        if i < 0:
            return self.loaded
        t_c, placed = self.changes[i]
        before = self.changes[i - 1][1] if i > 0 else True
        if before == placed:
            return self.loaded if placed else self.empty
        x = (t_ns - t_c) / self.ramp_ns + 0.5  # 0..1 across the ramp
        if x <= 0:
            frac = 0.0
        elif x >= 1:
            frac = 1.0
        else:
            frac = x
        lo, hi = (self.loaded, self.empty) if not placed else (self.empty, self.loaded)
        v = lo + (hi - lo) * frac
        # A figure landing rocks once: a short dip (below the lift threshold)
        # right after it first touches.
        if placed and self.bounce_ns and 0 < t_ns - (t_c + self.ramp_ns // 2) < self.bounce_ns:
            v = self.empty + (self.loaded - self.empty) * 0.3
        return v


@dataclass(frozen=True)
class EmittedEvent:
    """An event as the firmware sent it, with the truth for checking the host."""

    n: int
    pad: int
    kind: str
    tick: int
    true_ns: float  # host time of the event's tick
    sent_ns: int  # host time the firmware wrote it


class _Strip:
    """Stands in for `neopixel.NeoPixel` (a list of colours with `write()`)."""

    def __init__(self, n: int) -> None:
        self.pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, i: int, rgb: tuple[int, int, int]) -> None:
        self.pixels[i] = rgb

    def write(self) -> None:
        self.writes += 1


class VirtualBoard:
    """The pad board's firmware on the host, behind a pty, in simulated time.

    Args:
        clock: the shared simulated host clock.
        rng: seeds noise, jitter, boot ids and the board's clock offset.
        figures: one pad per figure, in pad order.
        drift_ppm: board crystal error.
        tick0: the board's tick at boot (default: a random point, so wraps happen).
        jitter: USB latency model for both directions.
        scan_us: firmware scan period.
        idle_scan_us: scan period used while no pad is changing (fast-forward;
            the firmware's state only moves when its input does).
        noise: ADC noise, standard deviation in counts.
        live: a host in another process reads the pty (`run_live`); the
            harness then cannot wait for bytes to reach it.
    """

    def __init__(self, *, clock: FakeClock, rng: Rng, figures: Sequence[Figure] = tuple(Figure),
                 drift_ppm: float = 35.0, tick0: int | None = None,
                 jitter: UsbJitter = USB_JITTER, scan_us: int = 250,
                 idle_scan_us: int = 10000, noise: float = 120.0,
                 pads: Sequence[PadModel] | None = None, live: bool = False) -> None:
        self.fw = load_firmware()
        self.live = live
        self.clock = clock
        self.rng = rng
        self.figures = tuple(figures)
        self.drift_ppm = drift_ppm
        self.jitter = jitter
        self.scan_us = scan_us
        self.idle_scan_us = idle_scan_us
        self.models = list(pads) if pads is not None else [PadModel() for _ in self.figures]
        self._noise = [round(rng.gauss(0.0, noise)) for _ in range(4093)]
        self._noise_i = 0
        self._jrng = rng.fork("jitter")
        self._phase = rng.randbelow(max(1, jitter.frame_ns))
        self.light_level = 2500
        self.strip = _Strip(len(self.figures))
        self.emitted: list[EmittedEvent] = []
        self._dir = Path(tempfile.mkdtemp(prefix="knapp-vboard-"))
        self.port = str(self._dir / LINK_NAME)
        self._master: int | None = None
        self._slave: int | None = None
        self._to_host: deque[tuple[int, bytes]] = deque()
        self._to_board: deque[tuple[int, bytes]] = deque()
        self._board_rx = bytearray()
        self._last_to_host = 0
        self._last_to_board = 0
        self._next_scan = clock.now_ns()
        self._counters: Callable[[], tuple[int, int]] | None = None
        self.from_host_bytes = 0
        self.plug()
        self.boot(tick0=tick0)

    # -- lifecycle ------------------------------------------------------------

    def boot(self, tick0: int | None = None) -> None:
        """Power the board up (or reboot it): a new boot id, the timer restarts."""
        now = self.clock.now_ns()
        start = tick0 if tick0 is not None else self.rng.randbelow(TICKS_PERIOD)
        self.board_clock = BoardClock(now, start, self.drift_ppm)
        self.boot_id = self.rng.randbelow(1 << 32)
        leds = self.fw["leds"].Leds(self.strip, len(self.figures))
        self.board = self.fw["board"].Board(
            self._read_pad, self._ticks_us, self._board_write, self.boot_id,
            npads=len(self.figures), read_light=self._read_light,
            light=self.fw["light"].LightSensor(), leds=leds, scan_us=self.scan_us)
        self._board_rx.clear()

    def plug(self) -> None:
        """Connect the USB cable: a fresh pty pair behind the stable by-id style link."""
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        self.from_host_bytes = 0
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        link = Path(self.port)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(os.ttyname(slave))

    def unplug(self) -> None:
        """Pull the cable: the pty goes away mid-stream; bytes in flight are lost."""
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self._to_host.clear()
        self._to_board.clear()

    def close(self) -> None:
        """Unplug and remove the temporary link folder."""
        self.unplug()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> VirtualBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the world ------------------------------------------------------------

    def lift(self, figure: Figure, t_ns: int) -> None:
        """Schedule `figure` to leave its pad at host time `t_ns` (middle of the ramp)."""
        self._change(figure, t_ns, False)

    def place(self, figure: Figure, t_ns: int) -> None:
        """Schedule `figure` to land on its pad at `t_ns`."""
        self._change(figure, t_ns, True)

    def _change(self, figure: Figure, t_ns: int, placed: bool) -> None:
        model = self.models[self.figures.index(figure)]
        bisect.insort(model.changes, (t_ns, placed))

    def placed_at(self, figure: Figure, t_ns: int) -> bool:
        """Whether `figure` stands on its pad at `t_ns` in the simulated world."""
        return self.models[self.figures.index(figure)].placed_at(t_ns)

    def inject_to_host(self, data: bytes, delay_ns: int = 0) -> None:
        """Queue raw bytes to the host (garbage, cut frames) after `delay_ns`."""
        at = max(self.clock.now_ns() + delay_ns, self._last_to_host)
        self._last_to_host = at
        self._to_host.append((at, data))

    # -- the firmware's hardware ----------------------------------------------

    def _ticks_us(self) -> int:
        return self.board_clock.ticks_us(self.clock.now_ns())

    def _read_pad(self, i: int) -> int:
        v = self.models[i].value(self.clock.now_ns()) + self._noise[self._noise_i]
        self._noise_i = (self._noise_i + 1) % len(self._noise)
        return min(max(round(v), 0), 0xFFFF)

    def _read_light(self) -> int:
        return self.light_level

    def _board_write(self, data: bytes) -> None:
        now = self.clock.now_ns()
        if data[-1:] == b"\x00":
            self._note_event(data[:-1], now)
        if self._master is None:
            return
        at = max(self.jitter.delay(now, self._phase, self._jrng), self._last_to_host)
        self._last_to_host = at
        if self._to_host and self._to_host[-1][0] == at:
            self._to_host[-1] = (at, self._to_host[-1][1] + data)
        else:
            self._to_host.append((at, data))

    def _note_event(self, frame: bytes, now: int) -> None:
        proto = self.fw["protocol"]
        item = proto.decode(frame)
        if isinstance(item, int) or item[0] != proto.EVENT:
            return
        n, pad, kind, tick, _level, flags = proto.unpack(item[0], item[2])
        if flags & proto.FLAG_RESENT:
            return
        true_ns = self.board_clock.host_ns(self.board_clock.unwrap_near(tick, now))
        self.emitted.append(EmittedEvent(n, pad, "lift" if kind == proto.LIFT else "place",
                                         tick, true_ns, now))

    # -- simulated time ---------------------------------------------------------

    def _scan_step_ns(self, now: int) -> int:
        fine = self.scan_us * 1000
        coarse = self.idle_scan_us * 1000
        if coarse <= fine:
            return fine
        # Scan at full rate from shortly before a change until the detector has settled.
        for m in self.models:
            i = bisect.bisect_left(m.changes, (now - 25_000_000, False))
            if i < len(m.changes) and m.changes[i][0] - 2 * m.ramp_ns <= now + coarse:
                return fine
        return coarse

    def run_until(self, t_end: int, host: Callable[[], None] | None = None,
                  host_poll_ns: int = 5_000_000,
                  counters: Callable[[], tuple[int, int]] | None = None) -> None:
        """Advance simulated time to `t_end`, running the board and the host in order.

        Args:
            t_end: host ns to stop at.
            host: called whenever bytes reach the host and every `host_poll_ns`
                (the host driver's `poll`); its writes reach the board with USB delay.
            counters: the host's (bytes read, bytes written) since it opened the
                port; the board waits for written bytes still inside the pty, so runs
                are deterministic.
        """
        self._counters = counters
        next_poll = self.clock.now_ns()
        while True:
            t_host = self._to_host[0][0] if self._to_host else math.inf
            t_board = self._to_board[0][0] if self._to_board else math.inf
            t_poll = next_poll if host is not None else math.inf
            t = min(self._next_scan, t_host, t_board, t_poll)
            if t > t_end:
                break
            self.clock.set(max(int(t), self.clock.now_ns()))
            if t == t_host:
                self._deliver_to_host()
                if host is not None:
                    host()
                    self._collect_from_host()
            elif t == t_board:
                self._board_rx += self._to_board.popleft()[1]
                # main.py checks its USB input after every scan: pick it up at the
                # next full-rate scan even while idle scanning is fast-forwarded.
                self._next_scan = min(self._next_scan, int(t) + self.scan_us * 1000)
            elif t == self._next_scan:
                self.board.scan()
                if self._board_rx:
                    # main.py reads the USB input between scans, stamping on arrival.
                    data = bytes(self._board_rx)
                    self._board_rx.clear()
                    self.board.feed(data)
                self._next_scan = int(t) + self._scan_step_ns(int(t))
            else:
                assert host is not None
                host()
                self._collect_from_host()
                next_poll = int(t) + host_poll_ns
        self.clock.set(max(t_end, self.clock.now_ns()))

    def _deliver_to_host(self) -> None:
        at, data = self._to_host.popleft()
        if self._master is None:
            return
        before = pending_bytes(self._slave) if self._slave is not None and not self.live else 0
        try:
            written = os.write(self._master, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            if exc.errno == errno.EIO:
                return
            raise
        if written < len(data):
            # The host is not reading (pty buffer full): hold the rest, as USB would.
            self._to_host.appendleft((at + 1_000_000, data[written:]))
        if self._slave is not None and not self.live:
            # Nobody reads the slave while we run, so its queue grows by exactly this.
            wait_pending(self._slave, before + written)

    def _collect_from_host(self) -> None:
        if self._master is None:
            return
        if self._counters is not None:
            _, host_tx = self._counters()
            if host_tx > self.from_host_bytes:
                wait_pending(self._master, host_tx - self.from_host_bytes)
        chunks = []
        while True:
            try:
                data = os.read(self._master, 4096)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EIO:  # the host closed its end
                    break
                raise
            if not data:
                break
            chunks.append(data)
        self.from_host_bytes += sum(len(c) for c in chunks)
        if chunks:
            now = self.clock.now_ns()
            at = max(self.jitter.delay(now, self._phase, self._jrng), self._last_to_board)
            self._last_to_board = at
            self._to_board.append((at, b"".join(chunks)))

    def toggle(self, figure: Figure, lead_ns: int = 20_000_000) -> tuple[str, int]:
        """Lift `figure` if it stands, else put it back, `lead_ns` from now.

        Returns the kind ("lift" or "place") and the true host time of the change.
        """
        at = self.clock.now_ns() + lead_ns
        model = self.models[self.figures.index(figure)]
        standing = model.changes[-1][1] if model.changes else True
        (self.lift if standing else self.place)(figure, at)
        return ("lift" if standing else "place"), at

    def run_live(self, now_ns: Callable[[], int], wait: Callable[[float], None],
                 stop: Callable[[], bool], step_ns: int = 500_000) -> None:
        """Run the board on the host's clock for a host in another process.

        The board's simulated time follows `now_ns` (host CLOCK_MONOTONIC), so
        a `knapp pads monitor --serial PORT` in another terminal sees a board
        that behaves like the real one, with USB-like delays. Returns when
        `stop()` is true; `wait(seconds)` idles between steps.
        """
        while not stop():
            self.run_until(max(now_ns(), self.clock.now_ns()), host=lambda: None,
                           host_poll_ns=1_000_000)
            wait(step_ns / 1e9)

    def led_colours(self) -> list[tuple[int, int, int]]:
        """The LED colours the firmware last wrote."""
        return list(self.strip.pixels)

    def firmware_state(self) -> Any:
        """The firmware `Board` object (for tests)."""
        return self.board

"""firmware/main.py under CPython with stand-ins for `machine`, `time`, USB and friends.

main.py is the only file that touches the hardware; here it runs against
fakes injected through its imports, so its wiring (pins, ADC, mux select,
USB in and out, the scan loop's pacing and safe mode) is exercised, not
just compiled.
"""

from __future__ import annotations

import builtins
import io
from types import SimpleNamespace

import pytest

from controller.sim.virtual_board import firmware_dir, load_firmware

MASK = (1 << 30) - 1


class Stop(Exception):
    pass


class Hardware:
    """Fakes for what main.py imports, sharing one microsecond clock."""

    def __init__(self, *, safe_mode=False, loops=4000, adc_us=3, max_reads=None):
        self.us = 5_000
        self.loops = loops
        self.adc_us = adc_us  # how long one conversion (with MicroPython's overhead) takes
        self.max_reads = max_reads
        self.reads = [0] * 8  # ADC0 conversions by mux channel
        self.on_read = None
        self.sel = [0, 0, 0]
        self.adc_values = [26000] * 8  # by mux channel
        self.light = 2000
        self.stdin = bytearray()
        self.stdout = io.BytesIO()
        self.safe_mode = safe_mode
        self.freq = None
        self.kbd = None
        self.strip = None

    # time
    def ticks_us(self):
        return self.us & MASK

    def sleep_us(self, us):
        self.us += max(us, 0)
        if us > 10:  # the scan loop's pacing sleep, not the 4 us mux settling
            self.loops -= 1
            if self.loops <= 0:
                raise Stop

    def modules(self):
        hw = self

        class Pin:
            OUT, IN, PULL_UP = 1, 0, 2

            def __init__(self, n, mode=None, pull=None):
                self.n = n

            def value(self, v=None):
                if v is None:
                    return 0 if (self.n == 22 and hw.safe_mode) else 1
                if self.n in (2, 3, 4):
                    hw.sel[self.n - 2] = v
                return None

            def toggle(self):
                pass

        class ADC:
            def __init__(self, n):
                self.n = n

            def read_u16(self):
                hw.us += hw.adc_us
                if hw.on_read is not None:
                    hw.on_read()
                if self.n == 26:
                    channel = hw.sel[0] | hw.sel[1] << 1 | hw.sel[2] << 2
                    hw.reads[channel] += 1
                    if hw.max_reads is not None and sum(hw.reads) >= hw.max_reads:
                        raise Stop
                    return hw.adc_values[channel]
                return hw.light

        class NeoPixel(list):
            def __init__(self, pin, n):
                super().__init__([(0, 0, 0)] * n)
                hw.strip = self

            def write(self):
                pass

        class Stdin:
            buffer = SimpleNamespace(read=hw._read)

        class Poll:
            def register(self, obj, mask):
                pass

            def poll(self, timeout):
                return [1] if hw.stdin else []

        def exit_():
            raise SystemExit

        return {
            "machine": SimpleNamespace(Pin=Pin, ADC=ADC, freq=lambda f: setattr(hw, "freq", f)),
            "micropython": SimpleNamespace(kbd_intr=lambda c: setattr(hw, "kbd", c)),
            "neopixel": SimpleNamespace(NeoPixel=NeoPixel),
            "time": SimpleNamespace(ticks_us=self.ticks_us, sleep_us=self.sleep_us,
                                    ticks_add=lambda t, d: (t + d) & MASK,
                                    ticks_diff=lambda a, b: ((a - b + (1 << 29)) & MASK)
                                    - (1 << 29)),
            "select": SimpleNamespace(poll=Poll, POLLIN=1),
            "sys": SimpleNamespace(stdout=SimpleNamespace(buffer=self.stdout), stdin=Stdin(),
                                   exit=exit_),
            "os": SimpleNamespace(urandom=lambda n: b"\x07" * n),
        }

    def _read(self, n):
        out = bytes(self.stdin[:n])
        del self.stdin[:n]
        return out


def run_main(hw: Hardware, tmp_path, monkeypatch) -> None:
    fw = load_firmware()
    fakes = hw.modules()
    real_import = builtins.__import__

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if name in fakes:
            return fakes[name]
        if name in fw:
            return fw[name]
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.chdir(tmp_path)  # levels.json lands here
    env = {"__name__": "__main__", "__builtins__": {**vars(builtins), "__import__": importer}}
    src = (firmware_dir() / "main.py").read_text()
    with pytest.raises((Stop, SystemExit)):
        exec(compile(src, "main.py", "exec"), env)


def frames(hw: Hardware):
    P = load_firmware()["protocol"]
    out = []
    for item in P.Reader().feed(hw.stdout.getvalue()):
        assert not isinstance(item, int)
        out.append((item[0], P.unpack(item[0], item[2])))
    return out


def test_main_greets_scans_and_answers(tmp_path, monkeypatch):
    P = load_firmware()["protocol"]
    hw = Hardware(loops=9000)  # 2.25 s of 250 us scans
    hw.stdin += P.pack(P.PING, 1, 42)
    hw.adc_values[3] = 26000
    run_main(hw, tmp_path, monkeypatch)
    got = frames(hw)
    assert got[0][0] == P.HELLO and got[0][1][0] == 0x07070707  # boot id from os.urandom
    assert hw.freq == 200_000_000 and hw.kbd == -1
    pongs = [f for t, f in got if t == P.PONG]
    assert pongs and pongs[0][0] == 42
    assert [t for t, _ in got].count(P.HEARTBEAT) == 2


def test_main_reports_a_lift_through_the_mux(tmp_path, monkeypatch):
    P = load_firmware()["protocol"]
    hw = Hardware(loops=400)
    real_sleep = hw.sleep_us

    def sleep_then_lift(us):
        real_sleep(us)
        if hw.loops == 200:
            hw.adc_values[3] = 900  # the chest (mux channel 3) leaves its pad
    hw.sleep_us = sleep_then_lift
    run_main(hw, tmp_path, monkeypatch)
    events = [f for t, f in frames(hw) if t == P.EVENT]
    assert [(e[1], e[2]) for e in events] == [(3, P.LIFT)]


def test_safe_mode_jumper_leaves_the_line_alone(tmp_path, monkeypatch):
    hw = Hardware(safe_mode=True)
    run_main(hw, tmp_path, monkeypatch)
    assert hw.stdout.getvalue() == b"" and hw.kbd is None


def test_main_samples_every_pad_at_1khz_or_more(tmp_path, monkeypatch):
    hw = Hardware(loops=4000)  # one second of the scan loop
    run_main(hw, tmp_path, monkeypatch)
    seconds = (hw.us - 5_000) / 1e6
    rates = [hw.reads[ch] / seconds for ch in range(5)]
    assert min(rates) >= 1000, rates  # 4 kHz per pad at the nominal 250 us
    assert hw.reads[5:] == [0, 0, 0]  # unused mux inputs are never read


def test_main_reports_its_real_scan_period_when_the_loop_is_slow(tmp_path, monkeypatch):
    """Slow conversions stretch the loop past 250 us: HELLO says how long it really is."""
    P = load_firmware()["protocol"]
    hw = Hardware(adc_us=90, max_reads=5 * 3000)
    asked = []

    def ask_late():
        if sum(hw.reads) == 5 * 2000 and not asked:  # after 2000 scans
            asked.append(hw.us)
            hw.stdin += P.pack(P.HELLO_REQ, 1)
    hw.on_read = ask_late
    run_main(hw, tmp_path, monkeypatch)
    hellos = [f for t, f in frames(hw) if t == P.HELLO]
    assert hellos[0][6] == 250  # at boot: nothing measured yet
    per_scan = (asked[0] - 5_000) / 2000  # 5 pads + the light sensor at 94/90 us each
    assert hellos[1][6] == pytest.approx(per_scan, rel=0.03)
    assert 1e6 / hellos[1][6] >= 1000  # still at least 1 kHz per pad

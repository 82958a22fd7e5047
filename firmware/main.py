"""Pad board entry point on a Raspberry Pi Pico (RP2040) running MicroPython.

The only file that touches `machine`. Wiring (hardware/wiring-board.svg and
hardware/pad-board-schematic.svg): five FSR dividers into a CD74HC4051 analog
multiplexer (channels 0-4), select lines S0..S2 on GP2..GP4, mux output
through a buffer to ADC0 (GP26); optional light sensor on ADC1 (GP27);
optional WS2812 strip data on GP16; safe-mode jumper GP22 to GND.
USB CDC carries the framed protocol (PROTOCOL.md) in both directions.
"""

import json
import os
import select
import sys
import time

import machine
import micropython

from board import Board
from leds import Leds
from light import LightSensor

NPADS = 5
SCAN_US = 250  # 4 kHz per pad if the loop keeps up; HELLO reports the measured period
MUX_SELECT = (2, 3, 4)  # GP2..GP4 -> mux S0..S2
PAD_ADC = 26  # GP26 / ADC0 <- mux COM (buffered)
LIGHT_ADC = 27  # GP27 / ADC1 <- light sensor (buffered)
LED_PIN = 16  # GP16 -> 74AHCT125 -> WS2812B DIN
STATUS_LED = 25  # the Pico's own LED
MUX_SETTLE_US = 4

SAFE_MODE_PIN = 22  # jumper GP22 to GND at power-up: stay at the MicroPython prompt

if machine.Pin(SAFE_MODE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
    sys.exit()  # leaves the USB line to mpremote for updating the files

machine.freq(200_000_000)
micropython.kbd_intr(-1)  # 0x03 is a data byte here, not Ctrl-C

adc = machine.ADC(PAD_ADC)
sel = [machine.Pin(n, machine.Pin.OUT) for n in MUX_SELECT]
light_adc = machine.ADC(LIGHT_ADC)
status = machine.Pin(STATUS_LED, machine.Pin.OUT)


def read_pad(i):
    sel[0].value(i & 1)
    sel[1].value((i >> 1) & 1)
    sel[2].value((i >> 2) & 1)
    time.sleep_us(MUX_SETTLE_US)
    return adc.read_u16()


def read_light():
    return light_adc.read_u16()


try:
    import neopixel

    strip = neopixel.NeoPixel(machine.Pin(LED_PIN), NPADS)
except ImportError:
    strip = None


class LevelStore:
    """Calibrated levels in the board's flash, so a power cut keeps them."""

    path = "levels.json"

    def load(self):
        try:
            with open(self.path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def save(self, levels):
        with open(self.path, "w") as f:
            json.dump(levels, f)


out = sys.stdout.buffer
inp = sys.stdin.buffer
poller = select.poll()
poller.register(sys.stdin, select.POLLIN)

board = Board(
    read_pad, time.ticks_us, out.write,
    boot_id=int.from_bytes(os.urandom(4), "little"),
    npads=NPADS, read_light=read_light, light=LightSensor(),
    leds=Leds(strip, NPADS) if strip is not None else None, scan_us=SCAN_US,
    store=LevelStore(),
)

next_scan = time.ticks_us()
started = next_scan
beats = 0
while True:
    board.scan()
    while poller.poll(0):
        t = time.ticks_us()
        board.feed(inp.read(1), t)
    beats += 1
    if beats & 0x0FFF == 0:
        status.toggle()
    next_scan = time.ticks_add(next_scan, SCAN_US)
    wait = time.ticks_diff(next_scan, time.ticks_us())
    if wait > 0:
        time.sleep_us(wait)
    elif wait < -SCAN_US * 8:
        next_scan = time.ticks_us()  # overran badly (USB stall): do not try to catch up
    now = time.ticks_us()
    board.note_period(time.ticks_diff(now, started))  # the real rate goes into HELLO
    started = now

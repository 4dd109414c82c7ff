"""Stand-ins for the Pico: beneath the firmware's board layer (``machine.Pin``, ``neopixel.NeoPixel``) and in its place.

MicroPython-compatible, so the board layer and the main loop are exercised
under both interpreters with the same stand-ins (and bench/puck.py times
the loop on :class:`StandInBoard`).
"""

import sys


class Pin:
    """machine.Pin: an input reads ``level`` (a pulled-up pin reads 1 until a test grounds it)."""

    IN, OUT, PULL_UP = 0, 1, 1
    wired: dict = {}

    def __init__(self, pin, mode=-1, pull=-1):
        self.level = 1 if pull == Pin.PULL_UP else 0
        Pin.wired[pin] = self

    def value(self):
        return self.level


class NeoPixel:
    """neopixel.NeoPixel: keeps what the last ``write`` sent down the ring."""

    last = None

    def __init__(self, pin, n):
        self.buffer = [(0, 0, 0)] * n
        self.shown: list = []
        NeoPixel.last = self

    def __setitem__(self, index, rgb):
        self.buffer[index] = rgb

    def write(self):
        self.shown = list(self.buffer)


class WDT:
    """machine.WDT: counts the feeds."""

    last = None

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        WDT.last = self

    def feed(self):
        self.feeds += 1


PWRON_RESET, WDT_RESET = 1, 3
cause = PWRON_RESET  # what machine.reset_cause() says; a test sets it


def reset_cause():
    return cause


class _Module:
    pass


def install():
    """Make ``import machine`` and ``import neopixel`` find the stand-ins."""
    machine, neopixel = _Module(), _Module()
    machine.Pin = Pin
    machine.WDT = WDT
    machine.PWRON_RESET, machine.WDT_RESET, machine.reset_cause = PWRON_RESET, WDT_RESET, reset_cause
    neopixel.NeoPixel = NeoPixel
    sys.modules["machine"] = machine
    sys.modules["neopixel"] = neopixel


class StandInBoard:
    """puck.board.Board's interface, recorded: the line's bytes and the frames the loop drew."""

    leds = 12
    has_shake = False

    def __init__(self):
        self.now = 0
        self.down = False
        self.incoming = b""
        self.written = b""
        self.shown: list = []

    def ticks_ms(self):
        return self.now

    def button_down(self):
        return self.down

    def shaken(self):
        return False

    def read(self):
        data, self.incoming = self.incoming, b""
        return data

    def write(self, data, press=False):
        self.written += data

    def flush(self):
        pass

    def discard(self):
        pass

    def show(self, pixels):
        self.shown.append(pixels)

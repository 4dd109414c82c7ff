"""The puck's hardware, and nothing else: pins, the pixel ring and the USB serial line.

The only firmware module that touches ``machine``, ``neopixel`` and the
USB line (MicroPython's ``sys.stdin``/``sys.stdout``); it makes no
decisions, so the tests can put stand-ins beneath it, or beside it.
"""

import select
import sys
import time

from machine import Pin
from neopixel import NeoPixel

from puck import settings

READ_MAX = 64  # bytes taken off the line per loop pass


class Board:
    """A Pico wired as firmware/README.md shows.

    ``stdin``/``stdout`` (the USB line's byte streams) and ``ticks_ms`` are
    MicroPython's own unless given, as the tests give a pseudo-terminal
    and a fake clock's ticks.
    """

    def __init__(self, s=settings, stdin=None, stdout=None, ticks_ms=None) -> None:
        self.leds = s.LEDS
        self.ticks_ms = ticks_ms if ticks_ms is not None else time.ticks_ms
        self._button = Pin(s.BUTTON_PIN, Pin.IN, Pin.PULL_UP)
        self._shake = None if s.SHAKE_PIN is None else Pin(s.SHAKE_PIN, Pin.IN, Pin.PULL_UP)
        self._ring = NeoPixel(Pin(s.RING_PIN, Pin.OUT), s.LEDS)
        self._in = stdin if stdin is not None else sys.stdin.buffer
        self._out = stdout if stdout is not None else sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(stdin if stdin is not None else sys.stdin, select.POLLIN)  # the documented way to poll USB

    @property
    def has_shake(self) -> bool:
        return self._shake is not None

    def button_down(self) -> bool:
        return self._button.value() == 0  # pulled up: pressed is low

    def shaken(self) -> bool:
        return self._shake is not None and self._shake.value() == 0

    def read(self) -> bytes:
        """What the box has sent so far, without waiting (b"" when nothing)."""
        data = bytearray()
        while len(data) < READ_MAX and self._ready(0):
            byte = self._in.read(1)
            if not byte:
                break
            data.extend(byte)
        return bytes(data)

    def write(self, data: bytes) -> None:
        self._out.write(data)

    def wait(self, ms: int) -> None:
        """Sleep until the box sends something or ``ms`` have passed."""
        self._ready(ms)

    def show(self, pixels: list) -> None:
        for index, rgb in enumerate(pixels):
            self._ring[index] = rgb
        self._ring.write()

    def _ready(self, ms: int) -> bool:
        for _stream, event in self._poll.poll(ms):
            if event & select.POLLIN:
                return True
        return False

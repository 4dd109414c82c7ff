"""The puck's hardware, and nothing else: pins, the pixel ring and the USB serial line.

The only firmware module that touches ``machine``, ``neopixel`` and the
USB line (MicroPython's ``sys.stdin``/``sys.stdout``); it makes no
decisions, so the tests can put stand-ins beneath it, or beside it.
"""

import select
import sys
import time

from machine import PWRON_RESET, WDT, Pin, reset_cause
from neopixel import NeoPixel

from puck import settings

READ_MAX = 64  # bytes taken off the line per loop pass
WRITE_MAX = 64  # bytes put on the line per loop pass
UNSENT_MAX = 256  # bytes kept for a box that has stopped reading; an answer that does not fit is dropped


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
        self._room = select.poll()
        self._room.register(stdout if stdout is not None else sys.stdout, select.POLLOUT)
        self._sending, self._next = b"", 0  # the line on its way, and how much of it has gone
        self._presses: list = []  # whole lines waiting: presses first, then answers
        self._answers: list = []
        self._watchdog: WDT | None = None

    @property
    def has_shake(self) -> bool:
        return self._shake is not None

    def powered_on(self) -> bool:
        """Did this start come with the power (not a reset of the firmware's own, or the watchdog's)?"""
        return reset_cause() == PWRON_RESET

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

    def write(self, data: bytes, press: bool = False) -> None:
        """Queue ``data`` (one whole line) for :meth:`flush`.

        A press goes out before every answer still waiting, and answers make
        room for it; an answer that does not fit is dropped whole. So a box
        that floods the line with lines to answer still gets every press.
        """
        if press:
            self._presses.append(data)
            while self._waiting() > UNSENT_MAX and self._answers:
                self._answers.pop()  # the newest answer: the box asks again soon enough
            while self._waiting() > UNSENT_MAX and len(self._presses) > 1:
                self._presses.pop(0)  # a box that reads nothing at all gets the latest presses
        elif self._waiting() + len(data) <= UNSENT_MAX:
            self._answers.append(data)

    def flush(self) -> None:
        """Put what waits on the line, a byte at a time while the line has room for one: never wait.

        A box that holds the port open but has stopped reading must not stop
        the loop: on a Pico a write into a full USB buffer waits up to 500 ms.
        """
        sent = 0
        while sent < WRITE_MAX and self._room.poll(0):
            if self._next >= len(self._sending):
                if not (self._presses or self._answers):
                    break
                self._sending, self._next = (self._presses or self._answers).pop(0), 0
            self._out.write(self._sending[self._next : self._next + 1])
            self._next += 1
            sent += 1

    def discard(self) -> None:
        """Forget the lines waiting (the box has opened the line anew: they are stale).

        The line on its way is finished, so the next begins after its newline,
        never glued onto half a line.
        """
        self._presses, self._answers = [], []

    def _waiting(self) -> int:
        return len(self._sending) - self._next + sum(len(line) for line in self._presses + self._answers)

    def start_watchdog(self, ms: int) -> None:
        """Reset the Pico if the loop stops waiting (puck.app) for ``ms``; it cannot be stopped again."""
        self._watchdog = WDT(timeout=ms)

    def wait(self, ms: int) -> None:
        """Feed the watchdog, then sleep until the box sends something or ``ms`` have passed."""
        if self._watchdog is not None:
            self._watchdog.feed()
        self._ready(ms)

    def pause(self, ms: int) -> None:
        """Sleep ``ms``, whatever the line holds (before the main loop reads it)."""
        time.sleep_ms(ms)

    def show(self, pixels: list) -> None:
        for index, rgb in enumerate(pixels):
            self._ring[index] = rgb
        self._ring.write()

    def _ready(self, ms: int) -> bool:
        for _stream, event in self._poll.poll(ms):
            if event & select.POLLIN:
                return True
        return False

"""Keyboard-like readers as evdev shows them, with synthetic key events.

A :class:`FakeInputDevice` has a real file descriptor (a pipe), so the
driver's ``select`` works as on a real /dev/input node; the events it
reads are real ``evdev.InputEvent`` objects.
"""

from __future__ import annotations

import os
import threading
from collections import deque

from evdev import InputEvent, ecodes


def key_events(typed: str) -> list[InputEvent]:
    """What a reader sends when it types ``typed`` and presses Enter."""
    events = []
    for character in typed + "\n":
        code = ecodes.KEY_ENTER if character == "\n" else getattr(ecodes, f"KEY_{character.upper()}")
        for value in (1, 0):  # key down, key up
            events.append(InputEvent(0, 0, ecodes.EV_KEY, code, value))
            events.append(InputEvent(0, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0))
    return events


class FakeInputDevice:
    def __init__(self, path: str) -> None:
        self.path = path
        self.fd, self._signal = os.pipe()
        self.grabbed = False
        self.closed = False
        self.unplugged = False
        self._events: deque[InputEvent] = deque()
        self.read_nothing = threading.Event()

    def grab(self) -> None:
        self.grabbed = True

    def type(self, typed: str) -> None:
        self._events.extend(key_events(typed))
        os.write(self._signal, b"k")

    def unplug(self) -> None:
        self.unplugged = True
        os.write(self._signal, b"u")

    def wake_without_events(self) -> None:
        """The fd turns readable with nothing to read (a dropped report)."""
        os.write(self._signal, b"w")

    def read(self):
        os.read(self.fd, 1024)
        if self.unplugged:
            raise OSError(19, "No such device")
        if not self._events:
            self.read_nothing.set()
            raise BlockingIOError(11, "Resource temporarily unavailable")  # as evdev's read() does
        events = list(self._events)
        self._events.clear()
        return iter(events)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)
            os.close(self._signal)


class FakeInputBus:
    """Opens fake devices while the reader is plugged in; remembers each one opened."""

    def __init__(self) -> None:
        self.plugged = True
        self.opened: list[FakeInputDevice] = []
        self.attempts = 0
        self._changed = threading.Condition()

    def open(self, path: str) -> FakeInputDevice:
        with self._changed:
            self.attempts += 1
            self._changed.notify_all()
            if not self.plugged:
                raise FileNotFoundError(2, "No such file or directory", path)
            device = FakeInputDevice(path)
            device.grab()
            self.opened.append(device)
            self._changed.notify_all()
            return device

    def wait_attempts(self, count: int, timeout: float = 5.0) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: self.attempts >= count, timeout), "reader stopped trying"

    def wait_opened(self, count: int, timeout: float = 5.0) -> FakeInputDevice:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.opened) >= count, timeout), "reader never opened"
            return self.opened[count - 1]

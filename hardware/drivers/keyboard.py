"""A USB reader that types each card's uid like a keyboard, through evdev.

Cheap USB readers need no wiring: they type the uid (usually as decimal
digits) and press Enter. The box opens one by its stable
/dev/input/by-id/... path and grabs it exclusively, so the digits reach
only the box, never a console. Such a reader cannot tell when a card is
lifted, so it sends TagSeen only.

The reader thread waits in ``select`` on the device and on a wake-up pipe:
:meth:`stop` writes to the pipe, so stopping never waits for a keystroke.
Unplugging the reader is a fault; it is opened again, with growing waits,
until it is back.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
from collections.abc import Callable
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink, TagSeen
from hardware.faults import Backoff, FaultReporter
from hardware.interfaces import TagReader
from hardware.worker import Threaded, Worker

log = logging.getLogger(__name__)

_MAX_TYPED = 32  # longer than any uid: a stuck key, not a card


def open_evdev(path: str) -> Any:
    """The evdev device at ``path``, grabbed so nobody else sees its keys."""
    import evdev

    device = evdev.InputDevice(path)
    try:
        device.grab()
    except BaseException:
        device.close()
        raise
    return device


def _key_characters() -> dict[int, str]:
    from evdev import ecodes

    keys = {getattr(ecodes, f"KEY_{digit}"): str(digit) for digit in range(10)}
    keys |= {getattr(ecodes, f"KEY_KP{digit}"): str(digit) for digit in range(10)}
    keys |= {getattr(ecodes, f"KEY_{letter}"): letter.lower() for letter in "ABCDEF"}
    keys |= {ecodes.KEY_ENTER: "\n", ecodes.KEY_KPENTER: "\n"}
    return keys


def uid_from_typed(typed: str, uid_format: str = "decimal") -> bytes | None:
    """The uid a reader typed: decimal digits (4 bytes, or 7 when larger) or hex."""
    try:
        if uid_format == "hex":
            return bytes.fromhex(typed if len(typed) % 2 == 0 else "0" + typed)
        number = int(typed, 10)
    except ValueError:
        return None
    length = 4 if number < 1 << 32 else 7 if number < 1 << 56 else (number.bit_length() + 7) // 8
    return number.to_bytes(length, "big")


class KeyboardReader(Threaded, TagReader):
    """A keyboard-like reader grabbed through evdev, read in its own thread."""

    driver = "keyboard"

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        *,
        path: str,
        uid_format: str = "decimal",
        open_device: Callable[[str], Any] = open_evdev,
        backoff: Backoff | None = None,
    ) -> None:
        self.name = name
        self.device = f"reader:{name}"
        self.path = path
        self.uid_format = uid_format
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self._open_device = open_device
        self._backoff = backoff or Backoff(0.5, 2.0, 5.0)
        self._worker = Worker(self.device, self._run, wake=self._wake)
        self._wake_r, self._wake_w = -1, -1
        self._typed = ""

    def start(self) -> None:
        if not self._worker.running:
            self._wake_r, self._wake_w = os.pipe()
            self._worker.start()

    def stop(self) -> None:
        if self._worker.running:
            self._worker.stop()
            os.close(self._wake_r)
            os.close(self._wake_w)

    def describe(self) -> str:
        return f"keyboard reader {self.path} ({self.uid_format})"

    def _run(self) -> None:
        keys = _key_characters()
        while not self._worker.stopping.is_set():
            try:
                device = self._open_device(self.path)
            except Exception as error:  # not plugged in, no permission
                self._faults.fault(f"cannot open {self.path}: {error}")
                self._worker.tried.set()
                self._wait(self._backoff.next())
                continue
            self._backoff.reset()
            self._faults.ok()
            self._worker.tried.set()
            try:
                self._read(device, keys)
            except OSError as error:  # unplugged while reading
                self._faults.fault(f"{self.path} stopped answering: {error}")
                self._wait(self._backoff.next())
            finally:
                _close_quietly(device)

    def _read(self, device: Any, keys: dict[int, str]) -> None:
        from evdev import ecodes

        self._typed = ""
        while not self._worker.stopping.is_set():
            ready, _, _ = select.select([device.fd, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            try:
                events = list(device.read())
            except BlockingIOError:  # woken with nothing to read: not a fault
                continue
            for event in events:
                if event.type == ecodes.EV_KEY and event.value == 1:
                    self._key(keys.get(event.code))

    def _key(self, character: str | None) -> None:
        if character != "\n":
            self._typed = (self._typed + (character or ""))[:_MAX_TYPED]
            return
        typed, self._typed = self._typed, ""
        uid = uid_from_typed(typed, self.uid_format) if typed else None
        if uid is None:
            log.info("%s: ignored typed %r", self.device, typed)
            return
        self._sink.post(TagSeen(self.name, uid, None, at=self._clock.monotonic()))

    def _wait(self, seconds: float) -> None:
        """Wait between retries, woken at once by stop()."""
        select.select([self._wake_r], [], [], seconds)

    def _wake(self) -> None:
        os.write(self._wake_w, b"x")


def _close_quietly(device: Any) -> None:
    with contextlib.suppress(OSError):  # already gone with the unplugged device
        device.close()

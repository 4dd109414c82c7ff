"""How a device says it is broken, and how long it waits before trying again.

A driver never lets an exception out into the box's loop. It tells its
:class:`FaultReporter` instead, which turns a run of failures into exactly
one :class:`~hardware.events.DeviceFault` and the first success after it
into one :class:`~hardware.events.DeviceRecovered`, so a reader that fails
every 50 ms does not flood the table with alarms.
"""

from __future__ import annotations

import logging
import threading

from hardware.clock import Clock
from hardware.events import DeviceFault, DeviceRecovered, EventSink

log = logging.getLogger(__name__)


class FaultReporter:
    """Remembers whether a device is in an outage; safe from any thread."""

    def __init__(self, device: str, sink: EventSink, clock: Clock) -> None:
        self.device = device
        self._sink = sink
        self._clock = clock
        self._message: str | None = None
        self._lock = threading.Lock()

    @property
    def message(self) -> str | None:
        """What is wrong right now, or None when the device works."""
        return self._message

    def fault(self, message: str) -> None:
        """Record a failure; only the first of an outage is posted."""
        with self._lock:
            first = self._message is None
            self._message = message
        if first:
            log.warning("%s: %s", self.device, message)
            self._sink.post(DeviceFault(self.device, message, at=self._clock.monotonic()))

    def ok(self) -> None:
        """Record a success; ends an outage if there was one."""
        with self._lock:
            if self._message is None:
                return
            self._message = None
        log.info("%s: recovered", self.device)
        self._sink.post(DeviceRecovered(self.device, at=self._clock.monotonic()))


class Backoff:
    """Growing waits between retries: quick to retry a glitch, patient with a dead device."""

    def __init__(self, initial: float = 0.2, factor: float = 2.0, maximum: float = 5.0) -> None:
        if not 0 < initial <= maximum or factor < 1:
            raise ValueError("need 0 < initial <= maximum and factor >= 1")
        self.initial, self.factor, self.maximum = initial, factor, maximum
        self._next = initial

    def next(self) -> float:
        """The wait before the next retry; each call waits longer, up to the maximum."""
        delay = self._next
        self._next = min(self._next * self.factor, self.maximum)
        return delay

    def reset(self) -> None:
        """Start again from the initial wait (after a success)."""
        self._next = self.initial

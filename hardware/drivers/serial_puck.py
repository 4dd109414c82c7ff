"""The die puck: a microcontroller on a USB serial line.

PLACEHOLDER PROTOCOL, until the puck's firmware settles it: plain text
lines, ASCII, ending in "\\n".

- puck to box: ``PRESS`` when its button is pressed; ``HELLO <version>``
  when it starts (logged). Other lines are ignored.
- box to puck: ``FACE <name>`` to show a die face ("cat", "dog", "3", ...).

The reader thread blocks in ``readline``; :meth:`SerialPuck.stop` calls
pyserial's ``cancel_read`` so it returns at once. Unplugging the puck is a
fault; it is opened again, with growing waits, until it is back.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink, PuckPressed
from hardware.faults import Backoff, FaultReporter
from hardware.interfaces import DiePuck
from hardware.worker import Threaded, Worker

log = logging.getLogger(__name__)


def open_serial(device: str, baudrate: int) -> Any:
    import serial

    return serial.Serial(device, baudrate=baudrate, timeout=None)


class SerialPuck(Threaded, DiePuck):
    """A die puck speaking the placeholder line protocol."""

    driver = "serial"

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        *,
        device: str,
        baudrate: int = 115200,
        open_port: Callable[[str, int], Any] = open_serial,
        backoff: Backoff | None = None,
    ) -> None:
        self.name = name
        self.device = f"puck:{name}"
        self.port_path = device
        self.baudrate = baudrate
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self._open_port = open_port
        self._backoff = backoff or Backoff(0.5, 2.0, 5.0)
        self._worker = Worker(self.device, self._run, wake=self._wake)
        self._port: Any = None

    def _wake(self) -> None:
        # stopping is already set: if no port is open yet, the thread sees it
        # before it reads; if one is, cancel_read returns the readline at once.
        port = self._port
        if port is not None:
            port.cancel_read()

    def show(self, face: str) -> None:
        port = self._port
        if port is None:
            return
        try:
            port.write(f"FACE {face}\n".encode("ascii", "replace"))
        except Exception as error:  # unplugged: the reader thread reopens it
            self._faults.fault(f"{self.port_path}: {error}")

    def describe(self) -> str:
        return f"die puck on {self.port_path} at {self.baudrate} baud (placeholder protocol)"

    def _run(self) -> None:
        stopping = self._worker.stopping
        while not stopping.is_set():
            try:
                self._port = self._open_port(self.port_path, self.baudrate)
            except Exception as error:  # not plugged in
                self._faults.fault(f"cannot open {self.port_path}: {error}")
                self._worker.tried.set()
                stopping.wait(self._backoff.next())
                continue
            self._backoff.reset()
            self._faults.ok()
            self._worker.tried.set()
            try:
                self._read_lines()
            except Exception as error:  # serial.SerialException: unplugged
                self._faults.fault(f"{self.port_path}: {error}")
                stopping.wait(self._backoff.next())
            finally:
                port, self._port = self._port, None
                with contextlib.suppress(Exception):  # already gone with the puck
                    port.close()

    def _read_lines(self) -> None:
        while not self._worker.stopping.is_set():
            line = self._port.readline().decode("ascii", "replace").strip()
            if line == "PRESS":
                self._sink.post(PuckPressed(self.name, at=self._clock.monotonic()))
            elif line.startswith("HELLO"):
                log.info("%s: %s", self.device, line)

"""The die puck on a serial line, speaking the placeholder line protocol."""

from __future__ import annotations

import asyncio
import queue
import threading

from hardware.clock import SystemClock
from hardware.drivers.serial_puck import SerialPuck
from hardware.events import DeviceFault, EventSink, PuckPressed
from hardware.faults import Backoff
from tests.hardware.support import events_until, kinds, next_event, wait_until

PORT = "/dev/serial/by-id/usb-gamebox-die-puck"


class FakeSerial:
    """A pyserial port: readline blocks until the puck sends a line, cancel_read or unplugging."""

    def __init__(self) -> None:
        self.lines: queue.Queue[bytes | Exception | None] = queue.Queue()
        self.written = bytearray()
        self.closed = False

    def send(self, line: str) -> None:
        self.lines.put(f"{line}\n".encode())

    def unplug(self) -> None:
        self.lines.put(OSError(5, "device reports readiness to read but returned no data"))

    def readline(self) -> bytes:
        item = self.lines.get()
        if isinstance(item, Exception):
            raise item
        return item or b""

    def cancel_read(self) -> None:
        self.lines.put(None)

    def write(self, data: bytes) -> int:
        if self.closed:
            raise OSError(5, "write failed")
        self.written += data
        return len(data)

    def close(self) -> None:
        self.closed = True


class FakeSerialPorts:
    def __init__(self) -> None:
        self.plugged = True
        self.opened: list[FakeSerial] = []
        self.asked: list[tuple[str, int]] = []

    def open(self, device: str, baudrate: int) -> FakeSerial:
        self.asked.append((device, baudrate))
        if not self.plugged:
            raise FileNotFoundError(2, "No such file or directory", device)
        self.opened.append(FakeSerial())
        return self.opened[-1]


def puck(sink: EventSink, ports: FakeSerialPorts) -> SerialPuck:
    return SerialPuck("die", sink, SystemClock(), device=PORT, open_port=ports.open, backoff=Backoff(0.001, 2, 0.01))


def test_a_press_line_is_a_puck_press_and_faces_are_sent_as_lines():
    async def scenario():
        sink, ports = EventSink(), FakeSerialPorts()
        die = puck(sink, ports)
        die.start()
        try:
            assert die.wait_started(5)
            line = ports.opened[0]
            line.send("HELLO 0.1")
            line.send("PRESS")
            pressed = await next_event(sink)
            die.show("cat")
        finally:
            die.stop()
        assert isinstance(pressed, PuckPressed) and pressed.puck == "die"
        assert bytes(line.written) == b"FACE cat\n"
        assert ports.asked == [(PORT, 115200)]
        assert line.closed and not [t for t in threading.enumerate() if t.name == "puck:die"]

    asyncio.run(scenario())


def test_unplugging_the_puck_is_a_fault_and_it_is_reopened_when_back():
    async def scenario():
        sink, ports = EventSink(), FakeSerialPorts()
        die = puck(sink, ports)
        die.start()
        try:
            assert die.wait_started(5)
            ports.plugged = False
            ports.opened[0].unplug()
            fault = await next_event(sink)
            die.show("dog")  # nowhere to show it: quietly dropped
            ports.plugged = True
            assert wait_until(lambda: len(ports.opened) == 2)
            ports.opened[1].send("PRESS")
            back = await events_until(sink, lambda e: isinstance(e, PuckPressed))
        finally:
            die.stop()
        assert isinstance(fault, DeviceFault) and fault.device == "puck:die"
        assert kinds(back) == ["DeviceRecovered", "PuckPressed"]

    asyncio.run(scenario())


def test_a_failed_write_is_a_fault_not_an_exception():
    async def scenario():
        sink, ports = EventSink(), FakeSerialPorts()
        die = puck(sink, ports)
        die.start()
        try:
            assert die.wait_started(5)
            ports.opened[0].closed = True
            die.show("mouse")
            fault = await next_event(sink)
        finally:
            die.stop()
        assert isinstance(fault, DeviceFault) and "write failed" in fault.message

    asyncio.run(scenario())

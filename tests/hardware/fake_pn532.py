"""A PN532 answering frames, and the three buses it sits on, faked byte for byte.

adafruit_pn532 runs unchanged against these: it writes real command frames
and reads real ACK and response frames. :class:`SpiWire` is one SPI port's
wires with several chips on it, each behind its own chip select, and counts
every moment two chip selects are low at once; :class:`PtyPN532` answers on
the far end of a pseudo-terminal, so the host side is real pyserial. The chip understands what the box
uses: GetFirmwareVersion, SAMConfiguration, InListPassiveTarget (answered
when a tag lies on it, else left pending as a real chip does) and
InDataExchange READ.
"""

from __future__ import annotations

import os
import select
import threading
from collections import deque

from tests.hardware.tags import FakeTag

ACK = b"\x00\x00\xff\x00\xff\x00"
FIRMWARE = bytes([0x32, 0x01, 0x06, 0x07])


def frame(data: bytes) -> bytes:
    length = len(data)
    return bytes([0x00, 0x00, 0xFF, length, (-length) & 0xFF]) + data + bytes([(-sum(data)) & 0xFF, 0x00])


def reverse_bits(byte: int) -> int:
    return int(f"{byte:08b}"[::-1], 2)


class FakePN532:
    """The chip: takes host frames, queues ACK and response frames."""

    def __init__(self) -> None:
        self.tag: FakeTag | None = None
        self.dead = False  # no answer at all, as with a loose wire
        self.commands: list[int] = []
        self._outbox: deque[bytes] = deque()
        self._listening = False
        self._lock = threading.Lock()

    def receive(self, data: bytes) -> None:
        if self.dead:
            return
        start = data.find(b"\x00\xff")
        assert start >= 0, f"no start code in {data.hex()}"
        length = data[start + 2]
        assert (length + data[start + 3]) & 0xFF == 0, "length checksum"
        body = data[start + 4 : start + 4 + length]
        assert (sum(body) + data[start + 4 + length]) & 0xFF == 0, "data checksum"
        assert body[0] == 0xD4, "not a host-to-PN532 frame"
        with self._lock:
            self.commands.append(body[1])
            self._listening = False
            self._outbox.clear()
            self._outbox.append(ACK)
            self._answer(body[1], body[2:])

    def _answer(self, command: int, params: bytes) -> None:
        if command == 0x02:
            self._respond(command, FIRMWARE)
        elif command == 0x14:
            self._respond(command, b"")
        elif command == 0x4A:
            self._listening = True
            self._list_if_tag()
        elif command == 0x40 and params[1] == 0x30:
            tag = self.tag
            self._respond(command, b"\x00" + tag.read16(params[2]) if tag else b"\x01")
        elif command == 0x40 and params[1] == 0xA2:  # NTAG WRITE: one 4-byte page
            tag = self.tag
            ok = tag is not None and tag.write4(params[2], params[3:7])
            self._respond(command, b"\x00" if ok else b"\x01")
        else:
            self._respond(command, b"")

    def _list_if_tag(self) -> None:
        tag = self.tag
        if self._listening and tag is not None:
            self._listening = False
            target = bytes([0x01, 0x01, 0x00, 0x44, 0x00, len(tag.uid)]) + tag.uid
            self._respond(0x4A, target)

    def _respond(self, command: int, payload: bytes) -> None:
        self._outbox.append(frame(bytes([0xD5, command + 1]) + payload))

    @property
    def ready(self) -> bool:
        with self._lock:
            if self.dead:
                return False
            self._list_if_tag()
            return bool(self._outbox)

    def read(self, count: int) -> bytes:
        with self._lock:
            message = self._outbox.popleft() if self._outbox and not self.dead else b""
        return message.ljust(count, b"\x00")[:count]

    def read_available(self) -> bytes:
        """Everything queued, for a byte stream (UART)."""
        with self._lock:
            if self.dead:
                return b""
            self._list_if_tag()
            data = b"".join(self._outbox)
            self._outbox.clear()
            return data


class FakeSpiBus:
    """busio.SPI as adafruit's SPIDevice uses it, wired to a PN532 (LSB first)."""

    def __init__(self, chip: FakePN532) -> None:
        self.chip = chip
        self.error: Exception | None = None
        self.deinited = False

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def configure(self, **settings: int) -> None:
        pass

    def _check(self) -> None:
        if self.error is not None:
            raise self.error

    def write(self, buffer: bytes) -> None:
        self._check()
        data = bytes(reverse_bits(b) for b in buffer)
        if data[0] == 0x01:  # data write
            self.chip.receive(data[1:])

    def write_readinto(self, out: bytearray, into: bytearray) -> None:
        self._check()
        operation = reverse_bits(out[0])
        if operation == 0x02:  # status read
            answer = bytes([0x00, 0x01 if self.chip.ready else 0x00])
        else:  # 0x03, data read
            answer = b"\x00" + self.chip.read(len(out) - 1)
        into[:] = bytes(reverse_bits(b) for b in answer)

    def deinit(self) -> None:
        self.deinited = True


class FakePin:
    """digitalio.DigitalInOut, enough for a chip select."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.value = True
        self.deinited = False

    def switch_to_output(self, value: bool = False, **_: object) -> None:
        self.value = value

    def deinit(self) -> None:
        self.deinited = True


class FakeI2CBus:
    """busio.I2C, wired to a PN532 at 0x24; a dead chip does not acknowledge (OSError 121)."""

    def __init__(self, chip: FakePN532, address: int = 0x24) -> None:
        self.chip = chip
        self.address = address

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def _check(self, address: int) -> None:
        if address != self.address or self.chip.dead:
            raise OSError(121, "Remote I/O error")

    def writeto(self, address: int, buffer: bytes, *, start: int = 0, end: int | None = None) -> None:
        self._check(address)
        data = bytes(buffer[start:end])
        if data:
            self.chip.receive(data)

    def readfrom_into(self, address: int, buffer: bytearray, *, start: int = 0, end: int | None = None) -> None:
        self._check(address)
        end = len(buffer) if end is None else end
        ready = self.chip.ready
        buffer[start] = 0x01 if ready else 0x00
        if end - start > 1 and ready:
            buffer[start + 1 : end] = self.chip.read(end - start - 1)


class SpiWire:
    """One SPI port's wires: chips wait behind their chip selects; two selected at once is a collision."""

    def __init__(self) -> None:
        self.chips: dict[str, FakePN532] = {}
        self.low: set[str] = set()
        self.collisions = 0
        self._lock = threading.Lock()

    def attach(self, cs: str, chip: FakePN532) -> None:
        self.chips[cs] = chip

    def select(self, cs: str, low: bool) -> None:
        with self._lock:
            if low:
                self.low.add(cs)
                if len(self.low) > 1:
                    self.collisions += 1
            else:
                self.low.discard(cs)

    def selected(self) -> FakePN532 | None:
        """The one chip listening, or None when none or several are (several garble the bus)."""
        with self._lock:
            return self.chips.get(next(iter(self.low))) if len(self.low) == 1 else None


class WirePin(FakePin):
    """digitalio.DigitalInOut for a chip select on a :class:`SpiWire` (any other pin just holds its value)."""

    def __init__(self, wire: SpiWire, name: str) -> None:
        self._wire = wire
        super().__init__(name)

    @property
    def value(self) -> bool:
        return self._value

    @value.setter
    def value(self, value: bool) -> None:
        self._value = value
        if self.name in self._wire.chips:
            self._wire.select(self.name, not value)


def nobody() -> FakePN532:
    """What answers when no chip, or more than one, is selected: nothing."""
    chip = FakePN532()
    chip.dead = True
    return chip


class PtyPN532:
    """A PN532 on the far end of a pseudo-terminal: open ``path`` with pyserial to talk to it."""

    def __init__(self, chip: FakePN532) -> None:
        import tty

        self.chip = chip
        self._master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave  # held open so the master never sees a hang-up between host opens
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fake-pn532-uart", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        received = bytearray()
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], 0.005)
            if ready:
                received += os.read(self._master, 1024)
                self._take_frames(received)
            answer = self.chip.read_available()
            if answer:
                os.write(self._master, answer)

    def _take_frames(self, received: bytearray) -> None:
        while True:
            start = received.find(b"\x00\xff")
            if start < 0 or len(received) < start + 4:
                return
            end = start + 4 + received[start + 2] + 2
            if len(received) < end:
                return
            self.chip.receive(bytes(received[start:end]))
            del received[:end]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        os.close(self._master)
        os.close(self._slave)

"""An MFRC522 behind fake ``spidev`` and ``RPi.GPIO`` modules, for pi-rc522 to run unchanged.

The chip keeps the registers pi-rc522 touches (command, FIFO, interrupt
and CRC registers); a transceive is answered by the tag lying on it, as
ISO 14443-3 says: REQA/WUPA, anticollision and SELECT at both cascade
levels, READ (16 bytes from a page) and HLTA. Frames with a bad CRC get
no answer, so a wrong SELECT CL2 fails as it would on the table.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Iterator

from tests.hardware.tags import FakeTag

COMMAND, COM_IRQ, DIV_IRQ, ERROR = 0x01, 0x04, 0x05, 0x06
FIFO, FIFO_LEVEL, CONTROL, BIT_FRAMING = 0x09, 0x0A, 0x0C, 0x0D
CRC_MSB, CRC_LSB = 0x21, 0x22
TRANSCEIVE, CALC_CRC, SOFT_RESET = 0x0C, 0x03, 0x0F


def crc_a(data: list[int] | bytes) -> tuple[int, int]:
    """ISO 14443-A CRC, least significant byte first."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return crc & 0xFF, crc >> 8


def bcc(data: bytes) -> int:
    check = 0
    for byte in data:
        check ^= byte
    return check


class FakeMFRC522:
    """The reader chip and the tag on it (``tag``), as seen through SPI."""

    def __init__(self) -> None:
        self.tag: FakeTag | None = None
        self.error: Exception | None = None
        self.frames: list[bytes] = []  # what was sent to the tag
        self.regs = [0] * 64
        self.fifo: list[int] = []
        self._state = "idle"
        self._lock = threading.Lock()

    def count(self, first_byte: int) -> int:
        return sum(1 for f in list(self.frames) if f[:1] == bytes([first_byte]))

    def xfer2(self, data: list[int]) -> list[int]:
        if self.error is not None:
            raise self.error
        address = (data[0] >> 1) & 0x3F
        with self._lock:
            if data[0] & 0x80:
                return [0, self._read(address)]
            self._write(address, data[1])
            return [0, 0]

    def _read(self, address: int) -> int:
        if address == FIFO:
            return self.fifo.pop(0) if self.fifo else 0
        if address == FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[address]

    def _write(self, address: int, value: int) -> None:
        if address == FIFO:
            self.fifo.append(value)
        elif address == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
        elif address in (COM_IRQ, DIV_IRQ):  # bit 7 says set (1) or clear (0) the marked bits
            bits = value & 0x7F
            self.regs[address] = self.regs[address] | bits if value & 0x80 else self.regs[address] & ~bits
        elif address == COMMAND:
            self.regs[COMMAND] = value
            if value & 0x0F == CALC_CRC:
                self.regs[CRC_LSB], self.regs[CRC_MSB] = crc_a(self.fifo)
                self.fifo.clear()
                self.regs[DIV_IRQ] |= 0x04
            elif value & 0x0F == SOFT_RESET:
                self.regs = [0] * 64
                self.fifo.clear()
        elif address == BIT_FRAMING:
            self.regs[BIT_FRAMING] = value
            if value & 0x80 and self.regs[COMMAND] & 0x0F == TRANSCEIVE:
                self._transceive()
        else:
            self.regs[address] = value

    def _transceive(self) -> None:
        frame = bytes(self.fifo)
        self.fifo.clear()
        self.frames.append(frame)
        answer = self._answer(frame)
        if answer is None:
            self.regs[COM_IRQ] |= 0x01  # the timer ran out
            return
        self.fifo = list(answer)
        self.regs[COM_IRQ] |= 0x30
        self.regs[ERROR] = 0
        self.regs[CONTROL] = 0

    def _answer(self, frame: bytes) -> bytes | None:
        tag = self.tag
        if tag is None:
            self._state = "idle"
            return None
        uid = tag.uid
        if frame in (b"\x26", b"\x52"):
            if frame == b"\x26" and self._state == "halt":
                return None
            self._state = "ready"
            return b"\x44\x00"
        if len(frame) > 2 and frame[-2:] != bytes(crc_a(frame[:-2])):
            return None
        level1 = (b"\x88" + uid[:3]) if len(uid) == 7 else uid[:4]
        if frame == b"\x93\x20":
            return level1 + bytes([bcc(level1)])
        if frame[:2] == b"\x93\x70" and frame[2:6] == level1:
            sak = bytes([0x04 if len(uid) == 7 else 0x08])
            self._state = "ready2" if len(uid) == 7 else "active"
            return sak + bytes(crc_a(sak))
        if frame == b"\x95\x20" and len(uid) == 7:
            return uid[3:7] + bytes([bcc(uid[3:7])])
        if frame[:2] == b"\x95\x70" and frame[2:6] == uid[3:7] and self._state == "ready2":
            self._state = "active"
            return b"\x00" + bytes(crc_a(b"\x00"))
        if frame[:1] == b"\x30" and self._state == "active":
            data = tag.read16(frame[1])
            return data + bytes(crc_a(data))
        if frame[:2] == b"\x50\x00":
            self._state = "halt"
        return None


class FakeSpiDev:
    """spidev.SpiDev, wired to whichever chip sits at (bus, device)."""

    chips: dict[tuple[int, int], FakeMFRC522] = {}

    def __init__(self) -> None:
        self.chip: FakeMFRC522 | None = None
        self.max_speed_hz = 0
        self.closed = False

    def open(self, bus: int, device: int) -> None:
        self.chip = self.chips[(bus, device)]

    def xfer2(self, data: list[int]) -> list[int]:
        assert self.chip is not None and not self.closed
        return self.chip.xfer2(data)

    def close(self) -> None:
        self.closed = True


def fake_gpio() -> types.ModuleType:
    """RPi.GPIO, remembering how each pin was set up."""
    gpio = types.ModuleType("RPi.GPIO")
    gpio.BOARD, gpio.BCM, gpio.OUT, gpio.IN, gpio.PUD_UP, gpio.FALLING = 10, 11, 0, 1, 22, 32
    gpio.calls = []
    for name in ("setmode", "setup", "output", "add_event_detect", "cleanup"):
        setattr(gpio, name, lambda *args, _name=name, **kwargs: gpio.calls.append((_name, args)))
    return gpio


def install(monkeypatch) -> Iterator[types.ModuleType]:
    """Put the fake spidev and RPi.GPIO in place and import pi-rc522 afresh against them."""
    gpio = fake_gpio()
    package = types.ModuleType("RPi")
    package.GPIO = gpio
    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=FakeSpiDev))
    monkeypatch.setitem(sys.modules, "RPi", package)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", gpio)
    for name in [name for name in sys.modules if name.split(".")[0] == "pirc522"]:
        monkeypatch.delitem(sys.modules, name)
    FakeSpiDev.chips = {}
    importlib.import_module("pirc522")  # the real pi-rc522 (test dependency), bound to the fakes
    yield gpio
    for name in [name for name in sys.modules if name.split(".")[0] == "pirc522"]:
        del sys.modules[name]

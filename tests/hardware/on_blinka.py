"""PN532 readers through Blinka's own ``board`` and ``busio``, as on a Pi 4.

Blinka picks its board when it is first imported, so this runs in a process
of its own (``python -m tests.hardware.on_blinka spi|i2c PROFILE``) and
prints what happened as JSON. Below busio, Adafruit_PureIO's files are
faked: ``/dev/spidevB.D`` is a :class:`~tests.hardware.fake_pn532.SpiWire`
with a chip behind each chip select, ``/dev/i2c-N`` a PN532 at 0x24. Pins
are plain recording pins (Blinka's ``DigitalInOut`` needs a GPIO character
device).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from tests.hardware.fake_pn532 import FakeI2CBus, FakePN532, FakeSpiBus, SpiWire, WirePin, nobody
from tests.hardware.support import events_until, wait_until
from tests.hardware.tags import FakeTag

UIDS = {"left": bytes.fromhex("04a1b2c3d4e5f6"), "right": bytes.fromhex("04112233445566")}


class SpidevFile:
    """Adafruit_PureIO.spi.SPI, the spidev file busio.SPI writes through, wired to a :class:`SpiWire`."""

    wire = SpiWire()
    opened: list[str] = []

    def __init__(self, device: tuple[int, int], **settings: object) -> None:
        self.max_speed_hz = self.mode = self.bits_per_word = 0
        self.opened.append("/dev/spidev{}.{}".format(*device))

    def _bus(self) -> FakeSpiBus:
        return FakeSpiBus(self.wire.selected() or nobody())

    def writebytes(self, data: bytes) -> None:
        self._bus().write(bytes(data))

    def transfer(self, data: list[int]) -> list[int]:
        into = bytearray(len(data))
        self._bus().write_readinto(bytearray(data), into)
        return list(into)


class SmbusFile:
    """Adafruit_PureIO.smbus.SMBus, the /dev/i2c-N file busio.I2C reads and writes, with a PN532 on it."""

    chip = FakePN532()
    opened: list[str] = []

    def __init__(self, bus: int) -> None:
        self.opened.append(f"/dev/i2c-{bus}")
        self._bus = FakeI2CBus(self.chip)

    def write_bytes(self, address: int, data: bytes) -> None:
        self._bus.writeto(address, bytes(data))

    def read_bytes(self, address: int, count: int) -> bytes:
        into = bytearray(count)
        self._bus.readfrom_into(address, into)
        return bytes(into)

    def close(self) -> None:
        pass


def on_a_pi_4() -> None:
    os.environ |= {"BLINKA_FORCEBOARD": "RASPBERRY_PI_4B", "BLINKA_FORCECHIP": "BCM2XXX"}


def run_i2c(profile: str) -> dict[str, object]:
    """One PN532 on I²C with its request pin; returns what was seen and how the request pin moved."""
    on_a_pi_4()
    import Adafruit_PureIO.smbus
    import digitalio

    Adafruit_PureIO.smbus.SMBus = SmbusFile
    pins: dict[str, WirePin] = {}
    digitalio.DigitalInOut = lambda pin: pins.setdefault(str(pin), RecordingPin(str(pin)))
    SmbusFile.chip.tag = FakeTag.ntag(UIDS["left"], "green-2")

    from hardware.clock import SystemClock
    from hardware.events import EventSink
    from hardware.factory import build_devices
    from hardware.profile import load_profile

    async def scenario() -> list[object]:
        sink = EventSink()
        (reader,) = build_devices(load_profile(profile), sink, SystemClock()).readers.values()
        reader.start()
        try:
            seen = await events_until(sink, lambda e: hasattr(e, "uid"))
        finally:
            reader.stop()
        return [[e.reader, e.uid.hex(), e.text] if hasattr(e, "uid") else e.message for e in seen]

    seen = asyncio.run(scenario())
    return {"seen": seen, "opened": SmbusFile.opened, "pins": {name: pin.values for name, pin in pins.items()}}


class RecordingPin(WirePin):
    """A pin on no wire that remembers every level it was driven to."""

    def __init__(self, name: str) -> None:
        self.values: list[bool] = []
        super().__init__(SpiWire(), name)

    @WirePin.value.setter
    def value(self, value: bool) -> None:
        self.values.append(value)
        WirePin.value.fset(self, value)


def run_spi(profile: str) -> dict[str, object]:
    """Two PN532s on SPI1, each behind its own chip select; counts the moments both are selected."""
    on_a_pi_4()
    import Adafruit_PureIO.spi
    import digitalio

    Adafruit_PureIO.spi.SPI = SpidevFile
    wire = SpidevFile.wire
    digitalio.DigitalInOut = lambda pin: WirePin(wire, str(pin))
    chips = {"left": FakePN532(), "right": FakePN532()}
    wire.attach("16", chips["left"])
    wire.attach("26", chips["right"])
    chips["left"].tag = FakeTag.ntag(UIDS["left"], "red-3")  # answers at once; right keeps its chip waiting

    from hardware.clock import SystemClock
    from hardware.events import EventSink, TagSeen
    from hardware.factory import build_devices
    from hardware.profile import load_profile

    async def scenario() -> dict[str, object]:
        sink = EventSink()
        readers = list(build_devices(load_profile(profile), sink, SystemClock()).readers.values())
        for reader in readers:
            reader.start()
        try:
            polls = lambda: min(chip.commands.count(0x4A) for chip in chips.values())  # noqa: E731
            wait_until(lambda: wire.collisions > 0 or polls() >= 10)
            collisions = wire.collisions
            if collisions:  # garbled answers: the cards may never be read
                return {"collisions": collisions, "opened": SpidevFile.opened, "seen": [], "other": []}
            chips["right"].tag = FakeTag.ntag(UIDS["right"], "blue-1")
            seen = await events_until(sink, lambda e: isinstance(e, TagSeen) and e.reader == "right")
        finally:
            for reader in readers:
                reader.stop()
        tags = [[e.reader, e.uid.hex(), e.text] for e in seen if isinstance(e, TagSeen)]
        faults = [e.message for e in seen if not isinstance(e, TagSeen)]
        return {"collisions": collisions, "opened": SpidevFile.opened, "seen": tags, "other": faults}

    return asyncio.run(scenario())


if __name__ == "__main__":
    print(json.dumps({"spi": run_spi, "i2c": run_i2c}[sys.argv[1]](sys.argv[2])))

"""Two PN532 readers on SPI1 through Blinka's own ``board`` and ``busio.SPI``, as on a Pi 4.

Blinka picks its board when it is first imported, so this runs in a process
of its own (``python -m tests.hardware.blinka_spi PROFILE``) and prints what
happened as JSON. Below busio, Adafruit_PureIO's ``/dev/spidevB.D`` file is a
:class:`~tests.hardware.fake_pn532.SpiWire` with a chip behind each chip
select; the chip selects are plain pins on that wire (Blinka's
``DigitalInOut`` needs a GPIO character device).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from tests.hardware.fake_pn532 import FakePN532, FakeSpiBus, SpiWire, WirePin, nobody
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


def run(profile: str) -> dict[str, object]:
    os.environ |= {"BLINKA_FORCEBOARD": "RASPBERRY_PI_4B", "BLINKA_FORCECHIP": "BCM2XXX"}
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
    print(json.dumps(run(sys.argv[1])))

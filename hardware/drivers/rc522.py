"""An RC522 (MFRC522) reader on SPI, through pi-rc522.

The cheap RC522 boards are common in families' drawers. ``mfrc522`` only
reads 4-byte uids, but the NTAG stickers on the cards have 7; pi-rc522 does
the second anticollision round. It leaves the card selected at cascade
level 1 only, so this driver finishes the selection itself (SELECT CL2)
before reading the card's NDEF text, and halts the card after each poll so
the next poll's WUPA wakes it again: a card lying still keeps answering,
and one taken away stops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink
from hardware.ndef_text import read_ndef_text
from hardware.polling import PollingReader

_WUPA = 0x52
_CASCADE_TAG = 0x88
_SELECT_CL2 = (0x95, 0x70)
_SAK_BITS = 0x18  # SAK plus its CRC: 24 bits back
_CHUNK = 16


def connect_spi(bus: int = 0, device: int = 0, rst_pin: int = 25) -> Callable[[], Any]:
    """A pirc522 ``RFID`` on /dev/spidev{bus}.{device}, reset on GPIO ``rst_pin`` (BCM), no IRQ."""

    def connect() -> Any:
        import RPi.GPIO as GPIO
        from pirc522 import RFID

        return RFID(bus=bus, device=device, pin_rst=rst_pin, pin_irq=None, pin_mode=GPIO.BCM)

    return connect


class Rc522Reader(PollingReader):
    """Polls one RC522 in its own thread."""

    driver = "rc522"

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        connect: Callable[[], Any],
        *,
        wiring: str = "",
        **polling: Any,
    ) -> None:
        super().__init__(name, sink, clock, **polling)
        self._connect = connect
        self.wiring = wiring
        self._rfid: Any = None
        self._selected = False

    def _open(self) -> None:
        self._rfid = self._connect()
        self._selected = False

    def _poll(self) -> bytes | None:
        rfid = self._rfid
        if self._selected:
            rfid.halt()
            self._selected = False
        error, _ = rfid.request(_WUPA)
        if error:
            return None
        error, level1 = rfid.anticoll()
        if error:
            return None
        if rfid.select_tag(level1):
            return None
        self._selected = True
        if level1[0] != _CASCADE_TAG:
            return bytes(level1[:4])
        error, level2 = rfid.anticoll2()
        if error or not self._select_level2(level2):
            return None
        return bytes(level1[1:4] + level2[:4])

    def _select_level2(self, level2: list[int]) -> bool:
        """SELECT at cascade level 2, which pi-rc522 does not do."""
        frame = [*_SELECT_CL2, *level2[:5]]
        frame += self._rfid.calculate_crc(frame)
        error, _, bits = self._rfid.card_write(self._rfid.mode_transrec, frame)
        return not error and bits == _SAK_BITS

    def _read_text(self, uid: bytes) -> str | None:
        if len(uid) != 7:
            return None
        return read_ndef_text(self._read_chunk)

    def _read_chunk(self, page: int) -> list[int] | None:
        error, data = self._rfid.read(page)
        return None if error or len(data) < _CHUNK else data

    def _close(self) -> None:
        rfid, self._rfid = self._rfid, None
        if rfid is not None:
            # Not rfid.cleanup(): it resets every RPi.GPIO pin, other readers' too.
            rfid.spi.close()

    def describe(self) -> str:
        return f"RC522 {self.wiring}".strip()

"""A PN532 NFC reader on SPI, I²C or UART, through adafruit_pn532.

The adafruit driver's ``read_passive_target`` returns None both when no card
is there and when the chip did not answer at all, so a reader with a loose
wire would look like an empty table. This driver asks in two steps instead:
``listen_for_passive_target`` must be acknowledged (else it is a fault),
then ``get_passive_target`` waits up to ``poll_timeout`` for a card.
NTAG21x cards (7-byte uids) also have their NDEF text read.

The ``connect_*`` functions build the adafruit object for the real buses of
a Raspberry Pi (Blinka's ``board``/``busio``/``digitalio``, pyserial for
UART), with a function that releases the bus again, because a reader that
reconnects after every fault must not leak file handles. The reader itself
takes any such callable, which is how the tests hand it a PN532 on a fake bus.

Several PN532s on one SPI port share one ``busio.SPI`` (:class:`SpiPort`)
and one lock, held around a reader's whole poll: adafruit_pn532 keeps its
chip select low while it waits for the chip to be ready, and Blinka's bus
lock belongs to one ``busio.SPI`` object, so readers with a bus object each
would select two chips at once and garble each other's answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink
from hardware.ndef_text import TagWriteError, read_ndef_text, write_ndef_text
from hardware.polling import PollingReader

NTAG_UID_LENGTH = 7

#: Opens the chip: returns the adafruit PN532 object and a function releasing its bus.
Connect = Callable[[], "tuple[Any, Callable[[], None]]"]


def _release(*resources: Any) -> Callable[[], None]:
    def release() -> None:
        for resource in resources:
            if resource is not None:
                getattr(resource, "deinit", getattr(resource, "close", lambda: None))()

    return release


class Pn532Reader(PollingReader):
    """Polls one PN532 in its own thread."""

    driver = "pn532"

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        connect: Connect,
        *,
        poll_timeout: float = 0.1,
        ack_timeout: float = 0.1,
        wiring: str = "",
        **polling: Any,
    ) -> None:
        super().__init__(name, sink, clock, **polling)
        self._connect = connect
        self.poll_timeout = poll_timeout
        self.ack_timeout = ack_timeout
        self.wiring = wiring
        self._chip: Any = None
        self._release: Callable[[], None] = lambda: None

    def _open(self) -> None:
        self._chip, self._release = self._connect()

    def _poll(self) -> bytes | None:
        if not self._chip.listen_for_passive_target(timeout=self.ack_timeout):
            raise OSError("PN532 did not acknowledge")
        uid = self._chip.get_passive_target(timeout=self.poll_timeout)
        return None if uid is None else bytes(uid)

    def _read_text(self, uid: bytes) -> str | None:
        if len(uid) != NTAG_UID_LENGTH:
            return None  # MIFARE Classic and others: no NTAG memory layout
        return read_ndef_text(self._chip.mifare_classic_read_block)

    def _write_text(self, uid: bytes, text: str) -> None:
        if len(uid) != NTAG_UID_LENGTH:
            raise TagWriteError("only NTAG21x stickers (7-byte uids) can be written")
        write_ndef_text(self._chip.ntag2xx_write_block, self._chip.mifare_classic_read_block, text)

    def _close(self) -> None:
        release, self._release, self._chip = self._release, (lambda: None), None
        release()

    def describe(self) -> str:
        return f"PN532 {self.wiring}".strip()


def _board_pin(number: int) -> Any:
    import board

    return getattr(board, f"D{number}")


def _digital_out(number: int | None) -> Any:
    if number is None:
        return None
    import digitalio

    return digitalio.DigitalInOut(_board_pin(number))


class SpiPort:
    """One SPI port's ``busio.SPI``, opened for its first reader and closed after its last."""

    def __init__(self, port: int) -> None:
        self.port = port
        #: Held by a reader for each whole poll (see PollingReader), so one chip select is low at a time.
        self.lock = threading.RLock()
        self._bus: Any = None
        self._users = 0

    def open(self) -> Any:
        with self.lock:
            if self._bus is None:
                import board
                import busio

                suffix = "" if self.port == 0 else f"_{self.port}"
                self._bus = busio.SPI(
                    getattr(board, f"SCK{suffix}"), getattr(board, f"MOSI{suffix}"), getattr(board, f"MISO{suffix}")
                )
            self._users += 1
            return self._bus

    def close(self) -> None:
        with self.lock:
            self._users -= 1
            if self._users == 0:
                bus, self._bus = self._bus, None
                _release(bus)()


_PORTS: dict[int, SpiPort] = {}
_PORTS_LOCK = threading.Lock()


def spi_port(port: int) -> SpiPort:
    """The one :class:`SpiPort` of SPI ``port`` in this process."""
    with _PORTS_LOCK:
        return _PORTS.setdefault(port, SpiPort(port))


def connect_spi(port: int, cs_pin: int, reset_pin: int | None = None) -> Connect:
    """A PN532 on SPI ``port`` (0 or 1), chip select on GPIO ``cs_pin``; hold ``spi_port(port).lock`` to use it."""
    shared = spi_port(port)

    def connect() -> tuple[Any, Callable[[], None]]:
        from adafruit_pn532.spi import PN532_SPI

        spi = shared.open()
        pins: list[Any] = []

        def release() -> None:
            _release(*pins)()
            shared.close()

        try:
            pins.append(_digital_out(cs_pin))
            pins.append(_digital_out(reset_pin))
            return PN532_SPI(spi, pins[0], reset=pins[1]), release
        except BaseException:
            release()
            raise

    return connect


def connect_i2c(address: int = 0x24, reset_pin: int | None = None, req_pin: int | None = None) -> Connect:
    """A PN532 on the Pi's I²C bus (GPIO2/GPIO3); ``req_pin`` is the GPIO wired to its P32 (REQ)."""

    def connect() -> tuple[Any, Callable[[], None]]:
        import board
        import busio
        from adafruit_pn532.i2c import PN532_I2C

        i2c = busio.I2C(board.SCL, board.SDA)
        reset = req = None
        try:
            reset, req = _digital_out(reset_pin), _digital_out(req_pin)
            release = _release(i2c, reset, req)
            return PN532_I2C(i2c, address=address, reset=reset, req=req), release
        except BaseException:
            _release(i2c, reset, req)()
            raise

    return connect


def connect_uart(device: str = "/dev/serial0", baudrate: int = 115200) -> Connect:
    """A PN532 on a serial port (the Pi's UART or a USB adapter)."""

    def connect() -> tuple[Any, Callable[[], None]]:
        import serial
        from adafruit_pn532.uart import PN532_UART

        port = serial.Serial(device, baudrate=baudrate, timeout=0.1)
        release = _release(port)
        try:
            return PN532_UART(port), release
        except BaseException:
            release()
            raise

    return connect

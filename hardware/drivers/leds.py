"""WS2812 ("NeoPixel") strips over SPI, the one way the box drives them.

SPI (``neopixel_spi``, data on MOSI) needs only the ``spi`` group, works
the same on a Pi 4 and a Pi 5, and keeps the Pi's PWM free for the audio
jack; each SPI port drives one strip, so a Pi can drive two (SPI0 on
GPIO10, SPI1 on GPIO20). Nothing else may sit on that port's MOSI: the
strip would take every other device's bytes for colours. There is no PWM
driver: it needs root and a different library on each model (rpi_ws281x on
a Pi 4, which does not run on a Pi 5), and takes the audio jack's PWM.

The strip takes colours already scaled by the brightness cap and keeps its
own brightness at 1.0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hardware.interfaces import RGB


def _open_spi(port: int) -> Any:
    import board
    import busio

    suffix = "" if port == 0 else f"_{port}"
    return busio.SPI(getattr(board, f"SCK{suffix}"), MOSI=getattr(board, f"MOSI{suffix}"))


class NeoPixelSpiOutput:
    """One strip on the MOSI pin of SPI ``port``."""

    driver = "neopixel_spi"

    def __init__(
        self,
        pixels: int,
        *,
        port: int = 0,
        pixel_order: str = "GRB",
        open_spi: Callable[[int], Any] = _open_spi,
    ) -> None:
        self.pixels = pixels
        self.port = port
        self.pixel_order = pixel_order
        self._open_spi = open_spi
        self._spi: Any = None
        self._strip: Any = None

    def open(self) -> None:
        import neopixel_spi

        self._spi = self._open_spi(self.port)
        self._strip = neopixel_spi.NeoPixel_SPI(
            self._spi, self.pixels, pixel_order=self.pixel_order, auto_write=False, brightness=1.0
        )

    def write(self, pixels: Sequence[RGB]) -> None:
        self._strip[:] = pixels
        self._strip.show()

    def close(self) -> None:
        spi, self._spi, self._strip = self._spi, None, None
        if spi is not None and hasattr(spi, "deinit"):
            spi.deinit()

    def describe(self) -> str:
        mosi = {0: 10, 1: 20}.get(self.port, "?")
        return f"{self.pixels} pixels on SPI{self.port} MOSI (GPIO{mosi})"

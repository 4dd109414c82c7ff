"""WS2812 ("NeoPixel") strips: over SPI by default, over PWM as a root-only option.

SPI (``neopixel_spi``, data on MOSI) needs only the ``spi`` group and keeps
the Pi's PWM free for the audio jack; each SPI port drives one strip, so a
Pi can drive two (SPI0 on GPIO10, SPI1 on GPIO20). Nothing else may sit on
that port's MOSI: the strip would take every other device's bytes for
colours. PWM (``neopixel``, GPIO18) needs root, drives a single strip and
takes the PWM the analogue audio uses; it exists for builds whose SPI is
taken.

Both take colours already scaled by the brightness cap and keep their own
brightness at 1.0.
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


class NeoPixelPwmOutput:
    """One strip on a PWM pin (GPIO18 by default); the process must run as root."""

    driver = "neopixel_pwm"

    def __init__(self, pixels: int, *, pin: int = 18, pixel_order: str = "GRB") -> None:
        self.pixels = pixels
        self.pin = pin
        self.pixel_order = pixel_order
        self._strip: Any = None

    def open(self) -> None:
        import board
        import neopixel

        self._strip = neopixel.NeoPixel(
            getattr(board, f"D{self.pin}"),
            self.pixels,
            pixel_order=self.pixel_order,
            auto_write=False,
            brightness=1.0,
        )

    def write(self, pixels: Sequence[RGB]) -> None:
        self._strip[:] = pixels
        self._strip.show()

    def close(self) -> None:
        strip, self._strip = self._strip, None
        if strip is not None:
            strip.deinit()

    def describe(self) -> str:
        return f"{self.pixels} pixels on GPIO{self.pin} PWM (root only)"

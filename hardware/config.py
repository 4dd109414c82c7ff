"""The shape of a hardware profile, checked field by field.

A profile says which devices the box has and how they are wired. Every
device table has a ``driver`` key that picks its settings; unknown keys
are errors, so a typo ("bounce_tme") is caught instead of ignored. Checks
that span tables (segments inside their strip, the LED power budget) live
in :func:`cross_check`, each naming the key at fault; which pins the parts
take, and that they fit the Pi's header, in :func:`hardware.header.check`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from hardware.pixels import worst_case_milliamps

NAME_PATTERN = r"^[a-z][a-z0-9-]*$"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]
Gpio = Annotated[int, Field(ge=0, description="a BCM GPIO number, 0-27 (hardware.header.check: on the header)")]
Seconds = Annotated[float, Field(ge=0, le=60)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- buttons -------------------------------------------------------------------
class ButtonTiming(Strict):
    bounce_time: Annotated[float, Field(ge=0, le=0.5)] = 0.03
    hold_time: Annotated[float, Field(gt=0, le=30)] = 2.0


class SimButtonConfig(ButtonTiming):
    driver: Literal["sim"]
    bounce_time: Annotated[float, Field(ge=0, le=0.5)] = 0.0  # a mouse click does not bounce


class GpioButtonConfig(ButtonTiming):
    driver: Literal["gpio"]
    pin: Gpio
    pull_up: bool = True


ButtonConfig = Annotated[SimButtonConfig | GpioButtonConfig, Field(discriminator="driver")]


# -- readers -------------------------------------------------------------------
class Polling(Strict):
    read_text: bool = True
    gone_after: Annotated[int, Field(ge=1, le=20)] = 2
    interval: Annotated[float, Field(ge=0, le=1)] = 0.02


class SimReaderConfig(Strict):
    driver: Literal["sim"]


class Pn532Config(Polling):
    driver: Literal["pn532"]
    bus: Literal["spi", "i2c", "uart"] = "spi"
    spi_port: Literal[0, 1] = 0
    cs_pin: Gpio | None = None
    i2c_address: Annotated[int, Field(ge=0x08, le=0x77)] = 0x24
    req_pin: Gpio | None = None  # I²C: the GPIO wired to the PN532's P32 (REQ), which wakes it on a Pi
    uart: Annotated[str, Field(pattern=r"^/dev/")] | None = None  # None: the GPIO14/15 UART of this Pi model
    baudrate: Literal[9600, 19200, 38400, 57600, 115200, 230400, 460800] = 115200
    reset_pin: Gpio | None = None
    poll_timeout: Annotated[float, Field(gt=0, le=1)] = 0.1


class Rc522Config(Polling):
    driver: Literal["rc522"]
    spi_bus: Literal[0, 1] = 0
    spi_device: Literal[0, 1, 2] = 0
    rst_pin: Gpio = 25
    interval: Annotated[float, Field(ge=0, le=1)] = 0.05


class KeyboardReaderConfig(Strict):
    driver: Literal["keyboard"]
    device: Annotated[str, Field(pattern=r"^/dev/input/")]
    uid_format: Literal["decimal", "hex"] = "decimal"


ReaderConfig = Annotated[
    SimReaderConfig | Pn532Config | Rc522Config | KeyboardReaderConfig, Field(discriminator="driver")
]


# -- LEDs ------------------------------------------------------------------------
PixelOrder = Literal["GRB", "RGB", "BRG", "RBG", "GBR", "BGR"]


class SimStripConfig(Strict):
    driver: Literal["sim"]
    pixels: Annotated[int, Field(ge=1, le=1000)]


class SpiStripConfig(Strict):
    driver: Literal["neopixel_spi"]
    pixels: Annotated[int, Field(ge=1, le=1000)]
    spi_port: Literal[0, 1] = 0
    pin: Gpio | None = None  # the GPIO its data line is wired to, if given: checked to be the port's MOSI
    pixel_order: PixelOrder = "GRB"


# No PWM driver: it needs root, a different library on a Pi 4 and a Pi 5, and
# the PWM the audio jack uses. SPI needs only the spi group, on every model.
StripConfig = Annotated[SimStripConfig | SpiStripConfig, Field(discriminator="driver")]


class SegmentConfig(Strict):
    strip: Name
    start: Annotated[int, Field(ge=0)]
    count: Annotated[int, Field(ge=1)]
    reverse: bool = False


class LedsConfig(Strict):
    brightness: Annotated[float, Field(gt=0, le=1)] = 1.0
    power_budget_ma: Annotated[int, Field(gt=0)] | None = None
    strips: Annotated[dict[Name, StripConfig], Field(min_length=1)]
    segments: dict[Name, SegmentConfig] = {}


# -- speaker and puck -------------------------------------------------------------
class SpeakerSettings(Strict):
    channels: Annotated[list[Name], Field(min_length=1, max_length=8)] = ["voice", "fx", "music"]
    max_volume: Annotated[float, Field(ge=0, le=1)] = 1.0
    volume: Annotated[float, Field(ge=0, le=1)] = 0.7


class SimSpeakerConfig(SpeakerSettings):
    driver: Literal["sim"]


class PygameSpeakerConfig(SpeakerSettings):
    driver: Literal["pygame"]
    audio_driver: str | None = None
    device: Annotated[str, Field(min_length=1)] | None = None  # an SDL output device name (doctor lists them); None: the default
    frequency: Literal[22050, 44100, 48000] = 22050  # the rate of every file in sounds/: no resampling, a quarter of the memory
    buffer: Literal[256, 512, 1024, 2048, 4096] = 512


SpeakerConfig = Annotated[SimSpeakerConfig | PygameSpeakerConfig, Field(discriminator="driver")]


class SimPuckConfig(Strict):
    driver: Literal["sim"]


class SerialPuckConfig(Strict):
    driver: Literal["serial"]
    device: Annotated[str, Field(pattern=r"^/dev/")]
    baudrate: Literal[9600, 19200, 38400, 57600, 115200] = 115200


PuckConfig = Annotated[SimPuckConfig | SerialPuckConfig, Field(discriminator="driver")]


class Profile(Strict):
    """A whole profile file."""

    description: str = ""
    buttons: dict[Name, ButtonConfig] = {}
    readers: dict[Name, ReaderConfig] = {}
    leds: LedsConfig
    speaker: SpeakerConfig
    puck: PuckConfig | None = None


# -- checks across tables ------------------------------------------------------------
class Problem(ValueError):
    """One thing wrong in a profile: where, what value, and what is allowed."""

    def __init__(self, path: str, value: object, allowed: str) -> None:
        super().__init__(f"{path} = {value!r}: {allowed}")
        self.path, self.value, self.allowed = path, value, allowed


def cross_check(profile: Profile) -> None:
    """Raise the first :class:`Problem` that spans tables."""
    if not profile.readers:
        raise Problem("readers", {}, "a box needs at least one card reader: add a [readers.NAME] table")
    _check_segments(profile.leds)
    _check_power(profile.leds)
    _check_spi_readers(profile)
    _check_pn532(profile)


def _check_segments(leds: LedsConfig) -> None:
    taken: dict[tuple[str, int], str] = {}
    for name, segment in leds.segments.items():
        path = f"leds.segments.{name}"
        strip = leds.strips.get(segment.strip)
        if strip is None:
            strips = ", ".join(leds.strips)
            raise Problem(f"{path}.strip", segment.strip, f"must be one of the strips: {strips}")
        end = segment.start + segment.count
        if end > strip.pixels:
            raise Problem(
                f"{path}.count",
                segment.count,
                f"segment runs to pixel {end}, past the end of strip {segment.strip!r} ({strip.pixels} pixels)",
            )
        for pixel in range(segment.start, end):
            other = taken.setdefault((segment.strip, pixel), name)
            if other != name:
                raise Problem(f"{path}.start", segment.start, f"overlaps segment {other!r} at pixel {pixel}")


def _check_power(leds: LedsConfig) -> None:
    if leds.power_budget_ma is None:
        return
    pixels = sum(strip.pixels for strip in leds.strips.values())
    need = worst_case_milliamps(pixels, leds.brightness)
    if need > leds.power_budget_ma:
        most = leds.power_budget_ma / worst_case_milliamps(pixels, 1.0)
        raise Problem(
            "leds.brightness",
            leds.brightness,
            f"{pixels} pixels all white draw {need:.0f} mA, over power_budget_ma "
            f"{leds.power_budget_ma}; at most {most:.2f}",
        )


def _check_spi_readers(profile: Profile) -> None:
    """PN532s on one port share a bus lock; an RC522's driver (spidev) knows nothing of it."""
    kinds: dict[int, tuple[str, str]] = {}
    for name, reader in profile.readers.items():
        if reader.driver == "pn532" and reader.bus == "spi":
            port, key = reader.spi_port, "spi_port"
        elif reader.driver == "rc522":
            port, key = reader.spi_bus, "spi_bus"
        else:
            continue
        other = kinds.setdefault(port, (reader.driver, name))
        if other[0] != reader.driver:
            raise Problem(
                f"readers.{name}.{key}",
                port,
                f"SPI{port} already has the {other[0].upper()} reader {other[1]!r}; "
                "an RC522 and a PN532 cannot share an SPI port: put them on SPI0 and SPI1",
            )


def _check_pn532(profile: Profile) -> None:
    on_i2c: list[str] = []
    for name, reader in profile.readers.items():
        if reader.driver != "pn532":
            continue
        if reader.bus == "spi" and reader.cs_pin is None:
            raise Problem(f"readers.{name}.cs_pin", None, "a PN532 on SPI needs the GPIO its chip select is wired to")
        if reader.bus == "i2c":
            on_i2c.append(name)
            if len(on_i2c) > 1:
                taken = f"a PN532 has one fixed I²C address, and {on_i2c[0]!r} has it; use SPI"
                raise Problem(f"readers.{name}.bus", "i2c", taken)

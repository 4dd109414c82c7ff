"""Building the devices a checked profile describes.

:func:`build_devices` picks a simulated or a real driver for each table of
the profile; no hardware is touched until the devices are started. Real
drivers are imported here only when the profile names them, so a PC with
none of the Pi's libraries builds the ``sim`` profile.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hardware import config
from hardware.clock import Clock
from hardware.events import EventSink
from hardware.faults import Backoff
from hardware.interfaces import Button, Device, DiePuck, LedStrip, Speaker, TagReader
from hardware.pi import gpio_uart
from hardware.pixels import PixelOutput, PixelStrip, SegmentSpec
from hardware.profile import Profile

log = logging.getLogger(__name__)


@dataclass
class Devices:
    """Everything the box can touch, as the profile built it."""

    buttons: dict[str, Button]
    readers: dict[str, TagReader]
    leds: LedStrip
    speaker: Speaker
    puck: DiePuck | None = None
    profile: Profile | None = field(default=None, repr=False)

    def all(self) -> list[Device]:
        """Every device, inputs first."""
        puck = [self.puck] if self.puck is not None else []
        return [*self.buttons.values(), *self.readers.values(), *puck, self.leds, self.speaker]

    def start(self, sounds: Mapping[str, str | Path] | None = None) -> None:
        """Start every device; the speaker loads ``sounds`` (name to file)."""
        for device in self.all():
            if device is self.speaker:
                self.speaker.start(sounds)
            else:
                device.start()

    def stop(self) -> None:
        """Stop every device, outputs first, even if one of them fails to."""
        for device in reversed(self.all()):
            try:
                device.stop()
            except Exception:  # shutting down: keep stopping the others
                log.exception("%s: stop failed", device.device)

    def faults(self) -> dict[str, str]:
        """What is wrong, by device id; empty when all is well."""
        return {device.device: device.fault for device in self.all() if device.fault}


def build_devices(profile: Profile, sink: EventSink, clock: Clock) -> Devices:
    """The devices ``profile`` describes, not yet started."""
    return Devices(
        buttons={name: _button(name, cfg, sink, clock) for name, cfg in profile.buttons.items()},
        readers={name: _reader(name, cfg, sink, clock) for name, cfg in profile.readers.items()},
        leds=_leds(profile.leds, sink, clock),
        speaker=_speaker(profile.speaker, sink, clock),
        puck=_puck(profile.puck, sink, clock) if profile.puck else None,
        profile=profile,
    )


def _button(
    name: str, cfg: config.SimButtonConfig | config.GpioButtonConfig, sink: EventSink, clock: Clock
) -> Button:
    timing = {"bounce_time": cfg.bounce_time, "hold_time": cfg.hold_time}
    if cfg.driver == "sim":
        from hardware.sim import SimButton

        return SimButton(name, sink, clock, **timing)
    from hardware.drivers.gpio_button import GpioButton

    return GpioButton(name, sink, clock, pin=cfg.pin, pull_up=cfg.pull_up, **timing)


def _reader(
    name: str,
    cfg: config.SimReaderConfig | config.Pn532Config | config.Rc522Config | config.KeyboardReaderConfig,
    sink: EventSink,
    clock: Clock,
) -> TagReader:
    if cfg.driver == "sim":
        from hardware.sim import SimReader

        return SimReader(name, sink, clock)
    if cfg.driver == "keyboard":
        from hardware.drivers.keyboard import KeyboardReader

        return KeyboardReader(name, sink, clock, path=cfg.device, uid_format=cfg.uid_format)
    if cfg.driver == "rc522":
        from hardware.drivers import rc522

        connect = rc522.connect_spi(cfg.spi_bus, cfg.spi_device, cfg.rst_pin)
        wiring = f"on SPI{cfg.spi_bus}.{cfg.spi_device}, reset GPIO{cfg.rst_pin}"
        return rc522.Rc522Reader(name, sink, clock, connect, wiring=wiring, **_polling(cfg))
    return _pn532(name, cfg, sink, clock)


def _polling(cfg: config.Polling) -> dict[str, object]:
    return {
        "read_text": cfg.read_text,
        "gone_after": cfg.gone_after,
        "interval": cfg.interval,
        "backoff": Backoff(0.2, 2.0, 5.0),
    }


def _pn532(name: str, cfg: config.Pn532Config, sink: EventSink, clock: Clock) -> TagReader:
    from hardware.drivers import pn532

    bus_lock = None
    if cfg.bus == "spi":
        assert cfg.cs_pin is not None  # config.cross_check refuses a PN532 on SPI without one
        connect = pn532.connect_spi(cfg.spi_port, cfg.cs_pin, cfg.reset_pin)
        bus_lock = pn532.spi_port(cfg.spi_port).lock
        wiring = f"on SPI{cfg.spi_port}, chip select GPIO{cfg.cs_pin}"
    elif cfg.bus == "i2c":
        connect = pn532.connect_i2c(cfg.i2c_address, cfg.reset_pin, cfg.req_pin)
        req = f", request GPIO{cfg.req_pin}" if cfg.req_pin is not None else ""
        wiring = f"on I2C at 0x{cfg.i2c_address:02x}{req}"
    else:
        device = cfg.uart or gpio_uart()
        connect = pn532.connect_uart(device, cfg.baudrate)
        wiring = f"on {device} at {cfg.baudrate} baud"
    return pn532.Pn532Reader(
        name,
        sink,
        clock,
        connect,
        poll_timeout=cfg.poll_timeout,
        wiring=wiring,
        bus_lock=bus_lock,
        **_polling(cfg),
    )


def _leds(cfg: config.LedsConfig, sink: EventSink, clock: Clock) -> LedStrip:
    segments = {name: SegmentSpec(seg.strip, seg.start, seg.count, seg.reverse) for name, seg in cfg.segments.items()}
    if all(strip.driver == "sim" for strip in cfg.strips.values()):
        from hardware.sim import SimLedStrip

        pixels = {name: strip.pixels for name, strip in cfg.strips.items()}
        return SimLedStrip(pixels, segments, sink, clock, brightness=cfg.brightness)
    outputs = {name: _strip_output(name, strip, clock) for name, strip in cfg.strips.items()}
    return PixelStrip(outputs, segments, sink, clock, brightness=cfg.brightness)


def _strip_output(name: str, cfg: config.SimStripConfig | config.SpiStripConfig, clock: Clock) -> PixelOutput:
    if cfg.driver == "sim":
        from hardware.sim import SimLedOutput

        return SimLedOutput(name, cfg.pixels, clock, [])
    from hardware.drivers import leds

    return leds.NeoPixelSpiOutput(cfg.pixels, port=cfg.spi_port, pixel_order=cfg.pixel_order)


def _speaker(cfg: config.SimSpeakerConfig | config.PygameSpeakerConfig, sink: EventSink, clock: Clock) -> Speaker:
    settings = {"channels": cfg.channels, "max_volume": cfg.max_volume, "volume": cfg.volume}
    if cfg.driver == "sim":
        from hardware.sim import SimSpeaker

        return SimSpeaker(sink, clock, **settings)
    from hardware.drivers.pygame_speaker import PygameSpeaker

    return PygameSpeaker(
        sink,
        clock,
        audio_driver=cfg.audio_driver,
        device=cfg.device,
        frequency=cfg.frequency,
        buffer=cfg.buffer,
        **settings,
    )


def _puck(cfg: config.SimPuckConfig | config.SerialPuckConfig, sink: EventSink, clock: Clock) -> DiePuck:
    if cfg.driver == "sim":
        from hardware.sim import SimPuck

        return SimPuck("die", sink, clock)
    from hardware.drivers.serial_puck import SerialPuck

    return SerialPuck("die", sink, clock, device=cfg.device, baudrate=cfg.baudrate)

"""Loading a hardware profile, and building the devices it describes.

``load_profile("sim")`` reads ``hardware/profiles/sim.toml``; a path reads
that file. Whatever is wrong comes back as a :class:`ProfileError` whose
message is one line a parent can act on: the file, the key, the bad value
and what is allowed. ``build_devices`` then picks simulated or real drivers
as the profile says; no hardware is touched until the devices are started.
"""

from __future__ import annotations

import logging
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, PrivateAttr, ValidationError

from hardware import config
from hardware.clock import Clock
from hardware.events import EventSink
from hardware.faults import Backoff
from hardware.interfaces import Button, Device, DiePuck, LedStrip, Speaker, TagReader
from hardware.pixels import PixelOutput, PixelStrip, SegmentSpec

log = logging.getLogger(__name__)

PROFILES_DIR = Path(__file__).parent / "profiles"


class ProfileError(ValueError):
    """A profile that cannot be used; ``str()`` is one line for people."""


class Profile(config.Profile):
    """A checked profile, knowing its name and the file it came from."""

    _name: str = PrivateAttr("")
    _source: str = PrivateAttr("")

    @property
    def name(self) -> str:
        return self._name

    @property
    def source(self) -> str:
        return self._source


def available_profiles() -> list[str]:
    """The names of the profiles shipped with the box."""
    return sorted(path.stem for path in PROFILES_DIR.glob("*.toml"))


def load_profile(name_or_path: str | Path) -> Profile:
    """The profile called ``name_or_path``, or read from that file."""
    path, shown = _locate(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ProfileError(f"{shown}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ProfileError(f"{shown}: not valid TOML: {error}") from None
    try:
        profile = Profile.model_validate(data)
        config.cross_check(profile)
    except ValidationError as error:
        raise ProfileError(f"{shown}: {_first_problem(error, data)}") from None
    except config.Problem as problem:
        raise ProfileError(f"{shown}: {problem}") from None
    profile._name = path.stem
    profile._source = str(path)
    return profile


def _locate(name_or_path: str | Path) -> tuple[Path, str]:
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or text.endswith(".toml"):
        return Path(text), text
    path = PROFILES_DIR / f"{text}.toml"
    if not path.is_file():
        raise ProfileError(
            f"profile {text!r} not found: use one of {', '.join(available_profiles())}, or a path to a .toml file"
        )
    return path, f"hardware/profiles/{text}.toml"


# -- one line out of pydantic's errors --------------------------------------------------
_PATTERNS = {
    config.NAME_PATTERN: "names are lower-case letters, digits and dashes, starting with a letter",
    r"^/dev/input/": "must be an input device path, best /dev/input/by-id/...",
    r"^/dev/": "must be a device path under /dev/",
}


def _first_problem(error: ValidationError, data: dict[str, Any]) -> str:
    errors = error.errors()
    first = errors[0]
    path, value, present = _walk(first["loc"], data)
    kind, ctx = first["type"], first.get("ctx", {})
    if kind == "missing":
        line = f"{path}: missing; {_missing_hint(path, first['loc'])}"
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        tags = ctx.get("expected_tags") or _driver_tags(first["loc"])
        key = f"{path}.{ctx['discriminator'].strip(chr(39))}"
        given = f" = {ctx['tag']!r}:" if "tag" in ctx else ": missing;"
        line = f"{key}{given} the driver must be one of {tags}"
    elif kind == "extra_forbidden":
        allowed = _allowed_keys(first["loc"])
        line = f"{path} = {value!r}: unknown key; allowed here: {allowed}"
    elif kind == "string_pattern_mismatch":
        line = f"{path} = {value!r}: {_PATTERNS.get(ctx.get('pattern'), first['msg'])}"
    else:
        message = first["msg"].replace("Input should be", "must be")
        line = f"{path} = {value!r}: {message}" if present else f"{path}: {message}"
    more = len(errors) - 1
    return line + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def _walk(loc: tuple[Any, ...], data: Any) -> tuple[str, Any, bool]:
    """The dotted key path of ``loc`` in the file, and the value found there.

    pydantic's locations also hold union tags and "[key]" markers that are
    not keys of the file; they are left out.
    """
    parts: list[str] = []
    node, present = data, True
    for part in loc:
        if part == "[key]":
            return ".".join(parts), parts[-1] if parts else "", True
        if isinstance(node, dict) and part in node:
            parts.append(str(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            parts.append(f"[{part}]")
            node = node[part]
        elif isinstance(node, dict) and part == loc[-1]:
            parts.append(str(part))
            node, present = None, False
    return ".".join(parts).replace(".[", "["), node, present


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [_unwrap(member) for member in typing.get_args(annotation) if member is not type(None)]
    return [annotation]


def _model_at(loc: tuple[Any, ...]) -> list[type[BaseModel]]:
    """The models a location can point into (several when the driver is unknown)."""
    current: list[Any] = [config.Profile]
    for part in loc:
        following: list[Any] = []
        for candidate in current:
            for member in _members(candidate):
                if isinstance(member, type) and issubclass(member, BaseModel):
                    if part in member.model_fields:
                        following.append(member.model_fields[part].annotation)
                    elif _driver_of(member) == part:
                        following.append(member)
                elif typing.get_origin(member) is dict:
                    following.append(typing.get_args(member)[1])
        current = following
    return [m for c in current for m in _members(c) if isinstance(m, type) and issubclass(m, BaseModel)]


def _driver_of(model: type[BaseModel]) -> str | None:
    field_info = model.model_fields.get("driver")
    if field_info is None:
        return None
    return typing.get_args(field_info.annotation)[0]


def _driver_tags(loc: tuple[Any, ...]) -> str:
    tags = [_driver_of(model) for model in _model_at(loc) if _driver_of(model)]
    return ", ".join(repr(tag) for tag in dict.fromkeys(tags))


def _allowed_keys(loc: tuple[Any, ...]) -> str:
    models = _model_at(loc[:-1])
    keys = [key for model in models for key in model.model_fields]
    keys.sort(key=lambda key: key != "driver")  # the key that says what the rest mean, first
    return ", ".join(dict.fromkeys(keys)) or "none"


def _missing_hint(path: str, loc: tuple[Any, ...]) -> str:
    tags = _driver_tags(loc)
    return f"required: a [{path}] table with a driver, one of {tags}" if tags else "required"


# -- building the devices --------------------------------------------------------------
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


def _button(name: str, cfg: Any, sink: EventSink, clock: Clock) -> Button:
    timing = {"bounce_time": cfg.bounce_time, "hold_time": cfg.hold_time}
    if cfg.driver == "sim":
        from hardware.sim import SimButton

        return SimButton(name, sink, clock, **timing)
    from hardware.drivers.gpio_button import GpioButton

    return GpioButton(name, sink, clock, pin=cfg.pin, pull_up=cfg.pull_up, **timing)


def _reader(name: str, cfg: Any, sink: EventSink, clock: Clock) -> TagReader:
    if cfg.driver == "sim":
        from hardware.sim import SimReader

        return SimReader(name, sink, clock)
    if cfg.driver == "keyboard":
        from hardware.drivers.keyboard import KeyboardReader

        return KeyboardReader(name, sink, clock, path=cfg.device, uid_format=cfg.uid_format)
    polling = {
        "read_text": cfg.read_text,
        "gone_after": cfg.gone_after,
        "interval": cfg.interval,
        "backoff": Backoff(0.2, 2.0, 5.0),
    }
    if cfg.driver == "rc522":
        from hardware.drivers import rc522

        connect = rc522.connect_spi(cfg.spi_bus, cfg.spi_device, cfg.rst_pin)
        wiring = f"on SPI{cfg.spi_bus}.{cfg.spi_device}, reset GPIO{cfg.rst_pin}"
        return rc522.Rc522Reader(name, sink, clock, connect, wiring=wiring, **polling)
    from hardware.drivers import pn532

    if cfg.bus == "spi":
        connect = pn532.connect_spi(cfg.spi_port, cfg.cs_pin, cfg.reset_pin)
        wiring = f"on SPI{cfg.spi_port}, chip select GPIO{cfg.cs_pin}"
    elif cfg.bus == "i2c":
        connect = pn532.connect_i2c(cfg.i2c_address, cfg.reset_pin)
        wiring = f"on I2C at 0x{cfg.i2c_address:02x}"
    else:
        connect = pn532.connect_uart(cfg.uart, cfg.baudrate)
        wiring = f"on {cfg.uart} at {cfg.baudrate} baud"
    return pn532.Pn532Reader(name, sink, clock, connect, poll_timeout=cfg.poll_timeout, wiring=wiring, **polling)


def _leds(cfg: config.LedsConfig, sink: EventSink, clock: Clock) -> LedStrip:
    segments = {name: SegmentSpec(seg.strip, seg.start, seg.count, seg.reverse) for name, seg in cfg.segments.items()}
    if all(strip.driver == "sim" for strip in cfg.strips.values()):
        from hardware.sim import SimLedStrip

        pixels = {name: strip.pixels for name, strip in cfg.strips.items()}
        return SimLedStrip(pixels, segments, sink, clock, brightness=cfg.brightness)
    outputs = {name: _strip_output(name, strip, clock) for name, strip in cfg.strips.items()}
    return PixelStrip(outputs, segments, sink, clock, brightness=cfg.brightness)


def _strip_output(name: str, cfg: Any, clock: Clock) -> PixelOutput:
    if cfg.driver == "sim":
        from hardware.sim import SimLedOutput

        return SimLedOutput(name, cfg.pixels, clock, [])
    from hardware.drivers import leds

    if cfg.driver == "neopixel_spi":
        return leds.NeoPixelSpiOutput(cfg.pixels, port=cfg.spi_port, pixel_order=cfg.pixel_order)
    return leds.NeoPixelPwmOutput(cfg.pixels, pin=cfg.pin, pixel_order=cfg.pixel_order)


def _speaker(cfg: Any, sink: EventSink, clock: Clock) -> Speaker:
    settings = {"channels": cfg.channels, "max_volume": cfg.max_volume, "volume": cfg.volume}
    if cfg.driver == "sim":
        from hardware.sim import SimSpeaker

        return SimSpeaker(sink, clock, **settings)
    from hardware.drivers.pygame_speaker import PygameSpeaker

    return PygameSpeaker(
        sink, clock, audio_driver=cfg.audio_driver, frequency=cfg.frequency, buffer=cfg.buffer, **settings
    )


def _puck(cfg: Any, sink: EventSink, clock: Clock) -> DiePuck:
    if cfg.driver == "sim":
        from hardware.sim import SimPuck

        return SimPuck("die", sink, clock)
    from hardware.drivers.serial_puck import SerialPuck

    return SerialPuck("die", sink, clock, device=cfg.device, baudrate=cfg.baudrate)

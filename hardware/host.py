"""What the box's service needs from the Pi, checked as the service sees it.

A device that works for ``pi`` at a terminal can still fail under the
service: its user lacks a group, SPI was never enabled, gpiozero quietly
fell back from lgpio, or the speaker named in the profile is not plugged in.
:func:`check_host` lists each need of a profile with what is wrong and the
fix. Everything it reads sits under :attr:`Host.root` and every library it
asks is a field, so tests run it against a fake ``/dev`` tree.
"""

from __future__ import annotations

import importlib.metadata
import os
import stat
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hardware import config
from hardware.pi import gpio_uart, is_pi5


@dataclass(frozen=True)
class Check:
    """One need of the profile: met or not, and what to do about it."""

    name: str
    ok: bool
    detail: str


def loaded_pin_factory() -> str:
    """The pin factory gpiozero loads here, as the service would get it (its own environment)."""
    try:
        from gpiozero import Device

        with warnings.catch_warnings():  # each fallback warns; the name of the one loaded says it all
            warnings.simplefilter("ignore")
            factory = Device._default_pin_factory()
    except Exception as error:  # ImportError, BadPinFactory: none loads
        return f"none ({error})"
    factory.close()
    return type(factory).__name__


def is_installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def sdl_audio_devices() -> list[str] | None:
    """The output devices SDL sees (the mixer must be open), or None when it cannot tell."""
    try:
        from pygame._sdl2 import audio

        return list(audio.get_audio_device_names(False))
    except Exception:  # no pygame, or its audio is not initialised: no audio device open
        return None


@dataclass
class Host:
    """The machine and the user the checks run as; tests give a fake root and fake answers."""

    root: Path = Path("/")
    uid: int = field(default_factory=os.geteuid)
    groups: frozenset[int] = field(default_factory=lambda: frozenset({os.getegid(), *os.getgroups()}))
    pin_factory: Callable[[], str] = loaded_pin_factory
    installed: Callable[[str], bool] = is_installed
    audio_devices: Callable[[], list[str] | None] = sdl_audio_devices

    def group_name(self, gid: int) -> str:
        try:
            lines = (self.root / "etc/group").read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines:
            name, _, number, *_ = [*line.split(":"), "", "", ""]
            if number == str(gid):
                return name
        return str(gid)

    def can_use(self, node: Path) -> bool:
        """Read and write access to ``node`` for this user, from its mode bits as the kernel checks them."""
        if self.uid == 0:
            return True
        info = node.stat()
        if info.st_uid == self.uid:
            need = stat.S_IRUSR | stat.S_IWUSR
        elif info.st_gid in self.groups:
            need = stat.S_IRGRP | stat.S_IWGRP
        else:
            need = stat.S_IROTH | stat.S_IWOTH
        return info.st_mode & need == need


#: How to turn on the device node a need is missing, by its path prefix.
_ENABLE = {
    "/dev/spidev0.": "SPI0 is off: add dtparam=spi=on to /boot/firmware/config.txt and reboot",
    "/dev/spidev1.": "SPI1 is off: add dtoverlay=spi1-1cs to /boot/firmware/config.txt and reboot",
    "/dev/i2c-1": "I2C is off: add dtparam=i2c_arm=on to /boot/firmware/config.txt and reboot",
    "/dev/gpiochip": "no GPIO character device: a Raspberry Pi OS kernel provides /dev/gpiochip0",
    "/dev/gpiomem": "no /dev/gpiomem: RPi.GPIO needs a Raspberry Pi OS kernel",
    "/dev/snd": "no sound card: dtparam=audio=on (Pi 4 jack), or plug in a USB speaker (a Pi 5 has no jack)",
}


def on_a_pi(profile: config.Profile) -> bool:
    """Does the profile use the Pi's own buses or pins (not only sim, keyboard, USB and a PC's sound)?"""
    return (
        any(button.driver == "gpio" for button in profile.buttons.values())
        or any(reader.driver in ("pn532", "rc522") for reader in profile.readers.values())
        or any(strip.driver == "neopixel_spi" for strip in profile.leds.strips.values())
    )


def check_host(profile: config.Profile, host: Host | None = None) -> list[Check]:
    """Every need of ``profile``'s real devices, in the order a person would fix them."""
    host = host or Host()
    checks = [_node(host, what, path) for what, path in _nodes(profile, host)]
    if any(button.driver == "gpio" for button in profile.buttons.values()):
        factory = host.pin_factory()
        checks.append(
            Check(
                "gpiozero pin factory",
                factory == "LGPIOFactory",
                factory if factory == "LGPIOFactory" else f"{factory}, not lgpio: set GPIOZERO_PIN_FACTORY=lgpio "
                "and run where lgpio can write its pipe (its working directory, or LG_WD)",
            )
        )
    if any(reader.driver == "rc522" for reader in profile.readers.values()) and is_pi5(host.root):
        works = host.installed("rpi-lgpio")
        checks.append(
            Check(
                "RC522 on a Pi 5",
                works,
                "rpi-lgpio stands in for RPi.GPIO"
                if works
                else "RPi.GPIO does not run on a Pi 5: pip uninstall RPi.GPIO && pip install rpi-lgpio, "
                "or use a PN532 or a USB keyboard reader (they work on every Pi)",
            )
        )
    if profile.speaker.driver == "pygame":
        checks.append(_audio(profile.speaker, host))
    return checks


def _nodes(profile: config.Profile, host: Host) -> list[tuple[str, str]]:
    """(what needs it, device node) for every real device of the profile, without repeats."""
    nodes: dict[str, str] = {}
    gpio = any(button.driver == "gpio" for button in profile.buttons.values())
    for name, reader in profile.readers.items():
        if reader.driver == "pn532":
            # chip select, reset and request pins: Blinka's digitalio, through gpiod
            gpio = gpio or reader.bus == "spi" or reader.reset_pin is not None or reader.req_pin is not None
            node = {"spi": f"/dev/spidev{reader.spi_port}.0", "i2c": "/dev/i2c-1"}.get(reader.bus)
            nodes.setdefault(node or reader.uart or gpio_uart(host.root), f"reader {name}")
        elif reader.driver == "rc522":
            nodes.setdefault(f"/dev/spidev{reader.spi_bus}.{reader.spi_device}", f"reader {name}")
            nodes.setdefault("/dev/gpiochip" if is_pi5(host.root) else "/dev/gpiomem", f"reader {name}")
    for name, strip in profile.leds.strips.items():
        if strip.driver == "neopixel_spi":
            nodes.setdefault(f"/dev/spidev{strip.spi_port}.0", f"LED strip {name}")
    if gpio:
        nodes.setdefault("/dev/gpiochip", "GPIO")
    if profile.speaker.driver == "pygame" and profile.speaker.audio_driver in (None, "alsa"):
        nodes.setdefault("/dev/snd", "speaker")
    return [(what, path) for path, what in nodes.items()]


def _node(host: Host, what: str, path: str) -> Check:
    name = f"{path} ({what})"
    found = _find(host.root, path)
    if found is None:
        hint = next((fix for prefix, fix in _ENABLE.items() if path.startswith(prefix)), "not found: is it plugged in?")
        return Check(name, False, f"missing; {hint}")
    shown = "/" + str(found.relative_to(host.root))
    if host.can_use(found):
        return Check(name, True, f"{shown}, read and write")
    group = host.group_name(found.stat().st_gid)
    return Check(
        name,
        False,
        f"{shown} belongs to group {group}, which this user is not in: sudo usermod -aG {group} <service user>",
    )


def _find(root: Path, path: str) -> Path | None:
    """The node at ``path``; for /dev/gpiochip and /dev/snd the first chip or sound device there."""
    if path == "/dev/gpiochip":
        return next(iter(sorted((root / "dev").glob("gpiochip[0-9]*"))), None)
    if path == "/dev/snd":
        return next(iter(sorted((root / "dev/snd").glob("pcmC*p"))), None)
    node = root / path.lstrip("/")
    return node if node.exists() else None


def _audio(speaker: config.PygameSpeakerConfig, host: Host) -> Check:
    devices = host.audio_devices()
    if devices is None:
        return Check("audio device", False, "SDL sees no audio output (see the speaker's own row)")
    listed = ", ".join(repr(name) for name in devices) or "none"
    if speaker.device is None:
        return Check("audio device", bool(devices), f"the default; SDL sees: {listed}")
    if speaker.device in devices:
        return Check("audio device", True, f"{speaker.device!r}; SDL sees: {listed}")
    return Check("audio device", False, f"{speaker.device!r} is not there; SDL sees: {listed} (speaker.device)")

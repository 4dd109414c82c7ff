"""What the service needs from the system for a profile: device nodes, and the groups that open them.

The service runs as an unprivileged user whose groups are exactly these
(set by systemd/install.sh), so a box without a keyboard reader cannot read
every keyboard and a box without a serial device is not in ``dialout``. The
groups are those that own the nodes on Raspberry Pi OS. :func:`needs` is
the one list of them: the installer grants its groups, and ``gamebox
doctor`` (hardware/host.py) checks its nodes as the service user.

``python -m hardware.access PROFILE`` prints the groups, one a line;
``--nodes`` prints each device node with the group and the profile key that
needs it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from hardware import config
from hardware.pi import ROOT, gpio_uart, is_pi5

SPIDEV = "/dev/spidev{}.{}"
GPIOCHIP = "/dev/gpiochip*"  # gpiozero's lgpio, Blinka's gpiod, and rpi-lgpio (RPi.GPIO's stand-in on a Pi 5)
GPIOMEM = "/dev/gpiomem*"  # RPi.GPIO, which pi-rc522 uses before a Pi 5
SOUND = "/dev/snd/*"


@dataclass(frozen=True)
class Need:
    """One device node the service opens (a glob), the group that may open it, and the profile key that needs it."""

    node: str
    group: str
    why: str


def needs(profile: config.Profile, root: Path = ROOT) -> list[Need]:
    """Every device node ``profile``'s drivers open on the Pi under ``root``: buses first, then GPIO, then sound.

    The model matters: a Pi 5's RC522 goes through the GPIO chip (rpi-lgpio),
    and a PN532's default UART is a different node there.
    """
    found: list[Need] = []
    for name, reader in profile.readers.items():
        found += _reader(f"readers.{name}", reader, root)
    for name, strip in profile.leds.strips.items():
        if strip.driver == "neopixel_spi":
            found.append(Need(SPIDEV.format(strip.spi_port, 0), "spi", f"leds.strips.{name}.spi_port"))
    for name, button in profile.buttons.items():
        if button.driver == "gpio":
            found.append(Need(GPIOCHIP, "gpio", f"buttons.{name}.pin"))
    for name, reader in profile.readers.items():
        if reader.driver == "pn532":  # chip select, reset and request pins: Blinka's digitalio, through gpiod
            pins = [field for field, value in reader if field.endswith("_pin") and value is not None]
            found += [Need(GPIOCHIP, "gpio", f"readers.{name}.{field}") for field in pins]
    speaker = profile.speaker
    if speaker.driver == "pygame" and speaker.audio_driver in (None, "alsa"):  # a sound server or "dummy" opens none
        found.append(Need(SOUND, "audio", "speaker.driver"))
    if profile.puck is not None and profile.puck.driver == "serial":
        found.append(Need(profile.puck.device, "dialout", "puck.device"))
    return found


def _reader(key: str, reader: config.ReaderConfig, root: Path) -> list[Need]:
    """The node of the reader's own bus, and for an RC522 the one its driver's GPIO library opens."""
    if reader.driver == "keyboard":
        return [Need(reader.device, "input", f"{key}.device")]
    if reader.driver == "rc522":
        spi = Need(SPIDEV.format(reader.spi_bus, reader.spi_device), "spi", f"{key}.spi_bus")
        return [spi, Need(GPIOCHIP if is_pi5(root) else GPIOMEM, "gpio", f"{key}.driver")]
    if reader.driver != "pn532":
        return []
    if reader.bus == "spi":
        return [Need(SPIDEV.format(reader.spi_port, 0), "spi", f"{key}.spi_port")]
    if reader.bus == "i2c":
        return [Need("/dev/i2c-1", "i2c", f"{key}.bus")]
    return [Need(reader.uart or gpio_uart(root), "dialout", f"{key}.uart")]


def groups(profile: config.Profile) -> list[str]:
    """The groups the service user joins for ``profile``, sorted."""
    return sorted({need.group for need in needs(profile)})


def main(argv: list[str] | None = None) -> int:
    from hardware.profile import ProfileError, load_profile

    parser = argparse.ArgumentParser(prog="python -m hardware.access", description=__doc__.splitlines()[0])
    parser.add_argument("profile", help="a profile name or a .toml file")
    parser.add_argument("--nodes", action="store_true", help="each device node, its group and the key that needs it")
    args = parser.parse_args(argv)
    try:
        profile = load_profile(args.profile)
    except ProfileError as error:
        print(f"hardware.access: {error}", file=sys.stderr)
        return 2
    if args.nodes:
        for need in needs(profile):
            print(f"{need.node}\t{need.group}\t{need.why}")
    else:
        print("\n".join(groups(profile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

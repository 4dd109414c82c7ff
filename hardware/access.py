"""What the service needs from the system for a profile: device nodes, and the groups that open them.

The service runs as an unprivileged user whose groups are exactly these
(set by systemd/install.sh), so a box without a keyboard reader cannot read
every keyboard and a box without a serial device is not in ``dialout``. The
groups are those that own the nodes on Raspberry Pi OS.

``python -m hardware.access PROFILE`` prints the groups, one a line;
``--nodes`` prints each device node with the group and the profile key that
needs it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from hardware import config

SPIDEV = "/dev/spidev{}.{}"
GPIOCHIP = "/dev/gpiochip*"  # gpiozero's lgpio and Blinka's gpiod (Pi 4 and Pi 5)
GPIOMEM = "/dev/gpiomem*"  # RPi.GPIO, which pi-rc522 uses (rpi-lgpio on a Pi 5 opens GPIOCHIP: same group)


@dataclass(frozen=True)
class Need:
    """One device node the service opens, the group that may open it, and the profile key that needs it."""

    node: str
    group: str
    why: str


def needs(profile: config.Profile) -> list[Need]:
    """Every device node ``profile``'s drivers open, in profile order."""
    found: list[Need] = []
    for name, button in profile.buttons.items():
        if button.driver == "gpio":
            found.append(Need(GPIOCHIP, "gpio", f"buttons.{name}.pin"))
    for name, reader in profile.readers.items():
        found += _reader(f"readers.{name}", reader)
    for name, strip in profile.leds.strips.items():
        key = f"leds.strips.{name}"
        if strip.driver == "neopixel_spi":
            found.append(Need(SPIDEV.format(strip.spi_port, 0), "spi", f"{key}.spi_port"))
    if profile.speaker.driver == "pygame":
        found.append(Need("/dev/snd/*", "audio", "speaker.driver"))
    if profile.puck is not None and profile.puck.driver == "serial":
        found.append(Need(profile.puck.device, "dialout", "puck.device"))
    return found


def _reader(key: str, reader: config.ReaderConfig) -> list[Need]:
    if reader.driver == "keyboard":
        return [Need(reader.device, "input", f"{key}.device")]
    if reader.driver == "rc522":
        spi = Need(SPIDEV.format(reader.spi_bus, reader.spi_device), "spi", f"{key}.spi_bus")
        return [spi, Need(GPIOMEM, "gpio", f"{key}.rst_pin")]
    if reader.driver != "pn532":
        return []
    if reader.bus == "spi":
        found = [Need(SPIDEV.format(reader.spi_port, 0), "spi", f"{key}.spi_port")]
    elif reader.bus == "i2c":
        found = [Need("/dev/i2c-1", "i2c", f"{key}.bus")]
    else:
        found = [Need(reader.uart, "dialout", f"{key}.uart")]
    pins = [field for field, value in reader if field.endswith("_pin") and value is not None]
    found += [Need(GPIOCHIP, "gpio", f"{key}.{field}") for field in pins]
    return found


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

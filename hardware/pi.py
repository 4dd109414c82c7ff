"""Which Raspberry Pi this is, and what differs between the models the box supports.

A Pi 5 moved things a profile cares about: its GPIO14/15 UART is
``/dev/ttyAMA0`` (``/dev/serial0`` is the debug connector there), and
RPi.GPIO does not work on it. The model is read from the device tree, under
a root path the tests can point at a fake one.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path("/")


def model(root: Path = ROOT) -> str:
    """The board's model ("Raspberry Pi 5 Model B Rev 1.0"), or "" off a Pi."""
    try:
        text = (root / "proc/device-tree/model").read_bytes()
    except OSError:
        return ""
    return text.rstrip(b"\0").decode("ascii", "replace")


def is_pi5(root: Path = ROOT) -> bool:
    """A Pi 5, Pi 500 or Compute Module 5: the boards with the RP1 I/O chip."""
    return re.search(r"Pi (5|500)\b|Compute Module 5", model(root)) is not None


def gpio_uart(root: Path = ROOT) -> str:
    """The serial device on GPIO14/15: ``/dev/ttyAMA0`` on a Pi 5, ``/dev/serial0`` before it."""
    return "/dev/ttyAMA0" if is_pi5(root) else "/dev/serial0"

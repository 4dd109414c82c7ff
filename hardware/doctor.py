"""``gamebox doctor``: is every device of a profile there and working?

Builds the profile's devices, starts them, lights each LED segment in its
own colour so a parent can see which is which, waits for every device to
have tried to open, and prints one row per device with what is wrong and
where it is wired. Presses and taps made while it runs are listed too, so
"press the die button" is a test. Exit code: 0 all well, 1 a device needs
attention, 2 the profile itself is wrong.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple, TextIO

from hardware.clock import Clock, SystemClock
from hardware.events import DeviceFault, DeviceRecovered, Event, EventSink
from hardware.factory import Devices, build_devices
from hardware.host import Check, Host, check_host, on_a_pi
from hardware.profile import Profile, ProfileError, load_profile

OK, FAULT, PROFILE_ERROR = 0, 1, 2

#: How long each device may take to open (a PN532 with no answer takes 1.5 s).
OPEN_TIMEOUT = 3.0

_SEGMENT_COLOURS = [(0, 0, 80), (80, 0, 0), (0, 80, 0), (80, 60, 0), (60, 0, 80), (0, 60, 60)]

Build = Callable[[Profile, EventSink, Clock], Devices]


class Row(NamedTuple):
    """One line of the table; ``fix`` when the checker knows it better than :func:`likely_fix` would."""

    device: str
    driver: str
    status: str
    detail: str
    fix: str = ""


def run_doctor(
    profile: str | Path = "sim",
    *,
    build: Build = build_devices,
    clock: Clock | None = None,
    settle: float = 1.0,
    sounds: Mapping[str, str | Path] | None = None,
    out: TextIO | None = None,
    host: Host | None = None,
    extra: Sequence[Row] = (),
) -> int:
    """Check ``profile``'s devices, print the table, return the exit code.

    ``build`` makes the devices (tests pass one that injects faults);
    ``settle`` is how long to watch for presses and taps once all are open;
    ``host`` is the machine whose groups, device nodes and libraries a
    profile on a Pi's own pins and buses is checked against; ``extra`` are
    rows checked by the caller (the box's storage), printed after the devices.
    """
    out = out or sys.stdout
    try:
        loaded = load_profile(profile)
    except ProfileError as error:
        print(f"gamebox doctor: {error}", file=out)
        return PROFILE_ERROR
    with _library_noise_kept_out():
        return asyncio.run(_examine(loaded, build, clock or SystemClock(), settle, sounds, out, host or Host(), extra))


#: How the lines start that C libraries (ALSA, JACK) and Python's warnings write on their own while devices open.
NOISE: tuple[str, ...] = ("ALSA lib ", "jack server", "Cannot connect to server", "JackShmReadWritePtr", "  warnings.warn(")


@contextmanager
def _library_noise_kept_out() -> Iterator[None]:
    """Keep ALSA's, SDL's and gpiozero's own chatter out of the doctor's table; pass any other stderr line on after.

    The C libraries write to file descriptor 2 behind Python's back, so it is
    caught there; Python's warnings (gpiozero's pin-factory fallbacks) are
    switched off, as the table's rows already say what failed.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            for line in caught.read().decode("utf-8", "replace").splitlines():
                if line.strip() and not line.startswith(NOISE) and "Warning: " not in line:
                    print(line, file=sys.stderr)


async def _examine(
    profile: Profile,
    build: Build,
    clock: Clock,
    settle: float,
    sounds: Mapping[str, str | Path] | None,
    out: TextIO,
    host: Host,
    extra: Sequence[Row],
) -> int:
    sink = EventSink()
    devices = build(profile, sink, clock)
    devices.start(sounds)
    try:
        for device in devices.all():
            await asyncio.to_thread(device.wait_started, OPEN_TIMEOUT)
        _light_segments(devices)
        _play_test_sound(devices)
        await clock.sleep(settle)
        await asyncio.sleep(0)  # let posts from the device threads arrive
        rows = [Row(d.device, d.driver, "FAULT" if d.fault else "ok", d.fault or d.describe()) for d in devices.all()]
        checks = check_host(profile, host) if on_a_pi(profile) else []  # while the mixer is open: SDL lists devices
    finally:
        devices.stop()
    seen = [event for event in sink.drain() if not isinstance(event, DeviceFault | DeviceRecovered)]
    rows += extra
    _print_report(profile, rows, checks, seen, out)
    failed = any(row.status == "FAULT" for row in rows) or not all(check.ok for check in checks)
    return FAULT if failed else OK


#: (words in a fault message, the likely fix), first match wins: what a person can do about it.
FIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("no module named",), "the Pi libraries are not installed: pip install -e '.[pi]' (on the Pi itself)"),
    (("module 'board' has no attribute",), "this computer has no Raspberry Pi pins: run the doctor on the Pi"),
    (("unable to load any default pin factory",), "no GPIO here: run the doctor on the Pi, with the Pi libraries "
                                                   "installed (pip install -e '.[pi]')"),
    (("spidev", "no such file"), "SPI is not enabled: sudo raspi-config nonint do_spi 0, then reboot"),
    (("spidev", "permission"), "the user is not in the spi group: sudo usermod -aG spi $USER, then log in again"),
    (("i2c", "no such file"), "I2C is not enabled: sudo raspi-config nonint do_i2c 0, then reboot"),
    (("i2c", "permission"), "the user is not in the i2c group: sudo usermod -aG i2c $USER"),
    (("gpio", "permission"), "the user is not in the gpio group: sudo usermod -aG gpio $USER"),
    (("pn532",), "check the wiring and the reader's chip-select (cs_pin) in the profile"),
    (("timed out",), "check the wiring and the reader's chip-select (cs_pin) in the profile"),
    (("/dev/input",), "the reader is not plugged in, or not at this path: ls /dev/input/by-id"),
    (("audio",), "no sound card: check aplay -l, the audio cable, or the speaker in the profile"),
    (("sounds not loaded",), "sound files are missing: reinstall, or regenerate them (sounds/README.md)"),
    (("/dev/tty", "serial"), "the die puck is not plugged in, or not at this port"),
    (("die puck", "not plugged in"), "the die puck is not plugged in: plug it into the box (ls /dev/serial/by-id)"),
    (("die puck", "permission"), "the user may not open serial ports: sudo usermod -aG dialout $USER"),
    (("die puck", "stopped answering"), "the die puck hangs or runs no firmware: replug it, or flash it (firmware/README.md)"),
    (("die puck",), "the die puck was unplugged: plug it in again"),
)


def likely_fix(message: str) -> str:
    """The most likely fix for a device's fault message, or a general hint."""
    text = message.lower()
    for words, fix in FIXES:
        if all(word in text for word in words):
            return fix
    return "check the device's wiring and its settings in the profile"


def _play_test_sound(devices: Devices) -> None:
    speaker = devices.speaker
    if speaker.sounds and not speaker.fault:
        speaker.play("card-ok" if "card-ok" in speaker.sounds else speaker.sounds[0])


def _light_segments(devices: Devices) -> None:
    leds = devices.leds
    for index, name in enumerate(leds.segments):
        leds.segment(name).fill(_SEGMENT_COLOURS[index % len(_SEGMENT_COLOURS)])
    leds.show()


def _print_report(
    profile: Profile, rows: list[Row], checks: list[Check], seen: list[Event], out: TextIO
) -> None:
    print(f"gamebox doctor: profile {profile.name} ({profile.source})", file=out)
    header = ("device", "driver", "status", "detail")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3], file=out)
    for row in rows:
        if row.status in ("FAULT", "WARN"):
            print(f"fix {row.device}: {row.fix or likely_fix(row.detail)}", file=out)
    if checks:
        print("what the service needs, as this user sees it:", file=out)
    for check in checks:
        print(f"  {'ok   ' if check.ok else 'FAULT'}  {check.name}: {check.detail}", file=out)
    for event in seen:
        print(f"seen: {_describe_event(event)}", file=out)
    faults = sum(1 for row in rows if row[2] == "FAULT")
    unmet = sum(1 for check in checks if not check.ok)
    if faults:
        print(f"{faults} device{'s' if faults > 1 else ''} need{'' if faults > 1 else 's'} attention.", file=out)
    if unmet:
        print(f"{unmet} need{'s' if unmet > 1 else ''} of the service not met.", file=out)
    if not faults and not unmet:
        print("All devices work.", file=out)


def _describe_event(event: Event) -> str:
    fields = {name: getattr(event, name) for name in event.__dataclass_fields__ if name != "at"}
    text = ", ".join(f"{name}={value.hex() if isinstance(value, bytes) else value}" for name, value in fields.items())
    return f"{type(event).__name__}({text})"

"""Profiles: the shipped ones load and build; a broken one is one line naming file, key, value and what is allowed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hardware.drivers.gpio_button import GpioButton
from hardware.drivers.leds import NeoPixelSpiOutput
from hardware.drivers.pn532 import Pn532Reader
from hardware.drivers.pygame_speaker import PygameSpeaker
from hardware.events import EventSink
from hardware.factory import build_devices
from hardware.pi import gpio_uart
from hardware.pixels import worst_case_milliamps
from hardware.profile import PROFILES_DIR, ProfileError, available_profiles, load_profile
from hardware.sim import SimButton, SimLedStrip, SimReader, SimSpeaker

SIM = (PROFILES_DIR / "sim.toml").read_text()
PI = (PROFILES_DIR / "pi-reference.toml").read_text()
RC522 = PI.replace('driver = "pn532"\nbus = "spi"\nspi_port = 1\ncs_pin = 16\npoll_timeout = 0.1',
                   'driver = "rc522"\nspi_bus = 1\nrst_pin = 25')


def build(name: str, clock):
    async def scenario():
        return build_devices(load_profile(name), EventSink(), clock)

    return asyncio.run(scenario())


def test_the_box_ships_sim_desktop_and_pi_reference():
    assert available_profiles() == ["desktop", "pi-reference", "sim"]
    for name in available_profiles():
        assert load_profile(name).name == name


def test_sim_is_a_die_four_colours_one_reader_sixty_pixels_in_three_segments_and_a_silent_speaker(clock):
    devices = build("sim", clock)
    assert list(devices.buttons) == ["die", "yellow", "green", "blue", "red"]
    assert all(isinstance(button, SimButton) for button in devices.buttons.values())
    assert list(devices.readers) == ["table"] and isinstance(devices.readers["table"], SimReader)
    assert isinstance(devices.leds, SimLedStrip)
    assert {name: len(devices.leds.segment(name)) for name in devices.leds.segments} == {
        "sea-route": 24,
        "police-track": 24,
        "turn-ring": 12,
    }
    assert isinstance(devices.speaker, SimSpeaker) and devices.puck is None


def test_pi_reference_builds_real_drivers_without_touching_hardware(clock):
    profile = load_profile("pi-reference")
    devices = build("pi-reference", clock)
    die = devices.buttons["die"]
    assert isinstance(die, GpioButton) and die.pin == 17
    table = devices.readers["table"]
    assert isinstance(table, Pn532Reader) and "SPI1" in table.describe()
    assert isinstance(devices.leds._outputs["main"], NeoPixelSpiOutput)
    assert devices.leds.segments == ("sea-route", "police-track", "turn-ring")
    assert isinstance(devices.speaker, PygameSpeaker) and devices.speaker.max_volume == 0.8
    assert worst_case_milliamps(60, profile.leds.brightness) <= profile.leds.power_budget_ma
    assert all(device.fault is None for device in devices.all())


def test_the_pn532_keys_for_i2c_uart_and_the_audio_device_reach_the_drivers(tmp_path, clock):
    path = tmp_path / "kitchen.toml"
    i2c = PI.replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', 'bus = "i2c"\nreq_pin = 12')
    path.write_text(i2c.replace("max_volume = 0.8", 'device = "USB Audio Device, USB Audio"\nmax_volume = 0.8'))
    devices = build(str(path), clock)
    assert devices.readers["table"].describe() == "PN532 on I2C at 0x24, request GPIO12"
    assert "device 'USB Audio Device, USB Audio'" in devices.speaker.describe()
    uart = PI.replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', 'bus = "uart"')
    path.write_text(uart)
    assert build(str(path), clock).readers["table"].describe() == (
        f"PN532 on {gpio_uart()} at 115200 baud"  # this machine's: tests/hardware/test_pi.py checks each model's
    )


def test_a_profile_can_be_given_as_a_path(tmp_path):
    path = tmp_path / "kitchen.toml"
    path.write_text(SIM)
    profile = load_profile(str(path))
    assert (profile.name, profile.source) == ("kitchen", str(path))


BROKEN = [
    # (file text, the whole error after "<file>: ")
    (
        SIM.replace('[buttons.die]\ndriver = "sim"', '[buttons.die]\ndriver = "gpoi"'),
        "buttons.die.driver = 'gpoi': the driver must be one of 'sim', 'gpio'",
    ),
    (
        SIM.replace('[readers.table]\ndriver = "sim"', "[readers.table]"),
        "readers.table.driver: missing; the driver must be one of 'sim', 'pn532', 'rc522', 'keyboard'",
    ),
    (
        SIM.replace("hold_time = 2.0", "hold_tme = 2.0"),
        "buttons.die.hold_tme = 2.0: unknown key; allowed here: driver, bounce_time, hold_time",
    ),
    (
        PI.replace("pin = 17", "pin = 40"),
        "buttons.die.pin = 40: a Pi has no GPIO40, only GPIO0 to GPIO27 (a profile names GPIO numbers, "
        "not header pins; header pin 40 is GPIO21)",
    ),
    (
        PI.replace("cs_pin = 16", "cs_pin = 28"),
        "readers.table.cs_pin = 28: a Pi has no GPIO28, only GPIO0 to GPIO27 (a profile names GPIO numbers, "
        "not header pins; header pin 28 is GPIO1)",
    ),
    (
        PI.replace("cs_pin = 16", "cs_pin = 99"),
        "readers.table.cs_pin = 99: a Pi has no GPIO99, only GPIO0 to GPIO27 (a profile names GPIO numbers, "
        "not header pins)",
    ),
    (  # the PWM pin of the rpi_ws281x guides: neopixel_spi makes its pulses with SPI bytes
        PI.replace("spi_port = 0\npixels = 60", "spi_port = 0\npin = 18\npixels = 60"),
        "leds.strips.main.pin = 18: GPIO18 carries no SPI MOSI: a neopixel_spi strip's data line goes to "
        "GPIO10 (pin 19, SPI0 MOSI) or GPIO20 (pin 38, SPI1 MOSI)",
    ),
    (
        PI.replace("spi_port = 0\npixels = 60", "spi_port = 0\npin = 20\npixels = 60"),
        "leds.strips.main.pin = 20: GPIO20 is SPI1's MOSI, but spi_port = 0: set spi_port = 1",
    ),
    (  # an RC522 on SPI1's second chip select takes GPIO17, where the die button is
        RC522.replace("spi_bus = 1\nrst_pin = 25", "spi_bus = 1\nspi_device = 1\nrst_pin = 25"),
        "readers.table.spi_device = 1: GPIO17 is already used by buttons.die.pin",
    ),
    (
        SIM.replace("pixels = 60\n", ""),
        "leds.strips.main.pixels: missing; required",
    ),
    (
        SIM.replace("start = 48\ncount = 12", "start = 48\ncount = 20"),
        "leds.segments.turn-ring.count = 20: segment runs to pixel 68, past the end of strip 'main' (60 pixels)",
    ),
    (
        SIM.replace("start = 24\ncount = 24", "start = 20\ncount = 24"),
        "leds.segments.police-track.start = 20: overlaps segment 'sea-route' at pixel 20",
    ),
    (
        SIM.replace('strip = "main"\nstart = 48', 'strip = "ring"\nstart = 48'),
        "leds.segments.turn-ring.strip = 'ring': must be one of the strips: main",
    ),
    (
        PI.replace("brightness = 0.4", "brightness = 0.8"),
        "leds.brightness = 0.8: 60 pixels all white draw 2880 mA, over power_budget_ma 1600; at most 0.44",
    ),
    (
        PI.replace("pin = 17", "pin = 10"),
        "buttons.die.pin = 10: GPIO10 is already used by leds.strips.main.spi_port",
    ),
    (
        PI.replace("spi_port = 1", "spi_port = 0"),
        "readers.table.spi_port = 0: GPIO11 is already used by leds.strips.main.spi_port",
    ),
    (
        PI.replace("cs_pin = 16\n", ""),
        "readers.table.cs_pin = None: a PN532 on SPI needs the GPIO its chip select is wired to",
    ),
    (
        SIM.replace("[buttons.red]", "[buttons.Red]"),
        "buttons.Red = 'Red': names are lower-case letters, digits and dashes, starting with a letter",
    ),
    (
        SIM.replace("max_volume = 0.8", 'max_volume = "loud"'),
        "speaker.max_volume = 'loud': must be a valid number, unable to parse string as a number",
    ),
    (
        SIM.replace('[readers.table]\ndriver = "sim"', '[readers.table]\ndriver = "keyboard"\ndevice = "/tmp/kbd"'),
        "readers.table.device = '/tmp/kbd': must be an input device path, best /dev/input/by-id/...",
    ),
    (
        SIM.split("[speaker]")[0],
        "speaker: missing; required: a [speaker] table with a driver, one of 'sim', 'pygame'",
    ),
    (  # one pixel past the end is as wrong as eight
        SIM.replace("start = 48\ncount = 12", "start = 48\ncount = 13"),
        "leds.segments.turn-ring.count = 13: segment runs to pixel 61, past the end of strip 'main' (60 pixels)",
    ),
    (
        PI.replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', 'bus = "i2c"')
        + '\n[readers.side]\ndriver = "pn532"\nbus = "i2c"\n',
        "readers.side.bus = 'i2c': a PN532 has one fixed I²C address, and 'table' has it; use SPI",
    ),
    (
        PI + '\n[readers.side]\ndriver = "rc522"\nspi_bus = 1\nrst_pin = 25\n',
        "readers.side.spi_bus = 1: SPI1 already has the PN532 reader 'table'; "
        "an RC522 and a PN532 cannot share an SPI port: put them on SPI0 and SPI1",
    ),
    (
        PI.replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', 'bus = "i2c"\nreq_pin = 17'),
        "readers.table.req_pin = 17: GPIO17 is already used by buttons.die.pin",
    ),
    (
        SIM.replace('[readers.table]\ndriver = "sim"\n', ""),
        "readers = {}: a box needs at least one card reader: add a [readers.NAME] table",
    ),
    (  # an RC522 claims its whole SPI bus and its reset pin like any other device
        RC522.replace("spi_bus = 1\nrst_pin = 25", "spi_bus = 0\nrst_pin = 25"),
        "readers.table.spi_bus = 0: GPIO11 is already used by leds.strips.main.spi_port",
    ),
    (
        RC522.replace("spi_bus = 1\nrst_pin = 25", "spi_bus = 1\nrst_pin = 17"),
        "readers.table.rst_pin = 17: GPIO17 is already used by buttons.die.pin",
    ),
    (  # the Pi's own UART is GPIO14/15, whichever name it goes by
        PI.replace("pin = 17", "pin = 14").replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', 'bus = "uart"\nuart = "/dev/serial0"'),
        "readers.table.uart = '/dev/serial0': GPIO14 is already used by buttons.die.pin",
    ),
    (
        PI.replace("cs_pin = 16", "cs_pin = 16\nreset_pin = 17"),
        "readers.table.reset_pin = 17: GPIO17 is already used by buttons.die.pin",
    ),
    (
        PI.replace('driver = "neopixel_spi"', 'driver = "neopixel_pwm"'),
        "leds.strips.main.driver = 'neopixel_pwm': the driver must be one of 'sim', 'neopixel_spi'",
    ),
]


@pytest.mark.parametrize(("text", "message"), BROKEN, ids=[message.split(" ")[0] for _, message in BROKEN])
def test_a_broken_profile_is_one_line_naming_file_key_value_and_what_is_allowed(tmp_path, text, message):
    path = tmp_path / "broken.toml"
    path.write_text(text)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value) == f"{path}: {message}"


def test_several_problems_are_still_one_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(SIM.replace("pixels = 60", "pixels = 0").replace("max_volume = 0.8", "max_volume = 3"))
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value).endswith("(and 1 more problem)")
    assert "\n" not in str(caught.value)


def test_invalid_toml_says_where(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[leds\npixels = 60\n")
    with pytest.raises(ProfileError, match=r"broken.toml: not valid TOML: .*line 1"):
        load_profile(path)


def test_unknown_names_and_missing_files_say_what_exists(tmp_path):
    with pytest.raises(ProfileError, match="profile 'kitchen' not found: use one of desktop, pi-reference, sim"):
        load_profile("kitchen")
    with pytest.raises(ProfileError, match=r"nothere.toml: cannot read: No such file or directory"):
        load_profile(tmp_path / "nothere.toml")


def test_every_shipped_profile_has_the_segments_the_shows_use():
    for name in available_profiles():
        assert set(load_profile(name).leds.segments) == {"sea-route", "police-track", "turn-ring"}


def test_profiles_directory_holds_only_profiles():
    assert sorted(p.name for p in Path(PROFILES_DIR).iterdir()) == ["desktop.toml", "pi-reference.toml", "sim.toml"]

"""The groups the service user joins follow the profile's devices (issue 10: not always input and dialout)."""

from __future__ import annotations

from pathlib import Path

from hardware.access import groups, main, needs
from hardware.profile import load_profile

KIOSK = Path(__file__).with_name("kiosk.toml")

RC522 = """
[readers.table]
driver = "rc522"
spi_bus = 0
spi_device = 1
[leds.strips.main]
driver = "sim"
pixels = 30
[speaker]
driver = "sim"
"""


def _profile(tmp_path: Path, text: str):
    path = tmp_path / "profile.toml"
    path.write_text(text)
    return load_profile(path)


def test_the_reference_build_needs_gpio_spi_and_audio_and_nothing_else() -> None:
    profile = load_profile("pi-reference")
    assert groups(profile) == ["audio", "gpio", "spi"]
    nodes = {(need.node, need.why) for need in needs(profile)}
    assert ("/dev/spidev1.0", "readers.table.spi_port") in nodes  # the PN532 on SPI1
    assert ("/dev/spidev0.0", "leds.strips.main.spi_port") in nodes  # the strip on SPI0
    assert ("/dev/gpiochip*", "readers.table.cs_pin") in nodes


def test_a_keyboard_reader_and_a_serial_puck_need_input_and_dialout() -> None:
    profile = load_profile(KIOSK)
    assert groups(profile) == ["audio", "dialout", "input"]
    assert [need.node for need in needs(profile)] == ["/dev/input/by-id/usb-reader-event-kbd", "/dev/snd/*", "/dev/ttyACM0"]


def test_the_simulated_box_needs_no_group() -> None:
    assert groups(load_profile("sim")) == []


def test_an_rc522_needs_its_spi_device_and_gpiomem(tmp_path: Path) -> None:
    profile = _profile(tmp_path, RC522)
    assert groups(profile) == ["gpio", "spi"]
    assert [(need.node, need.group) for need in needs(profile)] == [("/dev/spidev0.1", "spi"), ("/dev/gpiomem*", "gpio")]


def test_the_command_prints_one_group_a_line_or_a_one_line_error(capsys, tmp_path: Path) -> None:
    assert main(["pi-reference"]) == 0
    assert capsys.readouterr().out == "audio\ngpio\nspi\n"
    assert main([str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hardware.access: ") and err.count("\n") == 1

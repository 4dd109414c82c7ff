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


PN532_ALONE = """
[readers.table]
driver = "pn532"
bus = "spi"
spi_port = 1
cs_pin = 16
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


def _pi(root: Path, model: str) -> Path:
    """A root whose device tree names ``model``: what the installer reads to tell a Pi 5."""
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    return root


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
    pi4 = _pi(tmp_path / "pi4", "Raspberry Pi 4 Model B Rev 1.5")
    assert groups(profile) == ["gpio", "spi"]
    found = [(need.node, need.group) for need in needs(profile, pi4)]
    assert found == [("/dev/spidev0.1", "spi"), ("/dev/gpiomem*", "gpio")]


def test_an_rc522_on_a_pi_5_opens_the_gpio_chip_as_rpi_lgpio_does(tmp_path: Path) -> None:
    pi5 = _pi(tmp_path / "pi5", "Raspberry Pi 5 Model B Rev 1.0")
    found = [(need.node, need.group, need.why) for need in needs(_profile(tmp_path, RC522), pi5)]
    assert found == [
        ("/dev/spidev0.1", "spi", "readers.table.spi_bus"),
        ("/dev/gpiochip*", "gpio", "readers.table.driver"),
    ]


def test_a_pn532_alone_on_spi_needs_gpio_for_its_chip_select(tmp_path: Path) -> None:
    profile = _profile(tmp_path, PN532_ALONE)  # no button: only the chip select (Blinka, through gpiod) needs gpio
    assert groups(profile) == ["gpio", "spi"]
    assert ("/dev/gpiochip*", "gpio", "readers.table.cs_pin") in {(n.node, n.group, n.why) for n in needs(profile)}


def test_a_pn532_on_the_pis_own_uart_needs_that_models_uart(tmp_path: Path) -> None:
    spi = 'bus = "spi"\nspi_port = 1\ncs_pin = 16'
    uart = _profile(tmp_path, PN532_ALONE.replace(spi, 'bus = "uart"'))
    pi4 = _pi(tmp_path / "pi4", "Raspberry Pi 4 Model B Rev 1.5")
    pi5 = _pi(tmp_path / "pi5", "Raspberry Pi 5 Model B Rev 1.0")
    assert [(n.node, n.group, n.why) for n in needs(uart, pi4)] == [("/dev/serial0", "dialout", "readers.table.uart")]
    assert [n.node for n in needs(uart, pi5)] == ["/dev/ttyAMA0"]
    usb = _profile(tmp_path, PN532_ALONE.replace(spi, 'bus = "uart"\nuart = "/dev/ttyUSB0"'))
    assert [n.node for n in needs(usb, pi5)] == ["/dev/ttyUSB0"]


def test_only_alsa_opens_the_sound_devices(tmp_path: Path) -> None:
    """A sound server (pulseaudio, pipewire) or SDL's dummy driver opens no /dev/snd: no audio group for them."""
    for audio_driver, wanted in (
        ("alsa", ["audio", "dialout", "input"]),
        ("pulseaudio", ["dialout", "input"]),
        ("dummy", ["dialout", "input"]),
    ):
        text = KIOSK.read_text().replace('driver = "pygame"', f'driver = "pygame"\naudio_driver = "{audio_driver}"')
        assert groups(_profile(tmp_path, text)) == wanted, audio_driver


def test_the_command_prints_one_group_a_line_or_a_one_line_error(capsys, tmp_path: Path) -> None:
    assert main(["pi-reference"]) == 0
    assert capsys.readouterr().out == "audio\ngpio\nspi\n"
    assert main([str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hardware.access: ") and err.count("\n") == 1


def test_the_command_prints_each_node_its_group_and_key_tab_separated(capsys) -> None:
    assert main(["--nodes", str(KIOSK)]) == 0
    assert capsys.readouterr().out == (
        "/dev/input/by-id/usb-reader-event-kbd\tinput\treaders.table.device\n"
        "/dev/snd/*\taudio\tspeaker.driver\n"
        "/dev/ttyACM0\tdialout\tpuck.device\n"
    )

"""``gamebox wiring``: the Pi's header with every part of a profile wired to the pins the profile names.

The reference build's pins are those of hardware/README.md's wiring table
and the comment at the top of hardware/profiles/pi-reference.toml, written
out here by hand: the drawing must agree with what a builder was told.
"""

from __future__ import annotations

import pytest

from controller.cli import main
from controller.wiring.pi import draw
from hardware.doctor import PROFILE_ERROR, run_doctor
from hardware.profile import PROFILES_DIR, ProfileError, load_profile
from tests.conftest import ROOT
from tests.wiring.drawing import NS, read

PI = (PROFILES_DIR / "pi-reference.toml").read_text(encoding="utf-8")

#: header pin: (its name, what it is labelled as for) in the reference build.
REFERENCE = {
    11: ("GPIO17", "die button"),
    40: ("GPIO21", "PN532 table SCK"),
    35: ("GPIO19", "PN532 table MISO"),
    38: ("GPIO20", "PN532 table MOSI"),
    36: ("GPIO16", "PN532 table SS"),
    17: ("3V3", "PN532 table VCC"),
    19: ("GPIO10", "strip main data"),
}


def profile_file(tmp_path, text: str):
    path = tmp_path / "kitchen.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("model", [4, 5])
def test_every_pin_of_the_reference_build_is_labelled_with_its_number_gpio_and_role(model):
    drawing = read(draw(load_profile("pi-reference"), model))
    assert len(drawing.pins) == 40
    for number, (name, role) in REFERENCE.items():
        pin = drawing.pins[number]
        assert (pin.name, pin.role) == (name, role)
        assert {str(number), name, role} <= set(pin.texts), pin.texts
    grounds = {pin.role: pin.name for pin in drawing.pins.values() if "GND" in pin.role or "ground" in pin.role
               or "leg 2" in pin.role}
    assert grounds == {"die button, leg 2": "GND", "PN532 table GND": "GND", "strip main ground": "GND"}
    labelled = {n for n, pin in drawing.pins.items() if pin.role and not pin.role.startswith("kept free")}
    assert len(labelled) == len(REFERENCE) + 3, "nothing else is wired"


def test_the_pins_a_bus_takes_are_marked_kept_free():
    drawing = read(draw(load_profile("pi-reference")))
    # SPI0's other pins belong to the strip (every byte on its MOSI becomes colours), SPI1's CE0 to its overlay.
    for number in (21, 23, 24, 26, 12):
        assert drawing.pins[number].role.startswith("kept free"), number
    assert drawing.pins[13].role == "" and drawing.pins[13].name == "GPIO27"


def test_every_wire_runs_from_its_pin_to_the_part_it_names():
    drawing = read(draw(load_profile("pi-reference")))
    from_pins = [wire for wire in drawing.wires if "data-pin" in wire]
    assert len(from_pins) == len(REFERENCE) + 3
    for wire in from_pins:
        pin = drawing.pins[int(wire["data-pin"])]
        assert wire["path"][0] == pin.centre
        assert wire["path"][-1] == drawing.terminals[(wire["data-part"], wire["data-terminal"])]
        assert all(a[0] == b[0] or a[1] == b[1] for a, b in zip(wire["path"], wire["path"][1:])), "square corners"
    assert drawing.wire_to("reader table", "MISO")["stroke"] != drawing.wire_to("reader table", "MOSI")["stroke"]
    assert drawing.wire_to("reader table", "GND")["stroke"] == drawing.wire_to("die button", "leg 2 (GND)")["stroke"]


def test_the_strip_has_its_shifter_resistor_capacitor_and_own_supply_and_shares_only_the_ground():
    drawing = read(draw(load_profile("pi-reference")))
    assert {"74AHCT125", "330 Ω resistor", "1000 µF capacitor", "LED supply", "LED strip main"} <= drawing.parts
    assert {("LED supply", "+5V"), ("LED supply", "GND"), ("LED strip main", "DIN"), ("LED strip main", "5V")} <= set(
        drawing.terminals)
    five_volt = [n for n, pin in drawing.pins.items() if pin.name == "5V"]
    assert not [wire for wire in drawing.wires if wire.get("data-pin") in {str(n) for n in five_volt}]
    assert not any(drawing.pins[n].role for n in five_volt), "the strip never runs off the Pi's 5 V"
    ground = drawing.wire_to("LED strip main", "GND (common ground)")
    assert drawing.pins[int(ground["data-pin"])].name == "GND"
    assert "2 A" in drawing.text() and "1.44 A" in drawing.text()  # its supply, and what the cap lets it draw


def test_a_pi_5_gets_its_speaker_on_usb_and_a_pi_4_on_its_jack():
    pi4, pi5 = (read(draw(load_profile("pi-reference"), model)).text() for model in (4, 5))
    assert "3.5 mm jack" in pi4 and "5.1 V 3 A" in pi4
    assert "3.5 mm jack" not in pi5 and "speaker.device" in pi5 and "5.1 V 5 A" in pi5


def test_a_changed_profile_is_drawn_as_changed(tmp_path):
    i2c = 'bus = "i2c"\nreq_pin = 22'
    text = PI.replace("pin = 17", "pin = 27").replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', i2c)
    text += '\n[puck]\ndriver = "serial"\ndevice = "/dev/serial/by-id/usb-MicroPython*"\n'
    drawing = read(draw(load_profile(profile_file(tmp_path, text))))
    assert (drawing.pins[13].name, drawing.pins[13].role) == ("GPIO27", "die button")
    assert drawing.pins[11].role == ""
    assert [drawing.pins[n].role for n in (3, 5, 15)] == ["PN532 table SDA", "PN532 table SCL", "PN532 table P32 (REQ)"]
    assert not any(drawing.pins[n].role for n in (35, 36, 38, 40)), "SPI1 is free again"
    assert "die puck (/dev/serial/by-id/usb-MicroPython*)" in drawing.text()


def test_a_part_on_both_columns_of_the_header_is_led_round_its_end(tmp_path):
    """An RC522 on SPI0 (the strip moved to SPI1, on the right) has pins on both columns: its wires turn at the end."""
    text = PI.replace('driver = "pn532"\nbus = "spi"\nspi_port = 1\ncs_pin = 16\npoll_timeout = 0.1',
                      'driver = "rc522"\nspi_bus = 0\nrst_pin = 25')
    text = text.replace("spi_port = 0\npixels", "spi_port = 1\npixels")
    drawing = read(draw(load_profile(profile_file(tmp_path, text))))
    assert drawing.pins[38].role == "strip main data" and drawing.pins[24].role == "RC522 table SDA (CS)"
    assert drawing.pins[22].role == "RC522 table RST"
    boxes = [(float(r.get("width")), float(r.get("height"))) for r in drawing.root.iter(f"{NS}rect")]
    assert all(width > 0 and height > 0 for width, height in boxes), "the strip's parts drawn on the right side too"
    assert drawing.terminals[("LED strip main", "1A")][0] > drawing.pins[38].centre[0]
    bottom = max(pin.centre[1] for pin in drawing.pins.values())
    for wire in drawing.wires:
        if wire.get("data-part") == "reader table":
            assert wire["path"][-1][1] > bottom


BROKEN = [
    (PI.replace("pin = 17", "pin = 11"), "buttons.die.pin = 11: GPIO11 is already used by leds.strips.main.spi_port"),
    (PI.replace("pin = 17", "pin = 16"), "readers.table.cs_pin = 16: GPIO16 is already used by buttons.die.pin"),
    (PI.replace("spi_port = 0\npixels = 60", "spi_port = 0\npin = 18\npixels = 60"),
     "leds.strips.main.pin = 18: GPIO18 carries no SPI MOSI: a neopixel_spi strip's data line goes to "
     "GPIO10 (pin 19, SPI0 MOSI) or GPIO20 (pin 38, SPI1 MOSI)"),
    (PI.replace("pin = 17", "pin = 35"), "buttons.die.pin = 35: a Pi has no GPIO35, only GPIO0 to GPIO27 (a profile "
     "names GPIO numbers, not header pins; header pin 35 is GPIO19)"),
]


@pytest.mark.parametrize(("text", "reason"), BROKEN, ids=["two-on-one-pin", "cs-on-the-button", "strip-off-mosi",
                                                          "no-such-gpio"])
def test_a_broken_profile_is_refused_with_the_same_reason_by_the_drawing_the_loader_and_the_doctor(
    tmp_path, capsys, text, reason
):
    path = profile_file(tmp_path, text)
    out = tmp_path / "wiring.svg"
    assert main(["wiring", "--profile", str(path), "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"gamebox: {path}: {reason}\n"
    assert not out.exists()
    with pytest.raises(ProfileError, match=f"^{path}: "):
        load_profile(path)
    assert run_doctor(path, out=(report := tmp_path / "doctor.txt").open("w")) == PROFILE_ERROR
    assert report.read_text() == f"gamebox doctor: {path}: {reason}\n"


def test_the_command_writes_the_drawing_and_refuses_a_profile_with_nothing_on_the_header(tmp_path, capsys):
    out = tmp_path / "pi5.svg"
    assert main(["wiring", "--profile", "pi-reference", "--pi", "5", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == draw(load_profile("pi-reference"), 5)
    assert main(["wiring", "--profile", "sim", "-o", str(tmp_path / "sim.svg")]) == 2
    assert "wires nothing to the Pi's header" in capsys.readouterr().err
    assert main(["wiring", "-o", str(tmp_path / "no" / "such" / "dir.svg")]) == 2


@pytest.mark.parametrize("model", [4, 5])
def test_the_checked_in_picture_is_what_the_reference_profile_draws_today(model):
    name = f"docs/wiring/pi{model}-reference.svg"
    checked_in = (ROOT / name).read_text(encoding="utf-8")
    assert checked_in == draw(load_profile("pi-reference"), model), (
        f"{name} is out of date: gamebox wiring --pi {model} -o {name}"
    )

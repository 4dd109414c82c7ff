"""``gamebox wiring --puck``: the die puck's parts on the Pico's pins, from the firmware's own settings."""

from __future__ import annotations

import pytest

from controller.cli import main
from controller.wiring.pico import SETTINGS, SettingsError, draw_puck, read_settings
from tests.conftest import ROOT
from tests.wiring.drawing import read

#: firmware/puck/settings.py as shipped, and the Pico pins those GPIOs are on (the Pico datasheet's pinout).
SHIPPED = {"BUTTON_PIN": 15, "SHAKE_PIN": 14, "RING_PIN": 16, "LEDS": 12, "USB_MA": 250, "PICO_MA": 50,
           "LED_IDLE_MA": 1, "MAX_LEVEL": 0.5}
DATASHEET = {2: 4, 14: 19, 15: 20, 16: 21, 22: 29}


def test_every_pin_of_the_puck_is_labelled_with_its_number_gpio_and_role():
    drawing = read(draw_puck(SHIPPED))
    assert len(drawing.pins) == 40
    for gp, role in ((15, "button"), (14, "shake switch"), (16, "ring data")):
        pin = drawing.pins[DATASHEET[gp]]
        assert (pin.name, pin.role) == (f"GP{gp}", role)
        assert {str(DATASHEET[gp]), f"GP{gp}", role} <= set(pin.texts)
    assert (drawing.pins[40].name, drawing.pins[40].role) == ("VBUS", "ring 5 V")
    grounds = {pin.role for pin in drawing.pins.values() if pin.name == "GND" and pin.role}
    assert grounds == {"switches' other legs", "ring GND"}
    for wire in drawing.wires:
        assert wire["path"][0] == drawing.pins[int(wire["data-pin"])].centre
        assert wire["path"][-1] == drawing.terminals[(wire["data-part"], wire["data-terminal"])]
    assert "lit at most 188 mA" in drawing.text() and "LED ring, 12 × WS2812B" in drawing.text()


def test_other_settings_are_drawn_as_set():
    drawing = read(draw_puck({**SHIPPED, "BUTTON_PIN": 2, "SHAKE_PIN": None, "RING_PIN": 22, "LEDS": 16}))
    assert drawing.pins[DATASHEET[2]].role == "button" and drawing.pins[DATASHEET[22]].role == "ring data"
    assert not drawing.pins[DATASHEET[14]].role and not drawing.pins[DATASHEET[15]].role
    assert "shake" not in drawing.text().replace("SHAKE_PIN", "")
    assert "LED ring, 16 × WS2812B" in drawing.text() and "lit at most 184 mA" in drawing.text()


@pytest.mark.parametrize(("change", "reason"), [
    ({"BUTTON_PIN": 23}, "BUTTON_PIN = 23: the Pico has no GP23 on its pins (GP0–GP22, GP26–GP28)"),
    ({"RING_PIN": 15}, "RING_PIN = 15: GP15 is already used by BUTTON_PIN"),
    ({"SHAKE_PIN": "GP14"}, "SHAKE_PIN = 'GP14': must be a GPIO number, like 15 for GP15"),
])
def test_settings_a_puck_cannot_be_wired_to_are_refused_with_the_reason(change, reason):
    with pytest.raises(SettingsError) as caught:
        draw_puck({**SHIPPED, **change})
    assert str(caught.value) == f"settings.py: {reason}"


def test_the_settings_are_read_not_run(tmp_path):
    path = tmp_path / "settings.py"
    path.write_text("BUTTON_PIN = 7  # GP7\nSHAKE_PIN = None\nLOUD = undefined_name()\n", encoding="utf-8")
    assert read_settings(path) == {"BUTTON_PIN": 7, "SHAKE_PIN": None}


def test_the_command_draws_the_firmware_s_settings(tmp_path):
    out = tmp_path / "puck.svg"
    assert main(["wiring", "--puck", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == draw_puck(read_settings(SETTINGS))


def test_the_checked_in_picture_is_what_the_firmware_s_settings_draw_today():
    name = "docs/wiring/puck.svg"
    assert (ROOT / name).read_text(encoding="utf-8") == draw_puck(), (
        f"{name} is out of date: gamebox wiring --puck -o {name}"
    )


def test_the_step_by_step_in_firmware_readme_names_the_pins_the_drawing_shows():
    steps = (ROOT / "firmware" / "README.md").read_text(encoding="utf-8").split("Step by step")[1].split("## ")[0]
    drawing = read(draw_puck())
    for pin in drawing.pins.values():
        if pin.role and pin.name.startswith("GP"):
            assert f"{pin.name} (pin {pin.number})" in steps, pin
    grounds = {pin.number for pin in drawing.pins.values() if pin.name == "GND" and pin.role}
    assert all(f"GND (pin {number}" in steps for number in grounds)
    assert "VBUS (pin 40" in steps and "../docs/wiring/puck.svg" in (ROOT / "firmware" / "README.md").read_text()

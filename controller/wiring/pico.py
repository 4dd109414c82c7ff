"""The die puck's wiring on the Pico's pins, drawn from the firmware's own settings.

The pins, the ring's size and its power budget are read from
``firmware/puck/settings.py`` (as text: the firmware is MicroPython and is
never imported here), so the drawing follows the firmware a builder flashes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from controller.wiring.layout import (
    MEANING, WIDTH, Connector, Part, Wire, choose_power_pins, draw_block, draw_pins, draw_wires, legend, pin_xy, place,
)
from controller.wiring.svg import Svg

SETTINGS = Path(__file__).resolve().parents[2] / "firmware" / "puck" / "settings.py"

#: The Pico's 40 pins, seen from above with its USB socket at the top: 1–20 down the left, 40–21 down the right.
PICO_PINS: dict[int, str] = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND", 9: "GP6", 10: "GP7",
    11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11", 16: "GP12", 17: "GP13", 18: "GND", 19: "GP14",
    20: "GP15", 21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND",
    29: "GP22", 30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28", 35: "ADC_VREF", 36: "3V3",
    37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}
PIN_OF_GP = {int(name[2:]): pin for pin, name in PICO_PINS.items() if name.startswith("GP")}
VBUS = next(pin for pin, name in PICO_PINS.items() if name == "VBUS")
PICO = Connector(
    "Raspberry Pi Pico (USB at the top)", PICO_PINS, row=lambda pin: pin - 1 if pin <= 20 else 40 - pin,
    left=lambda pin: pin <= 20, function=lambda name: "5 V from USB" if name == "VBUS" else "",
    edge="", body="#1d6b3a",
)
NOTES = [
    "Seen from above, USB socket at the top: pin 1 is top left, pin 40 (VBUS) top right.",
    "Both switches use the Pico's internal pull-ups: no resistors. The ring runs on the USB's 5 V (VBUS).",
    "Drawn from firmware/puck/settings.py by `gamebox wiring --puck`.",
]


class SettingsError(ValueError):
    """Firmware settings a puck cannot be wired to; ``str()`` says which and why."""


def read_settings(path: Path = SETTINGS) -> dict[str, object]:
    """The constants ``path`` assigns (``BUTTON_PIN = 15``), without running it."""
    found: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # not a constant: nothing the drawing needs
    return found


def ring_budget_ma(settings: Mapping[str, object]) -> int:
    """What the ring's lit pixels may draw: USB's 250 mA less the Pico and every pixel's own dark draw."""
    return int(settings["USB_MA"]) - int(settings["PICO_MA"]) - int(settings["LEDS"]) * int(settings["LED_IDLE_MA"])


def pins_of(settings: Mapping[str, object]) -> dict[str, int]:
    """Each pin setting's Pico pin (``{"BUTTON_PIN": 20, ...}``), refusing a GPIO twice or one not on the edge."""
    names = ("BUTTON_PIN", "SHAKE_PIN", "RING_PIN")
    pins: dict[str, int] = {}
    for name in names:
        gp = settings.get(name)
        if gp is None and name == "SHAKE_PIN":
            continue
        if not isinstance(gp, int) or isinstance(gp, bool):
            raise SettingsError(f"{SETTINGS.name}: {name} = {gp!r}: must be a GPIO number, like 15 for GP15")
        if gp not in PIN_OF_GP:
            raise SettingsError(f"{SETTINGS.name}: {name} = {gp!r}: the Pico has no GP{gp} on its pins "
                                "(GP0–GP22, GP26–GP28)")
        other = next((key for key, pin in pins.items() if pin == PIN_OF_GP[gp]), None)
        if other:
            raise SettingsError(f"{SETTINGS.name}: {name} = {gp}: GP{gp} is already used by {other}")
        pins[name] = PIN_OF_GP[gp]
    return pins


def parts_of(settings: Mapping[str, object]) -> list[Part]:
    pins = pins_of(settings)
    button = f"GP{settings['BUTTON_PIN']}"
    switches = Part("switches", "arcade button" + (" and shake switch" if "SHAKE_PIN" in pins else ""),
                    [f"pressed: {button} to ground"], [Wire(pins["BUTTON_PIN"], "switches", "button", "button")])
    if "SHAKE_PIN" in pins:
        switches.wires.append(Wire(pins["SHAKE_PIN"], "switches", "shake switch", "shake switch"))
        switches.notes.append("no shake switch: SHAKE_PIN = None")
    switches.wires.append(Wire(0, "switches", "GND (their other legs)", "switches' other legs"))
    ring = Part("LED ring", f"LED ring, {settings['LEDS']} × WS2812B", [
        "330 Ω in DIN, at the ring", "470 µF across 5 V and GND, at the ring",
        f"lit at most {ring_budget_ma(settings)} mA, level ≤ {settings['MAX_LEVEL']}",
    ], [Wire(pins["RING_PIN"], "LED ring", "DIN (through 330 Ω)", "ring data"),
        Wire(VBUS, "LED ring", "5V (VBUS)", "ring 5 V"),
        Wire(0, "LED ring", "GND", "ring GND")])
    parts = [switches, ring]
    choose_power_pins(PICO, parts)
    return parts


def draw_puck(settings: Mapping[str, object] | None = None) -> str:
    """The SVG of the puck's parts on the Pico's pins, for ``settings`` (default: the firmware's)."""
    settings = read_settings() if settings is None else settings
    parts = parts_of(settings)
    lowest = place(PICO, parts)
    height = max(lowest, pin_xy(PICO, 20)[1] + 40) + 130
    svg = Svg(WIDTH, height, "gamebox wiring: the die puck on a Raspberry Pi Pico")
    svg.text(20, 34, "Wiring: the die puck on a Raspberry Pi Pico", 22, font_weight="bold")
    svg.text(20, 56, "Its firmware's pins (firmware/puck/settings.py); a micro-USB cable to the box's Pi gives it "
                     "data and 5 V.", 13, fill="#444444")
    with svg.group(class_="wires"):
        for part in parts:
            draw_wires(svg, PICO, part, parts)
    draw_pins(svg, PICO, parts, {})
    for part in parts:
        draw_block(svg, part)
    meaning = {**MEANING, "MOSI": "the ring's data", "5V": "5 V from USB (VBUS)", "button": "switch"}
    legend(svg, parts, height - 100, NOTES, meaning)
    return svg.document()

"""A profile's wiring on the Pi's 40-pin header, drawn as an SVG a builder can follow.

The header is drawn as it sits on the board, pin 1 at the top left, every
pin with its number, its name (GPIO17, GND, 3V3) and what the profile wires
to it (:mod:`controller.wiring.layout`). Which GPIO each part takes comes
from :func:`hardware.header.uses`, the list the profile loader checks, so a
drawing shows exactly what loads. The LED strip is drawn with what it needs
around it: the level shifter, the resistor, the capacitor and its own supply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from controller.wiring.layout import (
    COLOURS, PART_EDGE, WIDTH, Connector, Part, Wire, choose_power_pins, draw_block, draw_pins, draw_wires, legend,
    mirror, pin_xy, place, terminal,
)
from controller.wiring.svg import Svg
from hardware import header
from hardware.config import GpioButtonConfig, Pn532Config, Profile, Rc522Config
from hardware.pixels import worst_case_milliamps

PI_HEADER = Connector(
    "40-pin header", header.PINS, row=lambda pin: (pin - 1) // 2, left=lambda pin: pin % 2 == 1,
    function=lambda name: header.function(int(name[4:])) if name.startswith("GPIO") else "",
    edge="board edge →", body="#2b2b2b",
)
NOTES = [
    "Pin 1 (the square pad) is at the header's end away from the USB sockets; "
    "the even pins run along the board's edge.",
    "One common ground: the Pi, the 74AHCT125, the strip and its supply all share GND. "
    "The strip's 5 V comes from its own supply only.",
    "Drawn from the profile by `gamebox wiring`: what it shows is what the box loads.",
]


# -- what is wired where ----------------------------------------------------------------------
def parts_of(profile: Profile) -> tuple[list[Part], dict[int, str]]:
    """The profile's parts with every wire, and the pins a bus keeps free (pin: why)."""
    uses = header.uses(profile)
    reserved = {use.pin: f"kept free ({use.part.removeprefix('LED ')})" for use in uses if not use.wired and use.pin}
    parts: list[Part] = []
    for name, strip in profile.leds.strips.items():
        if strip.driver == "neopixel_spi":
            parts.append(_strip(profile, name, [u for u in uses if u.part == f"LED strip {name}" and u.wired]))
    for name, button in profile.buttons.items():
        if isinstance(button, GpioButtonConfig):
            other, to = ("GND", "ground") if button.pull_up else ("3V3", "3.3 V")
            part = Part(f"{name} button", f"{name} button", [f"pressed: GPIO{button.pin} to {to}"],
                        [Wire(header.PIN_OF_GPIO[button.pin], f"{name} button", "leg 1", f"{name} button"),
                         Wire(0, f"{name} button", f"leg 2 ({other})", f"{name} button, leg 2")])
            parts.append(part)
    for name, reader in profile.readers.items():
        wired = [u for u in uses if u.part == f"reader {name}" and u.wired]
        if not wired or not isinstance(reader, Pn532Config | Rc522Config):
            continue
        chip = reader.driver.upper()
        title = f"{chip} reader {name!r}"
        notes = _reader_notes(reader)
        part = Part(f"reader {name}", title, notes,
                    [Wire(u.pin or 0, f"reader {name}", u.terminal, f"{chip} {name} {u.terminal}") for u in wired])
        part.wires += [Wire(0, part.name, "VCC (3.3 V)", f"{chip} {name} VCC"),
                       Wire(0, part.name, "GND", f"{chip} {name} GND")]
        parts.append(part)
    choose_power_pins(PI_HEADER, parts)
    return parts, reserved


def _strip(profile: Profile, name: str, wired: list[header.Use]) -> Part:
    strip = profile.leds.strips[name]
    runs = [f"{seg} {s.start}–{s.start + s.count - 1}" for seg, s in profile.leds.segments.items() if s.strip == name]
    worst = worst_case_milliamps(strip.pixels, profile.leds.brightness)
    notes = [f"{strip.pixels} × WS2812B, 5 V", " · ".join(runs),
             f"at most {worst / 1000:.2f} A (brightness cap {profile.leds.brightness:g})",
             "74AHCT125: all /OE and 2A–4A to GND"]
    din = wired[0]
    wires = [Wire(din.pin or 0, f"LED strip {name}", "1A", f"strip {name} data"),
             Wire(0, f"LED strip {name}", "GND (common ground)", f"strip {name} ground")]
    budget = profile.leds.power_budget_ma or worst
    return Part(f"LED strip {name}", f"LED strip {name!r}", notes, wires, kind="strip", budget_ma=budget)


def led_supply_amps(budget_ma: float) -> float:
    """The LED supply to buy: the budget is at most 80 % of it, in half amps (1600 mA: 2 A)."""
    return math.ceil(budget_ma / 0.8 / 500 - 1e-9) * 0.5


def _reader_notes(reader: Pn532Config | Rc522Config) -> list[str]:
    if isinstance(reader, Rc522Config):
        return [f"SPI{reader.spi_bus}, /dev/spidev{reader.spi_bus}.{reader.spi_device}", "IRQ: not wired"]
    mode = {"spi": f"SPI (SPI{reader.spi_port})", "i2c": "I²C", "uart": "HSU (UART)"}[reader.bus]
    return [f"mode switches: {mode}", "antenna up, under the lid's card spot"]


# -- drawing ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Board:
    """What differs between the models on the drawing: the Pi's own supply and its sound."""

    model: int
    supply: str
    has_jack: bool


BOARDS = {
    4: Board(4, "official USB-C supply, 5.1 V 3 A", True),
    5: Board(5, "official USB-C supply, 5.1 V 5 A (27 W)", False),
}


def draw(profile: Profile, model: int = 4) -> str:
    """The SVG of ``profile`` wired to a Raspberry Pi ``model`` (4 or 5)."""
    board = BOARDS[model]
    parts, reserved = parts_of(profile)
    lowest = place(PI_HEADER, parts)
    height = max(lowest, pin_xy(PI_HEADER, 40)[1] + 40) + 130
    svg = Svg(WIDTH, height, f"gamebox wiring: {profile.name or 'profile'} on a Raspberry Pi {model}")
    svg.text(20, 34, f"Wiring: profile {profile.name or 'profile'} on a Raspberry Pi {model}", 22, font_weight="bold")
    svg.text(20, 56, profile.description, 13, fill="#444444")
    _ports(svg, profile, board)
    with svg.group(class_="wires"):
        for part in parts:
            draw_wires(svg, PI_HEADER, part, parts)
    draw_pins(svg, PI_HEADER, parts, reserved)
    for part in parts:
        if part.kind == "strip" and part.side != "bottom":
            _strip_assembly(svg, part)
        else:
            draw_block(svg, part)
    legend(svg, parts, height - 100, NOTES)
    return svg.document()


def _ports(svg: Svg, profile: Profile, board: Board) -> None:
    """The Pi's own sockets: its supply, the sound, the puck on USB."""
    sound = ""
    speaker = profile.speaker
    if speaker.driver == "pygame":
        if speaker.device:
            sound = f"USB: the speaker {speaker.device!r} (speaker.device)"
        elif board.has_jack:
            sound = "3.5 mm jack: a small powered speaker"
        else:
            sound = "USB: a USB speaker; no jack on a Pi 5: name it in speaker.device"
    puck = profile.puck
    if puck is not None and puck.driver == "serial":
        puck_line = f"USB: the die puck ({puck.device})"
    else:
        puck_line = "USB: the die puck, optional (add a [puck] table; firmware/README.md)"
    ports = [("power", f"USB-C: {board.supply}, for the Pi alone"), ("sound", sound), ("puck", puck_line)]
    y = 76
    svg.text(20, y + 8, f"The Pi {board.model}'s own sockets:", 13, font_weight="bold")
    for index, (port, words) in enumerate(p for p in ports if p[1]):
        with svg.group(class_="port", data_port=port):
            svg.rect(20, y + 18 + index * 24, 8, 14, fill="#777777")
            svg.text(36, y + 30 + index * 24, words, 13)


def _strip_assembly(svg: Svg, part: Part) -> None:
    """The strip's data line through a 74AHCT125 and 330 Ω, on its own supply, one ground with the Pi."""
    m = mirror(part.side)
    anchor_in, anchor_out = ("start", "end") if part.side == "left" else ("end", "start")
    data, ground = part.wires[0], part.wires[1]
    ya, yg = part.terminals[data.terminal][1], part.terminals[ground.terminal][1]
    shifter_top, shifter_bottom = min(ya, yg) - 40, max(ya, yg) + 30
    supply_y = shifter_bottom + 110
    strip_y = supply_y + 110
    red, black, blue = COLOURS["5V"], COLOURS["GND"], COLOURS["MOSI"]

    def line(points: list[tuple[float, float]], colour: str, kind: str) -> None:
        svg.polyline([(m(px), py) for px, py in points], class_="wire", data_net=kind, stroke=colour, stroke_width=3,
                     stroke_linejoin="round")

    def box(x0: float, y0: float, x1: float, y1: float) -> None:
        left = min(m(x0), m(x1))
        svg.rect(left, y0, abs(m(x1) - m(x0)), y1 - y0, rx=8, fill="#f4f7fb", stroke="#44546a", stroke_width=1.5)

    def dot(x: float, y: float, colour: str) -> None:
        svg.circle(m(x), y, 5, fill=colour)

    # The nets inside, drawn first so the boxes cover their ends.
    line([(250, shifter_bottom), (250, strip_y)], blue, "data 1Y → 330 Ω → DIN")
    line([(PART_EDGE, yg), (160, yg), (160, strip_y)], black, "ground")
    line([(200, shifter_bottom), (200, strip_y)], red, "5V")
    line([(110, supply_y + 12), (200, supply_y + 12)], red, "5V")
    line([(110, supply_y + 36), (160, supply_y + 36)], black, "ground")
    cap = strip_y - 40
    line([(160, cap), (176, cap)], black, "ground")
    line([(184, cap), (200, cap)], red, "5V")
    dot(200, supply_y + 12, red)
    dot(160, supply_y + 36, black)
    dot(160, cap, black)
    dot(200, cap, red)
    with svg.group(class_="part", data_part="74AHCT125"):
        box(110, shifter_top, PART_EDGE, shifter_bottom)
        svg.text(m(122), shifter_top + 18, "74AHCT125 level shifter", 13, text_anchor=anchor_in, font_weight="bold")
        svg.text(m(PART_EDGE - 10), ya + 4, "1A", 11, text_anchor=anchor_out)
        svg.text(m(PART_EDGE - 10), yg - 6, "GND", 11, text_anchor=anchor_out)
        svg.text(m(250), shifter_bottom - 6, "1Y", 11, text_anchor="middle")
        svg.text(m(200), shifter_bottom - 6, "VCC", 11, text_anchor="middle")
        svg.text(m(160), shifter_bottom - 6, "GND", 11, text_anchor="middle")
        terminal(svg, part.name, data.terminal, m(PART_EDGE), ya, data.colour)
        terminal(svg, part.name, ground.terminal, m(PART_EDGE), yg, ground.colour)
    with svg.group(class_="part", data_part="330 Ω resistor"):
        resistor = shifter_bottom + 30
        svg.rect(m(250) - 7, resistor, 14, 40, fill="#e8d8b0", stroke="#6b5a2e", stroke_width=1.5)
        svg.text(m(236), resistor + 18, "330 Ω", 12, text_anchor="end" if part.side == "left" else "start",
                 font_weight="bold")
        svg.text(m(236), resistor + 32, "at the strip", 10, text_anchor="end" if part.side == "left" else "start",
                 fill="#333333")
    with svg.group(class_="part", data_part="LED supply"):
        box(20, supply_y - 40, 110, supply_y + 50)
        svg.text(m(28), supply_y - 22, f"5 V {led_supply_amps(part.budget_ma):g} A", 12, text_anchor=anchor_in,
                 font_weight="bold")
        svg.text(m(28), supply_y - 6, "LEDs alone", 11, text_anchor=anchor_in)
        svg.text(m(102), supply_y + 16, "+5 V", 10, text_anchor=anchor_out, fill=red)
        svg.text(m(102), supply_y + 40, "GND", 10, text_anchor=anchor_out)
        terminal(svg, "LED supply", "+5V", m(110), supply_y + 12, red)
        terminal(svg, "LED supply", "GND", m(110), supply_y + 36, black)
    with svg.group(class_="part", data_part="1000 µF capacitor"):
        for plate in (176, 184):
            svg.polyline([(m(plate), cap - 10), (m(plate), cap + 10)], stroke="#333333", stroke_width=3)
        svg.text(m(152), cap + 4, "1000 µF", 10, text_anchor=anchor_out, font_weight="bold")
    with svg.group(class_="part", data_part=part.name):
        box(20, strip_y, PART_EDGE, strip_y + 48 + 14 * len(part.notes))
        for x, name, colour in ((160, "GND", black), (200, "5V", red), (250, "DIN", blue)):
            terminal(svg, part.name, name, m(x), strip_y, colour)
            svg.text(m(x), strip_y + 16, name, 10, text_anchor="middle")
        svg.text(m(30), strip_y + 36, part.title, 13, text_anchor=anchor_in, font_weight="bold")
        for index, note in enumerate(part.notes):
            svg.text(m(30), strip_y + 52 + 14 * index, note, 11, text_anchor=anchor_in, fill="#333333")

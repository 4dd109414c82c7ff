"""A profile's wiring on the Pi's 40-pin header, drawn as an SVG a builder can follow.

The header is drawn as it sits on the board, pin 1 at the top left; every
pin carries its number, its name (GPIO17, GND, 3V3) and what the profile
wires to it. Parts whose pins are all in one column of the header sit beside
that column with straight wires; a part on both columns (a reader on SPI1)
sits below, its wires led round the header's end. Which GPIO each part
takes comes from :func:`hardware.header.uses`, the list the profile loader
checks, so a drawing shows exactly what loads; only the ground and 3.3 V
pins, which a profile does not name, are chosen here: each part its own,
nearest its other pins.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.wiring.svg import Svg
from hardware import header
from hardware.config import GpioButtonConfig, Pn532Config, Profile, Rc522Config
from hardware.pixels import worst_case_milliamps

WIDTH = 1320
ROW = 26  # between two pins of one column
TOP = 200  # the y of pins 1 and 2
PAD = 10  # half a pin's square
LEFT_PAD = WIDTH / 2 - 13  # the x of the odd pins; the even pins mirror it
PART_EDGE = 280  # the side of a part facing the header
LABEL = 314  # from a pin's centre to the outer end of its label
LANE = 326  # the innermost lane of the wires led round the header's end
STEP = 10  # between two lanes
BELOW = TOP + 19 * ROW + 40  # the first level below the header a wire round its end runs at

#: Wire colours by what a wire carries: the usual ones (red 5 V, black ground) and one per signal.
COLOURS = {
    "GND": "#1a1a1a", "3V3": "#e07b00", "5V": "#d62020", "button": "#2a9d3c", "SCK": "#7d3cb5",
    "MOSI": "#1f5fd0", "MISO": "#0f9a9a", "CS": "#a0522d", "I2C": "#1f5fd0", "UART": "#0f9a9a", "control": "#8a8a8a",
}
MEANING = {
    "GND": "ground", "3V3": "3.3 V from the Pi", "5V": "5 V from the LED supply (never the Pi's 5 V pins)",
    "button": "button", "SCK": "SPI clock", "MOSI": "SPI data out (to a reader, to the strip)",
    "MISO": "SPI data in", "CS": "chip select", "control": "reset / wake",
}


def colour_of(terminal: str) -> str:
    """The colour of the wire to a part's pin named ``terminal``."""
    for words, kind in ((("GND",), "GND"), (("VCC", "3V3", "3.3 V"), "3V3"), (("leg",), "button"),
                        (("SCK",), "SCK"), (("MOSI", "DIN", "1A"), "MOSI"), (("MISO",), "MISO"),
                        (("SS", "CS"), "CS"), (("SDA", "SCL"), "I2C"), (("RX", "TX"), "UART")):
        if any(word in terminal for word in words):
            return COLOURS[kind]
    return COLOURS["control"]


@dataclass(frozen=True)
class Wire:
    """One wire from a header pin to a part's pin; ``role`` is the pin's label at the header."""

    pin: int
    part: str
    terminal: str
    role: str

    @property
    def colour(self) -> str:
        return colour_of(self.terminal)


@dataclass
class Part:
    """A part wired to the header: its wires, its label, and where it is drawn."""

    name: str
    title: str
    notes: list[str]
    wires: list[Wire]
    kind: str = "part"  # "strip" is drawn with its level shifter, resistor, capacitor and supply
    budget_ma: float = 0  # a strip's: what its supply must give
    side: str = ""  # "left", "right" or "bottom"
    box: tuple[float, float, float, float] = (0, 0, 0, 0)  # x, y, width, height once placed
    terminals: dict[str, tuple[float, float]] = field(default_factory=dict)


def pin_xy(pin: int) -> tuple[float, float]:
    """The centre of a header pin in the drawing."""
    row, odd = (pin - 1) // 2, pin % 2 == 1
    return (LEFT_PAD if odd else WIDTH - LEFT_PAD), TOP + row * ROW


def row_of(pin: int) -> int:
    return (pin - 1) // 2


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
            other = "GND" if button.pull_up else "3V3"
            part = Part(f"{name} button", f"{name} button", [f"pressed: GPIO{button.pin} to {'ground' if button.pull_up else '3.3 V'}"],
                        [Wire(header.PIN_OF_GPIO[button.pin], f"{name} button", "leg 1", f"{name} button")])
            part.wires.append(Wire(0, part.name, f"leg 2 ({other})", f"{name} button, leg 2"))
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
        part.wires += [Wire(0, part.name, "VCC (3.3 V)", f"{chip} {name} VCC"), Wire(0, part.name, "GND", f"{chip} {name} GND")]
        parts.append(part)
    _choose_power_pins(parts)
    return parts, reserved


def _strip(profile: Profile, name: str, wired: list[header.Use]) -> Part:
    strip = profile.leds.strips[name]
    runs = [f"{seg} {s.start}–{s.start + s.count - 1}" for seg, s in profile.leds.segments.items() if s.strip == name]
    worst = worst_case_milliamps(strip.pixels, profile.leds.brightness)
    notes = [f"{strip.pixels} × WS2812B, 5 V", " · ".join(runs),
             f"at most {worst / 1000:.2f} A (brightness cap {profile.leds.brightness:g})"]
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


def _choose_power_pins(parts: list[Part]) -> None:
    """Give each wire a profile does not place (ground, 3.3 V) the free pin nearest its part's other pins."""
    taken = {wire.pin for part in parts for wire in part.wires if wire.pin}
    for part in parts:
        placed = [wire.pin for wire in part.wires if wire.pin]
        columns = {pin % 2 for pin in placed}
        one_column = columns.pop() if len(columns) == 1 else None
        near = sum(row_of(pin) for pin in placed) / len(placed) if one_column is not None else 19
        for index, wire in enumerate(part.wires):
            if wire.pin:
                continue
            kind = "3V3" if "3V3" in wire.terminal or "3.3 V" in wire.terminal else "GND"
            pin = _nearest(kind, one_column, near, taken)
            taken.add(pin)
            part.wires[index] = Wire(pin, wire.part, wire.terminal, wire.role)


def _nearest(kind: str, column: int | None, near: float, taken: set[int]) -> int:
    pins = [pin for pin, name in header.PINS.items() if name == kind]
    for candidates in ([p for p in pins if p not in taken and (column is None or p % 2 == column)],
                       [p for p in pins if p not in taken], pins):  # two 3.3 V pins: a third part shares one
        if candidates:
            return min(candidates, key=lambda pin: (abs(row_of(pin) - near), pin))
    raise AssertionError(kind)


# -- where each part goes ---------------------------------------------------------------------
def place(parts: list[Part]) -> float:
    """Put each part beside its column, or below the header; return the y below the lowest part."""
    free = {"left": 0.0, "right": 0.0}
    bottom: list[Part] = []
    for part in sorted(parts, key=lambda p: min(row_of(w.pin) for w in p.wires)):
        columns = {wire.pin % 2 for wire in part.wires}
        side = ("left" if columns == {1} else "right") if len(columns) == 1 else "bottom"
        if side != "bottom":
            rows = [pin_xy(w.pin)[1] for w in part.wires]
            top = min(rows) - 40
            height = (max(rows) - top) + (_STRIP_DROP if part.kind == "strip" else 20 + 16 * len(part.notes))
            if top < free[side] + 10:
                side = "bottom"
            else:
                part.side, free[side] = side, top + height
                part.box = (20, top, PART_EDGE - 20, height)
                continue
        part.side = side
        bottom.append(part)
    lowest = max(free.values()) if parts else 0
    return max(lowest, _place_bottom(bottom))


_STRIP_DROP = 330  # below the shifter's last pin: the resistor, the supply, the capacitor and the strip


def _place_bottom(parts: list[Part]) -> float:
    """Below the header, side by side, each part's pins along its top edge."""
    if not parts:
        return 0
    wires = [wire for part in parts for wire in part.wires]
    deepest = max(sum(1 for w in wires if w.pin % 2 == odd) for odd in (0, 1))
    y = BELOW + STEP * (deepest + 2)
    widths = [max(220, 70 * len(part.wires) + 30) for part in parts]
    x = (WIDTH - sum(widths) - 30 * (len(parts) - 1)) / 2
    height = 0.0
    for part, width in zip(parts, widths, strict=True):
        part.box = (x, y, width, 60 + 16 * len(part.notes))
        left = sorted((w for w in part.wires if w.pin % 2), key=lambda w: w.pin)
        right = sorted((w for w in part.wires if not w.pin % 2), key=lambda w: -w.pin)
        for index, wire in enumerate([*left, *right]):
            part.terminals[wire.terminal] = (x + 50 + 70 * index, y)
        x += width + 30
        height = max(height, part.box[3])
    return y + height


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
    lowest = place(parts)
    height = max(lowest, pin_xy(40)[1] + 40) + 130
    svg = Svg(WIDTH, height, f"gamebox wiring: {profile.name or 'profile'} on a Raspberry Pi {model}")
    svg.text(20, 34, f"Wiring: profile {profile.name or 'profile'} on a Raspberry Pi {model}", 22, font_weight="bold")
    svg.text(20, 56, profile.description, 13, fill="#444444")
    _ports(svg, profile, board)
    with svg.group(class_="wires"):
        for part in parts:
            _wires(svg, part, parts)
    _header(svg, parts, reserved)
    for part in parts:
        if part.kind == "strip" and part.side != "bottom":
            _strip_assembly(svg, part)
        else:
            _block(svg, part)
    _legend(svg, parts, height - 100)
    return svg.document()


def _mirror(side: str) -> Callable[[float], float]:
    return (lambda x: x) if side != "right" else (lambda x: WIDTH - x)


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


def _header(svg: Svg, parts: list[Part], reserved: dict[int, str]) -> None:
    roles = {wire.pin: wire for part in parts for wire in part.wires}
    x0, x1 = LEFT_PAD - 24, WIDTH - LEFT_PAD + 24
    svg.rect(x0, TOP - 24, x1 - x0, 19 * ROW + 48, rx=6, fill="#2b2b2b")
    svg.text(WIDTH / 2, TOP - 50, "40-pin header", 13, text_anchor="middle", font_weight="bold")
    svg.text(x1 - 14, TOP - 32, "board edge →", 11, fill="#666666")
    for pin, name in header.PINS.items():
        x, y = pin_xy(pin)
        left = pin % 2 == 1
        sign = -1 if left else 1
        anchor = "end" if left else "start"
        wire = roles.get(pin)
        role = wire.role if wire else reserved.get(pin, "")
        gpio = name[4:] if name.startswith("GPIO") else ""
        with svg.group(class_="pin", data_pin=pin, data_name=name, data_role=role or None):
            fill = {"GND": "#1a1a1a", "3V3": "#e07b00", "5V": "#d62020"}.get(name, "#c8a03c")
            svg.rect(x - PAD, y - PAD, 2 * PAD, 2 * PAD, fill=fill, stroke="#ffffff" if pin == 1 else None,
                     rx=0 if pin == 1 else PAD)
            svg.text(x, y + 4, str(pin), 10, text_anchor="middle", fill="#ffffff", font_weight="bold")
            if wire:  # one label from the pin to where its wire leaves, in the wire's colour
                svg.rect(min(x + sign * 14, x + sign * LABEL), y - 10, LABEL - 14, 20, rx=10, fill="#ffffff",
                         stroke=wire.colour, stroke_width=2.5)
                svg.text(x + sign * 160, y + 4, wire.role, 12, text_anchor=anchor, font_weight="bold")
            elif role:
                svg.text(x + sign * 160, y + 4, role, 11, text_anchor=anchor, fill="#888888", font_style="italic")
            svg.text(x + sign * 30, y + 4, name, 12, text_anchor=anchor, font_weight="bold" if wire else None,
                     fill="#111111" if wire or not gpio else "#777777")
            function = header.function(int(gpio)) if gpio else ""
            if function:
                svg.text(x + sign * 84, y + 4, function, 10, text_anchor=anchor, fill="#666666")


def _wires(svg: Svg, part: Part, parts: list[Part]) -> None:
    x, y, width, _ = part.box
    if part.side != "bottom":
        mirror = _mirror(part.side)
        for wire in part.wires:
            start = pin_xy(wire.pin)
            end = (mirror(PART_EDGE), start[1])
            part.terminals[wire.terminal] = end
            _wire(svg, wire, [start, end])
        return
    bottom = [w for p in parts if p.side == "bottom" for w in p.wires]
    for wire in part.wires:
        start = pin_xy(wire.pin)
        column = [w for w in bottom if w.pin % 2 == wire.pin % 2]
        rank = sorted(column, key=lambda w: -w.pin).index(wire)  # the lowest pin takes the inner lane
        lane = LANE - STEP * rank if wire.pin % 2 else WIDTH - LANE + STEP * rank
        level = BELOW + STEP * rank
        end = part.terminals[wire.terminal]
        _wire(svg, wire, [start, (lane, start[1]), (lane, level), (end[0], level), end])


def _wire(svg: Svg, wire: Wire, points: list[tuple[float, float]]) -> None:
    svg.polyline(points, class_="wire", data_pin=wire.pin, data_part=wire.part, data_terminal=wire.terminal,
                 stroke=wire.colour, stroke_width=3, stroke_linejoin="round")


def _terminal(svg: Svg, part: str, name: str, x: float, y: float, colour: str) -> None:
    svg.circle(x, y, 4, class_="terminal", data_part=part, data_terminal=name, fill=colour)


def _block(svg: Svg, part: Part) -> None:
    x, y, width, height = part.box
    if part.side == "right":
        x = WIDTH - x - width
    with svg.group(class_="part", data_part=part.name):
        svg.rect(x, y, width, height, rx=8, fill="#f4f7fb", stroke="#44546a", stroke_width=1.5)
        if part.side == "bottom":
            svg.text(x + 12, y + 40, part.title, 14, font_weight="bold")
            for index, note in enumerate(part.notes):
                svg.text(x + 12, y + 58 + 16 * index, note, 12, fill="#333333")
            for wire in part.wires:
                tx, ty = part.terminals[wire.terminal]
                svg.text(tx, ty + 16, wire.terminal, 11, text_anchor="middle")
                _terminal(svg, part.name, wire.terminal, tx, ty, wire.colour)
            return
        inner = x + 12 if part.side == "left" else x + width - 12
        anchor = "start" if part.side == "left" else "end"
        svg.text(inner, y + 20, part.title, 14, text_anchor=anchor, font_weight="bold")
        last = 0.0
        for wire in part.wires:
            tx, ty = part.terminals[wire.terminal]
            svg.text(tx - 10 if part.side == "left" else tx + 10, ty + 4, wire.terminal, 11,
                     text_anchor="end" if part.side == "left" else "start")
            _terminal(svg, part.name, wire.terminal, tx, ty, wire.colour)
            last = max(last, ty)
        for index, note in enumerate(part.notes):
            svg.text(inner, last + 24 + 16 * index, note, 12, text_anchor=anchor, fill="#333333")


def _strip_assembly(svg: Svg, part: Part) -> None:
    """The strip's data line through a 74AHCT125 and 330 Ω, on its own supply, one ground with the Pi."""
    m = _mirror(part.side)
    anchor_in, anchor_out = ("start", "end") if part.side == "left" else ("end", "start")
    data, ground = part.wires[0], part.wires[1]
    ya, yg = part.terminals[data.terminal][1], part.terminals[ground.terminal][1]
    shifter_top, shifter_bottom = ya - 40, yg + 16
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
        svg.text(m(122), ya + 22, "1/OE, 2/OE–4/OE,", 11, text_anchor=anchor_in, fill="#333333")
        svg.text(m(122), ya + 36, "2A–4A: to GND", 11, text_anchor=anchor_in, fill="#333333")
        svg.text(m(PART_EDGE - 10), ya + 4, "1A", 11, text_anchor=anchor_out)
        svg.text(m(PART_EDGE - 10), yg - 6, "GND", 11, text_anchor=anchor_out)
        svg.text(m(250), shifter_bottom - 6, "1Y", 11, text_anchor="middle")
        svg.text(m(200), shifter_bottom - 6, "VCC", 11, text_anchor="middle")
        _terminal(svg, part.name, data.terminal, m(PART_EDGE), ya, data.colour)
        _terminal(svg, part.name, ground.terminal, m(PART_EDGE), yg, ground.colour)
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
        _terminal(svg, "LED supply", "+5V", m(110), supply_y + 12, red)
        _terminal(svg, "LED supply", "GND", m(110), supply_y + 36, black)
    with svg.group(class_="part", data_part="1000 µF capacitor"):
        for plate in (176, 184):
            svg.polyline([(m(plate), cap - 10), (m(plate), cap + 10)], stroke="#333333", stroke_width=3)
        svg.text(m(152), cap + 4, "1000 µF", 10, text_anchor=anchor_out, font_weight="bold")
    with svg.group(class_="part", data_part=part.name):
        box(20, strip_y, PART_EDGE, strip_y + 90)
        for x, name, colour in ((160, "GND", black), (200, "5V", red), (250, "DIN", blue)):
            _terminal(svg, part.name, name, m(x), strip_y, colour)
            svg.text(m(x), strip_y + 16, name, 10, text_anchor="middle")
        svg.text(m(30), strip_y + 36, part.title, 13, text_anchor=anchor_in, font_weight="bold")
        for index, note in enumerate(part.notes):
            svg.text(m(30), strip_y + 52 + 14 * index, note, 11, text_anchor=anchor_in, fill="#333333")


def _legend(svg: Svg, parts: list[Part], y: float) -> None:
    used = {wire.colour for part in parts for wire in part.wires}
    kinds = [kind for kind, colour in COLOURS.items() if colour in used or (kind == "5V" and any(
        p.kind == "strip" for p in parts))]
    svg.text(20, y, "Wires:", 13, font_weight="bold")
    x = 80
    for kind in dict.fromkeys(kinds):
        if kind not in MEANING:
            continue
        svg.polyline([(x, y - 4), (x + 24, y - 4)], stroke=COLOURS[kind], stroke_width=4)
        svg.text(x + 30, y, MEANING[kind], 12)
        x += 48 + 6.6 * len(MEANING[kind])
        if x > WIDTH - 260:
            x, y = 80, y + 22
    notes = [
        "Pin 1 (the square pad) is at the header's end away from the USB sockets; the even pins run along the board's edge.",
        "One common ground: the Pi, the 74AHCT125, the strip and its supply all share GND. "
        "The strip's 5 V comes from its own supply only.",
        "Drawn from the profile by `gamebox wiring`: what it shows is what the box loads.",
    ]
    for index, note in enumerate(notes):
        svg.text(20, y + 26 + 18 * index, note, 12, fill="#333333")

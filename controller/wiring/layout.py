"""Parts wired to a board's two columns of pins, laid out and drawn: the Pi's header, the Pico's edge.

Each pin is drawn with its number, its name and what it is wired for. Parts
whose pins are all in one column sit beside that column with straight
wires; a part on both columns (a reader on SPI1) sits below, its wires led
round the end of the columns, each in its own lane so no two run together.
The ground and 3.3 V pins a profile does not name are chosen here: each
part its own, nearest its other pins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controller.wiring.svg import Svg

WIDTH = 1320
ROW = 26  # between two pins of one column
TOP = 200  # the y of the first row of pins
PAD = 10  # half a pin's square
LEFT_PAD = WIDTH / 2 - 13  # the x of the left column; the right column mirrors it
PART_EDGE = 280  # the side of a part facing the pins
LABEL = 314  # from a pin's centre to the outer end of its label
LANE = 326  # the innermost lane of the wires led round the end of the columns
STEP = 10  # between two lanes
ROWS = 20
BELOW = TOP + (ROWS - 1) * ROW + 40  # the first level below the pins a wire round their end runs at
STRIP_DROP = 360  # below a strip's shifter's last pin: the resistor, the supply, the capacitor and the strip


@dataclass(frozen=True)
class Connector:
    """A board's pins in two columns of 20: what each is, and where it sits."""

    title: str
    pins: dict[int, str]
    row: Callable[[int], int]
    left: Callable[[int], bool]
    function: Callable[[str], str]  # a pin name's bus function ("SPI0 MOSI"), or ""
    edge: str  # a note over the right column: where it lies on the board
    body: str  # the board's colour


def pin_xy(board: Connector, pin: int) -> tuple[float, float]:
    """The centre of a pin in the drawing."""
    return (LEFT_PAD if board.left(pin) else WIDTH - LEFT_PAD), TOP + board.row(pin) * ROW


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
    for words, kind in ((("GND",), "GND"), (("VCC", "3V3", "3.3 V"), "3V3"), (("5V", "VBUS"), "5V"),
                        (("leg", "button", "switch"), "button"),
                        (("SCK",), "SCK"), (("MOSI", "DIN", "1A"), "MOSI"), (("MISO",), "MISO"),
                        (("SS", "CS"), "CS"), (("SDA", "SCL"), "I2C"), (("RX", "TX"), "UART")):
        if any(word in terminal for word in words):
            return COLOURS[kind]
    return COLOURS["control"]


@dataclass(frozen=True)
class Wire:
    """One wire from a pin to a part's pin; ``role`` is the pin's label; ``pin`` 0 until a ground is chosen."""

    pin: int
    part: str
    terminal: str
    role: str

    @property
    def colour(self) -> str:
        return colour_of(self.terminal)


@dataclass
class Part:
    """A part wired to the board: its wires, its label, and where it is drawn."""

    name: str
    title: str
    notes: list[str]
    wires: list[Wire]
    kind: str = "part"  # "strip" leaves room below for its level shifter, resistor, capacitor and supply
    budget_ma: float = 0  # a strip's: what its supply must give
    side: str = ""  # "left", "right" or "bottom"
    box: tuple[float, float, float, float] = (0, 0, 0, 0)  # x, y, width, height once placed
    terminals: dict[str, tuple[float, float]] = field(default_factory=dict)


def choose_power_pins(board: Connector, parts: list[Part]) -> None:
    """Give each wire a profile does not place (ground, 3.3 V) the free pin nearest its part's other pins."""
    taken = {wire.pin for part in parts for wire in part.wires if wire.pin}
    for part in parts:
        placed = [wire.pin for wire in part.wires if wire.pin]
        columns = {board.left(pin) for pin in placed}
        one_column = columns.pop() if len(columns) == 1 else None
        near = sum(board.row(pin) for pin in placed) / len(placed) if one_column is not None else ROWS - 1
        for index, wire in enumerate(part.wires):
            if wire.pin:
                continue
            kind = "3V3" if "3V3" in wire.terminal or "3.3 V" in wire.terminal else "GND"
            pin = _nearest(board, kind, one_column, near, taken)
            taken.add(pin)
            part.wires[index] = Wire(pin, wire.part, wire.terminal, wire.role)


def _nearest(board: Connector, kind: str, left: bool | None, near: float, taken: set[int]) -> int:
    pins = [pin for pin, name in board.pins.items() if name == kind]
    for candidates in ([p for p in pins if p not in taken and (left is None or board.left(p) == left)],
                       [p for p in pins if p not in taken], pins):  # two 3.3 V pins: a third part shares one
        if candidates:
            return min(candidates, key=lambda pin: (abs(board.row(pin) - near), pin))
    raise AssertionError(kind)


# -- where each part goes ---------------------------------------------------------------------
def place(board: Connector, parts: list[Part]) -> float:
    """Put each part beside its column, or below the pins; return the y below the lowest part."""
    free = {"left": 0.0, "right": 0.0}
    bottom: list[Part] = []
    for part in sorted(parts, key=lambda p: min(board.row(w.pin) for w in p.wires)):
        columns = {board.left(wire.pin) for wire in part.wires}
        side = ("left" if columns == {True} else "right") if len(columns) == 1 else "bottom"
        if side != "bottom":
            rows = [pin_xy(board, w.pin)[1] for w in part.wires]
            top = min(rows) - 40
            height = (max(rows) - top) + (STRIP_DROP if part.kind == "strip" else 20 + 16 * len(part.notes))
            if top < free[side] + 10:
                side = "bottom"
            else:
                part.side, free[side] = side, top + height
                part.box = (20, top, PART_EDGE - 20, height)
                continue
        part.side = side
        bottom.append(part)
    lowest = max(free.values()) if parts else 0
    return max(lowest, _place_bottom(board, bottom))



def _place_bottom(board: Connector, parts: list[Part]) -> float:
    """Below the pins, side by side, each part's pins along its top edge."""
    if not parts:
        return 0
    wires = [wire for part in parts for wire in part.wires]
    deepest = max(sum(1 for w in wires if board.left(w.pin) == left) for left in (True, False))
    y = BELOW + STEP * (deepest + 2)
    widths = [max(220, 70 * len(part.wires) + 30) for part in parts]
    x = (WIDTH - sum(widths) - 30 * (len(parts) - 1)) / 2
    height = 0.0
    for part, width in zip(parts, widths, strict=True):
        part.box = (x, y, width, 60 + 16 * len(part.notes))
        left = sorted((w for w in part.wires if board.left(w.pin)), key=lambda w: board.row(w.pin))
        right = sorted((w for w in part.wires if not board.left(w.pin)), key=lambda w: -board.row(w.pin))
        for index, wire in enumerate([*left, *right]):
            part.terminals[wire.terminal] = (x + 50 + 70 * index, y)
        x += width + 30
        height = max(height, part.box[3])
    return y + height


def mirror(side: str) -> Callable[[float], float]:
    return (lambda x: x) if side != "right" else (lambda x: WIDTH - x)


def draw_pins(svg: Svg, board: Connector, parts: list[Part], reserved: dict[int, str]) -> None:
    """The board's pins, each with its number and name, and what it is wired for (or kept free for)."""
    roles = {wire.pin: wire for part in parts for wire in part.wires}
    x0, x1 = LEFT_PAD - 24, WIDTH - LEFT_PAD + 24
    svg.rect(x0, TOP - 24, x1 - x0, (ROWS - 1) * ROW + 48, rx=6, fill=board.body)
    svg.text(WIDTH / 2, TOP - 50, board.title, 13, text_anchor="middle", font_weight="bold")
    if board.edge:
        svg.text(x1 - 14, TOP - 32, board.edge, 11, fill="#666666")
    for pin, name in board.pins.items():
        x, y = pin_xy(board, pin)
        left = board.left(pin)
        sign = -1 if left else 1
        anchor = "end" if left else "start"
        wire = roles.get(pin)
        role = wire.role if wire else reserved.get(pin, "")
        gpio = name.startswith("GP")
        with svg.group(class_="pin", data_pin=pin, data_name=name, data_role=role or None):
            fill = {"GND": "#1a1a1a", "3V3": "#e07b00", "5V": "#d62020", "VBUS": "#d62020"}.get(name, "#c8a03c")
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
            function = board.function(name)
            if function:
                svg.text(x + sign * 84, y + 4, function, 10, text_anchor=anchor, fill="#666666")


def draw_wires(svg: Svg, board: Connector, part: Part, parts: list[Part]) -> None:
    """The part's wires from its pins, straight beside the columns, round their end to a part below."""
    if part.side != "bottom":
        m = mirror(part.side)
        for wire in part.wires:
            start = pin_xy(board, wire.pin)
            end = (m(PART_EDGE), start[1])
            part.terminals[wire.terminal] = end
            _wire(svg, wire, [start, end])
        return
    bottom = [w for p in parts if p.side == "bottom" for w in p.wires]
    for wire in part.wires:
        start = pin_xy(board, wire.pin)
        column = [w for w in bottom if board.left(w.pin) == board.left(wire.pin)]
        rank = sorted(column, key=lambda w: -board.row(w.pin)).index(wire)  # the lowest pin takes the inner lane
        lane = LANE - STEP * rank if board.left(wire.pin) else WIDTH - LANE + STEP * rank
        level = BELOW + STEP * rank
        end = part.terminals[wire.terminal]
        _wire(svg, wire, [start, (lane, start[1]), (lane, level), (end[0], level), end])


def _wire(svg: Svg, wire: Wire, points: list[tuple[float, float]]) -> None:
    svg.polyline(points, class_="wire", data_pin=wire.pin, data_part=wire.part, data_terminal=wire.terminal,
                 stroke=wire.colour, stroke_width=3, stroke_linejoin="round")


def terminal(svg: Svg, part: str, name: str, x: float, y: float, colour: str) -> None:
    svg.circle(x, y, 4, class_="terminal", data_part=part, data_terminal=name, fill=colour)


def draw_block(svg: Svg, part: Part) -> None:
    """A part as a box, its pins on the edge facing the board."""
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
                terminal(svg, part.name, wire.terminal, tx, ty, wire.colour)
            return
        inner = x + 12 if part.side == "left" else x + width - 12
        anchor = "start" if part.side == "left" else "end"
        svg.text(inner, y + 20, part.title, 14, text_anchor=anchor, font_weight="bold")
        last = 0.0
        for wire in part.wires:
            tx, ty = part.terminals[wire.terminal]
            svg.text(tx - 10 if part.side == "left" else tx + 10, ty + 4, wire.terminal, 11,
                     text_anchor="end" if part.side == "left" else "start")
            terminal(svg, part.name, wire.terminal, tx, ty, wire.colour)
            last = max(last, ty)
        for index, note in enumerate(part.notes):
            svg.text(inner, last + 24 + 16 * index, note, 12, text_anchor=anchor, fill="#333333")


def legend(svg: Svg, parts: list[Part], y: float, notes: list[str], meaning: dict[str, str] = MEANING) -> None:
    """The wire colours used, what each carries, then ``notes``."""
    used = {wire.colour for part in parts for wire in part.wires}
    kinds = [kind for kind, colour in COLOURS.items() if colour in used or (kind == "5V" and any(
        p.kind == "strip" for p in parts))]
    svg.text(20, y, "Wires:", 13, font_weight="bold")
    x = 80
    for kind in dict.fromkeys(kinds):
        if kind not in meaning:
            continue
        svg.polyline([(x, y - 4), (x + 24, y - 4)], stroke=COLOURS[kind], stroke_width=4)
        svg.text(x + 30, y, meaning[kind], 12)
        x += 48 + 6.6 * len(meaning[kind])
        if x > WIDTH - 260:
            x, y = 80, y + 22
    for index, note in enumerate(notes):
        svg.text(20, y + 26 + 18 * index, note, 12, fill="#333333")

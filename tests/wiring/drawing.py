"""Reading a drawing back: its pins, wires and parts, through the data-* attributes it carries."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

NS = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Pin:
    number: int
    name: str
    role: str
    texts: tuple[str, ...]  # every word written beside the pin
    centre: tuple[float, float]


@dataclass(frozen=True)
class Drawing:
    pins: dict[int, Pin]
    wires: list[dict[str, str]]  # the attributes of each wire, with "points" as [(x, y), ...] in "path"
    terminals: dict[tuple[str, str], tuple[float, float]]  # (part, terminal): centre
    parts: set[str]
    root: ET.Element

    def wire_to(self, part: str, terminal: str) -> dict:
        (wire,) = [w for w in self.wires if w.get("data-part") == part and w.get("data-terminal") == terminal]
        return wire

    def text(self) -> str:
        return " ".join(element.text or "" for element in self.root.iter(f"{NS}text"))


def points(text: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (pair.split(",") for pair in text.split())]


def read(svg: str) -> Drawing:
    root = ET.fromstring(svg)
    pins: dict[int, Pin] = {}
    for group in root.iter(f"{NS}g"):
        if group.get("class") == "pin":
            texts = tuple(t.text or "" for t in group.iter(f"{NS}text"))
            pad = next(r for r in group.iter(f"{NS}rect") if r.get("width") == r.get("height"))  # the square one
            half = float(pad.get("width")) / 2
            centre = (float(pad.get("x")) + half, float(pad.get("y")) + half)
            number = int(group.get("data-pin"))
            pins[number] = Pin(number, group.get("data-name"), group.get("data-role", ""), texts, centre)
    wires = []
    for line in root.iter(f"{NS}polyline"):
        if line.get("class") == "wire":
            wires.append({**line.attrib, "path": points(line.get("points"))})
    terminals = {(c.get("data-part"), c.get("data-terminal")): (float(c.get("cx")), float(c.get("cy")))
                 for c in root.iter(f"{NS}circle") if c.get("class") == "terminal"}
    parts = {g.get("data-part") for g in root.iter(f"{NS}g") if g.get("class") == "part"}
    return Drawing(pins, wires, terminals, parts, root)

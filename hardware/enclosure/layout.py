"""Where everything goes on the box's lid, worked out from a profile's LED runs.

The strip is cut between pixels, so every straight piece of a run holds a
whole number of pixels and is exactly that many pitches long; pieces meet in
square corner cells where three short wires bridge the cut. The sea route and
the police track are laid in rows across the lid (there and back, like a
plough), the turn ring as a closed square round the reader's spot. The lid
grows to fit what the profile asks for; :mod:`hardware.enclosure.params`
writes the result for ``box.scad``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware.config import Profile

#: The three runs the box paints, in the order the lid is laid out (back to front).
RUNS = ("sea-route", "turn-ring", "police-track")
RING = "turn-ring"


class LayoutError(ValueError):
    """A profile whose LED runs cannot be laid out on a lid; ``str()`` says why, in one line."""


@dataclass(frozen=True)
class Parts:
    """Sizes of the bought parts and of the print, in mm: what a builder might measure differently."""

    pixels_per_metre: int = 60
    strip_width: float = 10.0
    strip_gap: float = 0.4  # each side of the strip, in its channel
    rib: float = 1.2  # the channel walls under the lid
    row_pixels: int = 11  # at most this many pixels in one straight row of a run
    button_hole: float = 60.0
    speaker: float = 40.0
    reader: tuple[float, float] = (43.0, 41.0)  # the PN532 board, antenna side up against the lid
    reader_gap: float = 0.3  # each side of the board, in its brackets
    pi: tuple[float, float] = (85.0, 56.0)
    pi_holes: tuple[float, float] = (58.0, 49.0)
    wall: float = 2.4
    fit: float = 0.3  # between the lid's lip and the base's walls
    lip: float = 1.6
    margin: float = 2.5  # between the lip and anything under the lid
    gap: float = 6.0  # between the runs, the ring, the button and the grille

    @property
    def pitch(self) -> float:
        return 1000 / self.pixels_per_metre

    @property
    def channel(self) -> float:
        return self.strip_width + 2 * self.strip_gap


@dataclass(frozen=True)
class Leg:
    """One straight piece of strip: its first pixel's edge on the centre line, its direction, its pixels."""

    x: float
    y: float
    angle: int  # 0, 90, 180 or 270 degrees
    pixels: int

    def moved(self, dx: float, dy: float) -> Leg:
        return Leg(self.x + dx, self.y + dy, self.angle, self.pixels)


@dataclass(frozen=True)
class Run:
    """A segment of the strip as it lies under the lid."""

    name: str
    legs: tuple[Leg, ...]
    corners: tuple[tuple[float, float], ...]  # centres of the corner cells between legs
    closed: bool = False

    @property
    def pixels(self) -> int:
        return sum(leg.pixels for leg in self.legs)

    def moved(self, dx: float, dy: float) -> Run:
        return Run(
            self.name,
            tuple(leg.moved(dx, dy) for leg in self.legs),
            tuple((x + dx, y + dy) for x, y in self.corners),
            self.closed,
        )


@dataclass(frozen=True)
class Layout:
    """The whole lid: its outer size and where each part sits (x to the right, y away from the children)."""

    parts: Parts
    width: float
    depth: float
    runs: dict[str, Run]
    reader: tuple[float, float]
    button: tuple[float, float]
    speaker: tuple[float, float]
    pi: tuple[float, float]  # the board's corner nearest the front left, on the base's floor


_DIRECTIONS = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}


def _lay(name: str, pieces: list[tuple[int, int]], parts: Parts, closed: bool = False) -> Run:
    """Lay ``(angle, pixels)`` pieces one after the other from (0, 0), a corner cell between each two."""
    x = y = 0.0
    legs: list[Leg] = []
    corners: list[tuple[float, float]] = []
    for index, (angle, pixels) in enumerate(pieces):
        dx, dy = _DIRECTIONS[angle]
        if index:  # leave the corner cell, whose centre is (x, y)
            x, y = x + dx * parts.channel / 2, y + dy * parts.channel / 2
        legs.append(Leg(x, y, angle, pixels))
        length = pixels * parts.pitch
        x, y = x + dx * length, y + dy * length
        if index < len(pieces) - 1 or closed:
            x, y = x + dx * parts.channel / 2, y + dy * parts.channel / 2
            corners.append((x, y))
    return Run(name, tuple(legs), tuple(corners), closed)


def rows(pixels: int, most: int) -> tuple[int, int, int]:
    """(rows, pixels per row, pixels in each turn) that use every pixel, the fewest rows first.

    A turn of 1-3 pixels joins each row to the next; 24 pixels in rows of at
    most 11 are two rows of 11 joined by a turn of 2.
    """
    for count in range(1, pixels + 1):
        for turn in (1, 2, 3) if count > 1 else (0,):
            per_row, rest = divmod(pixels - (count - 1) * turn, count)
            if not rest and 1 <= per_row <= most:
                return count, per_row, turn
    raise LayoutError(f"{pixels} pixels cannot be laid in rows of at most {most}")  # only most < 1 gets here


def plough(name: str, pixels: int, parts: Parts) -> Run:
    """A run in rows across the lid, each row turning down to the next."""
    count, per_row, turn = rows(pixels, parts.row_pixels)
    pieces: list[tuple[int, int]] = []
    for row in range(count):
        pieces.append((0 if row % 2 == 0 else 180, per_row))
        if row < count - 1:
            pieces.append((270, turn))
    return _lay(name, pieces, parts)


def ring(name: str, pixels: int, parts: Parts) -> Run:
    """A square loop, its sides as even as the pixel count allows; closed when opposite sides match."""
    if pixels < 4:
        raise LayoutError(f"leds.segments.{name}.count = {pixels}: a ring needs at least 4 pixels, one per side")
    first = math.ceil(pixels / 4)
    second = math.ceil((pixels - 2 * first) / 2)
    last = pixels - 2 * first - second
    run = _lay(name, [(0, first), (90, second), (180, first), (270, last)], parts, closed=last == second)
    if last != second:  # open: the start has a corner cell of its own, for the wires
        run = Run(name, run.legs, run.corners + ((run.legs[0].x - parts.channel / 2, run.legs[0].y),))
    return run


def extent(run: Run, parts: Parts) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a run's channels and their walls."""
    half = parts.channel / 2 + parts.rib
    xs: list[float] = []
    ys: list[float] = []
    for leg in run.legs:
        dx, dy = _DIRECTIONS[leg.angle]
        length = leg.pixels * parts.pitch
        for x, y in ((leg.x, leg.y), (leg.x + dx * length, leg.y + dy * length)):
            xs += [x - half, x + half]
            ys += [y - half, y + half]
    for x, y in run.corners:
        xs += [x - half, x + half]
        ys += [y - half, y + half]
    return min(xs), min(ys), max(xs), max(ys)


def segment_pixels(profile: Profile) -> dict[str, int]:
    """Each run's pixel count, as the profile's segments give it."""
    missing = [name for name in RUNS if name not in profile.leds.segments]
    if missing:
        have = ", ".join(profile.leds.segments) or "none"
        raise LayoutError(
            f"leds.segments has no {', '.join(missing)}: the box's lid lays out {', '.join(RUNS)} (the profile has {have})"
        )
    return {name: profile.leds.segments[name].count for name in RUNS}


def lay_out(profile: Profile, parts: Parts = Parts()) -> Layout:
    """The lid for this profile: the sea route at the back, the police track at the front, between them
    the speaker's grille, the turn ring round the reader's spot, and the button."""
    counts = segment_pixels(profile)
    sea = plough("sea-route", counts["sea-route"], parts)
    police = plough("police-track", counts["police-track"], parts)
    turn = ring(RING, counts[RING], parts)
    rx0, ry0, rx1, ry1 = extent(turn, parts)
    reader_w, reader_d = parts.reader
    inner = (turn.legs[0].pixels * parts.pitch, turn.legs[1].pixels * parts.pitch)
    brackets = 2 * (parts.reader_gap + parts.rib)  # round the board, inside the ring's own walls
    if inner[0] - 2 * parts.rib < reader_w + brackets or inner[1] - 2 * parts.rib < reader_d + brackets:
        raise LayoutError(
            f"leds.segments.{RING}.count = {counts[RING]}: a ring of {counts[RING]} pixels leaves "
            f"{inner[0]:.0f} x {inner[1]:.0f} mm inside, too small for the {reader_w:.0f} x {reader_d:.0f} mm reader"
        )
    # The middle row: grille, ring, button, each in a box of its own (the button's nut needs room).
    grille_box = parts.speaker + 2 * parts.rib + 2
    button_box = parts.button_hole + 10
    middle_w = grille_box + (rx1 - rx0) + button_box + 2 * parts.gap
    middle_d = max(grille_box, ry1 - ry0, button_box)
    bands = [extent(sea, parts), extent(police, parts)]
    inside_w = max(middle_w, *(x1 - x0 for x0, _, x1, _ in bands))
    inside_d = middle_d + sum(y1 - y0 for _, y0, _, y1 in bands) + 2 * parts.gap
    edge = parts.wall + parts.fit + parts.lip + parts.margin
    width, depth = inside_w + 2 * edge, inside_d + 2 * edge

    def place(run: Run, top: float) -> Run:
        x0, y0, x1, y1 = extent(run, parts)
        return run.moved(width / 2 - (x0 + x1) / 2, top - y1)

    sea = place(sea, depth - edge)
    police = place(police, edge + (bands[1][3] - bands[1][1]))
    middle_y = edge + (bands[1][3] - bands[1][1]) + parts.gap + middle_d / 2
    left = width / 2 - middle_w / 2
    speaker = (left + grille_box / 2, middle_y)
    ring_x = left + grille_box + parts.gap
    turn = turn.moved(ring_x - rx0, middle_y - (ry0 + ry1) / 2)
    first = turn.legs[0]
    reader = (first.x + inner[0] / 2, first.y + parts.channel / 2 + inner[1] / 2)
    button = (ring_x + (rx1 - rx0) + parts.gap + button_box / 2, middle_y)
    pi = (parts.wall + 4.0, depth - parts.wall - 2.0 - parts.pi[1])  # back left, its sockets just inside the walls
    return Layout(parts, width, depth, {"sea-route": sea, RING: turn, "police-track": police}, reader, button, speaker, pi)

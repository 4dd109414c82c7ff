"""The pirates' sea route to Treasure Island: ships per seat, a ship sailing a step, the island's gold.

The route is cut into ``steps + 1`` cells: the harbour (0), one cell per
round a ship must still win, and Treasure Island (``steps``, the rounds
needed to win). Each seat's ship has its own slot inside a cell, so ships
sharing a cell stay apart and each keeps its colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Sequence

from controller.stage.lights.base import Animation, Pixel, spread
from controller.stage.lights.colors import GOLD, ISLAND, OFF, SEA, SEAT_COLORS, WAVE, WHITE, blend, scale


def _slot(n: int, steps: int, cell: int, seat: int) -> int:
    """The pixel where ``seat``'s ship shows when it is in ``cell``."""
    start, width = spread(n, steps + 1)[cell]
    return start + min(width - 1, (seat + 1) * width // (len(SEAT_COLORS) + 1))


def sea_route(n: int, steps: int, ships: Sequence[int | None]) -> list[Pixel]:
    """The still route: water, a dark gap before each cross, the island, and every ship in its cell.

    A ship given as None is left out (the one that is sailing).
    """
    frame: list[Pixel] = []
    for cell, (start, width) in enumerate(spread(n, steps + 1)):
        ground = ISLAND if cell == steps else SEA
        frame += [OFF if (k == 0 and cell > 0 and width > 2) else ground for k in range(width)]
    for seat, cell in enumerate(ships):
        if cell is not None:
            frame[_slot(n, steps, min(max(cell, 0), steps), seat)] = SEAT_COLORS[seat]
    return frame


def _check_route(n: int, steps: int, ships: Sequence[int]) -> None:
    if steps < 1:
        raise ValueError(f"the route needs at least one step to the island, got steps={steps}")
    if not 1 <= len(ships) <= len(SEAT_COLORS):
        raise ValueError(f"ships are given per seat, 1 to {len(SEAT_COLORS)} of them, got {len(ships)}")


@dataclass(frozen=True, kw_only=True)
class SeaRoute(Animation):
    """The route at rest: where every ship is now. Still from the start."""

    steps: int = 3
    ships: Sequence[int] = (0, 0)

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_route(self.n, self.steps, self.ships)

    def draw(self, t: float) -> list[Pixel]:
        return sea_route(self.n, self.steps, self.ships)


@dataclass(frozen=True, kw_only=True)
class ShipSail(Animation):
    """``seat``'s ship sails from its cell in ``ships`` to the next, over rolling waves.

    The waves die down as the ship arrives, so the final frame is exactly the
    route with the ship one cell on: the still frame the box keeps showing.
    """

    steps: int = 3
    ships: Sequence[int] = (0, 0)
    seat: int = 0
    sail: float = 1.6

    fps: ClassVar[float] = 30.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_route(self.n, self.steps, self.ships)
        if not 0 <= self.seat < len(self.ships):
            raise ValueError(f"seat {self.seat} has no ship (ships for {len(self.ships)} seats)")

    @property
    def duration(self) -> float:
        return self.sail

    def arrived(self) -> list[int]:
        """Every ship's cell after the sailing: the state to show once done."""
        after = list(self.ships)
        after[self.seat] = min(self.steps, after[self.seat] + 1)
        return after

    def draw(self, t: float) -> list[Pixel]:
        after = self.arrived()
        if t >= self.sail:
            return sea_route(self.n, self.steps, after)
        u = t / self.sail
        swell = math.sin(math.pi * u)  # the waves rise and settle again
        frame = sea_route(self.n, self.steps, [None if s == self.seat else c for s, c in enumerate(after)])
        for i, ground in enumerate(frame):
            if ground == SEA:
                crest = 0.5 + 0.5 * math.sin(2 * math.pi * (i / 9.0 - 1.5 * t))
                frame[i] = blend(SEA, WAVE, swell * crest * crest)
        a = _slot(self.n, self.steps, self.ships[self.seat], self.seat)
        b = _slot(self.n, self.steps, after[self.seat], self.seat)
        x = a + (b - a) * (0.5 - 0.5 * math.cos(math.pi * u))  # eased: it casts off and docks gently
        lo = int(x)
        frac = x - lo
        color = SEAT_COLORS[self.seat]
        frame[lo] = blend(frame[lo] or OFF, color, 1 - frac)
        if frac > 0 and lo + 1 < self.n:
            frame[lo + 1] = blend(frame[lo + 1] or OFF, color, frac)
        return frame


def _unit(seed: int, i: int, salt: int) -> float:
    """A pseudo-random number in [0, 1) from (seed, i, salt) alone: a splitmix64 hash.

    Each pixel's twinkle comes from its own number, so the sparkle is the same
    at any t, on any machine, and touches no shared random generator.
    """
    z = (seed * 0x9E3779B97F4A7C15 + i * 0xBF58476D1CE4E5B9 + salt * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return ((z ^ (z >> 31)) >> 11) / float(1 << 53)


@dataclass(frozen=True, kw_only=True)
class TreasureSparkle(Animation):
    """Gold glittering over the whole segment for ``sparkle`` seconds, then the rest frame.

    The same ``seed`` gives the same glitter; the box passes the seed it
    journals, so a replayed game sparkles identically.
    """

    seed: int = 0
    sparkle: float = 3.0
    color: tuple[int, int, int] = GOLD

    fps: ClassVar[float] = 30.0

    @property
    def duration(self) -> float:
        return self.sparkle

    @cached_property
    def _twinkles(self) -> list[tuple[float, float]]:
        """Each pixel's (rate, phase), worked out once: hashing on every frame would be wasted."""
        return [(0.7 + 1.6 * _unit(self.seed, i, 1), _unit(self.seed, i, 2)) for i in range(self.n)]

    def draw(self, t: float) -> list[Pixel]:
        if t >= self.sparkle:
            return [None] * self.n
        fade = min(1.0, (self.sparkle - t) / 0.6, t / 0.15)  # in quickly, out gently
        glow = scale(self.color, 0.15)
        frame: list[Pixel] = []
        for rate, phase in self._twinkles:
            s = math.sin(2 * math.pi * (rate * t + phase))
            k = s ** 8 if s > 0 else 0.0  # mostly dark, with short bright glints
            glint = scale(blend(self.color, WHITE, k * k), k)
            frame.append((max(glint[0], glow[0]) * fade, max(glint[1], glow[1]) * fade,
                           max(glint[2], glow[2]) * fade))
        return frame

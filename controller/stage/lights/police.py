"""The policecat: its track (the alarm variant) and the blue-and-red siren that runs along it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.stage.lights.base import Animation, Pixel, spread
from controller.stage.lights.colors import POLICE_BLUE, POLICE_RED, TRACK, WHITE, scale


@dataclass(frozen=True, kw_only=True)
class PoliceTrack(Animation):
    """The alarm track at rest: ``cards`` cells, those the figure has passed lit blue, the figure white.

    ``position`` counts the cards the figure has moved on (the engines'
    ``track``); 0 is before the first card. Still from the start.
    """

    cards: int = 9
    position: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.position <= self.cards:
            raise ValueError(f"the figure stands on 0..{self.cards}, got {self.position}")

    def draw(self, t: float) -> list[Pixel]:
        frame: list[Pixel] = []
        for cell, (start, width) in enumerate(spread(self.n, self.cards)):
            if cell + 1 < self.position:
                color = scale(POLICE_BLUE, 0.35)
            elif cell + 1 == self.position:
                color = WHITE
            else:
                color = TRACK
            frame += [color] * width
        return frame


@dataclass(frozen=True, kw_only=True)
class Siren(Animation):
    """Blocks of blue and red chasing along the segment, flashing in turn, for ``wail`` seconds.

    Police lights alternate: while the blue blocks blaze the red ones glow,
    then the other way round, four times a second.
    """

    wail: float = 2.0
    block: int = 0
    """Pixels per coloured block; 0 picks a tenth of the segment."""
    reverse: bool = False

    fps: ClassVar[float] = 16.0

    @property
    def duration(self) -> float:
        return self.wail

    def draw(self, t: float) -> list[Pixel]:
        if t >= self.wail:
            return [None] * self.n
        step = round(t * self.fps)
        size = self.block or max(2, self.n // 10)
        shift = -2 * step if self.reverse else 2 * step
        blue_high = (step // 2) % 2 == 0
        hi, lo = 1.0, 0.25
        blue = scale(POLICE_BLUE, hi if blue_high else lo)
        red = scale(POLICE_RED, lo if blue_high else hi)
        return [blue if ((i - shift) // size) % 2 == 0 else red for i in range(self.n)]

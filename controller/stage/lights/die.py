"""The die roll: a light spins round the ring, slows down, and stops on the face.

The box decides the face (from its journaled RNG) before the spin starts, so
the animation only has to land on it; the pips are lit groups spread evenly,
countable by a child the way dots on a die are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.stage.lights.base import Animation, Pixel
from controller.stage.lights.colors import RGB, WHITE, scale

_TAIL = (1.0, 0.45, 0.18, 0.06)


@dataclass(frozen=True, kw_only=True)
class DieRoll(Animation):
    """Spin for ``spin`` seconds (``turns`` times round, slowing), then show ``face`` pips in ``color``."""

    face: int
    color: RGB = WHITE
    spin: float = 1.4
    turns: float = 3.0

    fps: ClassVar[float] = 50.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.face <= 6:
            raise ValueError(f"a die face is 1 to 6, got {self.face}")

    @property
    def duration(self) -> float:
        return self.spin

    def pips(self) -> list[int]:
        """Indices of the pixels lit for the face: ``face`` groups, evenly round the segment."""
        width = max(1, self.n // 15)
        lit: list[int] = []
        for k in range(self.face):
            centre = round(k * self.n / self.face)
            lit += [(centre + d) % self.n for d in range(width)]
        return sorted(set(lit))

    def draw(self, t: float) -> list[Pixel]:
        frame: list[Pixel] = [(0.0, 0.0, 0.0)] * self.n
        if t >= self.spin:
            for i in self.pips():
                frame[i] = self.color
            return frame
        u = t / self.spin
        head = int(self.n * self.turns * (1 - (1 - u) ** 2))  # decelerating, like a die running out
        for d, k in enumerate(_TAIL):
            frame[(head - d) % self.n] = scale(self.color, k)
        return frame

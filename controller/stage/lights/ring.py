"""The turn ring: whose turn it is (their seat's colour, where they sit), the colour to match, a wish.

A five-year-old cannot read whose turn it is, but sees their own colour
light up on their side of the box. The colour a card must match glows in
the middle of that player's arc, right where they are looking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

from controller.stage.lights.base import Animation, Pixel, spread
from controller.stage.lights.colors import OFF, RGB, SEAT_COLORS, scale

IDLE_LEVEL = 0.08
"""How bright the other seats' arcs glow: enough for a child to find their colour, not to mistake whose turn it is."""


@dataclass(frozen=True, kw_only=True)
class TurnRing(Animation):
    """``seat``'s arc lit in its colour, with ``match`` in its middle third; other seats glow dimly.

    ``arcs`` gives each seat's (first pixel, length) where seats are not
    evenly spread round the ring; by default the ring is shared equally,
    seat 0 starting at pixel ``offset``. The arc fades in over ``fade``
    seconds, then the ring is still.
    """

    seat: int = 0
    players: int = 2
    match: RGB | None = None
    offset: int = 0
    arcs: Sequence[tuple[int, int]] | None = None
    fade: float = 0.25

    fps: ClassVar[float] = 25.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.players <= len(SEAT_COLORS):
            raise ValueError(f"1 to {len(SEAT_COLORS)} players, got {self.players}")
        if not 0 <= self.seat < self.players:
            raise ValueError(f"seat {self.seat} is not at a table of {self.players}")
        if self.arcs is not None and len(self.arcs) != self.players:
            raise ValueError(f"arcs are given for {len(self.arcs)} seats, the table has {self.players}")

    @property
    def duration(self) -> float:
        return self.fade

    def seat_arcs(self) -> list[tuple[int, int]]:
        """(first pixel, length) of each seat's arc."""
        return list(self.arcs) if self.arcs is not None else [
            (start + self.offset, width) for start, width in spread(self.n, self.players)]

    def draw(self, t: float) -> list[Pixel]:
        level = 1.0 if self.fade <= 0 else min(1.0, t / self.fade)
        frame: list[Pixel] = [OFF] * self.n
        for seat, (start, width) in enumerate(self.seat_arcs()):
            mine = seat == self.seat
            for k in range(width):
                color = SEAT_COLORS[seat]
                if mine and self.match is not None and width // 3 <= k < width - width // 3:
                    color = self.match
                frame[(start + k) % self.n] = scale(color, level if mine else IDLE_LEVEL)
        return frame


@dataclass(frozen=True, kw_only=True)
class WishedColor(Animation):
    """The whole segment blinks ``blinks`` times in the wished colour, then stays lit in it."""

    color: RGB = SEAT_COLORS[0]
    blinks: int = 3

    fps: ClassVar[float] = 6.0  # one step per half blink: on, off, on, off ...

    @property
    def duration(self) -> float:
        return 2 * self.blinks / self.fps

    def draw(self, t: float) -> list[Pixel]:
        on = t >= self.duration or round(t * self.fps) % 2 == 0
        return [self.color if on else OFF] * self.n

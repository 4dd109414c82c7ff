"""The plan every part of the table is drawn on: 1280 x 800, scaled to the surface, and its colours.

:class:`Layout` turns plan coordinates into surface pixels and draws text
(remembering every line, so tests read what the frame says); each part of
the table is a function over one layout and one surface.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

RGB = tuple[int, int, int]
Point = tuple[int, int]

PLAN_W, PLAN_H = 1280, 800

FELT: RGB = (36, 104, 70)
FELT_DARK: RGB = (24, 74, 50)
PANEL: RGB = (50, 124, 86)
BOX_BODY: RGB = (146, 102, 58)
BOX_EDGE: RGB = (104, 70, 38)
READER: RGB = (226, 228, 232)
STRIP: RGB = (28, 28, 32)
LED_RIM: RGB = (90, 90, 96)
BACK: RGB = (40, 56, 120)
BUBBLE: RGB = (252, 250, 240)
MUTED: RGB = (200, 222, 208)
WON: RGB = (255, 255, 255)  # the winners' highlight: white, unlike any seat's colour (yellow is Player 1's)
DIE_RED: RGB = (206, 40, 40)
OFF: RGB = (0, 0, 0)

SEGMENT_LABELS = {"sea-route": "sea route", "police-track": "police track", "turn-ring": "turn ring"}
STRIPS: dict[str, tuple[str, ...]] = {"pirates": ("sea-route",), "policecats": ("police-track",)}
"""The LED strips each game uses (the turn ring, on the box, every game uses): only these are drawn."""
CHIP_W, CHIP_H = 78, 24  # another player's cat, in plan pixels: its family number and member in words


@dataclass


class Drawn:
    """Where one frame put things, in surface pixels."""

    hits: list[tuple[pygame.Rect, str]] = field(default_factory=list)  # clickable rect -> target
    texts: list[str] = field(default_factory=list)  # every line of text drawn, in order
    leds: dict[str, list[Point]] = field(default_factory=dict)  # segment -> centre of each LED dot
    spots: dict[str, Point] = field(default_factory=dict)  # named points: "pile", "match", ...

    def target_at(self, pos: Point) -> str | None:
        """The clickable target under ``pos`` (the last drawn wins, as it lies on top)."""
        for rect, target in reversed(self.hits):
            if rect.collidepoint(pos):
                return target
        return None

    def rect_of(self, target: str) -> pygame.Rect | None:
        for rect, name in self.hits:
            if name == target:
                return rect
        return None

    @property
    def targets(self) -> list[str]:
        """Every clickable target, in reading order (the keyboard's Tab order)."""
        ordered = sorted(self.hits, key=lambda hit: (hit[0].centery // 40, hit[0].x))
        return list(dict.fromkeys(target for _, target in ordered))


class Layout:
    """The plan scaled onto one surface; keeps only fonts between frames."""

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._texts: list[str] = []
        self.scale, self.left, self.top = 1.0, 0.0, 0.0

    def setup(self, surface: pygame.Surface, texts: list[str]) -> None:
        """Fit the plan to ``surface``; the frame's lines of text go to ``texts``."""
        width, height = surface.get_size()
        self.scale = min(width / PLAN_W, height / PLAN_H)
        self.left = (width - PLAN_W * self.scale) / 2
        self.top = 0.0  # a window taller than the plan keeps its header at the top; the felt goes on below
        self._texts = texts

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        """A plan rectangle in surface pixels."""
        scale = self.scale
        return pygame.Rect(round(self.left + x * scale), round(self.top + y * scale),
                           max(1, round(w * scale)), max(1, round(h * scale)))

    def point(self, x: float, y: float) -> Point:
        """A plan point in surface pixels."""
        return round(self.left + x * self.scale), round(self.top + y * self.scale)

    def length(self, plan: float) -> int:
        """A plan length in surface pixels; a positive length never shrinks to nothing."""
        pixels = round(plan * self.scale)
        return max(1, pixels) if plan > 0 else pixels

    def font(self, size: float) -> pygame.font.Font:
        px = max(8, round(size * self.scale))
        if px not in self._fonts:
            self._fonts[px] = pygame.font.Font(None, px)
        return self._fonts[px]

    def text(self, surface: pygame.Surface, text: str, size: float, color: RGB, at: Point,
             anchor: str = "topleft", max_width: int | None = None) -> pygame.Rect:
        """Draw one line of text, shrinking it to ``max_width`` surface pixels if need be."""
        font = self.font(size)
        while max_width is not None and font.size(text)[0] > max_width and size > 10:
            size *= 0.9
            font = self.font(size)
        self._texts.append(text)
        image = font.render(text, True, color)
        rect = image.get_rect(**{anchor: at})
        surface.blit(image, rect)
        return rect

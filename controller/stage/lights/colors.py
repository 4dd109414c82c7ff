"""Every colour the lights use, in one place.

The seat colours are what a child learns as "my colour": the turn ring shows
them and the voice names them ("Player two, green"). The first four are the
card colours, so seat 1 (yellow) and a yellow card look the same on the
strip. RGB values are tuned for WS2812 pixels, whose green is much brighter
than their red and blue.
"""

from __future__ import annotations

RGB = tuple[int, int, int]

OFF: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)

CARD_COLORS: dict[str, RGB] = {
    "yellow": (255, 170, 0),
    "green": (0, 220, 30),
    "blue": (0, 60, 255),
    "red": (255, 0, 0),
}
"""The four card colours, by the names the engines use."""

PURPLE: RGB = (170, 0, 255)

SEAT_COLORS: tuple[RGB, ...] = (
    CARD_COLORS["yellow"], CARD_COLORS["green"], CARD_COLORS["blue"], CARD_COLORS["red"], PURPLE,
)
"""Colour of each seat, indexed by the engines' seat number 0..4 (spoken as player 1..5)."""

SEAT_COLOR_NAMES: tuple[str, ...] = ("yellow", "green", "blue", "red", "purple")

# Scenery
SEA: RGB = (0, 25, 70)
WAVE: RGB = (40, 120, 255)
ISLAND: RGB = (130, 90, 30)
GOLD: RGB = (255, 180, 20)
POLICE_BLUE: RGB = (0, 40, 255)
POLICE_RED: RGB = (255, 0, 0)
TRACK: RGB = (12, 12, 30)
SWEEP: RGB = (170, 255, 200)


Color = tuple[float, float, float]
"""A colour while it is being computed: channels unrounded, possibly fractional."""


def scale(color: Color, k: float) -> Color:
    """``color`` at ``k`` times its brightness (not rounded: the cap rounds once, at the end)."""
    return (color[0] * k, color[1] * k, color[2] * k)


def blend(a: Color, b: Color, k: float) -> Color:
    """The colour ``k`` of the way from ``a`` to ``b``."""
    return (a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k, a[2] + (b[2] - a[2]) * k)

"""The LEDs as lit: the sea route, the police track and the box's turn ring."""

from __future__ import annotations

import math

import pygame

from controller.stage.lights.base import spread
from controller.window.drawing.layout import LED_RIM, MUTED, RGB, STRIP, STRIPS, SEGMENT_LABELS, Drawn, Layout, Point
from controller.window.view import TableView


def strip(lay: Layout, surface: pygame.Surface, view: TableView, segment: str, y: float, drawn: Drawn) -> None:
    if segment not in STRIPS.get(view.game or "", ()):
        return
    pixels = view.led(segment)
    lay.text(surface, SEGMENT_LABELS.get(segment, segment), 24, MUTED, lay.point(20, y + 15), "midleft")
    if not pixels:
        return
    x0, x1 = 160, 1240
    bar = lay.rect(x0 - 16, y, x1 - x0 + 32, 30)
    pygame.draw.rect(surface, STRIP, bar, border_radius=lay.length(15))
    step = (x1 - x0) / max(1, len(pixels) - 1)
    points = [lay.point(x0 + i * step, y + 15) for i in range(len(pixels))]
    dots(lay, surface, pixels, points, 11)
    drawn.leds[segment] = points


def dots(lay: Layout, surface: pygame.Surface, pixels: tuple[RGB, ...], points: list[Point], radius: float) -> None:
    """LEDs exactly as lit: the dot's colour is the pixel's; a grey rim shows where unlit ones are."""
    for rgb, point in zip(pixels, points):
        pygame.draw.circle(surface, LED_RIM, point, lay.length(radius + 2))
        pygame.draw.circle(surface, rgb, point, lay.length(radius))


def ring(lay: Layout, surface: pygame.Surface, view: TableView, centre: tuple[float, float], drawn: Drawn) -> None:
    pixels = view.led("turn-ring")
    if not pixels:
        return
    n = len(pixels)
    first = spread(n, view.players)[0][1] if view.players else 0
    points = []
    for i in range(n):
        # clockwise from the bottom, seen from above; the first seat's arc faces the window's own seat
        phi = 2 * math.pi * (i + 0.5 - first / 2) / n
        points.append(lay.point(centre[0] - 106 * math.sin(phi), centre[1] + 106 * math.cos(phi)))
    dots(lay, surface, pixels, points, 13)
    drawn.leds["turn-ring"] = points

"""The table from above, drawn from a :class:`~controller.window.view.TableView` onto any pygame Surface.

Drawing is pure: the same view on the same size of surface gives the same
pixels, and :meth:`Renderer.draw` returns where it put every clickable
thing and every LED (:class:`Drawn`), so the window turns clicks into taps
and tests check colours where they were drawn. Everything is laid out on a
1280 x 800 plan and scaled to the surface, keeping its proportions, so a
resized window stays sharp and legible.

Each part of the table is drawn by its own function over one
:class:`~controller.window.drawing.layout.Layout` (``controller/window/drawing/``):
the other seats, the LED strips, the box in the middle with the stack and
pile, your hand, and the words around them. A change to one part of the
picture touches one place.
"""

from __future__ import annotations

import pygame

from controller.window.drawing.centre import centre
from controller.window.drawing.hand import hand
from controller.window.drawing.layout import BACK, FELT, LED_RIM, PANEL, Drawn, Layout
from controller.window.drawing.seats import seats
from controller.window.drawing.strips import strip
from controller.window.drawing.words import focus, header, keys, lines, status
from controller.window.view import TableView

__all__ = ["BACK", "LED_RIM", "PANEL", "Drawn", "Renderer"]


class Renderer:
    """Draws views, part by part; keeps only its layout's fonts between frames."""

    def __init__(self) -> None:
        self.layout = Layout()

    def draw(self, surface: pygame.Surface, view: TableView) -> Drawn:
        """Draw ``view`` over the whole surface; return where things went."""
        lay = self.layout
        drawn = Drawn()
        lay.setup(surface, drawn.texts)
        surface.fill(FELT)
        header(lay, surface, view)
        seats(lay, surface, view, drawn)
        strip(lay, surface, view, "sea-route", 216, drawn)
        centre(lay, surface, view, drawn)
        strip(lay, surface, view, "police-track", 518, drawn)
        lines(lay, surface, view)
        if view.table:
            hand(lay, surface, view, drawn)
            keys(lay, surface, view)
        else:
            status(lay, surface, view)
        focus(lay, surface, view, drawn)
        return drawn

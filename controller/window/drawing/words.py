"""The words around the table: the title and whose turn, what the box said, the keys, the kiosk's status line."""

from __future__ import annotations

import math

import pygame

from controller.stage.lights import SEAT_COLORS
from controller.window.cards import DARK_INK, LIGHT_INK
from controller.window.drawing.layout import BUBBLE, FELT_DARK, MUTED, PLAN_W, WON, Drawn, Layout
from controller.window.view import GAME_TITLES, TableView, seat_colour_name, seat_name


def header(lay: Layout, surface: pygame.Surface, view: TableView) -> None:
    band = lay.rect(0, 0, PLAN_W, 44)
    pygame.draw.rect(surface, FELT_DARK, (0, band.y, surface.get_width(), band.h))
    title = GAME_TITLES.get(view.game or "", "gamebox: choose a game")
    if view.game:
        title += f"  ·  {view.players} players"
    lay.text(surface, title, 34, LIGHT_INK, lay.point(20, 22), "midleft")
    turn = turn_text(view)
    if turn:
        color = SEAT_COLORS[view.waiting_for] if view.waiting_for is not None and not view.winners else WON
        end = lay.text(surface, turn, 30, LIGHT_INK, lay.point(1260, 22), "midright")
        pygame.draw.circle(surface, color, (end.left - lay.length(18), end.centery), lay.length(11))


def lines(lay: Layout, surface: pygame.Surface, view: TableView) -> None:
    bubble = lay.rect(20, 556, 820, 40)
    pygame.draw.rect(surface, BUBBLE, bubble, border_radius=lay.length(16))
    if view.table:  # the simulator: what the box said
        speaker(lay, surface, 40, 576)
        said = f"“{view.prompt}”" if view.prompt else "..."
        lay.text(surface, said, 28, DARK_INK, lay.point(64, 576), "midleft", max_width=lay.length(766))
    else:  # the display: what the referee took last
        lay.text(surface, view.prompt, 28, DARK_INK, lay.point(36, 576), "midleft", max_width=lay.length(790))
    answer = lay.rect(852, 556, 408, 40)
    pygame.draw.rect(surface, FELT_DARK, answer, border_radius=lay.length(16))
    lay.text(surface, view.answer or "", 24, LIGHT_INK, lay.point(866, 576), "midleft", max_width=lay.length(384))


def speaker(lay: Layout, surface: pygame.Surface, x: float, y: float) -> None:
    """A small loudspeaker: the bubble is what the box said."""
    pygame.draw.rect(surface, DARK_INK, lay.rect(x - 12, y - 6, 8, 12))
    pygame.draw.polygon(surface, DARK_INK, [lay.point(x - 5, y - 6), lay.point(x + 4, y - 13), lay.point(x + 4, y + 13),
                                            lay.point(x - 5, y + 6)])
    for radius in (8, 14):
        pygame.draw.arc(surface, DARK_INK, lay.rect(x + 2 - radius, y - radius, 2 * radius, 2 * radius),
                        math.radians(-45), math.radians(45), lay.length(2))


def keys(lay: Layout, surface: pygame.Surface, view: TableView) -> None:
    keys = ("click or keys: 1-9 your cards  ·  S stack  ·  SPACE die button  ·  H hold  ·  Y G B R colours"
            "  ·  Tab + Enter  ·  N new game  ·  Q quit")
    if view.own_ears is not None:
        keys = keys.replace("1-9 your cards", "1-9 your cards  ·  [ ] your ears")
    lay.text(surface, keys, 20, MUTED, lay.point(640, 784), "center", max_width=lay.length(1240))


def status(lay: Layout, surface: pygame.Surface, view: TableView) -> None:
    """The kiosk's bottom line: what the box is waiting for, or who won."""
    if view.game is None:
        lay.text(surface, view.hint or "No game yet: start one on the box.", 32, LIGHT_INK, lay.point(640, 690), "center",
                 max_width=lay.length(1240))
        return
    color = SEAT_COLORS[view.waiting_for] if view.waiting_for is not None and not view.winners else WON
    lay.text(surface, view.hint, 48, color if view.winners else LIGHT_INK, lay.point(640, 680), "center",
             max_width=lay.length(1240))
    if view.waiting_for is not None and not view.winners:
        pygame.draw.rect(surface, color, lay.rect(440, 716, 400, 8), border_radius=lay.length(4))


def focus(lay: Layout, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
    if view.focus is None:
        return
    rect = drawn.rect_of(view.focus)
    if rect is not None:
        pygame.draw.rect(surface, LIGHT_INK, rect.inflate(lay.length(12), lay.length(12)), width=lay.length(4),
                         border_radius=lay.length(12))


def turn_text(view: TableView) -> str:
    if view.game is None:
        return ""
    if view.winners:
        return "Won: " + ", ".join(seat_name(w, view.you) for w in view.winners)
    seat = view.waiting_for
    if seat is None:
        return "Setting up the table"
    if seat == view.you:
        return "Your turn"
    return f"{seat_name(seat)} ({seat_colour_name(seat)}) to play"

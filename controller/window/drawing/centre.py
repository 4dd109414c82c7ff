"""The box in the middle of the table: the stack and the pile, the reader and its ring, the die and colour buttons."""

from __future__ import annotations

import math

import pygame

from controller.stage.lights import CARD_COLORS, SEAT_COLORS
from controller.window.cards import DARK_INK, LIGHT_INK, PAPER
from controller.window.drawing.cards import card_back, card_face, fill_point, key_cap
from controller.window.drawing.layout import (BOX_BODY, BOX_EDGE, DIE_RED, FELT_DARK, MUTED, PANEL, READER, WON,
                                              Drawn, Layout)
from controller.window.drawing.strips import ring
from controller.window.view import TableView, seat_colour_name, seat_name


def centre(lay: Layout, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
    piles(lay, surface, view, drawn)
    body = lay.rect(470, 256, 340, 252)
    pygame.draw.rect(surface, BOX_EDGE, body.move(lay.length(4), lay.length(5)), border_radius=lay.length(26))
    pygame.draw.rect(surface, BOX_BODY, body, border_radius=lay.length(26))
    centre = (640, 382)
    pad = lay.rect(centre[0] - 68, centre[1] - 68, 136, 136)
    pygame.draw.rect(surface, READER, pad, border_radius=lay.length(18))
    pygame.draw.rect(surface, (170, 172, 180), pad, width=lay.length(3), border_radius=lay.length(18))
    for radius in (16, 28, 40):
        arc = lay.rect(centre[0] - radius, centre[1] - 12 - radius, 2 * radius, 2 * radius)
        pygame.draw.arc(surface, (120, 124, 136), arc, math.radians(50), math.radians(130), lay.length(4))
    lay.text(surface, "tap here" if view.table else "reader", 22, (90, 94, 104),
             lay.point(centre[0], centre[1] + 40), "center")
    ring(lay, surface, view, centre, drawn)
    if view.table:
        buttons(lay, surface, view, drawn)
    else:
        turn_card(lay, surface, view)


def piles(lay: Layout, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
    if view.game is None:
        return
    stack = lay.rect(40, 262, 110, 154)
    if view.stack:
        for depth in (6, 3):
            card_back(lay, surface, stack.move(lay.length(depth), lay.length(depth)))
        card_back(lay, surface, stack)
        if view.table:
            drawn.hits.append((stack, "stack"))
    else:
        pygame.draw.rect(surface, FELT_DARK, stack, width=lay.length(3), border_radius=lay.length(10))
    lay.text(surface, f"stack: {view.stack or 0}", 24, LIGHT_INK, lay.point(95, 440), "center")
    if view.table:
        key_cap(lay, surface, "S", lay.point(52, 274))
    if view.game == "policecats":  # no pile: the die shows what was rolled
        return
    pile = lay.rect(180, 262, 110, 154)
    if view.top:
        card_face(lay, surface, pile, view.top)
        drawn.spots["pile"] = fill_point(pile)
    else:
        pygame.draw.rect(surface, FELT_DARK, pile, width=lay.length(3), border_radius=lay.length(10))
    lay.text(surface, "pile", 24, LIGHT_INK, lay.point(235, 440), "center")
    if view.color:
        centre = lay.point(382, 320)
        pygame.draw.circle(surface, LIGHT_INK, centre, lay.length(40))
        pygame.draw.circle(surface, CARD_COLORS[view.color], centre, lay.length(35))
        drawn.spots["match"] = centre
        label = "choosing" if view.choosing_color else "match"
        lay.text(surface, label, 24, LIGHT_INK, lay.point(382, 376), "center")
        lay.text(surface, view.color, 24, LIGHT_INK, lay.point(382, 400), "center")


def buttons(lay: Layout, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
    centre = (960, 370)
    rim = lay.point(*centre)
    pygame.draw.circle(surface, (60, 20, 20), (rim[0] + lay.length(4), rim[1] + lay.length(6)), lay.length(74))
    pressed = 4 if view.die_down else 0
    top = lay.point(centre[0] + pressed, centre[1] + pressed)
    pygame.draw.circle(surface, (120, 24, 24) if view.die_down else DIE_RED, top, lay.length(70))
    pygame.draw.circle(surface, (240, 120, 110), top, lay.length(70), width=lay.length(4))
    if view.game == "policecats":  # the die: the face just rolled, in words, or "?" before a roll
        face = lay.rect(centre[0] - 44 + pressed, centre[1] - 46 + pressed, 88, 52)
        pygame.draw.rect(surface, PAPER, face, border_radius=lay.length(9))
        lay.text(surface, view.die_face or "?", 34, DARK_INK, face.center, "center", max_width=face.w - 8)
    else:  # a button that draws and passes: a die's look, no face that could mislead
        face = lay.rect(centre[0] - 24 + pressed, centre[1] - 44 + pressed, 48, 48)
        pygame.draw.rect(surface, PAPER, face, border_radius=lay.length(9))
        for dx, dy in ((-12, -12), (0, 0), (12, 12)):
            pygame.draw.circle(surface, DARK_INK, (face.centerx + lay.length(dx), face.centery + lay.length(dy)),
                               lay.length(5))
    lay.text(surface, "DIE", 28, LIGHT_INK, lay.point(centre[0] + pressed, centre[1] + 34 + pressed), "center")
    drawn.hits.append((lay.rect(centre[0] - 74, centre[1] - 74, 148, 148), "die"))
    lay.text(surface, f"SPACE  ·  hold {view.hold_time:g} s or H", 22, LIGHT_INK, lay.point(960, 466), "center")
    for i, name in enumerate(("yellow", "green", "blue", "red")):
        cx, cy = 1120 + (i % 2) * 84, 320 + (i // 2) * 84
        spot = lay.point(cx, cy)
        lit = view.choosing_color and view.color == name
        if view.choosing_color:
            pygame.draw.circle(surface, LIGHT_INK, spot, lay.length(38 if lit else 34))
        pygame.draw.circle(surface, (20, 20, 20), spot, lay.length(31))
        pygame.draw.circle(surface, CARD_COLORS[name], spot, lay.length(28))
        lay.text(surface, name[0].upper(), 28, DARK_INK if name in ("yellow", "green") else LIGHT_INK,
                 spot, "center")
        drawn.hits.append((lay.rect(cx - 32, cy - 32, 64, 64), f"color:{name}"))
    lay.text(surface, "colour buttons", 22, MUTED, lay.point(1162, 466), "center")


def turn_card(lay: Layout, surface: pygame.Surface, view: TableView) -> None:
    """The kiosk's big "whose turn" card where the simulator has its buttons."""
    box = lay.rect(880, 262, 360, 200)
    pygame.draw.rect(surface, PANEL, box, border_radius=lay.length(18))
    if view.winners:
        color, big = WON, "Game over"
        small = "won: " + ", ".join(seat_name(w) for w in view.winners)
    elif view.waiting_for is not None:
        color = SEAT_COLORS[view.waiting_for]
        big = f"{seat_name(view.waiting_for)}'s turn"
        small = f"{seat_colour_name(view.waiting_for)}: {(view.awaiting or '').replace('_', ' ')}"
    else:
        color, big, small = MUTED, "Setting up", (view.awaiting or "").replace("_", " ")
    pygame.draw.rect(surface, color, box, width=lay.length(8), border_radius=lay.length(18))
    lay.text(surface, big, 46, LIGHT_INK, lay.point(1060, 340), "center", max_width=lay.length(330))
    lay.text(surface, small, 30, MUTED, lay.point(1060, 398), "center", max_width=lay.length(330))

"""Cards as the table shows them: a face, a back, a small one in a seat's panel, and a key cap."""

from __future__ import annotations

import math

import pygame

from controller.window.cards import DARK_INK, LIGHT_INK, PAPER, card_look
from controller.window.drawing.layout import BACK, FELT_DARK, MUTED, Drawn, Layout, Point


def card_face(lay: Layout, surface: pygame.Surface, rect: pygame.Rect, card: str) -> None:
    look = card_look(card)
    radius = max(2, rect.w // 9)
    pygame.draw.rect(surface, (0, 0, 0), rect.move(lay.length(3), lay.length(3)), border_radius=radius)
    pygame.draw.rect(surface, look.fill, rect, border_radius=radius)
    if look.stripes:
        band = rect.w / len(look.stripes)
        for i, rgb in enumerate(look.stripes):
            part = pygame.Rect(rect.x + round(i * band), rect.y, math.ceil(band), rect.h)
            pygame.draw.rect(surface, rgb, part.clip(rect.inflate(-radius, 0)))
        oval = rect.inflate(-rect.w // 5, -rect.h // 2)
        pygame.draw.ellipse(surface, PAPER, oval)
    inset = max(2, rect.w // 16)
    pygame.draw.rect(surface, LIGHT_INK, rect.inflate(-2 * inset, -2 * inset), width=max(1, rect.w // 40),
                     border_radius=max(1, radius - inset // 2))
    pygame.draw.rect(surface, (0, 0, 0), rect, width=1, border_radius=radius)
    big = 0.5 * rect.h / lay.scale if len(look.big) <= 2 else 0.22 * rect.h / lay.scale
    small_card = rect.h < lay.length(90) and look.small and not look.stripes
    centre = (rect.centerx, rect.centery + rect.h // 10) if small_card else rect.center
    lay.text(surface, look.big, big * (0.8 if small_card else 1), look.ink, centre, "center",
             max_width=rect.w - 2 * inset)
    if rect.h >= lay.length(90):
        word = lay.text(surface, look.small, 0.15 * rect.h / lay.scale, look.ink,
                        (rect.x + 2 * inset, rect.y + 2 * inset), "topleft", max_width=rect.w - 3 * inset)
        if look.stripes:  # on the stripes the word needs a plain ground to be read
            pygame.draw.rect(surface, PAPER, word.inflate(lay.length(6), lay.length(2)), border_radius=lay.length(4))
            lay.text(surface, look.small, 0.15 * rect.h / lay.scale, look.ink, word.topleft, "topleft",
                     max_width=rect.w - 3 * inset)
    elif small_card:  # too small for the word: its first letter, in the corner that overlapping leaves seen
        lay.text(surface, look.small[0].upper(), 0.3 * rect.h / lay.scale, look.ink,
                 (rect.x + 2 * inset, rect.y + inset), "topleft")


def mini_card(lay: Layout, surface: pygame.Surface, card: str | None, x: float, y: float, w: float, h: float,
              hidden: bool = False, label: str = "", drawn: Drawn | None = None, spot: str = "",
              click: bool = True) -> None:
    rect = lay.rect(x, y, w, h)
    if card is None:
        pygame.draw.rect(surface, FELT_DARK, rect, width=lay.length(2), border_radius=lay.length(6))
    elif hidden:
        card_back(lay, surface, rect)
    else:
        card_face(lay, surface, rect, card)
        if drawn is not None and click:
            drawn.hits.append((rect, f"card:{card}"))
    if drawn is not None and spot and card is not None:
        drawn.spots[spot] = fill_point(rect)
    if label:
        lay.text(surface, label, 20, MUTED, (rect.centerx, rect.bottom + lay.length(10)), "center")


def card_back(lay: Layout, surface: pygame.Surface, rect: pygame.Rect) -> None:
    radius = max(2, rect.w // 9)
    pygame.draw.rect(surface, BACK, rect, border_radius=radius)
    pygame.draw.rect(surface, LIGHT_INK, rect.inflate(-rect.w // 6, -rect.w // 6), width=max(1, rect.w // 30),
                     border_radius=radius)
    pygame.draw.rect(surface, (0, 0, 0), rect, width=1, border_radius=radius)


def key_cap(lay: Layout, surface: pygame.Surface, key: str, centre: Point) -> None:
    """A keyboard key cap naming the key that does the same as a click."""
    cap = pygame.Rect(0, 0, lay.length(22), lay.length(22))
    cap.center = centre
    pygame.draw.rect(surface, DARK_INK, cap, border_radius=lay.length(5))
    lay.text(surface, key, 20, LIGHT_INK, cap.center, "center")


def fill_point(rect: pygame.Rect) -> Point:
    """A point of a card showing its plain colour: clear of its border, its mark and its corner word."""
    return rect.x + round(rect.w * 0.8), rect.y + round(rect.h * 0.87)

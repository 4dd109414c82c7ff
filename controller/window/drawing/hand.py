"""Your side of the table: the hint line, your hand and your own ears, face down."""

from __future__ import annotations

import pygame

from controller.stage.lights import SEAT_COLORS
from controller.window.cards import LIGHT_INK
from controller.window.drawing.cards import card_back, card_face, fill_point, key_cap
from controller.window.drawing.layout import FELT_DARK, MUTED, Drawn, Layout
from controller.window.drawing.seats import seat_facts
from controller.window.view import TableView


def hand(lay: Layout, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
    you = view.you if view.you is not None else 0
    mine = next((seat for seat in view.seats if seat.seat == you), None)
    yours = view.waiting_for == you and view.awaiting not in (None, "over")
    color = SEAT_COLORS[you] if view.game else LIGHT_INK
    lay.text(surface, view.hint, 28, color if yours else LIGHT_INK, lay.point(20, 614), "midleft",
             max_width=lay.length(1000))
    if mine is not None:
        facts = seat_facts(mine, view)
        if facts:
            lay.text(surface, facts, 24, MUTED, lay.point(1260, 614), "midright")
    right = 1240 if view.own_ears is None else 1040
    cards = view.hand
    if cards:
        width, height = (90, 124) if view.game else (126, 124)
        step = min(width + 10, (right - 40 - width) / max(1, len(cards) - 1)) if len(cards) > 1 else 0
        for i, card in enumerate(cards):
            rect = lay.rect(40 + i * step, 632, width, height)
            card_face(lay, surface, rect, card)
            if i < 9:
                key_cap(lay, surface, str(i + 1), (rect.x + lay.length(14), rect.bottom - lay.length(14)))
            drawn.hits.append((rect, f"card:{card}"))
    elif view.game:
        empty = "(no cats in front of you)" if mine is not None and mine.hand is None else "(no cards in your hand)"
        lay.text(surface, empty, 26, MUTED, lay.point(40, 700), "midleft")
    if view.own_ears is not None:
        lay.text(surface, "your ears: remember them!", 22, MUTED, lay.point(1150, 640), "center")
        for side, card in enumerate(view.own_ears):
            rect = lay.rect(1072 + side * 88, 654, 74, 102)
            if card is None:
                pygame.draw.rect(surface, FELT_DARK, rect, width=lay.length(3), border_radius=lay.length(8))
                continue
            card_back(lay, surface, rect)
            key_cap(lay, surface, "[]"[side], (rect.x + lay.length(14), rect.bottom - lay.length(14)))
            drawn.hits.append((rect, f"card:{card}"))
            drawn.spots[f"ear:{you}:{side}"] = fill_point(rect)

"""The other seats across the table: their hands and ears, their cats by family, their ships and facts."""

from __future__ import annotations

import pygame

from controller.stage.lights import SEAT_COLORS
from controller.window.cards import DARK_INK, LIGHT_INK, PAPER, card_look
from controller.window.drawing.cards import card_back, mini_card
from controller.window.drawing.layout import CHIP_H, CHIP_W, MUTED, PANEL, PLAN_W, RGB, WON, Drawn, Layout
from controller.window.view import SeatView, TableView, seat_colour_name


def seats(lay: Layout, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
    shown = [seat for seat in view.seats if seat.seat != view.you]
    if view.game is None and view.table:
        lay.text(surface, "You are Player 1 (yellow); bots play the other seats.", 34, LIGHT_INK,
                 lay.point(640, 110), "center")
        lay.text(surface, "Tap a game card, then a players card: the box deals you in.", 28, MUTED,
                 lay.point(640, 156), "center")
    if not shown:
        return
    gap = 12
    width = (PLAN_W - 40 - gap * (len(shown) - 1)) / len(shown)
    for i, seat in enumerate(shown):
        seat_panel(lay, surface, view, seat, 20 + i * (width + gap), 50, width, 160, drawn)


def seat_panel(lay: Layout, surface: pygame.Surface, view: TableView, seat: SeatView, x: float, y: float,
               w: float, h: float, drawn: Drawn) -> None:
    color = SEAT_COLORS[seat.seat]
    now = view.waiting_for == seat.seat and view.awaiting not in (None, "over")
    won = seat.seat in view.winners
    box = lay.rect(x, y, w, h)
    pygame.draw.rect(surface, PANEL, box, border_radius=lay.length(14))
    pygame.draw.rect(surface, WON if won else color, box, width=lay.length(8 if now or won else 3),
                     border_radius=lay.length(14))
    drawn.spots[f"seat:{seat.seat}"] = lay.point(x + 5, y + h / 2)  # inside a thick border, outside a thin one
    pygame.draw.circle(surface, color, lay.point(x + 24, y + 24), lay.length(12))
    label = f"{seat.name} ({seat_colour_name(seat.seat)})"
    lay.text(surface, label, 28, LIGHT_INK, lay.point(x + 44, y + 24), "midleft", max_width=lay.length(w - 150))
    tag = "WINNER" if won else ("TURN" if now else "")
    if tag:
        tag_rect = lay.rect(x + w - 96, y + 10, 84, 28)
        pygame.draw.rect(surface, WON if won else color, tag_rect, border_radius=lay.length(8))
        lay.text(surface, tag, 22, DARK_INK, tag_rect.center, "center")
    facts = seat_facts(seat, view)
    if facts:
        lay.text(surface, facts, 24, MUTED, lay.point(x + 16, y + h - 20), "midleft", max_width=lay.length(w - 32))
    body_y = y + 46
    if seat.hand is not None:
        fan(lay, surface, seat.hand, x + 16, body_y, 42, 60)
    if seat.ears is not None:
        for side, card in enumerate(seat.ears):
            mini_card(lay, surface, card, x + w - 112 + side * 54, body_y, 46, 66, hidden=seat.ears_hidden,
                      label="LR"[side], drawn=drawn, spot=f"ear:{seat.seat}:{side}", click=False)
    if seat.cards:
        tableau(lay, surface, seat, x + 16, body_y, w - 32, drawn)
    elif seat.families is not None:
        lay.text(surface, "no cats in front of them", 22, MUTED, lay.point(x + 16, body_y + 28), "midleft")
    if seat.ship is not None:
        ship(lay, surface, x + w - 60, body_y + 36, color)


def fan(lay: Layout, surface: pygame.Surface, count: int, x: float, y: float, w: float, h: float) -> None:
    """A hand seen from across the table: its backs (how many is in the seat's facts line)."""
    for i in range(min(count, 6)):
        card_back(lay, surface, lay.rect(x + i * 10, y, w, h))


def tableau(lay: Layout, surface: pygame.Surface, seat: SeatView, x: float, y: float, w: float,
            drawn: Drawn) -> None:
    """A Policecats seat's cats, one column per family, each cat a chip naming it ("6 mother").

    A whole card would be too small to read in a seat's panel; a chip in
    the family's colour, with its number first, stays legible even when
    many families make the columns overlap.
    """
    groups: dict[str, list[str]] = {}
    for card in seat.cards:
        groups.setdefault(card.rsplit("-", 1)[0] if card.startswith("family-") else card, []).append(card)
    columns = list(groups.values())
    step = min(CHIP_W + 6.0, (w - CHIP_W) / (len(columns) - 1)) if len(columns) > 1 else 0.0
    for i, cards in enumerate(columns):
        for j, card in enumerate(sorted(cards, key=_member_order)):
            chip(lay, surface, card, x + i * step, y + j * (CHIP_H + 3), drawn)


def chip(lay: Layout, surface: pygame.Surface, card: str, x: float, y: float, drawn: Drawn) -> None:
    look = card_look(card)
    rect = lay.rect(x, y, CHIP_W, CHIP_H)
    pygame.draw.rect(surface, look.fill, rect, border_radius=lay.length(6))
    pygame.draw.rect(surface, DARK_INK, rect, width=1, border_radius=lay.length(6))
    lay.text(surface, f"{look.big} {look.small}", 20, look.ink, (rect.x + lay.length(5), rect.centery),
             "midleft", max_width=rect.w - lay.length(8))
    drawn.hits.append((rect, f"card:{card}"))


def ship(lay: Layout, surface: pygame.Surface, x: float, y: float, color: RGB) -> None:
    hull = [lay.point(x - 30, y), lay.point(x + 30, y), lay.point(x + 20, y + 16), lay.point(x - 20, y + 16)]
    pygame.draw.polygon(surface, color, hull)
    pygame.draw.polygon(surface, DARK_INK, hull, width=lay.length(2))
    pygame.draw.line(surface, DARK_INK, lay.point(x, y), lay.point(x, y - 34), lay.length(3))
    pygame.draw.polygon(surface, PAPER, [lay.point(x + 2, y - 32), lay.point(x + 24, y - 8), lay.point(x + 2, y - 8)])


def _member_order(card: str) -> int:
    return {"mother": 0, "father": 1, "kittens": 2}.get(card.rsplit("-", 1)[-1], 3)


def seat_facts(seat: SeatView, view: TableView) -> str:
    facts = []
    if seat.hand is not None and seat.seat != view.you:
        facts.append(f"{seat.hand} card{'s' if seat.hand != 1 else ''}")
    if seat.ship is not None:
        facts.append(f"ship {seat.ship} of {view.wins_needed}" if view.wins_needed else f"ship {seat.ship}")
    if seat.families is not None:
        facts.append(f"families {seat.families}")
    if seat.score is not None:
        facts.append(f"score {seat.score}")
    if seat.police:
        facts.append("has the policecat")
    return "  ·  ".join(facts)

"""How each card looks on screen: a coloured rectangle, a big mark and a small word.

The cards are drawn, not pictured: a child must tell them apart at a
glance, so the fill is the card's colour exactly as the LEDs show it
(:data:`~controller.stage.lights.CARD_COLORS`), the big mark is its number or
kind, and wild cards (jokers, parrots) are striped in all four colours.
Policecats cards have no card colours; each family gets its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.games.base import COLORS
from controller.stage.lights import CARD_COLORS

RGB = tuple[int, int, int]

DARK_INK: RGB = (30, 30, 40)
LIGHT_INK: RGB = (255, 255, 255)
PAPER: RGB = (250, 246, 236)
POLICE_NAVY: RGB = (25, 45, 110)

FAMILY_COLORS: tuple[RGB, ...] = (
    (240, 140, 40), (160, 95, 200), (70, 160, 230), (60, 190, 120), (235, 200, 40),
    (230, 80, 70), (40, 180, 170), (150, 150, 160), (240, 120, 190),
)
"""One colour per Policecats family 1..9, so a family's three cards are found together."""

GAME_CARD_TITLES = {"floppy-ears": "Floppy Ears", "pirates": "Pirates", "policecats": "Policecats"}


@dataclass(frozen=True, slots=True)
class CardLook:
    fill: RGB
    ink: RGB
    big: str  # the number or mark, drawn large in the middle
    small: str  # a word in the corner: the kind of card
    stripes: tuple[RGB, ...] = ()  # wild cards: bands of every colour they can stand for


def _ink(fill: RGB) -> RGB:
    """Dark text on light cards (yellow, green), white on dark ones (blue, red)."""
    r, g, b = fill
    return DARK_INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else LIGHT_INK


def _coloured(color: str, big: str, small: str) -> CardLook:
    fill = CARD_COLORS[color]
    return CardLook(fill, _ink(fill), big, small)


def card_look(card: str) -> CardLook:
    """The look of any card id of the three decks, or of a control card."""
    parts = card.split("-")
    wild = tuple(CARD_COLORS[c] for c in COLORS)
    if parts[0] == "joker":
        return CardLook(PAPER, DARK_INK, "J", "joker", wild)
    if parts[0] == "parrot":
        return CardLook(PAPER, DARK_INK, "P", "parrot", wild)
    if parts[0] in CARD_COLORS:
        color = parts[0]
        if len(parts) == 2 and parts[1].isdigit():  # Floppy Ears
            return _coloured(color, parts[1], color)
        if len(parts) == 3 and parts[1] == "pirate":
            return _coloured(color, parts[2], "pirate")
        kind = parts[1]
        marks = {"ship": ("<>", "ship"), "bottle": ("+2", "bottle"), "sleeper": ("zz", "sleeper")}
        big, small = marks.get(kind, (kind[:2], kind))
        return _coloured(color, big, small)
    if parts[0] == "family" and len(parts) == 3:
        family = int(parts[1])
        fill = FAMILY_COLORS[(family - 1) % len(FAMILY_COLORS)]
        return CardLook(fill, _ink(fill), parts[1], parts[2])
    if parts[0] == "police":
        return CardLook(POLICE_NAVY, LIGHT_INK, "P", "police")
    if parts[0] == "control":
        rest = "-".join(parts[1:])
        if rest.startswith("game-"):
            return CardLook(PAPER, DARK_INK, GAME_CARD_TITLES.get(rest[5:], rest[5:]), "game")
        if rest.startswith("players-"):
            return CardLook(PAPER, DARK_INK, rest[8:], "players")
        return CardLook(PAPER, DARK_INK, rest.replace("-", " "), "control")
    return CardLook(PAPER, DARK_INK, "?", card)


def hand_order(card: str) -> tuple[int, int, str]:
    """Sort key for a hand as a child would hold it: by colour, then number, wild cards last; cats by family."""
    if card.startswith("family-"):
        _, family, member = card.split("-", 2)
        return int(family), {"mother": 0, "father": 1, "kittens": 2}.get(member, 3), card
    if card.startswith("police-"):
        return 10, int(card.removeprefix("police-")), card
    color = next((i for i, c in enumerate(COLORS) if card.startswith(f"{c}-")), len(COLORS))
    digits = "".join(ch for ch in card.rsplit("-", 1)[-1] if ch.isdigit())
    return color, int(digits) if digits else 99, card

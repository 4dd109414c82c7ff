"""Card decks and control cards: every id a tag can stand for.

Card ids are docs/rulings.md's. Control cards are the box's own: NFC cards that
pick a game, a player count or a variant, give up the game for a new one,
take back the last action, switch the box off, change the volume and the
language, like the command cards of children's audio boxes, or pair a phone.
"""

from __future__ import annotations

from controller.games.base import COLORS

LANGUAGES: tuple[str, ...] = ("de", "en", "fr", "nl", "es", "it")

DECKS: dict[str, tuple[str, ...]] = {
    "floppy-ears": tuple(
        [f"{c}-{n}" for c in COLORS for n in range(1, 8)] + [f"joker-{n}" for n in range(1, 9)]
    ),
    "pirates": tuple(
        [f"{c}-pirate-{n}" for c in COLORS for n in range(1, 10)]
        + [f"{c}-{kind}" for c in COLORS for kind in ("ship", "bottle", "sleeper")]
        + [f"parrot-{n}" for n in range(1, 5)]
    ),
    "policecats": tuple(
        [f"family-{f}-{m}" for f in range(1, 10) for m in ("mother", "father", "kittens")]
        + [f"police-{n}" for n in range(1, 10)]
    ),
}

#: Variant toggles a control card can flip: card suffix -> (game, option, off value, on value).
VARIANTS: dict[str, tuple[str, str, object, object]] = {
    "reveal-edition": ("floppy-ears", "edition", "classic", "reveal"),
    "no-bark": ("floppy-ears", "bark_rule", True, False),
    "mau-calls": ("pirates", "mau_calls", False, True),
    "alarm": ("policecats", "variant", "basic", "alarm"),
}

CONTROL: tuple[str, ...] = tuple(
    [f"control-game-{g}" for g in DECKS]
    + [f"control-players-{n}" for n in range(2, 6)]
    + [f"control-variant-{v}" for v in VARIANTS]
    + ["control-new-game", "control-undo", "control-power-off", "control-volume-up", "control-volume-down"]
    + ["control-pair"]  # the box says a code that pairs a phone with the family's page (controller/control)
    + [f"control-language-{lang}" for lang in LANGUAGES]
)

_OWNER: dict[str, str] = {card: game for game, cards in DECKS.items() for card in cards}
_OWNER.update({card: "control" for card in CONTROL})


def deck_of(card: str) -> str | None:
    """The game a card id belongs to, ``"control"`` for a control card, None for no card at all."""
    return _OWNER.get(card)


def enrollable(deck: str) -> tuple[str, ...]:
    """The ids ``gamebox enroll DECK`` walks through, in order."""
    if deck == "control":
        return CONTROL
    return DECKS[deck]

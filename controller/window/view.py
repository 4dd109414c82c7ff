"""What the window shows, as plain data: one :class:`TableView` per moment.

The simulator builds it from the running box and its virtual table, the
kiosk display from the journal; the renderer only draws it. Because a view
is a frozen value, the window redraws exactly when a new view differs from
the last one, and a test can build one by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from controller.stage.lights import SEAT_COLOR_NAMES
from controller.stage.narration import player_name

RGB = tuple[int, int, int]

GAME_TITLES: dict[str, str] = {
    "floppy-ears": "Floppy Ears",
    "pirates": "Pirate & Co. Mau Mau",
    "policecats": "Policecats",
}

@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the others see it."""

    seat: int
    name: str  # "Player 2", or "You"
    hand: int | None = None  # cards in hand (None: the game has no hands)
    ears: tuple[str | None, str | None] | None = None  # Floppy Ears: left and right ear
    ears_hidden: bool = False  # drawn face down: this player must remember them
    ship: int | None = None  # Pirates: rounds won, the ship's cell on the sea route
    score: int | None = None
    cards: tuple[str, ...] = ()  # Policecats: the cats lying face up in front of the seat
    families: int | None = None  # Policecats: complete families turned face down
    police: bool = False  # holds the policecat figure


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one frame shows. ``you`` is the seat at the bottom of the window (None on the display)."""

    game: str | None  # None: the box's menu
    players: int = 0
    current: int | None = None  # the referee's current seat
    awaiting: str | None = None
    waiting_for: int | None = None  # the seat whose input the table waits for (in setup too); None: the table
    you: int | None = 0
    seats: tuple[SeatView, ...] = ()
    top: str | None = None  # the discard pile's top card
    stack: int | None = None  # cards left in the stack
    color: str | None = None  # the colour to match (or the one being chosen)
    choosing_color: bool = False
    hand: tuple[str, ...] = ()  # your cards, in the order keys 1-9 pick them
    own_ears: tuple[str | None, str | None] | None = None  # your ears, drawn face down
    wins_needed: int = 0
    winners: tuple[int, ...] = ()
    leds: tuple[tuple[str, tuple[RGB, ...]], ...] = ()  # segment -> what it shows now
    prompt: str = ""  # the last line the box said
    answer: str = ""  # the box's last answer: the action it took, or that it refused one
    hint: str = ""  # what you can do now
    die_face: str | None = None  # Policecats: the face just rolled
    die_down: bool = False
    focus: str | None = None  # the target the keyboard's Enter would tap
    table: bool = True  # the virtual table (hands, reader pad, buttons); False on the display
    hold_time: float = 2.0

    def led(self, segment: str) -> tuple[RGB, ...]:
        for name, pixels in self.leds:
            if name == segment:
                return pixels
        return ()


def seat_name(seat: int, you: int | None = None) -> str:
    return "You" if seat == you else player_name(seat)


def seat_colour_name(seat: int) -> str:
    return SEAT_COLOR_NAMES[seat % len(SEAT_COLOR_NAMES)]


KEPT_BACK = ("stop_ear", "ear_penalty")
"""Events after which a played card is not on the pile: the referee took the play, not the card."""


def answer_text(action: dict[str, Any], you: int | None = None, events: Collection[str] = ()) -> str:
    """The box's answer to an accepted action: what really happened, named from what the referee saw."""
    said = describe_action(action, you, events)
    return said if any(event in events for event in KEPT_BACK) else "took it: " + said


def describe_action(action: dict[str, Any], you: int | None = None, events: Collection[str] = ()) -> str:
    """An accepted referee action in a few words, as the table saw it (``events``: what it caused)."""
    seat = action.get("player")
    who = "the table" if seat is None else ("you" if seat == you else player_name(seat))
    whose = "your" if seat == you else f"{who}'s"
    kind = action.get("type", "?")
    if kind == "play" and "stop_ear" in events:  # docs/rulings.md F5: the card goes back to the hand
        return f"stop ear: {who} took {card_name(action['card'])} back and a penalty card"
    if kind == "play" and "ear_penalty" in events:  # docs/rulings.md F4: the ear goes back on its ear
        return f"ear penalty: {card_name(action['card'])} stays on {whose} ear, and {who} took a penalty card"
    if kind == "start_card":
        return f"first card: {card_name(action['card'])}"
    if kind == "hang":
        return f"{who} hung an ear"
    if kind == "play":
        call = f", calling {action['call']}" if action.get("call") else ""
        return f"{who} played {card_name(action['card'])}{call}"
    if kind == "reveal":
        return f"{who} turned up {card_name(action['card'])}"
    if kind in ("give", "lure"):
        verb = "gave" if kind == "give" else "lured"
        return f"{who} {verb} {card_name(action['card'])}"
    if kind == "draw":
        return f"{who} drew a card"
    if kind == "pass":
        return f"{who} passed"
    if kind == "roll":
        return f"{who} rolled {action.get('face', '?')}"
    if kind == "choose_color":
        return f"{who} chose {action['color']}"
    if kind == "send_kittens":
        to = action.get("to")
        return f"{who} sent the kittens to " + ("you" if to == you else player_name(to))
    return f"{who}: {kind}"


def card_name(card: str) -> str:
    """A card id as words: ``red-5`` -> "red 5", ``family-3-kittens`` -> "family 3 kittens"."""
    return card.replace("-pirate-", " ").replace("-", " ")


def hint(awaiting: str | None, yours: bool, waiting_for: int | None, you: int | None, hold: float) -> str:
    """One line telling the player at the window what they can do now (``waiting_for``: the seat awaited)."""
    if awaiting is None:
        return "Choose a game: tap a game card, then a players card (or press and hold the die button)"
    if awaiting == "over":
        return f"Game over. Hold the die button ({hold:g} s, or H) for another game, N for the menu"
    if not yours:
        if waiting_for is None:
            return "The table is being set up..."
        return f"{seat_name(waiting_for)} ({seat_colour_name(waiting_for)}) is playing..."
    return {
        "setup": "Hang your ears: tap a card from your hand for each ear",
        "hang": "Hang a new ear: tap a card from your hand",
        "play": "Your turn: tap a matching card, or press the die button to draw",
        "after_draw": "Play the drawn card, or press the die button to pass",
        "choose_color": "Choose a colour: Y G B R, or press the die button to change and hold it to choose",
        "roll": "Your turn: press the die button to roll",
        "reveal": "Turn up the top card of the stack: click it (or S)",
        "send_kittens": "Send the kittens home: tap one of their parents",
        "give": "Give away one of your cats: tap it",
        "lure": "Lure a cat: tap another player's card",
        "start_card": "Turn up the first card: click the stack (or S)",
    }.get(awaiting, f"Your turn ({awaiting.replace('_', ' ')})")

"""What each die face looks like on the ring: a pattern first, a colour second.

Every face has its own shape, so a child who cannot tell orange from green
still reads the die: the cat fills the ring, the dog half of it, the mouse
is a short arc at the top, the whistle two opposite pairs that flash, and a
number is that many dots spread round the ring. Patterns are drawn for any
ring of 8 or more pixels; pixel 0 is at the top.
"""

from puck.protocol import NUMBERS

COLOURS = {
    "cat": (255, 110, 0),  # orange
    "dog": (20, 60, 255),  # blue
    "mouse": (180, 180, 180),  # grey-white
    "whistle": (0, 230, 40),  # green
}
NUMBER_COLOUR = (255, 220, 0)  # yellow
FLASH_MS = 250  # the whistle is lit and dark for this long in turn
FLASH_REBASE_MS = 3600000  # the flash is timed from a tick at most this old (puck.core)
MIN_LEDS = 8


def pattern(face: str, leds: int) -> list:
    """Which pixels the face lights (the whistle's lit half of its flash)."""
    if face == "cat":
        lit = list(range(leds))
    elif face == "dog":
        lit = list(range(leds // 2))
    elif face == "mouse":
        lit = [leds - 1, 0, 1]
    elif face == "whistle":
        half = leds // 2
        lit = [0, 1, half, half + 1]
    elif face in NUMBERS:
        count = int(face)
        lit = [(i * leds + count // 2) // count for i in range(count)]
    else:
        raise ValueError("no face " + face)
    on = [False] * leds
    for index in lit:
        on[index] = True
    return on


def colour(face: str) -> tuple:
    return COLOURS.get(face, NUMBER_COLOUR)


def frame(face: str, leds: int) -> list:
    """The face's pixels (the whistle's while it is lit)."""
    rgb = colour(face)
    return [rgb if on else (0, 0, 0) for on in pattern(face, leds)]


def dark(face: str, elapsed_ms: int) -> bool:
    """Is the face in the dark half of its flash ``elapsed_ms`` after it was first shown? (Only the whistle flashes.)"""
    return face == "whistle" and (elapsed_ms // FLASH_MS) % 2 == 1

"""The handover: after a turn passes, the buttons wait a moment before they count for the new player.

A child mashing the die button must not play the next players' turns: four
presses in 0.4 s were four draws for three players. So when the seat whose
action is awaited changes, a press counts only after ``seconds`` (about the
length of the "your turn" prompt); a press before that is answered with a
short "wait" and does nothing. One press therefore never acts for two turns.
"""

from __future__ import annotations

from typing import Hashable


class Handover:
    """Remembers whose turn it is and since when; says whether a press may act now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.turn: Hashable = None
        self.until = 0.0

    def follow(self, turn: Hashable, now: float) -> None:
        """The turn after an accepted action (or an undo): a new turn starts the handover time."""
        if turn != self.turn:
            self.turn, self.until = turn, now + self.seconds

    def reset(self, turn: Hashable) -> None:
        """A game starts or resumes: the first player may press at once."""
        self.turn, self.until = turn, 0.0

    def waiting(self, now: float) -> bool:
        """True while a press is still too early for the new player."""
        return now < self.until

    def left(self, now: float) -> float:
        """Seconds until a press counts again (0 when it counts now)."""
        return max(0.0, self.until - now)

"""The die button's long gestures: two holds take the last action back, a very long hold in the menu switches off.

During play a single hold only asks ("hold the button again to take
back"), so a child leaning on the button changes nothing; a second hold
within ``undo_window`` seconds takes back. In the menu the button held down for ``power_off_hold`` seconds shuts
the box down, ``goodbye`` seconds after the goodbye show starts.
"""

from __future__ import annotations


class Gestures:
    """The timers of the die button's gestures; the box asks what is due."""

    def __init__(self, undo_window: float, power_off_hold: float, goodbye: float) -> None:
        self.undo_window, self.power_off_hold, self.goodbye = undo_window, power_off_hold, goodbye
        self.undo_until: float | None = None  # a second hold before this takes the last action back
        self.power_off_at: float | None = None  # the button, held down in the menu, switches off then
        self.goodbye_at: float | None = None  # the goodbye show is over: the power goes

    def down(self, now: float, in_menu: bool) -> None:
        if in_menu:
            self.power_off_at = now + self.power_off_hold

    def up(self) -> None:
        self.power_off_at = None

    def second_hold(self, now: float) -> bool:
        """True when this hold completes the undo gesture; False when it is the first (and arms it)."""
        if self.undo_until is not None and now <= self.undo_until:
            self.undo_until = None
            return True
        self.undo_until = now + self.undo_window
        return False

    def say_goodbye(self, now: float) -> bool:
        """Start the goodbye's countdown; False when it already runs."""
        if self.goodbye_at is not None:
            return False
        self.goodbye_at = now + self.goodbye
        return True

    def cancel(self) -> None:
        """A game starts or the menu opens: a half-made gesture is forgotten."""
        self.undo_until = self.power_off_at = None

    def next_deadline(self) -> float | None:
        due = [d for d in (self.power_off_at, self.goodbye_at) if d is not None]
        return min(due) if due else None

    def due(self, now: float) -> str | None:
        """``"shut_down"`` when the long hold is complete, ``"power_off"`` when the goodbye is over."""
        if self.power_off_at is not None and now >= self.power_off_at:
            self.power_off_at = None
            return "shut_down"
        if self.goodbye_at is not None and now >= self.goodbye_at:
            self.goodbye_at = None
            return "power_off"
        return None

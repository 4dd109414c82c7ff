"""Turning a chattering contact into clean presses.

gpiozero's mock pins ignore ``bounce_time``, and its real debouncing
*delays* the first edge; a child pressing the die button should hear the
roll at once. So the box debounces on its own, on the leading edge: the
first change counts immediately, and the contact is then not listened to
for ``bounce_time``. If it ended up elsewhere when that time is over (a tap
shorter than the bounce time), :meth:`Debouncer.settle` reports that.
"""

from __future__ import annotations

import math


class Debouncer:
    """Pure leading-edge debouncing over (level, time) edges; no timers of its own."""

    def __init__(self, bounce_time: float) -> None:
        if bounce_time < 0:
            raise ValueError("bounce_time must be >= 0")
        self.bounce_time = bounce_time
        self.state = False
        self._raw = False
        self._changed_at = -math.inf
        #: When the caller should call :meth:`settle`, or None if nothing is pending.
        self.due: float | None = None

    def edge(self, level: bool, at: float) -> bool | None:
        """Feed a raw level seen at ``at``; the new state if it changed now, else None."""
        self._raw = level
        if at - self._changed_at < self.bounce_time:
            self.due = self._changed_at + self.bounce_time
            return None
        return self._change(level, at)

    def settle(self, at: float) -> bool | None:
        """Call once the quiet time after a change is over; the new state if the contact moved."""
        self.due = None
        return self._change(self._raw, at)

    def _change(self, level: bool, at: float) -> bool | None:
        if level == self.state:
            return None
        self.state = level
        self._changed_at = at
        return level

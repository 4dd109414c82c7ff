"""The button and the shake switch: raw pin levels in, one event per real press or shake out."""

from puck import ticks


class Debouncer:
    """A button that must hold a new level for ``settle_ms`` before the change counts.

    Contacts chatter for a few milliseconds on every press and release; a
    child pressing ten times a second still gets ten presses.
    """

    def __init__(self, settle_ms: int) -> None:
        self.settle_ms = settle_ms
        self.down = False  # the debounced state
        self._level = False
        self._since = 0

    def update(self, down: bool, now: int) -> bool:
        """Feed the pin's level at ``now``; True exactly once per press."""
        if down != self._level:
            self._level, self._since = down, now
            return False
        if down != self.down and ticks.diff(now, self._since) >= self.settle_ms:
            self.down = down
            return down
        return False


class ShakeDetector:
    """A vibration switch rattling: ``edges`` changes within ``window_ms`` are a shake.

    A bump (the puck set down on the table) gives one or two changes, a
    shake many. After a shake the switch is ignored for ``rest_ms``, so a
    shake is one roll however long it lasts.
    """

    def __init__(self, edges: int, window_ms: int, rest_ms: int) -> None:
        self.edges = edges
        self.window_ms = window_ms
        self.rest_ms = rest_ms
        self._level = False
        self._changes: list = []  # ticks of recent level changes
        self._resting_until: int | None = None

    def update(self, closed: bool, now: int) -> bool:
        """Feed the switch's level at ``now``; True once per shake."""
        changed = closed != self._level
        self._level = closed
        if self._resting_until is not None:
            if ticks.diff(now, self._resting_until) < 0:
                return False
            self._resting_until = None
            self._changes = []
        if self._changes and ticks.diff(now, self._changes[0]) >= self.window_ms:  # forget old changes at once,
            self._changes = [t for t in self._changes if ticks.diff(now, t) < self.window_ms]  # not days later
        if not changed:
            return False
        self._changes.append(now)
        if len(self._changes) >= self.edges:
            self._resting_until = ticks.add(now, self.rest_ms)
            return True
        return False

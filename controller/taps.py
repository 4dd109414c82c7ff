"""Duplicate suppression: one card laid on a reader is one tap.

Readers report what they see; some report a tag lying on them again and
again. Per reader, a tag that is still lying there is not tapped again, and
the same tag seen again within ``window`` seconds of its last sighting is
ignored (a child's hand wobbling over the reader).
"""

from __future__ import annotations


class TapFilter:
    """Decides, per reader, whether a tag sighting is a new tap."""

    def __init__(self, window: float) -> None:
        self.window = window
        self._present: dict[str, str] = {}  # reader -> uid lying on it
        self._last: dict[tuple[str, str], float] = {}  # (reader, uid) -> when last seen

    def seen(self, reader: str, uid: str, now: float) -> bool:
        """True when this sighting is a new tap."""
        key = (reader, uid)
        if self._present.get(reader) == uid:
            self._last[key] = now
            return False
        last = self._last.get(key)
        self._present[reader] = uid
        self._last[key] = now
        return last is None or now - last >= self.window

    def gone(self, reader: str, uid: str | None) -> None:
        """The tag left the reader (``uid`` None: whatever lay there)."""
        if uid is None or self._present.get(reader) == uid:
            self._present.pop(reader, None)

    def forget(self) -> None:
        """Clear the memory of recent taps (after a deal, a re-tap of any card is meant)."""
        self._last.clear()

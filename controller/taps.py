"""Duplicate suppression: one card laid on a reader is one tap.

Readers report what they see; some report a tag lying on them again and
again, and keyboard-style readers never say a tag has gone. Per reader, a
tag that is still lying there (seen again within ``window`` seconds, with
no "gone" between) is not tapped again, and the same tag laid again within
``window`` seconds of the tap that counted is ignored (a child's hand
wobbling over the reader).
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
        last = self._last.get(key)
        if self._present.get(reader) == uid and last is not None and now - last < self.window:
            self._last[key] = now  # still lying there (a reader that repeats what it sees)
            return False
        self._present[reader] = uid
        if last is not None and now - last < self.window:
            return False  # a wobble: the window runs from the tap that counted, so retrying never extends it
        self._last[key] = now
        return True

    def gone(self, reader: str, uid: str | None) -> None:
        """The tag left the reader (``uid`` None: whatever lay there)."""
        if uid is None or self._present.get(reader) == uid:
            self._present.pop(reader, None)

    def forget(self) -> None:
        """Clear the memory of recent taps (after a deal, a re-tap of any card is meant)."""
        self._last.clear()

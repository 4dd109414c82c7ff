"""Duplicate suppression: one card laid on a reader is one tap.

Readers report what they see; some report a tag lying on them again and
again, and keyboard-style readers never say a tag has gone. Per reader, a
tag that is still lying there (seen again within ``window`` seconds, with
no "gone" between) is not tapped again, and the same tag laid again within
``window`` seconds of the tap that counted is ignored (a child's hand
wobbling over the reader). Any other tag on that reader ends the window: a
card tapped straight back after another one (a lured kittens card returned)
is a new tap.

Only the last tag of each reader is remembered, so the memory stays the
same however many tags the box ever sees.
"""

from __future__ import annotations


class TapFilter:
    """Decides, per reader, whether a tag sighting is a new tap."""

    def __init__(self, window: float) -> None:
        self.window = window
        self._present: dict[str, str] = {}  # reader -> uid lying on it
        self._last: dict[str, tuple[str, float]] = {}  # reader -> (its last tag, when that was last seen)

    def seen(self, reader: str, uid: str, now: float) -> bool:
        """True when this sighting is a new tap."""
        last = self._last.get(reader)
        lying = self._present.get(reader) == uid
        self._present[reader] = uid
        if last is not None and last[0] == uid and now - last[1] < self.window:
            if lying:  # still lying there (a reader that repeats what it sees)
                self._last[reader] = (uid, now)
            return False  # a wobble: the window runs from the tap that counted, so retrying never extends it
        self._last[reader] = (uid, now)
        return True

    def gone(self, reader: str, uid: str | None) -> None:
        """The tag left the reader (``uid`` None: whatever lay there)."""
        if uid is None or self._present.get(reader) == uid:
            self._present.pop(reader, None)

    def forget(self) -> None:
        """Clear the memory of recent taps (after a deal, a re-tap of any card is meant)."""
        self._last.clear()

    def __len__(self) -> int:
        """How many readers' last tags are remembered (bounded by the readers, not the tags)."""
        return len(self._last)

"""The call window: a tapped card held back until its call ("woof", "Mau") is made or the window closes.

The play is not the referee's until the window closes, so it is not in the
journal's action log; the held tap is journalled as the ``pending_call``
setting instead, so a box that loses power within the window offers the
same call again when it resumes (with a fresh window: the players could
not press while it was dark).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from controller.storage.journal import Journal, JournalError

log = logging.getLogger("gamebox.calls")

SETTING = "pending_call"


@dataclass(slots=True)
class PendingCall:
    """A tapped card held back until its call is made or the window closes."""

    action: dict[str, Any]
    call: str
    deadline: float


class CallWindow:
    """At most one held tap, journalled while it is held."""

    def __init__(self, journal: Journal, seconds: float) -> None:
        self.journal = journal
        self.seconds = seconds
        self.pending: PendingCall | None = None

    def open(self, game_id: int, seq: int, action: dict[str, Any], call: str, now: float) -> None:
        """Hold ``action`` (the referee's next action ``seq`` of ``game_id``) until ``call`` or the deadline."""
        self.pending = PendingCall(action, call, now + self.seconds)
        self._store({"game_id": game_id, "seq": seq, "action": action, "call": call})

    def take(self) -> PendingCall | None:
        """The held tap, now released (made with its call, closed, or dropped)."""
        pending, self.pending = self.pending, None
        if pending is not None:
            self._store(None)
        return pending

    def due(self, now: float) -> bool:
        return self.pending is not None and now >= self.pending.deadline

    def restore(self, game_id: int, seq: int, now: float) -> PendingCall | None:
        """After a restart: hold again the tap journalled for this game's next action, if there is one."""
        stored = self.journal.setting(SETTING)
        if not isinstance(stored, dict):
            return None
        if stored.get("game_id") == game_id and stored.get("seq") == seq and isinstance(stored.get("action"), dict) \
                and isinstance(stored.get("call"), str):
            self.pending = PendingCall(stored["action"], stored["call"], now + self.seconds)
            log.info("game %s: the tap before the power cut waits for its call again", game_id)
            return self.pending
        self._store(None)  # it belonged to another game or an action already made
        return None

    def _store(self, value: dict[str, Any] | None) -> None:
        try:
            self.journal.set_setting(SETTING, value)
        except JournalError as exc:  # the tap still waits in memory; only a power cut now would lose it
            log.error("cannot journal the held tap: %s", exc)

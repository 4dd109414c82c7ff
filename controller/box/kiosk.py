"""A box nobody watches: a game left alone is asked about, then given up, and the box invites new players.

:class:`Kiosk` sits beside the box in the daemon's pump: it is told of every
input (:meth:`saw`), says when it next needs the loop (:meth:`next_deadline`)
and acts in :meth:`poll`. A game untouched for ``idle_minutes`` gets a
"still playing?" (sound and light); any input answers it. Without an answer
the game is abandoned (kept in the journal) and the box goes straight to its
attract show. A finished game left on the table simply goes back to the
invitation after the same idle time.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from controller.box.box import Box
from controller.config import KioskConfig
from hardware.events import ButtonHeld, ButtonPressed, ButtonReleased, PuckPressed, TagSeen

log = logging.getLogger("gamebox.kiosk")

INPUTS = (TagSeen, ButtonPressed, ButtonHeld, ButtonReleased, PuckPressed)


class Kiosk:
    def __init__(self, settings: KioskConfig, box: Box, now: Callable[[], float]) -> None:
        self.box, self.now = box, now
        self.idle_after = settings.idle_minutes * 60.0
        self.answer_within = settings.answer_seconds
        self.last_input = now()
        self.asked_at: float | None = None
        self._game_id = box.game_id

    def saw(self, event: Any) -> None:
        """Any input restarts the idle time, and answers "still playing?"."""
        if isinstance(event, INPUTS):
            self.last_input = self.now()
            if self.asked_at is not None:
                log.info("still playing: the game goes on")
                self.asked_at = None

    def next_deadline(self) -> float | None:
        engine = self.box.engine
        if engine is None:
            return None
        if self.asked_at is not None:
            return self.asked_at + self.answer_within
        return self.last_input + self.idle_after

    def poll(self) -> None:
        box, now = self.box, self.now()
        if box.game_id != self._game_id:  # a new game (or none): its idle time starts now
            self._game_id, self.last_input, self.asked_at = box.game_id, now, None
        engine = box.engine
        if engine is None:
            self.asked_at = None
            return
        if self.asked_at is not None and now >= self.asked_at + self.answer_within:
            log.info("nobody answered 'still playing?': game %s abandoned", box.game_id)
            self._back_to_invitation()
        elif self.asked_at is None and now >= self.last_input + self.idle_after:
            if engine.over:
                self._back_to_invitation()
            else:
                log.info("game %s idle for %.0f minutes: still playing?", box.game_id, self.idle_after / 60)
                self.asked_at = now
                box.stage.show("still_playing")

    def _back_to_invitation(self) -> None:
        self.asked_at = None
        self.box.abandon_game()
        self.box.menu.attract_at = self.now()  # the invitation at once, not after the menu's usual wait
        self.box.poll()
        self._game_id = self.box.game_id

"""The simulator's other players: bots at every seat but yours, playing through the simulated devices.

They act only when the referee awaits one of their seats (or the table
itself, to turn up the first card), by tapping and pressing exactly as the
demo's bots do; when your seat is awaited they wait for you. Like polite
players they let the box finish speaking before they move, so its spoken
prompts (and the window's prompt line) keep up with the game. With no human seat they play every seat: that is how
``--screenshot`` sets the table.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from controller.autoplay import Autoplayer, Input, perform
from controller.daemon import Daemon
from controller.stage.narration import player_name
from hardware.clock import Clock

log = logging.getLogger("gamebox.sim")

PACE = 1.0  # seconds between a bot's inputs, after the box has finished speaking
POLL = 0.1  # how often bots look whether the box has finished speaking
IDLE = 1.0  # at most this long between two looks at whose turn it is (the box's actions wake them at once)
BOTS = ["greedy", "random", "forgetful"]


class Seats:
    """Keeps an :class:`Autoplayer` for the box's current game and plays the bots' turns."""

    def __init__(self, daemon: Daemon, clock: Clock, seed: int, human: int | None = 0, pace: float = PACE) -> None:
        self.daemon, self.clock, self.seed, self.human, self.pace = daemon, clock, seed, human, pace
        self.auto: Autoplayer | None = None
        self.acting = False  # a bot is in the middle of its inputs
        self.stop_when: Callable[[], bool] | None = None  # bots stop once this is true
        self.stopped = False
        self._games = 0
        self._failures = 0
        self._moved = asyncio.Event()  # set when the box takes an action

    def sync(self) -> Autoplayer | None:
        """The autoplayer of the game on the box now (a new one for each new game), None in the menu."""
        box = self.daemon.box
        if box.engine is None:
            return None
        if self.auto is None or self.auto.game_id != box.game_id:
            kinds = BOTS if box.engine.game == "floppy-ears" else ["greedy", "random"]
            self.auto = Autoplayer(box, self.seed + self._games, kinds)
            self._games += 1
            if self._wake not in box.listeners:
                box.listeners.append(self._wake)
        return self.auto

    def awaited(self) -> int | None:
        """The seat the table waits for now (None: the table itself, or no game)."""
        auto = self.sync()
        if auto is None or self.daemon.box.engine.over:
            return None
        return auto.decision().seat

    def human_may_act(self) -> bool:
        """Whether an input from the window may reach the box now.

        The box cannot tell who tapped: a card laid out of turn would be
        taken as the awaited seat's. So your inputs count only on your turn
        (or in the menu and after the game), never while a bot is acting.
        """
        if self.acting:
            return False
        box = self.daemon.box
        if box.engine is None or box.engine.over:
            return True
        auto = self.sync()
        return auto is not None and self.human is not None and auto.decision().seat == self.human

    async def choose_game(self, game: str | None, players: int | None) -> None:
        """Tap the control cards that start ``game`` for ``players``, as a parent would."""
        if game is None:
            return
        cards = [Input("tap", f"control-game-{game}")] + ([Input("tap", f"control-players-{players}")] if players else [])
        self.acting = True
        try:
            await perform(self.daemon.devices, cards, self.clock.sleep, pace=0.3)
        finally:
            self.acting = False

    async def quiet(self) -> None:
        """Wait until the box has said everything it queued."""
        stage = self.daemon.stage
        for _ in range(600):  # a minute at most: a stuck voice queue must not stop the game
            if not stage.voice and self.clock.monotonic() >= stage.voice_free:
                return
            await self.clock.sleep(POLL)

    async def run(self) -> None:
        """Play the bots' turns for as long as the window is open."""
        while True:
            if self.stop_when is not None and self.stop_when():
                self.stopped = True
                return
            try:
                acted = await self._turn()
            except Exception:  # a bot's bug must not take the window down
                log.exception("a bot could not play; it tries again")
                acted = False
            if not acted:
                await self._idle()

    def _wake(self, _action: object, _outcome: object) -> None:
        self._moved.set()

    async def _idle(self) -> None:
        """Sleep until the box takes an action (yours, most often), or a second has passed."""
        self._moved.clear()
        moved = asyncio.ensure_future(self._moved.wait())
        timer = asyncio.ensure_future(self.clock.sleep(IDLE))
        try:
            await asyncio.wait({moved, timer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            moved.cancel()
            timer.cancel()

    async def _turn(self) -> bool:
        box = self.daemon.box
        auto = self.sync()
        if auto is None or box.engine.over or box.pending is not None:
            return False
        seat = auto.decision().seat
        if self.human is not None and seat == self.human:
            return False
        before = (box.game_id, len(box.engine.log))
        seat, action = auto.choose()
        self.acting = True
        try:
            await self.quiet()
            await perform(self.daemon.devices, auto.inputs(action), self.clock.sleep, pace=self.pace)
        finally:
            self.acting = False
        if box.engine is not None and (box.game_id, len(box.engine.log)) == before:
            self._failures += 1
            if self._failures in (3, 30):
                log.warning("the box did not take %s from %s (%d times in a row)", action, player_name(seat), self._failures)
        else:
            self._failures = 0
        return True

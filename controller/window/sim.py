"""``gamebox sim``: play at a virtual table in a window, against bots, on the real box simulated.

The daemon runs on the simulated devices in this process's asyncio loop,
exactly as ``gamebox run`` would; the window is one more task on that loop.
Your clicks and keys become taps on the simulated reader and presses of the
simulated buttons (never calls into the box), and the window shows what the
LEDs show, what the box said and the cards on the table. The bots take the
other seats (:mod:`controller.window.seats`).

The window looks at its events a modest number of times a second and draws
only when the view it would draw differs from the last one (or the window
was resized or uncovered), so an idle table costs next to no CPU.
"""

from __future__ import annotations

import asyncio
import logging
import random
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable

import pygame

from controller.config import load_config
from controller.daemon import Daemon
from controller.window.box_view import box_view
from controller.window.controls import commands
from controller.window.hands import Hands
from controller.window.render import Drawn, Renderer
from controller.window.screen import SIZE, OffScreen, Window, save_png
from controller.window.seats import PACE, Seats
from controller.window.view import GAME_TITLES, TableView
from hardware.clock import Clock, FakeClock, SystemClock

log = logging.getLogger("gamebox.sim")

POLL = 1 / 30  # seconds between two looks at the window's events: LED animations run at 25 fps
IDLE_POLL = 0.1  # ... once nothing has changed for CALM_AFTER seconds
CALM_AFTER = 2.0
PLAYERS = {"floppy-ears": 3, "pirates": 3, "policecats": 4}
SETUP = ("setup", "hang", "start_card")


class SimApp:
    """The box, its bots and the window's view of them."""

    def __init__(self, clock: Clock, screen: Window | OffScreen, *, game: str | None = None,
                 players: int | None = None, seed: int = 1, human: int | None = 0, pace: float = PACE,
                 profile: str = "sim", state_dir: Path | None = None) -> None:
        self.clock, self.screen = clock, screen
        self.game = game
        self.players = players or (PLAYERS[game] if game else None)
        self.you = 0
        self._state = tempfile.TemporaryDirectory(prefix="gamebox-sim-") if state_dir is None else None
        config = load_config(None, state_dir=str(state_dir or self._state.name), profile=profile, seed=seed)
        self.language = config.language
        self.daemon = Daemon(config, clock=clock, stdin=False, out=lambda _line: None, notify=lambda _m: None)
        self.seats = Seats(self.daemon, clock, seed, human=human, pace=pace)
        self.renderer = Renderer()
        self.drawn: Drawn | None = None
        self.shown: TableView | None = None
        self.frames = 0  # frames drawn so far
        self.hands = Hands(self.daemon, self.seats)
        self.quit = False
        self._drawn_key: Any = None
        self._seen_version: Any = None
        self._dirty = True
        self._tasks: list[asyncio.Task] = []

    # -- life ------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the box and, once it listens, the bots (who first choose the game)."""
        box = asyncio.create_task(self.daemon.run())
        self._tasks.append(box)
        ready = asyncio.ensure_future(self.daemon.ready.wait())
        await asyncio.wait({ready, box}, return_when=asyncio.FIRST_COMPLETED)
        if not self.daemon.ready.is_set():  # the box could not start: say why, do not wait for ever
            ready.cancel()
            box.result()
            raise RuntimeError("the box stopped before it was ready")
        self._tasks.append(asyncio.create_task(self._bots()))

    async def _bots(self) -> None:
        await self.seats.choose_game(self.game, self.players)
        await self.seats.run()

    async def stop(self) -> None:
        for task in self._tasks[1:]:
            task.cancel()
        await asyncio.gather(*self._tasks[1:], return_exceptions=True)
        self.daemon.stopping.set()
        if self._tasks:
            await self._tasks[0]
        self.screen.close()
        if self._state is not None:
            self._state.cleanup()

    @property
    def running(self) -> bool:
        return not self.quit and bool(self._tasks) and not self._tasks[0].done()

    async def run(self) -> None:
        """The window's loop: look at events, draw if anything changed, sleep.

        It looks 30 times a second while things happen, and 10 times a
        second once nothing has for a while (a table waiting for you).
        """
        await self.start()
        busy = time.monotonic()
        try:
            while self.running:
                events = pygame.event.get()
                self.handle(events)
                if self.refresh() or events:
                    busy = time.monotonic()
                await asyncio.sleep(POLL if time.monotonic() - busy < CALM_AFTER else IDLE_POLL)
        finally:
            await self.stop()

    # -- drawing ---------------------------------------------------------------------
    def refresh(self, force: bool = False) -> bool:
        """Draw a frame if the view or the window's size changed; True if it drew.

        Most looks find nothing new: a handful of counters (LED frames,
        spoken lines, the referee's log, your inputs) say so before any
        view is built.
        """
        surface = self.screen.surface()
        version = (self._version(), surface.get_size())
        if not force and not self._dirty and version == self._seen_version:
            return False
        self._seen_version = version
        view = self.view()
        key = (view, surface.get_size())
        if not force and not self._dirty and key == self._drawn_key:
            return False
        self.drawn = self.renderer.draw(surface, view)
        self.screen.present()
        self.shown, self._drawn_key, self._dirty = view, key, False
        self.frames += 1
        return True

    def _version(self) -> tuple[Any, ...]:
        """Changes whenever anything the view shows may have changed."""
        box, stage = self.daemon.box, self.daemon.stage
        frames = self.daemon.devices.leds.frames
        engine = box.engine
        return (
            id(frames[-1]) if frames else None, len(frames), len(stage.transcript),
            box.game_id, len(engine.log) if engine else -1, engine.awaiting if engine else None,
            box.pending is None, box.wish, id(self.seats.auto), self.seats.acting,
            self.hands.focus, self.hands.die_by, self.hands.notice(),
        )

    def view(self) -> TableView:
        """What the table looks like now."""
        hands = self.hands
        return box_view(self.daemon, self.seats, self.you, language=self.language, focus=hands.focus,
                        die_down=hands.die_by is not None, notice=hands.notice())

    # -- input -----------------------------------------------------------------------
    def handle(self, events: Iterable[pygame.event.Event]) -> None:
        """Carry out a batch of window events.

        Only the first input of a batch that acts at the box counts: the box
        takes it on the loop's next turn, and until then a second tap would
        be judged against the old state (a double click is one tap).
        """
        acted = False
        for event in events:
            for command in commands(event, self.drawn, self.shown):
                if command.acts:
                    if acted:
                        continue
                    acted = True
                if command.kind == "quit":
                    self.quit = True
                elif command.kind == "redraw":
                    self._dirty = True
                else:
                    self.hands.do(command, self.drawn.targets if self.drawn else [])


# -- the command ----------------------------------------------------------------------
def setup_done(app: SimApp, moves: int = 0) -> Any:
    """A check that turns true once the table is set up (and ``moves`` more actions were played)."""
    start: list[int] = []

    def done() -> bool:
        engine = app.daemon.box.engine
        if app.game is None:
            return True
        if engine is None or engine.awaiting in SETUP:
            return False
        if not start:
            start.append(len(engine.log))
        return engine.over or len(engine.log) - start[0] >= moves

    return done


async def screenshot(path: str | Path, game: str | None, players: int | None, seed: int, moves: int = 0,
                     size: tuple[int, int] = SIZE) -> Path:
    """Set the table up with bots at every seat (yours too), on table time, then save the frame as PNG."""
    clock = FakeClock(0.0)
    app = SimApp(clock, OffScreen(size), game=game, players=players, seed=seed, human=None)
    app.seats.stop_when = setup_done(app, moves)
    await app.start()
    try:
        for _ in range(20000):
            if app.seats.stopped:
                break
            await clock.run_for(0.5)
        else:
            raise RuntimeError("the bots could not set the table up")
        stage = app.daemon.stage
        for _ in range(600):  # every line said
            if not stage.voice and clock.monotonic() >= stage.voice_free:
                break
            await clock.run_for(0.5)
        await clock.run_for(2.0)  # every fade over
        app.refresh(force=True)
        return save_png(app.screen.surface(), path)
    finally:
        await app.stop()


def audio_likely() -> bool:
    from controller.demo import audio_device_likely

    return audio_device_likely()


def run_sim(game: str | None, players: int | None, seed: int | None, shot: str | None = None, moves: int = 0) -> int:
    """The ``gamebox sim`` command."""
    if shot is not None:
        path = asyncio.run(screenshot(shot, game, players, 1 if seed is None else seed, moves))
        print(f"saved {path}")
        return 0
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    title = f"gamebox sim: {GAME_TITLES.get(game or '', 'choose a game')}"
    profile = "desktop" if audio_likely() else "sim"

    async def play() -> None:
        app = SimApp(SystemClock(), Window(title), game=game, players=players, seed=seed, profile=profile)
        await app.run()

    asyncio.run(play())
    pygame.quit()
    return 0

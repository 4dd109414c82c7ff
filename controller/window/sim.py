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
from controller.games import GAME_IDS
from controller.siminput import card_uid
from controller.window.cards import hand_order
from controller.window.controls import Command, commands
from controller.window.render import Drawn, Renderer
from controller.window.screen import SIZE, OffScreen, Window, save_png
from controller.window.seats import PACE, Seats
from controller.window.view import (
    GAME_TITLES, SeatView, TableView, describe_action, hint, seat_colour_name, seat_name, spoken_text,
)
from hardware.clock import Clock, FakeClock, SystemClock

log = logging.getLogger("gamebox.sim")

POLL = 1 / 30  # seconds between two looks at the window's events: LED animations run at 25 fps
IDLE_POLL = 0.1  # ... once nothing has changed for CALM_AFTER seconds
CALM_AFTER = 2.0
PLAYERS = {"floppy-ears": 3, "pirates": 3, "policecats": 4}
SETUP = ("setup", "hang", "start_card")
MENU_CARDS = tuple(f"control-game-{g}" for g in GAME_IDS) + tuple(f"control-players-{n}" for n in range(2, 6))
ANSWERS = {
    "rejected": "the box said no",
    "unknown_card": "the box does not know that card",
    "other_game": "that card is from another game",
    "not_now": "not now",
}
KEEP_FRAMES = 200  # LED frames the simulated strip keeps: the window only needs the last one


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
        self.quit = False
        self.focus: str | None = None
        self._die_by: str | None = None  # "mouse" or "key" while the die button is held down
        self._notice: tuple[str, Any] | None = None  # (text, the state it was about)
        self._drawn_key: Any = None
        self._seen_version: Any = None
        self._dirty = True
        self._tasks: list[asyncio.Task] = []

    # -- life ------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the box and, once it listens, the bots (who first choose the game)."""
        self._tasks.append(asyncio.create_task(self.daemon.run()))
        await self.daemon.ready.wait()
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
        leds = self.daemon.devices.leds
        if len(leds.frames) > 2 * KEEP_FRAMES:  # a long session must not hoard every LED frame
            del leds.frames[:-KEEP_FRAMES]
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
            self.focus, self._die_by, self._notice,
        )

    def view(self) -> TableView:
        """What the table looks like now."""
        daemon = self.daemon
        box = daemon.box
        leds = daemon.devices.leds
        common: dict[str, Any] = {
            "you": self.you,
            "leds": tuple((name, tuple(leds.shown(name))) for name in leds.segments),
            "prompt": self._prompt(),
            "answer": self._answer(),
            "focus": self.focus,
            "die_down": self._die_by is not None,
            "hold_time": getattr(daemon.devices.buttons.get("die"), "hold_time", 2.0),
        }
        engine = box.engine
        if engine is None:
            return TableView(None, hand=MENU_CARDS, hint=self._hint(hint(None, True, None, self.you, 0)), **common)
        auto = self.seats.sync()
        state = engine.view()
        game = engine.game
        awaiting = state["awaiting"]
        waiting_for = self.seats.awaited()
        yours = waiting_for == self.you and not engine.over
        sizes = state.get("hand_sizes")
        ears = state.get("ears")
        tableau = state.get("tableau")
        seats = tuple(
            SeatView(
                seat=s,
                name=seat_name(s, self.you),
                hand=sizes[s] if sizes is not None else None,
                ears=tuple(ears[s]) if ears is not None else None,
                ears_hidden=s == self.you,
                ship=state["ships"][s] if game == "pirates" else None,
                score=state["scores"][s] if game == "policecats" else None,
                cards=tuple(tableau[s]) if tableau is not None else (),
                families=len(state["families"][s]) if game == "policecats" else None,
                police=state.get("police") == s,
            )
            for s in range(engine.players)
        )
        if tableau is not None:
            hand = tuple(sorted(tableau[self.you], key=hand_order))
        else:
            hand = tuple(sorted(auto.table.hand(self.you), key=hand_order)) if auto else ()
        choosing = awaiting == "choose_color"
        rolls = [a for a in engine.log if a.get("type") == "roll"]
        return TableView(
            game,
            players=engine.players,
            current=state["current"],
            awaiting=awaiting,
            waiting_for=waiting_for,
            seats=seats,
            top=state.get("top"),
            stack=state.get("stack"),
            color=("yellow", "green", "blue", "red")[box.wish] if choosing else state.get("color"),
            choosing_color=choosing,
            hand=hand,
            own_ears=tuple(ears[self.you]) if ears is not None else None,
            wins_needed=engine.options.get("wins_needed", 0) if game == "pirates" else 0,
            winners=tuple(state.get("winners") or ()),
            hint=self._hint(hint(awaiting, yours, state["current"], self.you, common["hold_time"])),
            die_face=rolls[-1].get("face") if rolls and awaiting != "roll" else None,
            **common,
        )

    def _prompt(self) -> str:
        for _at, kind, name in reversed(self.daemon.stage.transcript):
            if kind == "say":
                return spoken_text(name, self.language)
        return ""

    def _answer(self) -> str:
        box = self.daemon.box
        for _at, kind, name in reversed(self.daemon.stage.transcript):
            if kind != "show":
                continue
            if name == "accepted" and box.engine is not None and box.engine.log:
                return "took it: " + describe_action(box.engine.log[-1], self.you)
            if name in ANSWERS:
                return ANSWERS[name]
        return ""

    def _state_key(self) -> Any:
        engine = self.daemon.box.engine
        return (self.daemon.box.game_id, len(engine.log) if engine else -1, len(self.daemon.stage.transcript))

    def _hint(self, default: str) -> str:
        """A notice about your last input while nothing has happened since; else what you can do."""
        if self._notice is not None and self._notice[1] == self._state_key():
            return self._notice[0]
        self._notice = None
        return default

    def _refuse(self, text: str) -> None:
        self._notice = (text, self._state_key())

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
                self.do(command)

    def do(self, command: Command) -> None:
        kind, value = command.kind, command.value
        if kind == "quit":
            self.quit = True
        elif kind == "redraw":
            self._dirty = True
        elif kind == "focus":
            self._move_focus(int(value or "1"))
        elif kind == "activate":
            self._activate()
        elif kind == "tap" and value:
            self._tap(value)
        elif kind == "die-down":
            self._die_down(value or "key")
        elif kind == "die-up":
            if self._die_by == value:
                self._die_by = None
                self.daemon.devices.buttons["die"].release()
        elif kind == "hold":
            if self._may_act():
                die = self.daemon.devices.buttons["die"]
                die.hold()
                die.release()
        elif kind == "color" and value:
            if self._may_act() and value in self.daemon.devices.buttons:
                button = self.daemon.devices.buttons[value]
                button.press()
                button.release()
        elif kind == "new-game":
            if self.seats.acting:
                self._refuse("Wait until the bot has finished its move")
            else:
                self._lay("control-new-game")

    def _may_act(self) -> bool:
        if self.seats.human_may_act():
            return True
        seat = self.seats.awaited()
        self._refuse("Wait: " + ("the table is being set up" if seat is None else
                                 f"it is {seat_name(seat)}'s ({seat_colour_name(seat)}) turn"))
        return False

    def _tap(self, target: str) -> None:
        box = self.daemon.box
        if not self._may_act():
            return
        if box.pending is not None:
            self._refuse("Make your call with the die button, or wait")
            return
        if target == "stack":
            card = self.stack_top()
            if card is None:
                self._refuse("Press the die button to draw a card" if box.engine else "Choose a game first")
                return
        else:
            card = target.removeprefix("card:")
        self._lay(card)

    def stack_top(self) -> str | None:
        """The stack's top card, when what the referee awaits is to turn it up."""
        box = self.daemon.box
        auto = self.seats.sync()
        if auto is None or box.engine is None or box.engine.awaiting not in ("reveal", "start_card"):
            return None
        stack = [card for card, place in auto.table.placements() if place == "stack"]
        return stack[-1] if stack else None

    def _lay(self, card: str) -> None:
        """Lay a card on the reader and lift it, as a hand does."""
        reader = next(iter(self.daemon.devices.readers.values()))
        reader.tap(card_uid(card), card)
        reader.remove()

    def _die_down(self, source: str) -> None:
        if self._die_by is not None or not self._may_act():
            return
        self._die_by = source
        self.daemon.devices.buttons["die"].press()

    def _move_focus(self, step: int) -> None:
        targets = self.drawn.targets if self.drawn else []
        if not targets:
            self.focus = None
            return
        index = targets.index(self.focus) if self.focus in targets else (-1 if step > 0 else 0)
        self.focus = targets[(index + step) % len(targets)]

    def _activate(self) -> None:
        target = self.focus
        if target is None:
            return
        if target == "die":
            if self._may_act():
                die = self.daemon.devices.buttons["die"]
                die.press()
                die.release()
        elif target.startswith("color:"):
            self.do(Command("color", target.removeprefix("color:")))
        else:
            self._tap(target)


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

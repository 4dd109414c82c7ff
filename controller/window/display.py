"""``gamebox display``: the game's status on a screen beside a real box (a kiosk, a classroom projector).

It reads only the box's journal, never its devices: whose turn it is, the
colour to match, the ships, the scores, the last thing the referee took,
and the LED segments as the box shows them at rest. No hands, no ears
face up (Floppy Ears players must remember their own), nothing to click.

The journal is read as ``status`` reads it (one committed moment, laid
together from the file and its -wal in memory), so a display never writes
to it, never moves it aside, never makes a -shm beside it, and answers on a
full disk or a read-only mount. It is looked at twice a second, cheaply
(the sizes and times of the file and its -wal, and the -wal's header, which
a restarted log changes), read again only when they changed, and the screen
is redrawn only when the game moved on or the window changed.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Collection

import pygame

from controller.config import Config
from controller.report import game_status, last_events
from controller.stage.scene import Scene
from controller.storage.journal import Journal, JournalError
from controller.window.controls import EXPOSES, RESIZES
from controller.window.render import Drawn, Renderer
from controller.window.rest_lights import rest_frames, scene_of
from controller.window.screen import OffScreen, Window, save_png
from controller.window.view import SeatView, TableView, describe_action, seat_colour_name, seat_name

log = logging.getLogger("gamebox.display")

CHECK = 0.5  # seconds between two looks at the journal
POLL = 0.1  # seconds between two looks at the window's events
INVITATION = "Come and play!"
HOW_TO_PLAY = "Press the big button to pick a game, hold it to choose; the same for players. Then lay your cards on the box."
DEFAULT_SEGMENTS = {"sea-route": 24, "police-track": 24, "turn-ring": 12}

DOING = {
    "setup": "hang the ears",
    "hang": "hang a new ear",
    "start_card": "turn up the first card",
    "play": "play a card or draw",
    "after_draw": "play the drawn card or pass",
    "choose_color": "choose a colour",
    "roll": "roll the die",
    "reveal": "turn up the top card",
    "send_kittens": "send the kittens home",
    "give": "give a cat away",
    "lure": "lure a cat",
}


def segment_counts(profile: str) -> dict[str, int]:
    """The LED segments of the box's hardware profile, so the screen shows the box's own layout."""
    from hardware.profile import ProfileError, load_profile

    try:
        return {name: seg.count for name, seg in load_profile(profile).leds.segments.items()}
    except ProfileError:
        return dict(DEFAULT_SEGMENTS)


def status_view(status: dict[str, Any] | None, last: dict[str, Any] | None, counts: dict[str, int],
                note: str = "", events: Collection[str] = ()) -> TableView:
    """The kiosk's view of a game state read from the journal (``report.game_status``)."""
    if status is None:
        lights = rest_frames(Scene("menu"), counts.items())
        return TableView(None, you=None, table=False, leds=lights, prompt=note or INVITATION, hint=HOW_TO_PLAY)
    game, players = status["game"], status["players"]
    sizes, ears, tableau = status.get("hand_sizes"), status.get("ears"), status.get("tableau")
    seats = tuple(
        SeatView(
            seat=s,
            name=seat_name(s),
            hand=sizes[s] if sizes is not None else None,
            ears=tuple(ears[s]) if ears is not None else None,
            ears_hidden=True,
            ship=status["ships"][s] if game == "pirates" else None,
            score=status["scores"][s] if game == "policecats" else None,
            cards=tuple(tableau[s]) if tableau is not None else (),
            families=len(status["families"][s]) if game == "policecats" else None,
            police=status.get("police") == s,
        )
        for s in range(players)
    )
    scene = scene_of(status)
    winners = tuple(status.get("winners") or ())
    awaiting, current = status.get("awaiting"), status.get("current")
    if status.get("over"):
        hint = ("It's a tie: " if len(winners) > 1 else "The winner: ") + ", ".join(seat_name(w) for w in winners)
    elif current is None:
        hint = "Setting up: " + DOING.get(awaiting or "", awaiting or "")
    else:
        hint = f"{seat_name(current)} ({seat_colour_name(current)}): {DOING.get(awaiting or '', awaiting or '')}"
    said = describe_action(last, events=events) if last else "The game has begun"
    return TableView(
        game,
        players=players,
        current=current,
        awaiting=awaiting,
        waiting_for=current,
        you=None,
        seats=seats,
        top=status.get("top"),
        stack=status.get("stack"),
        color=scene.color,
        choosing_color=scene.choosing_color,
        wins_needed=scene.wins_needed if game == "pirates" else 0,
        winners=winners,
        leds=rest_frames(scene, counts.items()),
        prompt=said[0].upper() + said[1:],
        answer=note or f"game {status['game_id']}  ·  {status['actions']} actions",
        hint=hint,
        die_face=last.get("face") if last and last.get("type") == "roll" else None,
        table=False,
    )


class DisplayApp:
    """The status screen: the journal watched, the view redrawn when it changes."""

    def __init__(self, journal_path: Path, screen: Window | OffScreen, counts: dict[str, int] | None = None) -> None:
        self.path = Path(journal_path)
        self.screen = screen
        self.counts = counts or dict(DEFAULT_SEGMENTS)
        self.renderer = Renderer()
        self.journal: Journal | None = None
        self.quit = False
        self.frames = 0
        self.drawn: Drawn | None = None
        self._seen: Any = None
        self._view: TableView | None = None
        self._drawn_key: Any = None
        self._dirty = True
        self._problem = ""

    def check(self) -> bool:
        """Look at the journal; rebuild the view if the box wrote since last time. True if it did."""
        seen = _written(self.path)
        if seen == self._seen and self._view is not None:
            return False
        try:
            if seen is None:
                self.close_journal()
            elif self.journal is None:
                self.journal = Journal(self.path, read_only=True)  # one moment of it, as status reads it
            else:
                self.journal.reread()  # checks only what the box added since
            self._seen = seen
            self._view = self._build()
        except (sqlite3.Error, JournalError, ValueError, KeyError) as exc:  # mid-write, not a journal, a log that does not replay
            if str(exc) != self._problem:  # once per problem, not twice a second
                log.warning("cannot read %s: %s", self.path, exc)
            self._problem = str(exc)
            self.close_journal()
            self._seen = None
            self._view = status_view(None, None, self.counts, note=f"cannot read the journal: {exc}")
        return True

    def _build(self) -> TableView:
        if self.journal is None:
            return status_view(None, None, self.counts, note=f"no journal at {self.path}")
        status = game_status(self.journal)
        last, note, events = None, "", []
        if status is not None:
            actions = self.journal.actions(status["game_id"])
            last = actions[-1] if actions else None
            events = last_events(status["game"], status["players"], status["options"], actions)
            record = self.journal.game(status["game_id"])
            if record is not None and record.abandoned:  # the box is back at its menu: invite the next players
                return status_view(None, None, self.counts)
        return status_view(status, last, self.counts, note, events)

    def close_journal(self) -> None:
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    def view(self) -> TableView:
        if self._view is None:
            self.check()
        assert self._view is not None
        return self._view

    def refresh(self, force: bool = False) -> bool:
        """Draw if the view or the window changed; True if it drew."""
        view = self.view()
        surface = self.screen.surface()
        key = (view, surface.get_size())
        if not force and not self._dirty and key == self._drawn_key:
            return False
        self.drawn = self.renderer.draw(surface, view)
        self.screen.present()
        self._drawn_key, self._dirty = key, False
        self.frames += 1
        return True

    def handle(self, events: list[pygame.event.Event]) -> None:
        for event in events:
            if event.type == pygame.QUIT or (event.type == pygame.KEYDOWN and event.key in (pygame.K_q, pygame.K_ESCAPE)):
                self.quit = True
            elif event.type in RESIZES or event.type in EXPOSES:
                self._dirty = True

    def run(self) -> None:
        """Until closed: events ten times a second, the journal twice a second, a frame when something changed."""
        next_check = 0.0
        while not self.quit:
            self.handle(pygame.event.get())
            now = time.monotonic()
            if now >= next_check:
                self.check()
                next_check = now + CHECK
            self.refresh()
            pygame.time.wait(round(POLL * 1000))

    def close(self) -> None:
        self.close_journal()
        self.screen.close()


def _written(path: Path) -> tuple[Any, ...] | None:
    """What changes whenever the box commits: the file's and its -wal's identity, size and time, and the -wal's
    header (a log that restarted from its start has new salts there); None when there is no journal."""
    try:
        journal = os.stat(path)
    except OSError:
        return None
    wal = path.with_name(path.name + "-wal")
    try:
        with open(wal, "rb") as file:
            head, log = file.read(32), os.fstat(file.fileno())
        wal_seen: tuple[Any, ...] = (head, log.st_ino, log.st_size, log.st_mtime_ns)
    except OSError:
        wal_seen = ()
    return (journal.st_ino, journal.st_size, journal.st_mtime_ns, *wal_seen)


def run_display(config: Config, shot: str | None = None, fullscreen: bool = False) -> int:
    """The ``gamebox display`` command."""
    path = Path(config.state_dir) / "journal.sqlite"
    counts = segment_counts(config.profile)
    if shot is not None:
        app = DisplayApp(path, OffScreen(), counts)
        app.refresh(force=True)
        saved = save_png(app.screen.surface(), shot)
        app.close()
        print(f"saved {saved}")
        return 0
    app = DisplayApp(path, Window("gamebox display", fullscreen=fullscreen), counts)
    try:
        app.run()
    finally:
        app.close()
        pygame.quit()
    return 0

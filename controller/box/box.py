"""The box: routes taps and presses to the room that owns them, and composes the rooms.

:class:`Box` is synchronous and owns no devices: the daemon feeds it inputs
(:meth:`Box.tap`, :meth:`Box.press`, :meth:`Box.hold`, ...) on the one
asyncio loop, calls :meth:`Box.poll` when :meth:`Box.next_deadline` is due,
and a :class:`Stage` turns its shows, prompts and scenes into sound and
light. Tests drive it the same way with a fake clock.

The box composes its rooms: the :class:`~controller.box.play.Play` (the game
under way: the referee, its journal, the die and the colour being chosen),
the :class:`~controller.box.menu.Menu` (choosing a game, settings), the
:class:`~controller.box.calls.CallWindow` (a tap waiting for "woof" or
"Mau"), the :class:`~controller.box.handover.Handover` (a press too soon
after a turn passed) and the die button's long
:class:`~controller.box.gestures.Gestures` (undo, switching off). It keeps
nothing of its own beyond them: the snapshot and the status line read the rooms.
"""

from __future__ import annotations

import logging
import random
from typing import Any, Callable

from controller.box.calls import CallWindow, PendingCall
from controller.box.gestures import Gestures
from controller.box.handover import Handover
from controller.box.menu import Menu
from controller.box.moves import Moves
from controller.box.play import DIE_FACES, Play
from controller.box.tags import Registry, uid_key
from controller.box.taps import TapFilter
from controller.config import Config
from controller.decks import deck_of
from controller.stage.scene import Stage
from controller.storage.journal import Journal
from hardware.clock import Clock

log = logging.getLogger("gamebox.box")

DIE = "die"
GOODBYE_SECONDS = 3.0  # the goodbye show plays before the power goes

__all__ = ["Box", "DIE", "DIE_FACES", "PendingCall"]


def _of(room: str, name: str, doc: str) -> property:
    """A fact a room keeps, read through the box (the daemon, the stations and the window ask the box)."""
    return property(lambda box: getattr(getattr(box, room), name), doc=doc)


class Box:
    """The referee box: routes each input to the room that owns it (the game, the menu, the call, the gestures)."""

    def __init__(self, config: Config, journal: Journal, registry: Registry, stage: Stage, clock: Clock,
                 new_seed: Callable[[], int] | None = None, power_off: Callable[[], None] | None = None) -> None:
        self.config, self.journal, self.registry, self.stage, self.clock = config, journal, registry, stage, clock
        self.power_off = power_off
        self.taps = TapFilter(config.repeat_window)
        self.menu = Menu(config, journal, stage)
        self.calls = CallWindow(journal, config.call_window)
        self.handover = Handover(config.handover)
        self.gestures = Gestures(config.undo_hold_window, config.power_off_hold, GOODBYE_SECONDS)
        self.play = Play(config, journal, stage, clock, (self.calls, self.handover, self.taps),
                         new_seed or (lambda: random.SystemRandom().randrange(2**32)), self.fault, self.recovered)
        self.moves = Moves(self.play)

    # -- what the rooms keep -------------------------------------------------------
    engine = _of("play", "engine", "The referee of the game under way (or over), None in the menu.")
    game_id = _of("play", "game_id", "The journal's id of that game.")
    seq = _of("play", "seq", "How many of its actions the journal holds.")
    die = _of("play", "die", "The die's random generator, seeded with the game.")
    wish = _of("play", "wish", "The colour being chosen on the turn ring.")
    storage_fault = _of("play", "storage_fault", "The journal failed to write the last time it was asked.")
    listeners = _of("play", "listeners", "Called with (action, outcome) once an action is in the journal.")
    undo_listeners = _of("play", "undo_listeners", "Called with the action taken back, once the journal took it back.")
    playing = _of("play", "playing", "A game is under way (not the menu, not a game that is over).")

    pending = _of("calls", "pending", "The tap waiting for its call, if any.")
    volume = _of("menu", "volume", "The volume, as the menu keeps it.")
    language = _of("menu", "language", "The language the box speaks, as the menu keeps it.")

    def now(self) -> float:
        return self.clock.monotonic()

    # -- starting ----------------------------------------------------------------
    def start(self) -> bool:
        """Resume an unfinished game from the journal (True), or open the menu (False)."""
        record = self.journal.unfinished()
        if record is None or not self.play.resume(record, begun=self.gestures.cancel):
            self._open_menu()
            return False
        return True

    def new_game(self, game: str, players: int) -> bool:
        """Start a game with the menu's options; False (with a show) when it cannot be."""
        named = self.menu.named == game

        def begun() -> None:
            self.gestures.cancel()
            self.menu.started(game)

        return self.play.new(game, players, self.menu.options(game), begun, named=named)

    def abandon_game(self) -> bool:
        """Give the game under way up for good (journalled, never resumed) and open the menu; False when none ran."""
        if self.engine is None or not self.play.abandon():
            return False
        self._open_menu()
        return True

    # -- settings other parts set ------------------------------------------------------
    def set_volume(self, volume: float) -> float:
        """Set the volume (0 to volume_max), keep it, let it be heard; return what was set."""
        self.menu.set_volume(volume)
        return self.volume

    def set_language(self, language: str) -> None:
        self.menu.set_language(language)

    # -- inputs ------------------------------------------------------------------
    def tap(self, reader: str, uid: bytes | str, text: str | None = None) -> None:
        """A tag was laid on a reader."""
        key = uid_key(uid)
        if not self.taps.seen(reader, key, self.now()):
            return
        self._woken()
        card = self.registry.resolve(uid, text)
        if card is None:
            log.warning("unknown tag %s on reader %s", key, reader)
            self.stage.show("unknown_card", uid=key)
            self.what_now()
            return
        owner = deck_of(card)
        if owner == "control":
            self._control(card)
        elif self.engine is not None and self.engine.over:  # the end was said: what to do next is said again
            self.stage.show("rejected", code="game_over", card=card, reason="the game is over")
        elif not self.playing:
            self.stage.show("not_now", card=card, key="choose_game_first")
            self.stage.prompt("choose-game", game=self.menu.game)
        elif owner != self.engine.game:
            log.warning("card %s (tag %s) belongs to %s, not %s", card, key, owner, self.engine.game)
            self.stage.show("other_game", card=card, game=owner)
            self.play.prompt_again()  # what to do instead: a card of this game
        else:
            self._card(card)

    def removed(self, reader: str, uid: bytes | str | None = None) -> None:
        self.taps.gone(reader, None if uid is None else uid_key(uid))

    def down(self, button: str) -> None:
        """The button went down: in the menu, holding the die button long enough switches the box off."""
        if button == DIE:
            self.gestures.down(self.now(), in_menu=self.engine is None)

    def up(self, button: str) -> None:
        """The button was let go (after a press or a hold)."""
        if button == DIE:
            self.gestures.up()

    def press(self, button: str) -> None:
        """A short press (released before the hold time)."""
        self._woken()
        engine = self.engine
        if button != DIE and engine is None:
            self.menu.button(button)
        elif button != DIE:
            self.moves.color_button(button)
        elif engine is None:
            self.menu.press()
        elif self.calls.pending is not None:  # the call, made in time
            self.moves.make_call()
        elif self.handover.waiting(self.now()):
            self.moves.wait()
        elif engine.over:
            self._open_menu()
        else:
            self.moves.die_press()

    def hold(self, button: str) -> None:
        """The button was held down for the hold time."""
        self._woken()
        engine = self.engine
        if button != DIE and engine is None:
            self.menu.button(button)
        elif button != DIE:
            self.moves.color_button(button)
        elif engine is None:  # the menu's hold does what its prompt says (choose, then start): never the undo gesture
            start = self.menu.hold()
            if start is not None:
                self.new_game(*start)
        elif self.calls.pending is not None:
            self.moves.make_call()
        elif not engine.over and engine.awaiting != "choose_color":
            self._undo_gesture()
        elif self.handover.waiting(self.now()):
            self.moves.wait()
        elif engine.over:
            self.new_game(engine.game, engine.players)
        else:
            self.moves.choose_wish()

    def fault(self, device: str, message: str) -> None:
        log.error("device %s: %s", device, message)
        self.stage.show("device_fault", device=device)

    def recovered(self, device: str) -> None:
        log.info("device %s is back", device)

    # -- timers ------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        due = [self.gestures.next_deadline(), self.calls.pending and self.calls.pending.deadline]
        if self.engine is None:
            due.append(self.menu.next_deadline())
        due = [d for d in due if d]
        return min(due) if due else None

    def poll(self) -> None:
        """Run what is due: a call window that closed without the call, the idle menu, the power-off hold."""
        now = self.now()
        if self.calls.due(now):
            pending = self.calls.take()
            self.play.act(pending.action)
        if self.engine is None:
            self.menu.poll(now)
        gesture = self.gestures.due(now)
        if gesture == "shut_down":
            self.shut_down()
        elif gesture == "power_off" and self.power_off is not None:
            log.info("switching off")
            try:
                self.power_off()
            except RuntimeError as exc:  # refused (controller.box.power.PowerOffError): say so, play on
                log.error("%s", exc)
                self.stage.show("rejected", code="not_available", reason=str(exc))
                self.what_now()

    def poll_now(self) -> None:
        """Close a call window at once (another input arrived first)."""
        if self.calls.pending:
            self.calls.pending.deadline = self.now()
            self.poll()

    def _woken(self) -> None:
        if self.engine is None:
            self.menu.woken(self.now())

    # -- control cards -------------------------------------------------------------
    def _control(self, card: str) -> None:
        name = card.removeprefix("control-")
        if name == "new-game":
            self.stage.show("abandoned")
            if not self.abandon_game():
                self.menu.open(self.now())
        elif name == "undo":
            self.undo()
        elif name == "power-off":
            self.shut_down()
        elif name.startswith(("game-", "players-", "variant-")):
            if self.playing:
                self.stage.show("not_now", card=card, key="game_under_way")
                return
            if self.engine is not None:  # a game is over: the card opens the menu
                self._open_menu()
            start = self.menu.card(name)
            if start is not None:
                self.new_game(*start)
        else:
            self.menu.card(name)

    def shut_down(self) -> None:
        """Say goodbye and switch the box off (the power-off card, a long hold in the menu)."""
        if self.power_off is None:
            self.stage.show("rejected", code="not_available", reason="this box cannot switch itself off")
            self.what_now()
            return
        if self.gestures.say_goodbye(self.now()):
            log.info("goodbye: switching off in %.0f s", GOODBYE_SECONDS)
            self.calls.take()
            self.stage.show("goodbye")

    def what_now(self) -> None:
        """After a refusal that names nothing to do instead: what the box awaits now (game, its end, or menu)."""
        if self.playing:
            self.play.prompt_again()
        elif self.engine is not None:
            self.stage.prompt("after-the-end")
        else:
            self.menu.prompt_again()

    def _open_menu(self) -> None:
        self.play.close()
        self.gestures.cancel()
        self.calls.take()
        self.menu.open(self.now())

    # -- the game under way ----------------------------------------------------------
    def _card(self, card: str) -> None:
        if self.calls.pending is not None and self.calls.pending.action.get("card") == card:
            self.play.call_waiting()  # the waiting card tapped again: the same play, still waiting for its call
            return
        if self.calls.pending is not None:  # a second card before the call window closed
            self.poll_now()
        self.moves.card(card)

    def _undo_gesture(self) -> None:
        """A hold of the die button during play: the first asks, a second within the window takes back."""
        if self.gestures.second_hold(self.now()):
            self.undo()
        else:
            self.stage.prompt("undo-hold-again")

    def undo(self) -> None:
        """Take back the last accepted action (or the tap waiting for its call): the referee replays without it."""
        self.gestures.cancel()
        if (pending := self.calls.take()) is not None:
            self.play.undo_call(pending.action)
            return
        if self.engine is None and self.play.take_back_end(self.gestures.cancel):
            return  # the menu just after a game: its last action is taken back and the game goes on
        if not self.play.undo():
            self.what_now()

    # -- what the box shows ----------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The box as a station and status show it: plain JSON, the same whatever the game (docs/stations.md).

        Seats are the referee's, from 0; in the menu the game's fields are left out.
        """
        engine = self.engine
        snap: dict[str, Any] = {
            "mode": "menu" if engine is None else ("over" if engine.over else "playing"),
            "menu": self.menu.choices(),
            "volume": self.volume,
            "language": self.language,
        }
        if engine is not None:
            snap.update(self.play.snapshot())
        return snap

    def status_line(self) -> str:
        """One line for systemd's STATUS= and the log."""
        if self.engine is None:
            return f"menu: choosing {self.menu.game}"
        return self.play.status_line()

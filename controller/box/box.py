"""The box: turns taps and presses into referee actions, and the referee's answers into shows.

:class:`Box` is synchronous and owns no devices: the daemon feeds it inputs
(:meth:`Box.tap`, :meth:`Box.press`, :meth:`Box.hold`, ...) on the one
asyncio loop, calls :meth:`Box.poll` when :meth:`Box.next_deadline` is due,
and a :class:`Stage` turns its shows, prompts and scenes into sound and
light. Tests drive it the same way with a fake clock.

The box composes its rooms: the :class:`~controller.box.menu.Menu` (choosing a
game, settings), the :class:`~controller.box.calls.CallWindow` (a tap waiting
for "woof" or "Mau"), the :class:`~controller.box.handover.Handover` (a press
too soon after a turn passed) and the die button's long
:class:`~controller.box.gestures.Gestures` (undo, switching off). What it remembers beyond them and the
referee is only what no engine can know: the die's random generator and the
colour being chosen on the turn ring. Everything else is derived from the
referee, so a resumed game is simply a replayed one, and taking an action
back is replaying the log without it.

An action counts once it is in the journal: when the journal cannot write
it, the referee is rebuilt without it and the box shows a storage fault.
"""

from __future__ import annotations

import logging
import random
from typing import Any, Callable

from controller.box.announce import describe, event_shows, prompt_for, setup_of
from controller.box.calls import CallWindow, PendingCall
from controller.box.gestures import Gestures
from controller.box.handover import Handover
from controller.box.menu import Menu
from controller.box.tags import Registry, uid_key
from controller.box.taps import TapFilter
from controller.config import Config
from controller.decks import deck_of
from controller.games import engine_class
from controller.games.base import COLORS, Engine, Outcome, Rejection
from controller.stage.scene import Scene, Stage, scene_for
from controller.storage.journal import Journal, JournalError
from hardware.clock import Clock

log = logging.getLogger("gamebox.box")

DIE = "die"
DIE_FACES = ("cat", "cat", "cat", "dog", "mouse", "whistle")
GOODBYE_SECONDS = 3.0  # the goodbye show plays before the power goes

__all__ = ["Box", "DIE", "DIE_FACES", "PendingCall"]


class Box:
    """The referee box: menu, guided setup, play, calls, undo, shows, journal."""

    def __init__(
        self,
        config: Config,
        journal: Journal,
        registry: Registry,
        stage: Stage,
        clock: Clock,
        new_seed: Callable[[], int] | None = None,
        power_off: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        self.journal = journal
        self.registry = registry
        self.stage = stage
        self.clock = clock
        self.new_seed = new_seed or (lambda: random.SystemRandom().randrange(2**32))
        self.power_off = power_off
        self.taps = TapFilter(config.repeat_window)
        self.menu = Menu(config, journal, stage)
        self.calls = CallWindow(journal, config.call_window)
        self.handover = Handover(config.handover)
        # the game
        self.engine: Engine | None = None
        self.game_id: int | None = None
        self.seq = 0
        self.started_at: float | None = None
        self.die: random.Random | None = None
        self.last_roll: dict[str, Any] | None = None
        self.wish: str = COLORS[0]  # the colour being chosen on the turn ring
        self.storage_fault = False
        self.gestures = Gestures(config.undo_hold_window, config.power_off_hold, GOODBYE_SECONDS)
        #: Called with (action, outcome) once an action is in the journal.
        self.listeners: list[Callable[[dict[str, Any], Outcome], None]] = []
        #: Called with the action taken back, once the journal took it back.
        self.undo_listeners: list[Callable[[dict[str, Any]], None]] = []

    # -- what the rooms keep -------------------------------------------------------
    @property
    def pending(self) -> PendingCall | None:
        """The tap waiting for its call, if any."""
        return self.calls.pending

    @property
    def volume(self) -> float:
        return self.menu.volume

    @property
    def language(self) -> str:
        return self.menu.language

    @property
    def playing(self) -> bool:
        """A game is under way (not the menu, not a game that is over)."""
        return self.engine is not None and not self.engine.over

    def now(self) -> float:
        return self.clock.monotonic()

    # -- starting ----------------------------------------------------------------
    def start(self) -> bool:
        """Resume an unfinished game from the journal (True), or open the menu (False)."""
        record = self.journal.unfinished()
        if record is None:
            self._open_menu()
            return False
        try:
            engine = engine_class(record.game).replay(record.players, record.options, self.journal.actions(record.id))
        except (KeyError, ValueError, TypeError) as exc:
            self.journal.set_aside(record.id, f"it does not replay: {exc}")
            self._open_menu()
            return False
        self._begin(engine, record.id, record.seed, record.started)
        self.seq = len(engine.log)
        faces = self._faces()
        undone = self.journal.undone(record.id)
        for action in [*engine.log, *undone]:  # the die rolls already made, taken back ones too
            if action.get("type") == "roll":
                self.die.choice(faces)
        self.last_roll = _last_roll(engine.log)
        log.info("resumed game %s (%s, %d players) after %d actions", record.id, record.game, record.players, self.seq)
        self.stage.show("resumed", seat=engine.current)
        self.calls.restore(record.id, self.seq, self.now())
        self._after_change()
        self._call_waiting()  # the card tapped before the power went still waits for its call: say whose and which
        return True

    def new_game(self, game: str, players: int) -> bool:
        """Start a game with the menu's options; False (with a show) when it cannot be."""
        options = self.menu.options(game)
        try:
            engine = engine_class(game)(players, options)
        except ValueError as exc:
            log.warning("cannot start %s for %d players: %s", game, players, exc)
            self.stage.show("rejected", code="wrong_action", key="cannot_start", reason=str(exc))
            return False
        seed = self.config.seed if self.config.seed is not None else self.new_seed()
        try:
            game_id = self.journal.start_game(game, players, options, seed)
        except JournalError as exc:
            self._storage_fault(exc)
            return False
        record = self.journal.game(game_id)
        self._begin(engine, game_id, seed, record.started if record else None)
        self.menu.started(game)
        log.info("new game %s: %s, %d players, options %s, seed %d", game_id, game, players, options, seed)
        self.stage.show("new_game", game=game, players=players)
        self.stage.show("deal", game=game, setup=setup_of(game, engine.options))
        self._after_change()
        return True

    def _begin(self, engine: Engine, game_id: int, seed: int, started: float | None) -> None:
        self.engine, self.game_id, self.seq, self.started_at = engine, game_id, 0, started
        self.die, self.last_roll = random.Random(seed), None
        self.calls.take()
        self.gestures.cancel()
        self.handover.reset(self._turn())

    def abandon_game(self) -> bool:
        """Give the game under way up for good (journalled, never resumed) and open the menu; False when none ran."""
        if self.engine is None:
            return False
        if self.playing and self.game_id is not None:
            try:
                self.journal.abandon(self.game_id)
            except JournalError as exc:
                self._storage_fault(exc)
                return False
            log.info("game %s abandoned", self.game_id)
        self._open_menu()
        return True

    def _faces(self) -> tuple[str, ...]:
        assert self.engine is not None
        return tuple(self.engine.options.get("die", DIE_FACES))

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
            return
        owner = deck_of(card)
        if owner == "control":
            self._control(card)
        elif not self.playing:
            self.stage.show("not_now", card=card, key="choose_game_first")
            self.stage.prompt("choose-game", game=self.menu.game)
        elif owner != self.engine.game:
            log.warning("card %s (tag %s) belongs to %s, not %s", card, key, owner, self.engine.game)
            self.stage.show("other_game", card=card, game=owner)
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
        if button != DIE:
            self._color_button(button)
        elif engine is None:
            self.gestures.cancel()  # a press between two holds: they are no undo gesture
            self.menu.press()
        elif self.calls.pending is not None:  # the call, made in time
            self._make_call()
        elif self.handover.waiting(self.now()):
            self._wait()
        elif engine.over:
            self._open_menu()
        else:
            self._die_press()

    def hold(self, button: str) -> None:
        """The button was held down for the hold time."""
        self._woken()
        engine = self.engine
        if button != DIE:
            self._color_button(button)
        elif engine is None:
            if self.gestures.second_hold(self.now()):  # the undo gesture: nothing is taken back in the menu
                self.stage.show("rejected", code="nothing_to_undo", reason="nothing to take back: no game is under way")
                return
            start = self.menu.hold()
            if start is not None:
                self.new_game(*start)
        elif self.calls.pending is not None:
            self._make_call()
        elif not engine.over and engine.awaiting != "choose_color":
            self._undo_gesture()
        elif self.handover.waiting(self.now()):
            self._wait()
        elif engine.over:
            self.new_game(engine.game, engine.players)
        else:
            self._act({"type": "choose_color", "player": engine.current, "color": self.wish})

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
            self._act(pending.action)
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
            return
        if self.gestures.say_goodbye(self.now()):
            log.info("goodbye: switching off in %.0f s", GOODBYE_SECONDS)
            self.calls.take()
            self.stage.show("goodbye")

    def _open_menu(self) -> None:
        self.engine, self.game_id = None, None
        self.gestures.cancel()
        self.calls.take()
        self.menu.open(self.now())

    # -- play --------------------------------------------------------------------
    def _card(self, card: str) -> None:
        engine = self.engine
        assert engine is not None
        if self.calls.pending is not None and self.calls.pending.action.get("card") == card:
            self._call_waiting()  # the waiting card tapped again: the same play, still waiting for its call
            return
        if self.calls.pending is not None:  # a second card before the call window closed
            self.poll_now()
            engine = self.engine
            assert engine is not None
        awaiting, seat = engine.awaiting, engine.current
        action: dict[str, Any]
        if awaiting == "start_card":
            action = {"type": "start_card", "card": card}
        elif (hang := engine.next_hang()) is not None:
            seat, ear = hang
            action = {"type": "hang", "player": seat, "ear": ear, "card": card}
        elif awaiting == "reveal":
            action = {"type": "reveal", "player": seat, "card": card}
        elif awaiting in ("play", "after_draw"):
            action = {"type": "play", "player": seat, "card": card}
            call = engine.call_needed(action)
            if call:
                assert self.game_id is not None
                self.calls.open(self.game_id, self.seq, action, call, self.now())
                return
        elif awaiting == "send_kittens":
            owner = self._owner_of(card)
            action = {"type": "send_kittens", "player": seat, "to": owner if owner is not None else -1}
        elif awaiting in ("give", "lure"):
            action = {"type": awaiting, "player": seat, "card": card}
        else:  # roll, choose_color: a card is not what is awaited
            self._answer(Rejection("wrong_action", f"a card was tapped while awaiting {awaiting}",
                                   "roll_first" if awaiting == "roll" else "choose_color_first"))
            return
        self._act(action)

    def _call_waiting(self) -> None:
        pending = self.calls.pending
        if pending is not None:
            self.stage.prompt("call-waiting", seat=pending.action.get("player"), call=pending.call)

    def _make_call(self) -> None:
        pending = self.calls.take()
        assert pending is not None
        self._act(dict(pending.action, call=pending.call))

    def _die_press(self) -> None:
        engine = self.engine
        assert engine is not None and self.die is not None
        kind, seat = engine.button_action(), engine.current
        if kind == "roll":
            self._act({"type": "roll", "player": seat, "face": self.die.choice(self._faces())})
        elif kind is not None:
            self._act({"type": kind, "player": seat})
        elif engine.awaiting == "choose_color":
            self.wish = COLORS[(COLORS.index(self.wish) + 1) % len(COLORS)]
            self.stage.prompt(f"color-{self.wish}")
            self._scene()
        else:
            self._answer(Rejection("wrong_action", f"the die button does nothing while awaiting {engine.awaiting}",
                                   "tap_a_card"))

    def _color_button(self, button: str) -> None:
        engine = self.engine
        if engine is not None and engine.awaiting == "choose_color" and button in COLORS:
            if self.handover.waiting(self.now()):
                self._wait()
            else:
                self._act({"type": "choose_color", "player": engine.current, "color": button})
        elif self.playing and self.calls.pending is None:
            self._answer(Rejection("wrong_action", f"the {button} button does nothing now", "no_color_now"))

    def _wait(self) -> None:
        """A press in the handover time: it does nothing but say so."""
        seat = self.engine.current if self.engine is not None else None
        whose = f"Player {seat + 1}'s turn" if seat is not None else "the next turn"
        self.stage.show("rejected", code="wait",
                        reason=f"too soon: {whose} starts in {self.handover.left(self.now()):.1f} s")

    def _act(self, action: dict[str, Any]) -> bool:
        """Referee one action; it counts once journalled, then it is answered with shows."""
        engine = self.engine
        assert engine is not None and self.game_id is not None
        result = engine.apply(action)
        if isinstance(result, Rejection):
            log.info("rejected %s: %s (%s)", describe(action), result.code, result.message)
            self._answer(result)
            return False
        winners = list(engine.view().get("winners") or []) if engine.over else None
        try:
            action = engine.log[-1]  # what the referee keeps: the contract's fields, nothing that came along
            self.journal.record(self.game_id, self.seq, action, winners=winners)
        except JournalError as exc:
            self.engine = engine_class(engine.game).replay(engine.players, engine.options, engine.log[:-1])
            self._storage_fault(exc)
            return False
        if self.storage_fault:
            self.storage_fault = False
            log.info("the journal writes again")
            self.recovered("journal")
        self.seq += 1
        if action["type"] == "roll":
            self.last_roll = _last_roll([action])
        for listener in list(self.listeners):
            listener(action, result)
        for name, details in event_shows(engine, result.events):
            self.stage.show(name, **details)
        self.stage.show("accepted", action=action["type"])
        self._after_change()
        return True

    def _storage_fault(self, exc: JournalError) -> None:
        """The journal could not write: nothing changed, and the box says why."""
        self.storage_fault = True
        self.fault("journal", str(exc))
        if self.engine is not None:
            self._scene()

    # -- taking back ---------------------------------------------------------------
    def _undo_gesture(self) -> None:
        """A hold of the die button during play: the first asks, a second within the window takes back."""
        if self.gestures.second_hold(self.now()):
            self.undo()
        else:
            self.stage.prompt("undo-hold-again")

    def undo(self) -> None:
        """Take back the last accepted action (or the tap waiting for its call): the referee replays without it."""
        self.gestures.cancel()
        engine = self.engine
        if self.calls.pending is not None:
            pending = self.calls.take()
            log.info("took back the tap waiting for its call: %s", describe(pending.action))
            self.stage.show("undone", action=pending.action["type"], **_details(pending.action))
            self._after_change()
            return
        if engine is None or not engine.log or self.game_id is None:
            self.stage.show("rejected", code="nothing_to_undo", reason="nothing to take back: the game has just begun"
                            if engine is not None else "nothing to take back: no game is under way")
            return
        last = engine.log[-1]
        try:
            self.journal.undo(self.game_id, self.seq - 1)
        except JournalError as exc:
            self._storage_fault(exc)
            return
        self.engine = engine_class(engine.game).replay(engine.players, engine.options, engine.log[:-1])
        self.seq -= 1
        self.last_roll = _last_roll(self.engine.log)
        log.info("game %s: took back action %d: %s", self.game_id, self.seq, describe(last))
        for listener in list(self.undo_listeners):
            listener(last)
        self.stage.show("undone", action=last["type"], **_details(last))
        self._after_change()

    # -- answering -------------------------------------------------------------------
    def _answer(self, rejection: Rejection) -> None:
        self.stage.show("rejected", code=rejection.code, key=rejection.key, reason=rejection.message)
        if rejection.code in ("joker_start", "special_start"):
            self.stage.prompt("put-under")

    def _after_change(self) -> None:
        """Prompt for what the referee awaits now, and redraw the scene."""
        engine = self.engine
        assert engine is not None
        awaiting = engine.awaiting
        self.handover.follow(self._turn(), self.now())
        if awaiting == "start_card":  # a fresh deal: any card may be laid again at once
            self.taps.forget()
        if awaiting == "choose_color":
            color = engine.view().get("color")
            self.wish = color if color in COLORS else COLORS[0]
        if awaiting == "over":
            winners = list(engine.view().get("winners") or [])
            self.stage.show("tie" if len(winners) > 1 else "winner", winners=winners, game=engine.game)
        elif (prompt := prompt_for(engine)) is not None:
            self.stage.prompt(prompt[0], **prompt[1])
        self._scene()

    def _turn(self) -> tuple[int | None, int | None, bool]:
        """Whose turn, as the handover sees it: the game, the seat awaited, and whether it is over."""
        engine = self.engine
        return (self.game_id, engine.current if engine else None, bool(engine and engine.over))

    # -- derived facts -------------------------------------------------------------
    def _owner_of(self, card: str) -> int | None:
        engine = self.engine
        assert engine is not None
        for seat, cards in enumerate(engine.view().get("tableau") or []):
            if card in cards:
                return seat
        return None

    def _scene(self) -> None:
        engine = self.engine
        if engine is None:
            self.stage.scene(self.menu.scene())
            return
        wish = self.wish if engine.awaiting == "choose_color" else None
        self.stage.scene(scene_for(engine.game, engine.players, engine.options, engine.view(), wish, engine.next_hang()))

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
        if engine is None:
            return snap
        view = engine.view()
        snap.update(
            game=engine.game, game_id=self.game_id, players=engine.players, turn=view.get("current"),
            awaiting=engine.awaiting, color=view.get("color"), winners=list(view.get("winners") or []),
            ships=view.get("ships"), scores=view.get("scores"), track=view.get("track"), police=view.get("police"),
            round=view.get("round"), actions=self.seq, started_at=self.started_at,
            last_roll=self.last_roll["face"] if self.last_roll else None,
        )
        return snap

    def status_line(self) -> str:
        """One line for systemd's STATUS= and the log."""
        engine = self.engine
        if engine is None:
            return f"menu: choosing {self.menu.game}"
        if engine.over:
            winners = " and ".join(f"player {w + 1}" for w in engine.view().get("winners") or [])
            return f"{engine.game}: over, won by {winners or 'nobody'}"
        if engine.current is None:
            return f"{engine.game}: awaiting {engine.awaiting}"
        return f"{engine.game}: player {engine.current + 1} to {engine.awaiting}"


def _last_roll(log_: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest roll of a log, as ``{"player", "face"}``."""
    for action in reversed(log_):
        if action.get("type") == "roll":
            return {"player": action.get("player"), "face": action.get("face")}
    return None


def _details(action: dict[str, Any]) -> dict[str, Any]:
    """What a show about an action may name: whose, which card, which face."""
    return {k: action[k] for k in ("player", "card", "face") if k in action}

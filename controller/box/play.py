"""The game under way: the referee, its journal, the die and the colour being chosen.

:class:`Play` is the room the box hands a game's taps and presses to. It
keeps what no engine can know beside the referee: the game's id and
sequence number in the journal, the die's random generator and last roll,
and the colour being chosen on the turn ring. Everything else is derived
from the referee, so a resumed game is simply a replayed one, and taking an
action back is replaying the log without it.

An action counts once it is in the journal: when the journal cannot write
it, the referee is rebuilt without it and the box shows a storage fault.
"""

from __future__ import annotations

import logging
import random
from typing import Any, Callable

from controller.box.announce import (SAYS_WHAT_INSTEAD, describe, event_shows, prompt_for, resumed_context, set_up_again,
                                    setup_of, variants_on)
from controller.box.calls import CallWindow
from controller.box.handover import Handover
from controller.box.taps import TapFilter
from controller.config import Config
from controller.games import engine_class
from controller.games.base import COLORS, Engine, Outcome, Rejection
from controller.stage.scene import Stage, scene_for
from controller.storage.journal import GameRecord, Journal, JournalError
from hardware.clock import Clock

log = logging.getLogger("gamebox.box")  # what the game does is what the box does, in its log

DIE_FACES = ("cat", "cat", "cat", "dog", "mouse", "whistle")


class Play:
    """One game under way (or over, until the menu opens): refereed, journalled, answered with shows."""

    def __init__(
        self,
        config: Config,
        journal: Journal,
        stage: Stage,
        clock: Clock,
        rooms: tuple[CallWindow, Handover, TapFilter],
        new_seed: Callable[[], int],
        fault: Callable[[str, str], None],
        recovered: Callable[[str], None],
    ) -> None:
        self.config, self.journal, self.stage, self.clock = config, journal, stage, clock
        self.calls, self.handover, self.taps = rooms
        self.new_seed, self.fault, self.recovered = new_seed, fault, recovered
        self.engine: Engine | None = None
        self.game_id: int | None = None
        self.ended: int | None = None  # the game that ended, while the menu after it is open (its end may be undone)
        self.seq = 0
        self.started_at: float | None = None
        self.die: random.Random | None = None
        self.last_roll: dict[str, Any] | None = None
        self.wish: str = COLORS[0]  # the colour being chosen on the turn ring
        self.storage_fault = False
        #: Called with (action, outcome) once an action is in the journal.
        self.listeners: list[Callable[[dict[str, Any], Outcome], None]] = []
        #: Called with the action taken back, once the journal took it back.
        self.undo_listeners: list[Callable[[dict[str, Any]], None]] = []

    @property
    def playing(self) -> bool:
        """A game is under way (not the menu, not a game that is over)."""
        return self.engine is not None and not self.engine.over

    def now(self) -> float:
        return self.clock.monotonic()

    # -- starting and ending -----------------------------------------------------------
    def resume(self, record: GameRecord, begun: Callable[[], None]) -> bool:
        """Replay an unfinished game from the journal (True); set it aside when it does not replay (False)."""
        try:
            engine = engine_class(record.game).replay(record.players, record.options, self.journal.actions(record.id))
        except (KeyError, ValueError, TypeError) as exc:
            self.journal.set_aside(record.id, f"it does not replay: {exc}")
            return False
        self._continue(engine, record)
        begun()
        log.info("resumed game %s (%s, %d players) after %d actions", record.id, record.game, record.players, self.seq)
        self.stage.show("resumed", **resumed_context(engine))
        if (deal := set_up_again(engine)) is not None:
            self.stage.show(deal[0], **deal[1])
        self.calls.restore(record.id, self.seq, self.now())
        self.after_change(again=True, prompt=self.calls.pending is None)
        self.call_waiting()  # the card tapped before the power went still waits for its call: say whose and which
        return True

    def _continue(self, engine: Engine, record: GameRecord) -> None:
        """Take up a journalled game as replayed, its die on past every roll already made (taken back ones too)."""
        self._begin(engine, record.id, record.seed, record.started)
        self.seq = len(engine.log)
        faces = self.faces()
        assert self.die is not None
        for action in [*engine.log, *self.journal.undone(record.id)]:
            if action.get("type") == "roll":
                self.die.choice(faces)
        self.last_roll = _last_roll(engine.log)

    def take_back_end(self, begun: Callable[[], None]) -> bool:
        """The undo card in the menu just after a game ended: its last action is taken back and play goes on."""
        game_id, self.ended = self.ended, None
        record = None if game_id is None else self.journal.game(game_id)
        if record is None or record.ended is None or record.abandoned:
            return False
        try:
            engine = engine_class(record.game).replay(record.players, record.options, self.journal.actions(game_id))
        except (KeyError, ValueError, TypeError, JournalError) as exc:
            log.warning("game %s cannot be taken up again: %s", game_id, exc)
            return False
        self._continue(engine, record)
        begun()
        self.undo()
        return True

    def new(self, game: str, players: int, options: dict[str, Any], begun: Callable[[], None], named: bool = False) -> bool:
        """Start a game (unnamed if the menu just ``named`` it); ``begun`` runs once it is journalled; False if it cannot."""
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
            self.journal_failed(exc)
            return False
        record = self.journal.game(game_id)
        self._begin(engine, game_id, seed, record.started if record else None)
        begun()
        log.info("new game %s: %s, %d players, options %s, seed %d", game_id, game, players, options, seed)
        self.stage.show("new_game", game=game, players=players, announced="yes" if named else "no",
                        variants=variants_on(engine))
        self.stage.show("deal", game=game, setup=setup_of(game, engine.options))
        self.after_change()
        return True

    def _begin(self, engine: Engine, game_id: int, seed: int, started: float | None) -> None:
        self.engine, self.game_id, self.seq, self.started_at, self.ended = engine, game_id, 0, started, None
        self.die, self.last_roll = random.Random(seed), None
        self.calls.take()
        self.handover.reset(self.turn())

    def abandon(self) -> bool:
        """Journal a game under way as given up for good; False when the journal could not write it."""
        if self.playing and self.game_id is not None:
            try:
                self.journal.abandon(self.game_id)
            except JournalError as exc:
                self.journal_failed(exc)
                return False
            log.info("game %s abandoned", self.game_id)
        return True

    def close(self) -> None:
        """The menu opens: no game is under way (one that just ended can still be taken up again)."""
        self.ended = self.game_id if self.engine is not None and self.engine.over else None
        self.engine, self.game_id = None, None

    def faces(self) -> tuple[str, ...]:
        assert self.engine is not None
        return tuple(self.engine.options.get("die", DIE_FACES))

    # -- refereeing and journalling ------------------------------------------------------
    def act(self, action: dict[str, Any]) -> bool:
        """Referee one action; it counts once journalled, then it is answered with shows."""
        engine = self.engine
        assert engine is not None and self.game_id is not None
        result = engine.apply(action)
        if isinstance(result, Rejection):
            log.info("rejected %s: %s (%s)", describe(action), result.code, result.message)
            self.answer(result)
            return False
        winners = list(engine.view().get("winners") or []) if engine.over else None
        try:
            action = engine.log[-1]  # what the referee keeps: the contract's fields, nothing that came along
            self.journal.record(self.game_id, self.seq, action, winners=winners)
        except JournalError as exc:
            self.engine = engine_class(engine.game).replay(engine.players, engine.options, engine.log[:-1])
            self.journal_failed(exc)
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
        self.after_change()
        return True

    def journal_failed(self, exc: JournalError) -> None:
        """The journal could not write: nothing changed, and the box says why."""
        self.storage_fault = True
        self.fault("journal", str(exc))
        if self.engine is not None:
            self.scene()

    def undo(self) -> bool:
        """Take back the last accepted action: the journal forgets it, the referee replays without it. False when
        there was nothing to take back (said; what to do instead is the caller's)."""
        engine = self.engine
        if engine is None or not engine.log or self.game_id is None:
            self.stage.show("rejected", code="nothing_to_undo", reason="nothing to take back: the game has just begun"
                            if engine is not None else "nothing to take back: no game is under way")
            return False
        taken, penalised = _taken_together(engine)
        try:
            self.journal.undo(self.game_id, self.seq - 1, count=taken)
        except JournalError as exc:
            self.journal_failed(exc)
            return True
        self.engine = engine_class(engine.game).replay(engine.players, engine.options, engine.log[:-taken])
        self.last_roll = _last_roll(self.engine.log)
        for action in reversed(engine.log[-taken:]):
            self.seq -= 1
            log.info("game %s: took back action %d: %s", self.game_id, self.seq, describe(action))
            for listener in list(self.undo_listeners):
                listener(action)
        first = engine.log[-taken]
        what = _taken_back(first, engine, self.engine)
        if penalised:
            what = "play-ear-penalty" if what == "play-ear" else "play-penalty"
        self.stage.show("undone", action=first["type"], what=what, **details_of(first))
        self.after_change()
        return True

    def undo_call(self, action: dict[str, Any]) -> None:
        """Take back the tap that waited for its call: it never reached the referee, so only the words change."""
        assert self.engine is not None
        log.info("took back the tap waiting for its call: %s", describe(action))
        ears = self.engine.view().get("ears") or []
        what = "play-ear" if any(action.get("card") in ear for ear in ears) else "play"
        self.stage.show("undone", action=action["type"], what=what, **details_of(action))
        self.after_change()

    def prompt_again(self) -> None:
        """Say again what the referee awaits (after a refusal, or a power cut: what to do now).

        "Your turn!" alone is the everyday prompt of a player who knows the game; said again, a turn says what
        it is: play a card, or press the button and take one.
        """
        assert self.engine is not None
        if (prompt := prompt_for(self.engine)) is not None:
            name, context = prompt
            self.stage.prompt("play-again" if name == "play" and "debt" not in context else name, **context)

    def call_waiting(self) -> None:
        pending = self.calls.pending
        if pending is not None:
            self.stage.prompt("call-waiting", seat=pending.action.get("player"), call=pending.call)

    # -- answering -------------------------------------------------------------------
    def answer(self, rejection: Rejection) -> None:
        """Say no and why, then what to do instead: the prompt for what is awaited, unless the refusal says it."""
        self.stage.show("rejected", code=rejection.code, key=rejection.key, reason=rejection.message)
        if rejection.code in ("joker_start", "special_start"):
            self.stage.prompt("put-under")
        elif rejection.key not in SAYS_WHAT_INSTEAD and self.playing:
            self.prompt_again()

    def after_change(self, again: bool = False, prompt: bool = True) -> None:
        """Prompt for what the referee awaits now (``again``: as :meth:`prompt_again` says it), and redraw the scene."""
        engine = self.engine
        assert engine is not None
        awaiting = engine.awaiting
        self.handover.follow(self.turn(), self.now())
        if awaiting == "start_card":  # a fresh deal: any card may be laid again at once
            self.taps.forget()
        if awaiting == "choose_color":
            color = engine.view().get("color")
            self.wish = color if color in COLORS else COLORS[0]
        if awaiting == "over":
            winners = list(engine.view().get("winners") or [])
            self.stage.show("tie" if len(winners) > 1 else "winner", winners=winners, game=engine.game)
        elif prompt and again:
            self.prompt_again()
        elif prompt and (awaited := prompt_for(engine)) is not None:
            self.stage.prompt(awaited[0], **awaited[1])
        self.scene()

    # -- what the box asks -------------------------------------------------------------
    def turn(self) -> tuple[int | None, int | None, bool]:
        """Whose turn, as the handover sees it: the game, the seat awaited, and whether it is over."""
        engine = self.engine
        return (self.game_id, engine.current if engine else None, bool(engine and engine.over))

    def owner_of(self, card: str) -> int | None:
        engine = self.engine
        assert engine is not None
        for seat, cards in enumerate(engine.view().get("tableau") or []):
            if card in cards:
                return seat
        return None

    def scene(self) -> None:
        engine = self.engine
        assert engine is not None
        wish = self.wish if engine.awaiting == "choose_color" else None
        self.stage.scene(scene_for(engine.game, engine.players, engine.options, engine.view(), wish, engine.next_hang()))

    def snapshot(self) -> dict[str, Any]:
        """The game's fields of the box's snapshot (docs/stations.md)."""
        engine = self.engine
        assert engine is not None
        view = engine.view()
        return dict(
            game=engine.game, game_id=self.game_id, players=engine.players, turn=view.get("current"),
            awaiting=engine.awaiting, color=view.get("color"), winners=list(view.get("winners") or []),
            ships=view.get("ships"), scores=view.get("scores"), track=view.get("track"), police=view.get("police"),
            round=view.get("round"), actions=self.seq, started_at=self.started_at,
            last_roll=self.last_roll["face"] if self.last_roll else None,
        )

    def status_line(self) -> str:
        engine = self.engine
        assert engine is not None
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


def _taken_together(engine: Engine) -> tuple[int, bool]:
    """How many of the last actions one undo takes back, and whether a penalty card goes back with them.

    A play that cost a penalty card (a forgotten bark, F8; a forgotten "Mau", P8) is taken back whole: with the
    hang of that penalty card when it followed, so one undo is one thing the player did. The referee is asked,
    by playing the action again on the game before it.
    """
    log_ = engine.log
    for taken in (1, 2):
        if len(log_) < taken:
            break
        play = log_[-taken]
        if play["type"] != "play" or (taken == 2 and log_[-1]["type"] != "hang"):
            continue
        probe = engine_class(engine.game).replay(engine.players, engine.options, log_[:-taken])
        result = probe.apply(play)
        events = result.events if isinstance(result, Outcome) else ()
        if any(e.get("event") in PENALTIES for e in events):
            return taken, True
    return 1, False


#: The events of a play that cost its player a penalty card from the stack, the play itself accepted.
PENALTIES = ("bark_penalty", "mau_penalty")


def _taken_back(last: dict[str, Any], before: Engine, after: Engine) -> str:
    """What an undone action asks the players to put back: the ``what`` its show is said by.

    A draw names how many cards it took (a debt takes two or more, an empty stack none, P5, F10);
    a card played from an ear goes back on the ear; a pass leaves the drawn card in the hand; after an ear
    or "Stop! Ear first!" penalty the card never left its place, and only the penalty card goes back.
    """
    kind = last["type"]
    seat = last.get("player")
    if kind == "draw" and isinstance(seat, int):
        hands = before.view().get("hand_sizes"), after.view().get("hand_sizes")
        drawn = hands[0][seat] - hands[1][seat] if all(hands) else 1
        return "draw" if drawn == 1 else "draw-more" if drawn > 1 else "draw-none"
    if kind == "play" and "ears" in before.view() and before.view().get("top") != last.get("card"):
        return "draw"  # Floppy Ears: a penalty (F4, F5) left the card where it was: the penalty card goes back
    if kind == "play" and any(last.get("card") in ears for ears in after.view().get("ears") or []):
        return "play-ear"
    return kind


def details_of(action: dict[str, Any]) -> dict[str, Any]:
    """What a show about an action may name: whose, which card, which face."""
    return {k: action[k] for k in ("player", "card", "face") if k in action}

"""The box: turns taps and presses into referee actions, and the referee's answers into shows.

:class:`Box` is synchronous and owns no devices: the daemon feeds it inputs
(:meth:`Box.tap`, :meth:`Box.press`, :meth:`Box.hold`, ...) on the one
asyncio loop, calls :meth:`Box.poll` when :meth:`Box.next_deadline` is due,
and a :class:`Stage` turns its shows, prompts and scenes into sound and
light. Tests drive it the same way with a fake clock.

What the box remembers beyond the referee is only what no engine can know:
the game being chosen in the menu, the die's random generator, a tap
waiting for its call ("woof", "Mau"), and the colour being chosen on the
turn ring. Everything else is derived from the referee, so a resumed game
is simply a replayed one.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from controller.config import Config
from controller.decks import LANGUAGES, VARIANTS, deck_of
from controller.games import GAME_IDS, engine_class
from controller.games.base import COLORS, Engine, Outcome, Rejection
from controller.journal import Journal
from controller.tags import Registry, uid_key
from controller.taps import TapFilter

log = logging.getLogger("gamebox.box")

DIE = "die"
DIE_FACES = ("cat", "cat", "cat", "dog", "mouse", "whistle")


@dataclass(slots=True)
class Scene:
    """What the LED segments show when no animation plays: derived from the box state."""

    mode: str  # "menu", "play", "over"
    game: str | None = None
    players: int = 0
    current: int | None = None
    color: str | None = None  # the colour to match, or the colour being chosen
    choosing_color: bool = False
    ships: list[int] = field(default_factory=list)
    wins_needed: int = 0
    police: int | None = None
    track: int | None = None
    winners: list[int] = field(default_factory=list)
    attract: bool = False  # the menu has waited long enough to invite people to play


def scene_for(game: str, players: int, options: dict[str, Any], view: dict[str, Any], wish: str | None = None) -> Scene:
    """What the LED segments show for a referee's view; the box and the kiosk display both draw from this.

    ``wish`` is the colour being chosen on the turn ring, when a colour is awaited.
    """
    choosing = view.get("awaiting") == "choose_color"
    return Scene(
        "over" if view.get("awaiting") == "over" else "play",
        game=game,
        players=players,
        current=view.get("current"),
        color=wish if choosing and wish else view.get("color"),
        choosing_color=choosing,
        ships=list(view.get("ships") or []),
        wins_needed=options.get("wins_needed", 0),
        police=view.get("police"),
        track=view.get("track"),
        winners=list(view.get("winners") or []),
    )


class Stage(Protocol):
    """Where the box's answers go: sound and light on the devices."""

    def show(self, name: str, **context: Any) -> None:
        """A one-off show for an event or an answer (``stop_ear``, ``rejected``, ...)."""

    def prompt(self, prompt_id: str, **context: Any) -> None:
        """Say what the box is waiting for (a voice line and its light)."""

    def scene(self, scene: Scene) -> None:
        """Set what the LED segments show between shows."""


def _call_for(game: str, left: int) -> str | None:
    """The call a player must make when a play leaves them ``left`` cards (F8, P8)."""
    if left > 1:
        return None
    if game == "floppy-ears":
        return "woof" if left == 1 else "woof-woof"
    return "mau" if left == 1 else "mau-mau"


@dataclass(slots=True)
class PendingCall:
    """A tapped card held back until its call is made or the window closes."""

    action: dict[str, Any]
    call: str
    deadline: float


class Box:
    """The referee box: menu, guided setup, play, calls, shows, journal."""

    def __init__(
        self,
        config: Config,
        journal: Journal,
        registry: Registry,
        stage: Stage,
        clock: Callable[[], float],
        new_seed: Callable[[], int] | None = None,
    ) -> None:
        self.config = config
        self.journal = journal
        self.registry = registry
        self.stage = stage
        self.now = clock
        self.new_seed = new_seed or (lambda: random.SystemRandom().randrange(2**32))
        self.taps = TapFilter(config.repeat_window)
        self.language = journal.setting("language", config.language)
        self.volume = min(journal.setting("volume", config.volume), config.volume_max)
        # menu
        self.menu_game = journal.setting("last_game", GAME_IDS[0])
        self.menu_players: int | None = None
        # game
        self.engine: Engine | None = None
        self.game_id: int | None = None
        self.seq = 0
        self.die: random.Random | None = None
        self.pending: PendingCall | None = None
        self.wish = 0
        self.attract_at: float | None = None  # when the idle menu starts inviting people to play
        self.attracting = False
        self.listeners: list[Callable[[dict[str, Any], Outcome], None]] = []

    # -- starting ----------------------------------------------------------------
    def start(self) -> bool:
        """Resume an unfinished game from the journal (True), or open the menu (False)."""
        record = self.journal.unfinished()
        if record is None:
            self._open_menu()
            return False
        try:
            engine = engine_class(record.game).replay(record.players, record.options, self.journal.actions(record.id))
        except (KeyError, ValueError) as exc:
            log.error("journal game %s cannot be replayed (%s); starting afresh", record.id, exc)
            self.journal.finish(record.id, [])
            self._open_menu()
            return False
        self.engine, self.game_id, self.seq = engine, record.id, len(engine.log)
        self.die = random.Random(record.seed)
        for action in engine.log:  # the die rolls already made
            if action.get("type") == "roll":
                self.die.choice(self._faces())
        log.info("resumed game %s (%s, %d players) after %d actions", record.id, record.game, record.players, self.seq)
        self.stage.show("resumed", seat=engine.current)
        self._after_change()
        return True

    def new_game(self, game: str, players: int) -> bool:
        """Start a game with the configured options; False (with a show) when it cannot be."""
        options = self._options(game)
        try:
            engine = engine_class(game)(players, options)
        except ValueError as exc:
            log.warning("cannot start %s for %d players: %s", game, players, exc)
            self.stage.show("rejected", code="wrong_action")
            return False
        seed = self.config.seed if self.config.seed is not None else self.new_seed()
        self.game_id = self.journal.start_game(game, players, options, seed)
        self.journal.set_setting("last_game", game)
        self.engine, self.seq, self.die, self.pending = engine, 0, random.Random(seed), None
        log.info("new game %s: %s, %d players, options %s, seed %d", self.game_id, game, players, options, seed)
        self.stage.show("new_game", game=game, players=players)
        self.stage.show("deal", game=game)
        self._after_change()
        return True

    def _options(self, game: str) -> dict[str, Any]:
        """The configured options, with the variants a control card switched on or off."""
        options = self.config.options(game)
        for name, (variant_game, key, off, on) in VARIANTS.items():
            chosen = self.journal.setting(f"variant:{name}")
            if variant_game == game and chosen is not None:
                options[key] = on if chosen else off
        return options

    def _faces(self) -> tuple[str, ...]:
        assert self.engine is not None
        return tuple(self.engine.options.get("die", DIE_FACES))

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
        elif self.engine is None or self.engine.over:
            self._menu_card(card)
        elif owner != self.engine.game:
            log.warning("card %s (tag %s) belongs to %s, not %s", card, key, owner, self.engine.game)
            self.stage.show("other_game", card=card, game=owner)
        else:
            self._card(card)

    def removed(self, reader: str, uid: bytes | str | None = None) -> None:
        self.taps.gone(reader, None if uid is None else uid_key(uid))

    def press(self, button: str) -> None:
        """A short press (released before the hold time)."""
        self._woken()
        if button != DIE:
            self._color_button(button)
        elif self.engine is None:
            self._menu_press()
        elif self.engine.over:
            self._open_menu()
        else:
            self._die_press()

    def hold(self, button: str) -> None:
        """The button was held down for the hold time."""
        self._woken()
        if button != DIE:
            self._color_button(button)
        elif self.engine is None:
            self._menu_hold()
        elif self.engine.over:
            self.new_game(self.engine.game, self.engine.players)
        elif self.engine.awaiting == "choose_color":
            self._act({"type": "choose_color", "player": self.engine.current, "color": COLORS[self.wish]})
        else:
            self._die_press()

    def fault(self, device: str, message: str) -> None:
        log.error("device %s: %s", device, message)
        self.stage.show("device_fault", device=device)

    def recovered(self, device: str) -> None:
        log.info("device %s is back", device)

    # -- timers ------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        if self.pending:
            return self.pending.deadline
        return self.attract_at if self.engine is None and not self.attracting else None

    def poll(self) -> None:
        """Run what is due: a call window that closed without the call, or the idle menu's invitation."""
        now = self.now()
        if self.pending and now >= self.pending.deadline:
            pending, self.pending = self.pending, None
            self._act(pending.action)
        if self.engine is None and self.attract_at is not None and not self.attracting and now >= self.attract_at:
            self.attracting = True
            self.stage.show("attract")
            self._scene()

    def _woken(self) -> None:
        """Any input ends the invitation and restarts the idle time."""
        if self.engine is None:
            self.attract_at = self.now() + self.config.attract_after
            if self.attracting:
                self.attracting = False
                self._scene()

    # -- the menu ----------------------------------------------------------------
    def _open_menu(self) -> None:
        self.engine, self.game_id, self.pending, self.menu_players = None, None, None, None
        self.attract_at, self.attracting = self.now() + self.config.attract_after, False
        self.stage.prompt("choose-game", game=self.menu_game)
        self._scene()

    def _menu_press(self) -> None:
        if self.menu_players is None:
            self.menu_game = GAME_IDS[(GAME_IDS.index(self.menu_game) + 1) % len(GAME_IDS)]
            self.stage.prompt(f"game-{self.menu_game}")
        else:
            counts = self._player_counts(self.menu_game)
            at = counts.index(self.menu_players) if self.menu_players in counts else -1
            self.menu_players = counts[(at + 1) % len(counts)]
            self.stage.prompt(f"players-{self.menu_players}")
        self._scene()

    def _player_counts(self, game: str) -> list[int]:
        """The player counts a game can start with, with its configured options (the alarm variant allows 2)."""
        cls, options = engine_class(game), self._options(game)
        counts = []
        for players in range(cls.min_players, cls.max_players + 1):
            try:
                cls.check_options(players, options)
            except ValueError:
                continue
            counts.append(players)
        return counts or [cls.min_players]

    def _menu_hold(self) -> None:
        if self.menu_players is None:
            self.menu_players = self._player_counts(self.menu_game)[0]
            self.stage.prompt(f"players-{self.menu_players}")
            self._scene()
        else:
            self.new_game(self.menu_game, self.menu_players)

    def _menu_card(self, card: str) -> None:
        """A game card tapped while no game runs: answer that a game must be chosen first."""
        self.stage.show("not_now", card=card)
        self.stage.prompt("choose-game", game=self.menu_game)

    def _control(self, card: str) -> None:
        name = card.removeprefix("control-")
        if name.startswith("game-"):
            if self.engine is not None and not self.engine.over:
                self.stage.show("not_now", card=card)
                return
            self.engine, self.menu_game = None, name.removeprefix("game-")
            self.menu_players = self._player_counts(self.menu_game)[0]  # a players card or the die goes on
            self.stage.prompt(f"game-{self.menu_game}")
            self._scene()
        elif name.startswith("players-"):
            if self.engine is not None and not self.engine.over:
                self.stage.show("not_now", card=card)
                return
            self.engine = None
            self.new_game(self.menu_game, int(name.removeprefix("players-")))
        elif name.startswith("variant-"):
            variant = name.removeprefix("variant-")
            on = not self.journal.setting(f"variant:{variant}", False)
            self.journal.set_setting(f"variant:{variant}", on)
            self.stage.prompt("variant-on" if on else "variant-off", variant=variant)
        elif name == "new-game":
            if self.game_id is not None and self.engine is not None and not self.engine.over:
                log.info("game %s abandoned by the new-game card", self.game_id)
            self._open_menu()
        elif name in ("volume-up", "volume-down"):
            step = 0.1 if name == "volume-up" else -0.1
            self.volume = round(min(self.config.volume_max, max(0.0, self.volume + step)), 2)
            self.journal.set_setting("volume", self.volume)
            self.stage.show("volume", volume=self.volume)
        elif name.startswith("language-") and name.removeprefix("language-") in LANGUAGES:
            self.language = name.removeprefix("language-")
            self.journal.set_setting("language", self.language)
            self.stage.prompt("language")

    # -- play --------------------------------------------------------------------
    def _card(self, card: str) -> None:
        engine = self.engine
        assert engine is not None
        if self.pending is not None:  # a second card before the call window closed
            self.poll_now()
        awaiting, seat = engine.awaiting, engine.current
        action: dict[str, Any]
        if awaiting == "start_card":
            action = {"type": "start_card", "card": card}
        elif awaiting in ("setup", "hang"):
            seat, ear = self.expected_hang()
            action = {"type": "hang", "player": seat, "ear": ear, "card": card}
        elif awaiting == "reveal":
            action = {"type": "reveal", "player": seat, "card": card}
        elif awaiting in ("play", "after_draw"):
            action = {"type": "play", "player": seat, "card": card}
            call = self.call_needed(action)
            if call:
                self.pending = PendingCall(action, call, self.now() + self.config.call_window)
                return
        elif awaiting == "send_kittens":
            owner = self._owner_of(card)
            action = {"type": "send_kittens", "player": seat, "to": owner if owner is not None else -1}
        elif awaiting in ("give", "lure"):
            action = {"type": awaiting, "player": seat, "card": card}
        else:  # roll, choose_color: a card is not what is awaited
            self._answer(Rejection("wrong_action", f"a card was tapped while awaiting {awaiting}"))
            return
        self._act(action)

    def poll_now(self) -> None:
        """Close a call window at once (another input arrived first)."""
        if self.pending:
            self.pending.deadline = self.now()
            self.poll()

    def _die_press(self) -> None:
        engine = self.engine
        assert engine is not None
        if self.pending is not None:  # the call, made in time
            pending, self.pending = self.pending, None
            self._act(dict(pending.action, call=pending.call))
            return
        awaiting, seat = engine.awaiting, engine.current
        if awaiting == "roll":
            self._act({"type": "roll", "player": seat, "face": self.die.choice(self._faces())})
        elif awaiting == "play" and engine.game != "policecats":
            self._act({"type": "draw", "player": seat})
        elif awaiting == "after_draw":
            self._act({"type": "pass", "player": seat})
        elif awaiting == "choose_color":
            self.wish = (self.wish + 1) % len(COLORS)
            self.stage.prompt(f"color-{COLORS[self.wish]}")
            self._scene()
        else:
            self._answer(Rejection("wrong_action", f"the die button does nothing while awaiting {awaiting}"))

    def _color_button(self, button: str) -> None:
        engine = self.engine
        if engine is not None and engine.awaiting == "choose_color" and button in COLORS:
            self._act({"type": "choose_color", "player": engine.current, "color": button})
        elif engine is not None and not engine.over and self.pending is None:
            self._answer(Rejection("wrong_action", f"the {button} button does nothing now"))

    def _act(self, action: dict[str, Any]) -> None:
        """Referee one action: journal it if accepted, then answer with shows."""
        engine = self.engine
        assert engine is not None
        result = engine.apply(action)
        if isinstance(result, Rejection):
            log.info("rejected %s: %s (%s)", action, result.code, result.message)
            self._answer(result)
            return
        self.journal.record(self.game_id, self.seq, action)
        self.seq += 1
        for listener in list(self.listeners):
            listener(action, result)
        if engine.over:
            self.journal.finish(self.game_id, list(engine.view().get("winners") or []))
        for event in result.events:
            self.stage.show(event["event"], **{k: v for k, v in event.items() if k != "event"})
        self.stage.show("accepted", action=action["type"])
        self._after_change()

    def _answer(self, rejection: Rejection) -> None:
        self.stage.show("rejected", code=rejection.code)
        if rejection.code in ("joker_start", "special_start"):
            self.stage.prompt("put-under")

    def _after_change(self) -> None:
        """Prompt for what the referee awaits now, and redraw the scene."""
        engine = self.engine
        assert engine is not None
        awaiting, seat = engine.awaiting, engine.current
        if awaiting == "start_card":  # a fresh deal: any card may be laid again at once
            self.taps.forget()
        if awaiting == "choose_color":
            color = engine.view().get("color")
            self.wish = COLORS.index(color) if color in COLORS else 0
        if awaiting == "over":
            winners = list(engine.view().get("winners") or [])
            self.stage.show("tie" if len(winners) > 1 else "winner", winners=winners, game=engine.game)
        elif awaiting in ("setup", "hang"):
            seat, ear = self.expected_hang()
            self.stage.prompt(f"hang-{ear}", seat=seat)
        else:
            self.stage.prompt(awaiting, seat=seat, game=engine.game)
        self._scene()

    # -- derived facts -------------------------------------------------------------
    def expected_hang(self) -> tuple[int, str]:
        """The seat and ear a hang goes to: the awaited seat's first empty ear, in seat order during setup."""
        engine = self.engine
        assert engine is not None
        ears = engine.view()["ears"]
        seats = [engine.current] if engine.current is not None else range(engine.players)
        for seat in seats:
            for side, card in zip(("left", "right"), ears[seat]):
                if card is None:
                    return seat, side
        return (engine.current or 0), "left"

    def call_needed(self, action: dict[str, Any]) -> str | None:
        """The call this play needs, when calls are on and it would leave one card or none."""
        engine = self.engine
        assert engine is not None
        if engine.game == "floppy-ears" and not engine.options.get("bark_rule", True):
            return None
        if engine.game == "pirates" and not engine.options.get("mau_calls", False):
            return None
        view = engine.view()
        seat = action["player"]
        cards = view["hand_sizes"][seat]
        if engine.game == "floppy-ears":
            cards += sum(card is not None for card in view["ears"][seat])
        call = _call_for(engine.game, cards - 1)
        if call is None or not engine.would_accept(dict(action, call=call)):
            return None
        return call

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
            self.stage.scene(Scene("menu", game=self.menu_game, players=self.menu_players or 0, attract=self.attracting))
            return
        wish = COLORS[self.wish] if engine.awaiting == "choose_color" else None
        self.stage.scene(scene_for(engine.game, engine.players, engine.options, engine.view(), wish))

    def status_line(self) -> str:
        """One line for systemd's STATUS= and the log."""
        engine = self.engine
        if engine is None:
            return f"menu: choosing {self.menu_game}"
        if engine.over:
            return f"{engine.game}: over, winners {engine.view().get('winners')}"
        if engine.current is None:
            return f"{engine.game}: awaiting {engine.awaiting}"
        return f"{engine.game}: player {engine.current + 1} to {engine.awaiting}"

    # -- for the station link and the kiosk (issue 14) ---------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The box as a station shows it: plain JSON, the same whatever the game (docs/stations.md)."""
        engine = self.engine
        snap: dict[str, Any] = {
            "mode": "menu" if engine is None else ("over" if engine.over else "playing"),
            "menu": {"game": self.menu_game, "players": self.menu_players},
            "volume": self.volume,
            "language": self.language,
        }
        if engine is None:
            return snap
        view = engine.view()
        started = getattr(self, "_started_at", (None, None))
        if started[0] != self.game_id:
            record = self.journal.game(self.game_id) if self.game_id is not None else None
            started = self._started_at = (self.game_id, record.started if record else None)
        rolls = [a.get("face") for a in engine.log if a.get("type") == "roll"]
        snap.update(
            game=engine.game, game_id=self.game_id, players=engine.players, turn=view.get("current"),
            awaiting=engine.awaiting, color=view.get("color"), winners=list(view.get("winners") or []),
            ships=view.get("ships"), scores=view.get("scores"), track=view.get("track"), police=view.get("police"),
            round=view.get("round"), actions=self.seq, started_at=started[1], last_roll=rolls[-1] if rolls else None,
        )
        return snap

    def abandon_game(self) -> bool:
        """Give up the running game (kept in the journal, never resumed) and open the menu; False when none ran."""
        if self.engine is None:
            return False
        if self.game_id is not None and not self.engine.over:
            self.journal.abandon(self.game_id)
            log.info("game %s abandoned", self.game_id)
        self._open_menu()
        return True

    def set_volume(self, volume: float) -> float:
        """Set the volume (capped at volume_max), remember it, and let it be heard; return what was set."""
        self.volume = round(min(self.config.volume_max, max(0.0, volume)), 2)
        self.journal.set_setting("volume", self.volume)
        self.stage.show("volume", volume=self.volume)
        return self.volume

    def set_language(self, language: str) -> None:
        """Speak ``language`` from now on (one of decks.LANGUAGES)."""
        if language not in LANGUAGES:
            raise ValueError(f"no language {language!r} (languages: {', '.join(LANGUAGES)})")
        self.language = language
        self.journal.set_setting("language", language)
        self.stage.prompt("language", language=language)

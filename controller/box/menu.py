"""The menu: choosing a game, a player count and variants, and the box's settings (volume, language).

Choices come from control cards and the die button, in any order, until the
game starts: a game card and a players card start the game together, in
whichever order they come; a players card alone waits for its game; a
variant card may come any time before. Every tap is answered, aloud, with
what is now chosen. The die button does the same without cards: a press
cycles the games (then the player counts), a hold chooses (then starts).

The choices are kept in the journal's ``menu`` setting (``status --json``
shows them). Variants persist across games and restarts until a card turns
them off again, because a family sets up its house rules once; the game and
player count of an unfinished choice do not survive a restart.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from controller.config import Config
from controller.decks import LANGUAGES, VARIANTS
from controller.games import GAME_IDS, engine_class
from controller.stage.scene import Scene, Stage
from controller.storage.journal import Journal, JournalError

log = logging.getLogger("gamebox.menu")

#: What the menu asks the box to start: (game, players).
Start = tuple[str, int]


class Menu:
    """The menu's choices and the box's settings, from control cards and the die button."""

    def __init__(self, config: Config, journal: Journal, stage: Stage) -> None:
        self.config, self.journal, self.stage = config, journal, stage
        self.volume: float = _stored(journal, "volume", config.volume, _is_volume)
        self.volume = min(self.volume, config.volume_max)
        self.language: str = _stored(journal, "language", config.language, lambda v: v in LANGUAGES)
        stored = _stored(journal, "menu", {}, _is_menu)
        legacy = _stored(journal, "last_game", GAME_IDS[0], lambda v: v in GAME_IDS)
        self.game: str = stored.get("game", legacy)
        self.variants: dict[str, bool] = dict(stored.get("variants") or {
            name: on for name in VARIANTS if isinstance(on := journal.setting(f"variant:{name}"), bool)})
        self.players: int | None = None  # the count a hold starts with; None while the die cycles games
        self.game_chosen = False  # chosen in this menu (a card or the die), not only last time's
        self.players_chosen = False  # chosen by a players card
        self.named: str | None = None  # the game the menu's last answer named: the start need not name it again
        self.attract_at: float | None = None
        self.attracting = False

    # -- what the choices mean -------------------------------------------------------
    def options(self, game: str) -> dict[str, Any]:
        """The configured options, with the variants a control card switched on or off."""
        options = self.config.options(game)
        for name, (variant_game, key, off, on) in VARIANTS.items():
            if variant_game == game and name in self.variants:
                options[key] = on if self.variants[name] else off
        return options

    def player_counts(self, game: str) -> list[int]:
        """The player counts a game can start with, with its options (the alarm variant allows 2)."""
        cls, options = engine_class(game), self.options(game)
        counts = []
        for players in range(cls.min_players, cls.max_players + 1):
            try:
                cls.check_options(players, options)
            except ValueError:
                continue
            counts.append(players)
        return counts or [cls.min_players]

    def allowed(self, game: str) -> str:
        """Which player counts to name when a count is refused: the game's, or its alarm variant's (C10)."""
        return "policecats-alarm" if game == "policecats" and self.options(game).get("variant") == "alarm" else game

    def choices(self) -> dict[str, Any]:
        """The ``menu`` setting: what is chosen now."""
        return {"game": self.game, "players": self.players, "variants": dict(self.variants)}

    def scene(self) -> Scene:
        return Scene("menu", game=self.game, players=self.players or 0, attract=self.attracting)

    # -- opening and idling --------------------------------------------------------------
    def open(self, now: float) -> None:
        """A fresh menu: the last game offered, nothing else chosen yet."""
        self.players, self.game_chosen, self.players_chosen, self.named = None, False, False, None
        self.attract_at, self.attracting = now + self.config.attract_after, False
        self._save()
        self.stage.prompt("choose-game", game=self.game)
        self.stage.scene(self.scene())

    def woken(self, now: float) -> None:
        """Any input ends the invitation and restarts the idle time."""
        self.attract_at = now + self.config.attract_after
        if self.attracting:
            self.attracting = False
            self.stage.scene(self.scene())

    def next_deadline(self) -> float | None:
        return None if self.attracting else self.attract_at

    def poll(self, now: float) -> None:
        if self.attract_at is not None and not self.attracting and now >= self.attract_at:
            self.attracting = True
            self.stage.show("attract")
            self.stage.scene(self.scene())

    def started(self, game: str) -> None:
        """A game started: it is the one offered first next time."""
        self.game, self.named = game, None
        self._save()

    # -- the die button ------------------------------------------------------------------
    def press(self) -> None:
        """Cycle the games, or once a game is chosen, the player counts it allows."""
        if self.players is None:
            self.game = GAME_IDS[(GAME_IDS.index(self.game) + 1) % len(GAME_IDS)]
            self.game_chosen, self.named = True, self.game
            self.stage.prompt(f"game-{self.game}")
        else:
            counts = self.player_counts(self.game)
            at = counts.index(self.players) if self.players in counts else -1
            self.players, self.named = counts[(at + 1) % len(counts)], None
            self.stage.prompt(f"players-{self.players}")
        self._changed()

    def hold(self) -> Start | None:
        """Choose the game shown (then offer its player counts), or start with the count shown."""
        if self.players is None:
            self.game_chosen, self.named = True, self.game
            self.players = self.player_counts(self.game)[0]
            self.stage.prompt("menu-hold", game=self.game, players=self.players)
            self._changed()
            return None
        return self.game, self.players

    def prompt_again(self) -> None:
        """Say again what the menu awaits: a game, or once one is chosen, how many play (after a refusal)."""
        self.named = None
        self.stage.prompt("choose-players" if self.game_chosen else "choose-game", game=self.game)

    def button(self, button: str) -> None:
        """A colour button: it chooses nothing in the menu, so say what does."""
        self.named = None
        self.stage.show("not_now", card=f"the {button} button", key="choose_game_first")
        self.stage.prompt("choose-game", game=self.game)

    # -- control cards -------------------------------------------------------------------
    def card(self, name: str) -> Start | None:
        """A menu or settings card (``name`` without ``control-``); a game to start when both are chosen."""
        named, self.named = self.named, None
        if name.startswith("game-") and name.removeprefix("game-") in GAME_IDS:
            return self._choose_game(name.removeprefix("game-"))
        if name.startswith("players-") and name.removeprefix("players-").isdigit():
            self.named = named  # a players card that starts the game follows the answer that named it
            return self._choose_players(int(name.removeprefix("players-")))
        if name.startswith("variant-") and name.removeprefix("variant-") in VARIANTS:
            variant = name.removeprefix("variant-")
            self.variants[variant] = on = not self.variants.get(variant, False)
            self.stage.prompt("variant", variant=variant, state="on" if on else "off")
            if self.players is not None and self.players not in self.player_counts(self.game):
                self.players = self.player_counts(self.game)[0]
            self._changed()
        elif name in ("volume-up", "volume-down"):
            self.set_volume(self.volume + (0.1 if name == "volume-up" else -0.1))
        elif name.startswith("language-"):
            self.set_language(name.removeprefix("language-"))
        else:
            log.warning("control card %r does nothing", name)
        return None

    def _choose_game(self, game: str) -> Start | None:
        self.game, self.game_chosen = game, True
        counts = self.player_counts(game)
        if self.players_chosen and self.players in counts:
            self._changed()
            return game, self.players
        if self.players_chosen:
            self.stage.show("rejected", code="wrong_action", key="players_not_allowed", allowed=self.allowed(game),
                            reason=f"{game} is for {' or '.join(map(str, counts))} players, not {self.players}")
            self.players_chosen = False
        if self.players not in counts:
            self.players = counts[0]
        self.stage.prompt("menu-game", game=game)
        self.named = game
        self._changed()
        return None

    def _choose_players(self, players: int) -> Start | None:
        self.players, self.players_chosen = players, True
        if self.game_chosen:
            return self._choose_game(self.game)
        self.stage.prompt("menu-players", players=players)
        self.named = None
        self._changed()
        return None

    # -- settings ------------------------------------------------------------------------
    def set_volume(self, volume: float) -> None:
        """Set the volume, never above the configured maximum (children's ears)."""
        before = self.volume
        self.volume = round(min(self.config.volume_max, max(0.0, volume)), 2)
        self._set("volume", self.volume)
        if self.volume == before:  # at an end: say it goes no further (the same volume again: no word)
            change = "max" if volume > before else "min" if volume < before else "same"
        else:
            change = "up" if self.volume > before else "down"
        self.stage.show("volume", volume=self.volume, change=change)

    def set_language(self, language: str) -> None:
        """Speak ``language`` from now on (a rulebook language, else refused)."""
        if language not in LANGUAGES:
            self.stage.show("rejected", code="wrong_action", key="no_language",
                            reason=f"no language {language!r} ({', '.join(LANGUAGES)})")
            return
        self.language = language
        self._set("language", language)
        self.stage.prompt("language", language=language)

    # -- keeping it ----------------------------------------------------------------------
    def _changed(self) -> None:
        self._save()
        self.stage.scene(self.scene())

    def _save(self) -> None:
        self._set("menu", self.choices())

    def _set(self, key: str, value: Any) -> None:
        try:
            self.journal.set_setting(key, value)
        except JournalError as exc:  # a setting lost is no game lost: keep it for this run
            log.error("cannot keep the setting %s: %s", key, exc)
            self.stage.show("device_fault", device="journal")


def _stored(journal: Journal, key: str, default: Any, valid: Callable[[Any], bool]) -> Any:
    """A stored setting, or ``default`` with one log line when what is stored does not make sense."""
    value = journal.setting(key)
    if value is None:
        return default
    if not valid(value):
        log.warning("stored setting %s = %r is not valid; using %r", key, value, default)
        return default
    return value


def _is_volume(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0


def _is_menu(value: Any) -> bool:
    variants = value.get("variants", {}) if isinstance(value, dict) else None
    return (isinstance(value, dict) and value.get("game") in GAME_IDS and isinstance(variants, dict)
            and all(name in VARIANTS and isinstance(on, bool) for name, on in variants.items()))

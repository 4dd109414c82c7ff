"""The three rule engines, by game id.

Engines are imported on first use so that ``controller.games`` stays cheap to
import for tools that only need one game.
"""

from __future__ import annotations

from importlib import import_module

from controller.games.base import Engine, OptionsError, Outcome, Rejection

#: game id -> (module, class name)
_ENGINES: dict[str, tuple[str, str]] = {
    "floppy-ears": ("controller.games.floppy_ears", "FloppyEars"),
    "pirates": ("controller.games.pirates", "Pirates"),
    "policecats": ("controller.games.policecats", "Policecats"),
}

GAME_IDS: tuple[str, ...] = tuple(_ENGINES)


def engine_class(game: str) -> type[Engine]:
    """The engine class of a game id; a KeyError names the games there are."""
    try:
        module, name = _ENGINES[game]
    except (KeyError, TypeError):
        raise KeyError(f"no game {game!r} (games: {', '.join(GAME_IDS)})") from None
    return getattr(import_module(module), name)


def new_game(game: str, players: int, options: dict | None = None) -> Engine:
    """A fresh referee; raises KeyError for an unknown game, OptionsError for bad players/options."""
    return engine_class(game)(players, options or {})


__all__ = ["GAME_IDS", "Engine", "OptionsError", "Outcome", "Rejection", "engine_class", "new_game"]

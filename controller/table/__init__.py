"""Virtual tables (full-information models of the physical cards) and bots, by game id."""

from __future__ import annotations

from importlib import import_module
from random import Random

from controller.table.base import Decision, VirtualTable

_TABLES: dict[str, tuple[str, str]] = {
    "floppy-ears": ("controller.table.floppy_ears", "FloppyEarsTable"),
    "pirates": ("controller.table.pirates", "PiratesTable"),
    "policecats": ("controller.table.policecats", "PolicecatsTable"),
}


def table_class(game: str) -> type[VirtualTable]:
    try:
        module, name = _TABLES[game]
    except (KeyError, TypeError):
        raise KeyError(f"no game {game!r} (games: {', '.join(_TABLES)})") from None
    return getattr(import_module(module), name)


def new_table(game: str, players: int, options: dict | None = None, seed: int | Random = 0) -> VirtualTable:
    return table_class(game)(players, options or {}, seed)


__all__ = ["Decision", "VirtualTable", "new_table", "table_class"]

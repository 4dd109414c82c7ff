"""Commands a station takes from the broker: parsed strictly, carried out only where they cannot change a game.

A command comes as ``<prefix>/<station>/set/<name>`` (or ``<prefix>/all/set/<name>``)
with a small payload. Anything unknown or malformed is refused with a reason,
which the link logs in one line and echoes on ``events``. No command reaches
a game's options, so the rules never change mid-game.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from controller.decks import LANGUAGES
from controller.games import GAME_IDS, engine_class
from controller.station.topics import COMMANDS

VOLUME_STEP = 0.1
MAX_PAYLOAD = 512  # bytes: a command is a word or a tiny object
# a command's id: hex digits only, so that no id is ever a property name (``__proto__``, ``constructor``) in a browser
ID = re.compile(r"^[0-9a-f]{1,32}$")


class Refused(ValueError):
    """A command the box will not carry out; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # one of COMMANDS
    value: Any = None  # volume: a float or "up"/"down"; language: a code; new-game: {"game", "players"}


def _decode(payload: bytes) -> Any:
    """The payload as JSON when it is JSON, else as plain text (``0.5``, ``de`` and ``"de"`` all work)."""
    if len(payload) > MAX_PAYLOAD:
        raise Refused(f"payload of {len(payload)} bytes is too long")
    try:
        text = payload.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise Refused("payload is not UTF-8") from None
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def command_id(payload: bytes) -> str | None:
    """The id the sender gave (``{"id": ..., "value": ...}``), echoed in the box's answer; None without one."""
    try:
        value = _decode(payload)
    except Refused:
        return None
    if isinstance(value, dict) and isinstance(value.get("id"), str) and ID.match(value["id"]):
        return value["id"]
    return None


def _unwrap(value: Any) -> Any:
    """``{"id": ..., "value": V}`` (the teacher's page) as V; anything else as it is."""
    if isinstance(value, dict) and "id" in value and set(value) <= {"id", "value"}:
        return value.get("value")
    return value


def parse(name: str, payload: bytes) -> Command:
    """One command from its topic leaf and payload; :class:`Refused` when it is not one the box knows."""
    if name not in COMMANDS:
        raise Refused(f"no command {name!r} (commands: {', '.join(COMMANDS)})")
    value = _unwrap(_decode(payload))
    if name == "volume":
        if value in ("up", "down"):
            return Command(name, value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise Refused(f"volume must be a number from 0 to 1, or up/down, not {value!r}")
        return Command(name, float(value))
    if name == "language":
        if value not in LANGUAGES:
            raise Refused(f"no language {value!r} (languages: {', '.join(LANGUAGES)})")
        return Command(name, value)
    if name == "new-game":
        return Command(name, _new_game(value))
    if value not in (None, {}, True, 1):
        raise Refused(f"{name} takes no payload, not {value!r}")
    return Command(name)


def _new_game(value: Any) -> dict[str, Any]:
    """``{"game": ..., "players": ...}``, both optional (the box's menu choice); nothing else, least of all options."""
    if value is None:
        return {}
    if isinstance(value, str):
        value = {"game": value}
    if not isinstance(value, dict):
        raise Refused(f"new-game takes {{\"game\": ..., \"players\": ...}}, not {value!r}")
    extra = set(value) - {"game", "players"}
    if extra:
        raise Refused(f"new-game cannot set {', '.join(sorted(extra))}: the rules come from the box's config")
    game = value.get("game")
    if game is not None and game not in GAME_IDS:
        raise Refused(f"no game {game!r} (games: {', '.join(GAME_IDS)})")
    players = value.get("players")
    if players is not None:
        cls = engine_class(game) if game else None
        low, high = (cls.min_players, cls.max_players) if cls else (2, 5)
        if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
            raise Refused(f"players must be a whole number from {low} to {high}, not {players!r}")
    return {k: v for k, v in value.items() if v is not None}

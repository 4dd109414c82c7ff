"""What the teacher's page accepts from the broker: every payload checked field by field before a browser sees it.

Anyone who can publish on the broker can send anything (a retained
``players: 300000000`` crashed the page's tab for good), so the page keeps
only the documented fields (docs/stations.md), each of the documented type
and within a sane range; a payload with one bad field is dropped whole.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

from controller.decks import LANGUAGES
from controller.games import GAME_IDS
from controller.stage.lights.colors import SEAT_COLOR_NAMES
from controller.station.commands import ID

MAX_PAYLOAD = 16 * 1024  # bytes: a real state is under 1 KiB
MAX_TEXT = 120  # characters of any string shown on the page
MAX_SEATS = 5
MAX_ITEMS = 64  # entries of any other list or object

Check = Callable[[Any], bool]


class Bad(ValueError):
    """A payload the page will not show; the message names the field."""


def _int(low: int, high: int) -> Check:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _number(low: float, high: float) -> Check:
    return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and low <= v <= high


def _text(most: int = MAX_TEXT) -> Check:
    return lambda v: isinstance(v, str) and len(v) <= most


def _one_of(*values: Any) -> Check:
    return lambda v: isinstance(v, str) and v in values


def _or_none(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _seats(check: Check) -> Check:
    return lambda v: isinstance(v, list) and len(v) <= MAX_SEATS and all(check(x) for x in v)


def _menu(v: Any) -> bool:
    if not isinstance(v, dict) or set(v) - {"game", "players", "variants"}:
        return False
    variants = v.get("variants", {})
    return (_or_none(_one_of(*GAME_IDS))(v.get("game")) and _or_none(_int(2, MAX_SEATS))(v.get("players"))
            and isinstance(variants, dict) and len(variants) <= MAX_ITEMS
            and all(_text(32)(k) and isinstance(x, bool) for k, x in variants.items()))


def _small_json(v: Any) -> bool:
    """A referee action or event list: plain JSON, small and shallow."""
    try:
        return len(json.dumps(v)) <= 2048
    except (TypeError, ValueError):
        return False


SEAT = _int(0, MAX_SEATS - 1)
COUNT = _int(0, 10**6)
TIME = _number(0, 10**11)
COMMON: dict[str, Check] = {"station": _text(64), "at": TIME}
STATE: dict[str, Check] = COMMON | {
    "mode": _one_of("menu", "playing", "over"), "menu": _or_none(_menu), "volume": _number(0, 1),
    "language": _one_of(*LANGUAGES), "game": _or_none(_one_of(*GAME_IDS)), "game_id": _or_none(_int(0, 2**53)),
    "players": _or_none(_int(2, MAX_SEATS)), "turn": _or_none(SEAT), "turn_color": _or_none(_one_of(*SEAT_COLOR_NAMES)),
    "awaiting": _or_none(_text(32)), "color": _or_none(_text(16)), "winners": _or_none(_seats(SEAT)),
    "ships": _or_none(_seats(_int(0, 1000))), "scores": _or_none(_seats(_int(0, 1000))), "track": _or_none(_int(0, 1000)),
    "police": _or_none(SEAT), "round": _or_none(_int(0, 1000)), "actions": _or_none(COUNT),
    "started_at": _or_none(TIME), "last_roll": _or_none(_text(16)), "last_round": _or_none(lambda v: isinstance(v, bool)),
    "last_winner": _or_none(_text()), "games_today": _or_none(COUNT),
}
EVENT: dict[str, Check] = COMMON | {
    "kind": _one_of("action", "game_over", "command", "refused"), "seq": COUNT, "game_id": _int(0, 2**53),
    "action": lambda v: isinstance(v, dict) and _small_json(v), "events": lambda v: isinstance(v, list) and _small_json(v),
    "game": _one_of(*GAME_IDS), "winners": _seats(SEAT), "started_at": TIME, "command": _text(32), "reason": _text(),
    "id": lambda v: isinstance(v, str) and ID.match(v) is not None,
}
ONLINE: dict[str, Check] = COMMON | {"online": lambda v: isinstance(v, bool), "boot": _text(32)}


def _fault_map(v: Any) -> bool:
    return isinstance(v, dict) and len(v) <= MAX_ITEMS and all(_text(32)(k) and _or_none(_text())(x) for k, x in v.items())


def _devices(v: Any) -> bool:
    return isinstance(v, dict) and len(v) <= MAX_ITEMS and all(
        _text(32)(k) and isinstance(d, dict) and set(d) <= {"driver", "fault"} and _or_none(_text(64))(d.get("driver"))
        and _or_none(_text())(d.get("fault")) for k, d in v.items())


HEALTH: dict[str, Check] = COMMON | {
    "profile": _or_none(_text(64)), "devices": _devices, "faults": _fault_map, "uptime": _number(0, 10**10),
    "queued": COUNT, "dropped": COUNT, "every": _number(0, 86400),
}
SCHEMAS = {"state": STATE, "events": EVENT, "online": ONLINE, "health": HEALTH}


def checked(leaf: str, payload: bytes) -> dict[str, Any] | None:
    """The payload of ``leaf`` as a dict of documented fields; None for an empty (cleared) one; :class:`Bad` otherwise."""
    if len(payload) > MAX_PAYLOAD:
        raise Bad(f"{len(payload)} bytes")
    if not payload:
        return None
    try:
        value = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Bad("not JSON") from None
    if not isinstance(value, dict):
        raise Bad("not a JSON object")
    schema = SCHEMAS[leaf]
    for key, item in value.items():
        check = schema.get(key)
        if check is None:
            raise Bad(f"unknown field {key[:32]!r}")
        if not check(item):
            raise Bad(f"bad {key}")
    return value

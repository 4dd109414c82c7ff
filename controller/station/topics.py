"""Topic names and the JSON each carries: one place, so the box, the page and docs/stations.md agree.

Each ``*_FIELDS`` tuple lists every key a payload may have; the tests check
the payloads the box really sends against these and against the tables in
docs/stations.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

STATE_FIELDS = (
    "station", "at", "mode", "menu", "volume", "language", "game", "game_id", "players", "turn", "turn_color",
    "awaiting", "color", "winners", "ships", "scores", "track", "police", "round", "actions", "started_at",
    "last_roll", "last_round", "last_winner", "games_today",
)
EVENT_FIELDS = (
    "station", "at", "kind", "seq", "game_id", "action", "events", "game", "winners", "started_at", "command", "reason", "id",
)
ONLINE_FIELDS = ("station", "at", "online", "boot")
HEALTH_FIELDS = ("station", "at", "profile", "devices", "faults", "uptime", "queued", "dropped", "every")
COMMANDS = ("volume", "language", "new-game", "time-up", "end-session")
ALL = "all"  # the station name that addresses every station


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one station under a prefix."""

    prefix: str
    station: str

    def of(self, leaf: str) -> str:
        return f"{self.prefix}/{self.station}/{leaf}"

    @property
    def state(self) -> str:
        return self.of("state")

    @property
    def events(self) -> str:
        return self.of("events")

    @property
    def online(self) -> str:
        return self.of("online")

    @property
    def health(self) -> str:
        return self.of("health")

    def commands(self) -> list[str]:
        """What the station subscribes to: its own commands and those for every station."""
        return [self.of("set/#"), f"{self.prefix}/{ALL}/set/#"]

    def command(self, topic: str) -> str | None:
        """The command a subscribed topic names (``volume``...), or None when it is not one of ours."""
        for head in (self.of("set/"), f"{self.prefix}/{ALL}/set/"):
            if topic.startswith(head):
                return topic[len(head):]
        return None


def split(prefix: str, topic: str) -> tuple[str, str] | None:
    """``prefix/station/leaf`` as (station, leaf); None for another prefix or a command topic."""
    if not topic.startswith(prefix + "/"):
        return None
    station, _, leaf = topic[len(prefix) + 1:].partition("/")
    if not station or "/" in leaf or not leaf:
        return None
    return station, leaf


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()

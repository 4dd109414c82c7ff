"""Home Assistant MQTT discovery: the box as a device: four sensors, its volume, its language and three buttons.

Home Assistant reads retained ``<discovery_prefix>/<component>/<node>/<object>/config``
messages. Switching the feature off sends the same topics empty, which is
how Home Assistant is told to remove an entity.
"""

from __future__ import annotations

import zlib
from typing import Any

from controller.decks import LANGUAGES
from controller.station.topics import Topics

#: key -> (name, value template on the state topic, icon)
SENSORS: dict[str, tuple[str, str, str]] = {
    "game": ("Game", "{{ value_json.game if value_json.mode != 'menu' else 'menu' }}", "mdi:cards-playing"),
    "turn": ("Whose turn", "{{ value_json.turn_color or 'none' }}", "mdi:account-arrow-right"),
    "last_winner": ("Last winner", "{{ value_json.last_winner or 'none' }}", "mdi:trophy"),
    "games_today": ("Games today", "{{ value_json.games_today }}", "mdi:counter"),
}
#: key -> (name, command, icon): buttons that send a command with an empty payload
BUTTONS: dict[str, tuple[str, str, str]] = {
    "time_up": ("Time nearly up", "time-up", "mdi:timer-sand"),
    "end_session": ("End session", "end-session", "mdi:stop"),
    "new_game": ("New game", "new-game", "mdi:restart"),
}
CONFIG_FIELDS = (
    "name", "unique_id", "default_entity_id", "state_topic", "value_template", "icon", "availability_topic",
    "availability_template", "payload_available", "payload_not_available", "device", "origin", "command_topic",
    "payload_press", "options", "min", "max", "step", "mode", "state_class",
)
DEVICE_FIELDS = ("identifiers", "name", "manufacturer", "model")
ORIGIN = {"name": "gamebox"}  # what made the discovery messages, as Home Assistant asks


def node_of(station: str) -> str:
    """The station's id in Home Assistant: lower case and ``_`` only, with a short hash when that changed the name
    (``table-1`` and ``table_1`` are two boxes)."""
    node = f"gamebox_{station.lower().replace('-', '_')}"
    return node if node == f"gamebox_{station}" else f"{node}_{zlib.crc32(station.encode()):08x}"


def _entities(discovery_prefix: str, node: str) -> list[tuple[str, str, str]]:
    """(component, key, config topic) of every entity of one box."""
    keys = [("sensor", k) for k in SENSORS] + [("number", "volume"), ("select", "language")]
    keys += [("button", k) for k in BUTTONS]
    return [(component, key, f"{discovery_prefix}/{component}/{node}/{key}/config") for component, key in keys]


def discovery_topics(discovery_prefix: str, topics: Topics) -> list[str]:
    return [topic for _, _, topic in _entities(discovery_prefix, node_of(topics.station))]


def discovery_messages(discovery_prefix: str, topics: Topics, volume_max: float) -> dict[str, dict[str, Any]]:
    """Topic -> config payload for every entity of one box."""
    node = node_of(topics.station)
    common = {
        "availability_topic": topics.online,
        "availability_template": "{{ 'online' if value_json.online else 'offline' }}",
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": {
            "identifiers": [node],
            "name": f"gamebox {topics.station}",
            "manufacturer": "gamebox",
            "model": "card-game referee box",
        },
        "origin": ORIGIN,
    }
    messages: dict[str, dict[str, Any]] = {}
    for component, key, topic in _entities(discovery_prefix, node):
        config: dict[str, Any] = {"unique_id": f"{node}_{key}", "default_entity_id": f"{component}.{node}_{key}", **common}
        if component == "sensor":
            name, template, icon = SENSORS[key]
            config |= {"name": name, "state_topic": topics.state, "value_template": template, "icon": icon}
            if key == "games_today":
                config["state_class"] = "total_increasing"
        elif component == "number":
            config |= {"name": "Volume", "state_topic": topics.state, "value_template": "{{ value_json.volume }}",
                       "command_topic": topics.of("set/volume"), "min": 0.0, "max": volume_max, "step": 0.05,
                       "mode": "slider", "icon": "mdi:volume-high"}
        elif component == "select":
            config |= {"name": "Language", "state_topic": topics.state, "value_template": "{{ value_json.language }}",
                       "command_topic": topics.of("set/language"), "options": list(LANGUAGES), "icon": "mdi:translate"}
        else:
            name, command, icon = BUTTONS[key]
            config |= {"name": name, "command_topic": topics.of(f"set/{command}"), "payload_press": "", "icon": icon}
        messages[topic] = config
    return messages

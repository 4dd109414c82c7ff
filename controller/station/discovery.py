"""Home Assistant MQTT discovery: the box as a device with four sensors and its volume as a number.

Home Assistant reads retained ``<discovery_prefix>/<component>/<node>/<object>/config``
messages. Switching the feature off sends the same topics empty, which is
how Home Assistant is told to remove an entity.
"""

from __future__ import annotations

import zlib
from typing import Any

from controller.station.topics import Topics

#: object id -> (component, name, value template on the state topic, icon)
SENSORS: dict[str, tuple[str, str, str]] = {
    "game": ("Game", "{{ value_json.game if value_json.mode != 'menu' else 'menu' }}", "mdi:cards-playing"),
    "turn": ("Whose turn", "{{ value_json.turn_color or 'none' }}", "mdi:account-arrow-right"),
    "last_winner": ("Last winner", "{{ value_json.last_winner or 'none' }}", "mdi:trophy"),
    "games_today": ("Games today", "{{ value_json.games_today }}", "mdi:counter"),
}
CONFIG_FIELDS = (
    "name", "unique_id", "object_id", "state_topic", "value_template", "icon", "availability_topic",
    "availability_template", "payload_available", "payload_not_available", "device", "command_topic",
    "min", "max", "step", "mode", "state_class",
)
DEVICE_FIELDS = ("identifiers", "name", "manufacturer", "model")


def node_of(station: str) -> str:
    """The station's id in Home Assistant: lower case and ``_`` only, with a short hash when that changed the name
    (``table-1`` and ``table_1`` are two boxes)."""
    node = f"gamebox_{station.lower().replace('-', '_')}"
    return node if node == f"gamebox_{station}" else f"{node}_{zlib.crc32(station.encode()):08x}"


def _node(topics: Topics) -> str:
    return node_of(topics.station)


def discovery_topics(discovery_prefix: str, topics: Topics) -> list[str]:
    node = _node(topics)
    return [f"{discovery_prefix}/sensor/{node}/{key}/config" for key in SENSORS] + [
        f"{discovery_prefix}/number/{node}/volume/config"
    ]


def discovery_messages(discovery_prefix: str, topics: Topics, volume_max: float) -> dict[str, dict[str, Any]]:
    """Topic -> config payload for every entity of one box."""
    node = _node(topics)
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
    }
    messages: dict[str, dict[str, Any]] = {}
    for (key, (name, template, icon)), topic in zip(SENSORS.items(), discovery_topics(discovery_prefix, topics)):
        messages[topic] = {
            "name": name, "unique_id": f"{node}_{key}", "object_id": f"{node}_{key}",
            "state_topic": topics.state, "value_template": template, "icon": icon, **common,
        }
        if key == "games_today":
            messages[topic]["state_class"] = "total"
    messages[discovery_topics(discovery_prefix, topics)[-1]] = {
        "name": "Volume", "unique_id": f"{node}_volume", "object_id": f"{node}_volume",
        "state_topic": topics.state, "value_template": "{{ value_json.volume }}",
        "command_topic": topics.of("set/volume"), "min": 0.0, "max": volume_max, "step": 0.05, "mode": "slider",
        "icon": "mdi:volume-high", **common,
    }
    return messages

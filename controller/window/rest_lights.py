"""The LED segments at rest for a game state read from the journal: what the kiosk display draws.

The display runs beside a real box and only reads its journal, so it has
no LEDs to look at. It turns the game state into the box's own
:class:`~controller.stage.scene.Scene` and asks the same pure function the box's
stage asks (:func:`controller.stage.lights.cues.scene_animation`) what each
segment shows once every fade is over.
"""

from __future__ import annotations

from typing import Any, Iterable

from controller.games import engine_class
from controller.stage.lights.cues import rest_frame
from controller.stage.scene import Scene, scene_for

RGB = tuple[int, int, int]


def scene_of(status: dict[str, Any]) -> Scene:
    """The scene the box shows for a game state (the keys of ``report.game_status``)."""
    options = engine_class(status["game"]).check_options(status["players"], status.get("options") or {})
    hang = status.get("next_ear")
    return scene_for(status["game"], status["players"], options, status, hang=(hang["player"], hang["ear"]) if hang else None)


def rest_frames(scene: Scene, counts: Iterable[tuple[str, int]]) -> tuple[tuple[str, tuple[RGB, ...]], ...]:
    """Each segment's pixels once the scene has settled (before any brightness cap)."""
    return tuple((name, tuple(rest_frame(name, n, scene))) for name, n in counts)

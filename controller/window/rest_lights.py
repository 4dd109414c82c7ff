"""The LED segments at rest for a game state read from the journal: what the kiosk display draws.

The display runs beside a real box and only reads its journal, so it has
no LEDs to look at. Rather than re-deciding what each segment shows, it
hands the game state to the box's own :class:`~controller.stage.DeviceStage`
as a :class:`~controller.box.Scene`, over a strip that only records, and
takes the frame once every fade is over.
"""

from __future__ import annotations

from typing import Any, Iterable

from controller.box import Scene, scene_for
from controller.games import engine_class
from controller.shows import ShowBook
from controller.stage import DeviceStage
from hardware.clock import FakeClock
from hardware.interfaces import Segment

RGB = tuple[int, int, int]

SETTLE = 30.0  # seconds after which every scene animation is still


class _Recorded(Segment):
    def __init__(self, name: str, count: int) -> None:
        self.name = name
        self.pixels: list[RGB] = [(0, 0, 0)] * count

    def __len__(self) -> int:
        return len(self.pixels)

    def __getitem__(self, index: int) -> RGB:
        return self.pixels[index]

    def set(self, index: int, rgb: RGB) -> None:
        self.pixels[index] = rgb


class _RecordingStrip:
    """Just enough of an LED strip for the stage to paint on."""

    def __init__(self, counts: dict[str, int]) -> None:
        self._segments = {name: _Recorded(name, n) for name, n in counts.items()}

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self._segments)

    def segment(self, name: str) -> _Recorded:
        return self._segments[name]

    def show(self) -> bool:
        return True


def scene_of(status: dict[str, Any]) -> Scene:
    """The scene the box shows for a game state (the keys of ``report.game_status``)."""
    options = engine_class(status["game"]).check_options(status["players"], status.get("options") or {})
    return scene_for(status["game"], status["players"], options, status)


def rest_frames(scene: Scene, counts: Iterable[tuple[str, int]]) -> tuple[tuple[str, tuple[RGB, ...]], ...]:
    """Each segment's pixels once the scene has settled (before any brightness cap)."""
    strip = _RecordingStrip(dict(counts))
    clock = FakeClock(0.0)
    stage = DeviceStage(strip, None, ShowBook.load(), clock)  # type: ignore[arg-type]
    stage.scene(scene)
    clock.advance(SETTLE)
    stage.tick()
    return tuple((name, tuple(strip.segment(name).pixels)) for name in strip.segments)

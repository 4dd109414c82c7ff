"""A box on a fake clock with a stage that records what it was asked to show."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.autoplay import Autoplayer, run_inputs
from controller.box.box import Box
from controller.box.tags import Registry
from controller.config import load_config
from controller.stage.scene import Scene
from controller.storage.journal import Journal


@dataclass
class RecordingStage:
    shows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    prompts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    scenes: list[Scene] = field(default_factory=list)

    def show(self, name: str, **context: Any) -> None:
        self.shows.append((name, context))

    def prompt(self, prompt_id: str, **context: Any) -> None:
        self.prompts.append((prompt_id, context))

    def scene(self, scene: Scene) -> None:
        self.scenes.append(scene)

    @property
    def show_names(self) -> list[str]:
        return [n for n, _ in self.shows]

    @property
    def refusals(self) -> list[str]:
        """The codes of the "rejected" shows, oldest first."""
        return [context["code"] for name, context in self.shows if name == "rejected"]

    @property
    def said(self) -> list[str]:
        """The prompts asked for, oldest first."""
        return [p for p, _ in self.prompts]


class Clock:
    """A hand-moved clock for the box (which only reads the time)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def monotonic(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        raise AssertionError("the box never sleeps")

    def advance(self, seconds: float) -> None:
        self.t += seconds


def make_box(tmp_path: Path, seed: int = 1, **config: Any) -> tuple[Box, RecordingStage, Clock]:
    stage, clock = RecordingStage(), Clock()
    cfg = load_config(None, state_dir=str(tmp_path), seed=seed, **config)
    box = Box(cfg, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), stage, clock)
    box.start()
    return box, stage, clock


def play_to_the_end(box: Box, clock: Clock, seed: int, bots: list[str] | None = None, limit: int = 20000) -> Autoplayer:
    """Bots play the box's game to its end through taps and presses only."""
    auto = Autoplayer(box, seed, bots)
    for _ in range(limit):
        if box.engine.over:
            return auto
        _seat, action = auto.choose()
        run_inputs(box, auto.inputs(action), clock.advance)
    raise AssertionError(f"no end after {limit} actions")

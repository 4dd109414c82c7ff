"""The box's own answers: a red flash for "no", a sweep for "we are back", a slow glow for "waiting for you"."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from controller.stage.lights.base import Animation, Pixel
from controller.stage.lights.colors import OFF, RGB, SWEEP, scale


@dataclass(frozen=True, kw_only=True)
class RejectionFlash(Animation):
    """Red flashes ``flashes`` times, the rest frame showing between them and after.

    Flashing over what was shown (the turn ring, say) rather than blanking it
    tells a child "not that card", not "the game broke".
    """

    color: RGB = (255, 0, 0)
    flashes: int = 2

    fps: ClassVar[float] = 7.0  # one step per half flash

    @property
    def duration(self) -> float:
        return 2 * self.flashes / self.fps

    def draw(self, t: float) -> list[Pixel]:
        if t >= self.duration or round(t * self.fps) % 2 == 1:
            return [None] * self.n
        return [self.color] * self.n


@dataclass(frozen=True, kw_only=True)
class ResumedSweep(Animation):
    """A bright comet runs from the first pixel to the last, uncovering the rest frame behind it.

    After a power cut the box comes back dark; the sweep says "here we go
    again" and leaves the game's lights (the rest frame) where they were.
    """

    color: RGB = SWEEP
    sweep: float = 1.2
    tail: int = 6

    fps: ClassVar[float] = 40.0

    @property
    def duration(self) -> float:
        return self.sweep

    def draw(self, t: float) -> list[Pixel]:
        if t >= self.sweep:
            return [None] * self.n
        head = (self.n + self.tail) * t / self.sweep
        frame: list[Pixel] = []
        for i in range(self.n):
            behind = head - i
            if behind < 0:
                frame.append(OFF)
            elif behind < self.tail:
                frame.append(scale(self.color, 1 - behind / self.tail))
            else:
                frame.append(None)
        return frame


@dataclass(frozen=True, kw_only=True)
class Waiting(Animation):
    """The segment glows slowly in ``color`` for ``seconds``, then gives back the rest frame.

    The box waits for someone at it (a phone asked to pair: a hold of the
    die now says a code), and shows so for exactly as long as it waits.
    """

    color: RGB = (0, 60, 255)
    seconds: float = 60.0
    breath: float = 2.0

    fps: ClassVar[float] = 10.0

    @property
    def duration(self) -> float:
        return self.seconds

    def draw(self, t: float) -> list[Pixel]:
        if t >= self.seconds:
            return [None] * self.n
        return [scale(self.color, 0.55 + 0.45 * math.cos(2 * math.pi * t / self.breath))] * self.n

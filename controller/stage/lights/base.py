"""What every LED animation shares: time steps, the brightness cap, and knowing when it is still.

An animation is a pure function of time: ``frame(t)`` for the seconds since
it began, with no clock, no sleeping and no state, so tests pick any ``t``
and the box can jump ahead after a stall. Time advances in steps of
``1 / fps``; between two steps the frame cannot change, and once ``done``
it never changes again. ``next_change(t)`` says when the box must look
again (``None``: never), which is how "nothing redraws when nothing
changes" is kept: the box sleeps until then instead of redrawing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Sequence

from controller.stage.lights.colors import OFF, RGB

Frame = list[RGB]
Pixel = tuple[float, float, float] | None
"""A pixel as an animation draws it: unrounded and uncapped, or None for "show the rest frame here"."""

_EPS = 1e-6
"""Seconds: a time this close to a step (or to the end) counts as there.

Clock readings are floats: the box that sleeps until ``started + next_change``
may wake a few femtoseconds short of it. Without this slack it would be told
the same ``next_change`` again and spin.
"""


def cap(pixel: tuple[float, float, float], brightness: float) -> RGB:
    """One pixel scaled by the brightness cap, rounded and clamped to 0..255."""
    r, g, b = pixel
    return (min(255, max(0, int(r * brightness + 0.5))),
            min(255, max(0, int(g * brightness + 0.5))),
            min(255, max(0, int(b * brightness + 0.5))))


@dataclass(frozen=True, kw_only=True)
class Animation:
    """Base class: a segment of ``n`` pixels drawn as a function of time.

    ``brightness`` (0..1) caps every frame. ``rest`` is the frame to leave
    behind and to show wherever the animation draws nothing: pass what the
    strip showed before (it is used as is, already capped), so a flash or a
    sweep returns the strip to the turn ring or the sea route it covered.
    """

    n: int
    brightness: float = 1.0
    rest: Sequence[RGB] | None = None

    fps: ClassVar[float] = 25.0
    """Steps per second while moving: as slow as looks smooth, to spare the Pi."""

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"a segment needs at least one pixel, got n={self.n}")
        if not 0.0 <= self.brightness <= 1.0:
            raise ValueError(f"brightness is a cap from 0 to 1, got {self.brightness}")
        if self.rest is not None and len(self.rest) != self.n:
            raise ValueError(f"rest frame has {len(self.rest)} pixels, the segment {self.n}")

    # -- what subclasses provide ----------------------------------------------------
    @property
    def duration(self) -> float | None:
        """Seconds until the final, still frame; None for an animation that runs until replaced."""
        return 0.0

    def draw(self, t: float) -> list[Pixel]:
        """The frame at step time ``t`` (``duration`` once done), before the cap."""
        raise NotImplementedError

    # -- what the box uses ----------------------------------------------------------
    def done(self, t: float) -> bool:
        """True once the animation shows its final frame (it will not change any more)."""
        return self.duration is not None and t >= self.duration - _EPS

    def step_time(self, t: float) -> float:
        """The start of the step that ``t`` falls in: every ``t`` in a step draws the same frame."""
        t = max(0.0, t)
        if self.done(t):
            return float(self.duration)  # type: ignore[arg-type]
        return math.floor((t + _EPS) * self.fps) / self.fps

    def next_change(self, t: float) -> float | None:
        """When the frame may next differ from ``frame(t)``; None if it never will.

        Always later than ``t``, so a loop that sleeps until then always moves on.
        """
        t = max(0.0, t)
        if self.done(t):
            return None
        nxt = (math.floor((t + _EPS) * self.fps) + 1) / self.fps
        return nxt if self.duration is None else min(nxt, self.duration)

    def frame(self, t: float) -> Frame:
        """The capped frame at ``t`` seconds since the animation began."""
        pixels = self.draw(self.step_time(t))
        rest = self.rest
        b = self.brightness
        return [(rest[i] if rest is not None else OFF) if p is None else cap(p, b) for i, p in enumerate(pixels)]


def spread(n: int, parts: int) -> list[tuple[int, int]]:
    """Split ``n`` pixels into ``parts`` runs of near-equal length, as (start, length)."""
    bounds = [round(i * n / parts) for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(parts)]


@dataclass(frozen=True, kw_only=True)
class Still(Animation):
    """A fixed frame (``pixels``, before the cap): for anything the box shows without moving."""

    pixels: Sequence[tuple[float, float, float]] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.pixels) != self.n:
            raise ValueError(f"still frame has {len(self.pixels)} pixels, the segment {self.n}")

    def draw(self, t: float) -> list[Pixel]:
        return list(self.pixels)

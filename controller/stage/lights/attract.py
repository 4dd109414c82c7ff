"""Kiosk mode: the five seat colours drifting round, breathing, to invite passers-by to play."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from controller.stage.lights.base import Animation, Pixel
from controller.stage.lights.colors import SEAT_COLORS, blend, scale


@dataclass(frozen=True, kw_only=True)
class Attract(Animation):
    """Seat colours flowing once round the segment every ``period`` seconds, gently breathing.

    It runs until replaced, or until ``sleep_after`` seconds, when it fades
    out and goes still and dark, so an unattended box stops drawing (and
    shining) after a while.
    """

    period: float = 12.0
    breath: float = 5.0
    sleep_after: float | None = None

    fps: ClassVar[float] = 20.0

    @property
    def duration(self) -> float | None:
        return self.sleep_after

    def draw(self, t: float) -> list[Pixel]:
        level = 0.65 + 0.35 * math.cos(2 * math.pi * t / self.breath)
        if self.sleep_after is not None:
            level *= max(0.0, min(1.0, (self.sleep_after - t) / 2.0))
        colors = SEAT_COLORS
        m = len(colors)
        drift = t / self.period
        frame: list[Pixel] = []
        for i in range(self.n):
            u = ((i / self.n + drift) % 1.0) * m
            k = int(u)
            frame.append(scale(blend(colors[k % m], colors[(k + 1) % m], u - k), level))
        return frame

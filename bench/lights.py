#!/usr/bin/env python3
"""Time to compute one 60-pixel frame of each LED animation (target: at most 1 ms on the Pi).

Sending 60 pixels to WS2812s takes about 2 ms, so a frame that computes in
under 1 ms keeps drawing well below the wire time even at 50 steps a second.

    python bench/lights.py [--pixels 60] [--frames 2000]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.stage.lights import (  # noqa: E402
    ANIMATIONS, CARD_COLORS, Animation, Attract, DieRoll, PoliceTrack, RejectionFlash, ResumedSweep, SeaRoute,
    ShipSail, Siren, Still, TreasureSparkle, TurnRing, WishedColor,
)

TARGET_MS = 1.0


def samples(n: int) -> dict[str, Animation]:
    """One typical instance of every registered animation, at half brightness (so the cap does work)."""
    rest = [(10, 20, 30)] * n
    made: dict[str, Animation] = {
        "die-roll": DieRoll(n=n, face=5, brightness=0.5),
        "ship-sail": ShipSail(n=n, steps=3, ships=(0, 1, 2, 1), seat=1, brightness=0.5),
        "sea-route": SeaRoute(n=n, steps=3, ships=(0, 1, 2, 1), brightness=0.5),
        "treasure-sparkle": TreasureSparkle(n=n, seed=42, brightness=0.5),
        "siren": Siren(n=n, brightness=0.5, rest=rest),
        "police-track": PoliceTrack(n=n, position=4, brightness=0.5),
        "turn-ring": TurnRing(n=n, seat=2, players=4, match=CARD_COLORS["red"], brightness=0.5),
        "wished-color": WishedColor(n=n, color=CARD_COLORS["green"], brightness=0.5),
        "rejection-flash": RejectionFlash(n=n, rest=rest, brightness=0.5),
        "resumed-sweep": ResumedSweep(n=n, rest=rest, brightness=0.5),
        "attract": Attract(n=n, brightness=0.5),
        "still": Still(n=n, pixels=[(200.0, 100.0, 0.0)] * n, brightness=0.5),
    }
    missing = set(ANIMATIONS) - set(made)
    if missing:
        raise SystemExit(f"bench has no sample for: {', '.join(sorted(missing))}")
    return made


def time_frames(anim: Animation, frames: int) -> tuple[float, float]:
    """Median and 99th-percentile milliseconds per frame over ``frames`` times spread across the animation.

    Percentiles rather than the maximum: a single frame delayed by the OS
    scheduler says nothing about the animation.
    """
    span = anim.duration if anim.duration else 10.0
    took = []
    for i in range(frames):
        t = span * 1.05 * i / frames
        t0 = time.perf_counter()
        anim.frame(t)
        took.append(time.perf_counter() - t0)
    took.sort()
    return 1000 * took[len(took) // 2], 1000 * took[min(len(took) - 1, int(0.99 * len(took)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pixels", type=int, default=60)
    parser.add_argument("--frames", type=int, default=2000)
    args = parser.parse_args()
    print(f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}, "
          f"{args.pixels} pixels, {args.frames} frames each")
    print(f"{'animation':18} {'median ms':>9} {'p99 ms':>8}")
    slow = []
    for name, anim in samples(args.pixels).items():
        median, p99 = time_frames(anim, args.frames)
        print(f"{name:18} {median:9.3f} {p99:8.3f}")
        if median > TARGET_MS:
            slow.append(name)
    print(f"target: median <= {TARGET_MS} ms; " + (f"over target: {', '.join(slow)}" if slow else "all within"))
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())

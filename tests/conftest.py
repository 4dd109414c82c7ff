"""Shared test setup: headless SDL, and the card ids of every deck for fuzzing."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
os.environ.setdefault("BLINKA_OS_AGNOSTIC", "1")

ROOT = Path(__file__).resolve().parent.parent
#: The rule scenarios (docs/scenarios.md): the referees' contract, run by tests/test_scenario_files.py.
SCENARIO_DIR = ROOT / "tests" / "scenarios"
COLORS = ("yellow", "green", "blue", "red")

ALL_CARD_IDS: list[str] = (
    [f"{c}-{n}" for c in COLORS for n in range(1, 8)]
    + [f"joker-{n}" for n in range(1, 9)]
    + [f"{c}-pirate-{n}" for c in COLORS for n in range(1, 10)]
    + [f"{c}-{kind}" for c in COLORS for kind in ("ship", "bottle", "sleeper")]
    + [f"parrot-{n}" for n in range(1, 5)]
    + [f"family-{f}-{m}" for f in range(1, 10) for m in ("mother", "father", "kittens")]
    + [f"police-{n}" for n in range(1, 10)]
)

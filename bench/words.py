"""Every awaited decision announced, over thousands of self-play games through the box.

    .venv/bin/python bench/words.py [--games 300]

Plays ``--games`` games of each game and variant (seven of them) through
the box's taps and presses, exactly as ``tests/box/test_words.py`` does for
25 each, and prints per variant the games played, the actions, the seconds
and every decision the box awaited without announcing it aloud (goal: none).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.box.test_words import VARIANTS, self_play_through_the_box  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games of each variant")
    args = parser.parse_args()
    total = 0
    for game, players, options in VARIANTS:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            missed = self_play_through_the_box(game, players, options, args.games, Path(tmp))
            seconds = time.perf_counter() - started
        total += len(missed)
        print(f"{game} {players} players {options}: {args.games} games in {seconds:.1f} s, "
              f"{len(missed)} decisions never announced")
        for line in missed[:5]:
            print(f"  {line}")
    print(f"all: {args.games * len(VARIANTS)} games, {total} decisions never announced")


if __name__ == "__main__":
    main()

"""What the kiosk display's look at the journal costs beside a running box (printed, never asserted).

    .venv/bin/python bench/display_read.py [--games 4] [--commits 40]

A box's journal is written as the box writes it (games of greedy players,
one commit per action, no checkpoint, so the -wal holds every frame), then
the display's reader (``Journal(read_only=True)``) reads it once, and again
after each further commit: the first read checks every frame of the -wal,
each later one only the frames added since.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.storage.journal import Journal  # noqa: E402
from tests.sim.test_commands import record_game  # noqa: E402

FRAME = 24 + 4096


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games of 30 actions written before the first read")
    parser.add_argument("--commits", type=int, default=40, help="commits, each followed by a read again")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite"
        box = Journal(path)
        for seed in range(args.games):
            record_game(box, "pirates", 3, seed=seed, actions=30)
        wal = path.with_name(path.name + "-wal")
        frames = (wal.stat().st_size - 32) // FRAME
        start = time.perf_counter()
        display = Journal(path, read_only=True)
        first = time.perf_counter() - start
        game_id = box.start_game("pirates", 2, {}, 0)
        again = []
        for seq in range(args.commits):
            box.record(game_id, seq, {"type": "draw", "player": seq % 2})
            start = time.perf_counter()
            display.reread()
            again.append(time.perf_counter() - start)
        display.close()
        box.close()
    print(f"-wal of {frames} frames: first read {first * 1000:.1f} ms; read again after one commit: "
          f"median {statistics.median(again) * 1000:.1f} ms, max {max(again) * 1000:.1f} ms")


if __name__ == "__main__":
    main()

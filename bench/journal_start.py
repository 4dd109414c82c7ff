"""What a start's look at the journal's version and owner costs, beside the whole start (printed, never asserted).

    .venv/bin/python bench/journal_start.py [--games 200] [--runs 5]

Before a box writes into its journal it reads one moment of it (the file,
the -wal's committed frames laid over it) to refuse a newer version or
another box's journal without touching anything. Here a journal of
``--games`` games of 30 actions is read that way and opened as a start
opens it, after a clean stop (the log folded in) and as a power cut leaves
it (the last five games only in the -wal); best and median of ``--runs``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.storage.journal import Journal, journal_owner  # noqa: E402
from tests.sim.test_commands import record_game  # noqa: E402


def timed(step: Callable[[], object], runs: int, before: Callable[[], object] = lambda: None) -> str:
    """``step``'s best and median time of ``runs``, each after ``before`` (not timed)."""
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return f"best {min(times) * 1000:.1f} ms, median {statistics.median(times) * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games of 30 actions in the journal")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        box = Path(folder) / "box"
        journal = Journal(box / "journal.sqlite")
        for seed in range(args.games):
            record_game(journal, "pirates", 3, seed=seed, actions=30)
            if seed < args.games - 5:
                journal.checkpoint(force=True)  # as the box does at a game's end; the last five stay in the -wal
        cut = Path(folder) / "cut"
        shutil.copytree(box, Path(folder) / "as-cut")  # a power cut: the files as they lie
        journal.close()  # a clean stop: the log folded into the file

        def as_cut() -> None:  # a start folds the -wal in: each one starts from the files the cut left
            shutil.rmtree(cut, ignore_errors=True)
            shutil.copytree(Path(folder) / "as-cut", cut)

        for name, state, before in (("after a clean stop", box, lambda: None), ("after a power cut", cut, as_cut)):
            as_cut()
            path = state / "journal.sqlite"
            size = sum(p.stat().st_size for p in state.glob("journal.sqlite*"))
            look = timed(lambda: journal_owner(path), args.runs)
            print(f"{name} ({size / 1e6:.1f} MB): version and owner read {look}; "
                  f"whole start {timed(lambda: Journal(path).close(), args.runs, before)}")

if __name__ == "__main__":
    main()

"""The soak: whole games, one after another, in one ``gamebox run`` on the sim profile at full speed.

    .venv/bin/python bench/soak.py [--games 1000]

Standard input carries every game's taps and presses (the menu's game and
players cards first) as fast as the daemon takes them. Printed: games
finished, actions acknowledged, the daemon's resident memory at READY,
after the first 50 games and at the end, the growth after the first 50
games (goal ≤ 5 MB), and errors (``error:`` lines, ERROR log lines or a
traceback; goal 0).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.power_cut import GAMES, SEED, reference  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--distinct", type=int, default=24, help="reference games, played in turn")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gamebox-soak-") as tmp:
        root = Path(tmp)
        config = root / "box.toml"
        config.write_text(f"seed = {SEED}\nrepeat_window = 0.0\nhandover = 0.0\n")
        refs = [reference(root / f"ref{n}", *GAMES[n % len(GAMES)], n) for n in range(args.distinct)]
        plan = [refs[n % len(refs)] for n in range(args.games)]
        env = dict(os.environ, GAMEBOX_LOG="ERROR", PYTHONPATH=str(ROOT))
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--profile", "sim", "--config", str(config),
             "--state-dir", str(root / "state")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        errors: list[str] = []
        threading.Thread(target=lambda: errors.extend(line for line in proc.stderr if line.strip()),
                         daemon=True).start()
        for line in proc.stdout:  # the sim narrates what the box says before it is ready
            if line.strip() == "ready":
                break
        started, rss = time.monotonic(), {"ready": rss_mb(proc.pid)}

        def feed() -> None:
            for ref in plan:
                proc.stdin.write("\n".join(ref.lines) + "\n")
            proc.stdin.flush()

        threading.Thread(target=feed, daemon=True).start()
        finished = acked = 0
        last = len(plan[0].states) - 2
        for line in proc.stdout:
            if line.startswith("error"):
                errors.append(line)
            if not line.startswith("accepted "):
                continue
            acked += 1
            if int(line.split()[1]) == last:
                finished += 1
                if finished == 50:
                    rss["after 50 games"] = rss_mb(proc.pid)
                if finished % 50 == 0:
                    print(f"  {finished} games, {time.monotonic() - started:.0f} s, {rss_mb(proc.pid):.1f} MB",
                          flush=True)
                if finished == len(plan):
                    break
                last = len(plan[finished].states) - 2
        rss["end"] = rss_mb(proc.pid)
        elapsed = time.monotonic() - started
        proc.stdin.close()
        proc.wait(timeout=60)
    print(f"games finished: {finished} of {args.games} in {elapsed:.0f} s ({acked} actions acknowledged)")
    print("resident memory: " + ", ".join(f"{k} {v:.1f} MB" for k, v in rss.items()))
    if "after 50 games" in rss:
        print(f"growth after the first 50 games: {rss['end'] - rss['after 50 games']:+.1f} MB (goal <= 5 MB)")
    print(f"errors: {len(errors)} (goal 0)")
    for line in errors[:10]:
        print(f"  {line.rstrip()}")


if __name__ == "__main__":
    main()

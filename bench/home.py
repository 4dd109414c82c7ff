"""The family's page asking the box: what a request over the control socket costs, and what it costs the box.

    .venv/bin/python bench/home.py [--games 2] [--polls 300]

* ``view`` round trip over the Unix socket (a request waits in the box's
  event queue like a tap, is answered by the pump), the box idle and while
  bots play pirates as fast as the box takes them;
* tap → action accepted (in the journal), with and without a phone polling
  ``view`` every 50 ms (ten times more often than the page does): the page
  must not slow the game;
* a backup (SQLite's backup API, read connections only) of the journal after
  the games played: its time and size.

One real :class:`~controller.daemon.Daemon` on the sim profile with the
system clock, its socket made by :func:`~controller.control.server.run_daemon`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.autoplay import Autoplayer, perform  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.control.server import run_daemon, socket_path  # noqa: E402
from controller.daemon import Daemon  # noqa: E402
from controller.home.client import ask  # noqa: E402


def figures(name: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"{name}: n={len(ms)} median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, max {ms[-1]:.2f} ms"


async def round_trips(path: Path, n: int) -> list[float]:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        answer = await ask(path, "view")
        assert answer["ok"], answer
        times.append(time.perf_counter() - start)
    return times


async def play(daemon: Daemon, games: int, seed: int) -> list[float]:
    """Bots tap and press the simulated devices; the time from each card's tap to its action in the journal."""
    latencies = []
    for game in range(games):
        assert daemon.box.new_game("pirates", 3)
        auto = Autoplayer(daemon.box, seed + game, None)
        while not daemon.box.engine.over:
            before = daemon.box.seq
            _seat, action = auto.choose()
            inputs = auto.inputs(action)
            start = time.perf_counter()
            fingers = asyncio.create_task(perform(daemon.devices, inputs, asyncio.sleep, pace=0.0))
            while daemon.box.seq == before and not daemon.box.engine.over and not fingers.done():
                await asyncio.sleep(0.0005)
            if daemon.box.seq != before and inputs[0].kind == "tap":
                latencies.append(time.perf_counter() - start)
            await fingers
        daemon.box.press("die")
    return latencies


async def poller(path: Path, stop: asyncio.Event, every: float, times: list[float]) -> None:
    while not stop.is_set():
        times.extend(await round_trips(path, 1))
        await asyncio.sleep(every)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="gb-home-bench-") as folder:
        config = load_config(None, state_dir=folder, seed=1, handover=0.0, repeat_window=0.0)
        daemon = Daemon(config, stdin=False, out=lambda _line: None, notify=lambda _m: None)
        task = asyncio.create_task(run_daemon(daemon))
        await daemon.ready.wait()
        path = socket_path(Path(folder))
        try:
            print(figures("view, box idle", await round_trips(path, args.polls)))
            alone = await play(daemon, args.games, 1)
            print(figures("tap -> accepted, no phone", alone))
            stop, polled = asyncio.Event(), []
            phone = asyncio.create_task(poller(path, stop, 0.05, polled))
            watched = await play(daemon, args.games, 1)
            stop.set()
            await phone
            print(figures("tap -> accepted, a phone polling view every 50 ms", watched))
            print(figures("view, while the bots play", polled))
            start = time.perf_counter()
            backup = await ask(path, "backup")
            print(f"backup after {2 * args.games} games: {(time.perf_counter() - start) * 1000:.1f} ms, "
                  f"{backup['bytes'] / 1024:.0f} kB zip")
        finally:
            daemon.stopping.set()
            await task


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="whole pirates games in each of the two runs (default 2)")
    parser.add_argument("--polls", type=int, default=300, help="view requests with the box idle (default 300)")
    asyncio.run(main(parser.parse_args()))

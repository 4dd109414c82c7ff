"""An in-process daemon on the sim profile and a fake clock, for end-to-end tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from controller.autoplay import Autoplayer, perform
from controller.config import load_config
from controller.daemon import Daemon
from hardware.clock import FakeClock


async def started(tmp_path: Path, **config: Any) -> tuple[Daemon, asyncio.Task, FakeClock, list[str]]:
    clock = FakeClock(1000.0)
    lines: list[str] = []
    cfg = load_config(None, state_dir=str(tmp_path), seed=config.pop("seed", 1), **config)
    daemon = Daemon(cfg, clock=clock, stdin=False, out=lines.append, notify=lambda _m: None)
    task = asyncio.create_task(daemon.run())
    await daemon.ready.wait()
    return daemon, task, clock, lines


async def stopped(daemon: Daemon, task: asyncio.Task) -> None:
    daemon.stopping.set()
    await task


async def play_game_on_devices(daemon: Daemon, clock: FakeClock, seed: int, bots=None, limit: int = 5000) -> Autoplayer:
    """Bots play the running game to its end by tapping and pressing the simulated devices."""
    auto = Autoplayer(daemon.box, seed, bots)
    for _ in range(limit):
        if daemon.box.engine.over:
            return auto
        before = len(daemon.box.engine.log)
        _seat, action = auto.choose()
        await perform(daemon.devices, auto.inputs(action), clock.run_for)
        if len(daemon.box.engine.log) == before and not daemon.box.engine.over:
            raise AssertionError(f"{action} was not taken by the box")
    raise AssertionError(f"no end after {limit} actions")

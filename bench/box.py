"""The box's speed and footprint, printed against its targets (never asserted in CI).

    .venv/bin/python bench/box.py [--events 10000]

* tag → first device command: a card laid on the simulated reader until the
  box starts a sound or pushes an LED frame, through the daemon's real loop
  (SystemClock). Refused taps (no journal write) and accepted plays (journal
  written before the show, fsynced after it in a child process) are measured apart,
  the accepted ones also with the journal's fsync slowed to an SD card's
  (``--slow-fsync-ms 20,200``), back to back (1 ms apart: the fsync process
  is busy all the time) and at a quick hand's pace (``--pace-ms 50``).
  Target p99 ≤ 2 ms whatever the fsync takes.
* daemon start → READY: ``gamebox run`` as a subprocess until it prints ``ready``. Target ≤ 1 s.
* a spoken line loaded when first said: every line of the language played
  once on a fresh pygame speaker (the load and the play), twice: the files as
  the disk has them, then just read (in the page cache).
* resident memory after a whole game, and idle CPU afterwards, of that
  subprocess (from /proc). Targets ≤ 60 MB and ≤ 1 % of one core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.autoplay import Autoplayer, run_inputs  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.daemon import Daemon  # noqa: E402
from controller.siminput import card_uid  # noqa: E402
from tests.box.helpers import make_box  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def tap_latencies(events: int, state: Path, fsync_ms: float = 0.0,
                        pace: float = 0.001) -> tuple[list[float], list[float]]:
    """Seconds from tap to first device command: (refused taps, accepted plays ``pace`` seconds apart)."""
    config = load_config(None, state_dir=str(state), repeat_window=0.0, handover=0.0, seed=1)
    daemon = Daemon(config, stdin=False, out=lambda _l: None, notify=lambda _m: None, fsync_delay=fsync_ms / 1000)
    task = asyncio.create_task(daemon.run())
    await daemon.ready.wait()
    devices, box = daemon.devices, daemon.box
    first: list[float] = []
    speaker_play, strip_show = devices.speaker.play, devices.leds.show

    def play(*args, **kwargs):
        first.append(time.perf_counter())
        return speaker_play(*args, **kwargs)

    def show(*args, **kwargs):
        sent = strip_show(*args, **kwargs)
        if sent:
            first.append(time.perf_counter())
        return sent

    devices.speaker.play, devices.leds.show = play, show
    reader = devices.readers["table"]

    async def measure(card: str, pause: float = 0.001) -> float | None:
        first.clear()
        start = time.perf_counter()
        reader.tap(card_uid(card), card)
        for _ in range(1000):
            await asyncio.sleep(0)
            if first:
                break
        reader.remove()
        await asyncio.sleep(pause)  # the show runs on; let the loop settle
        return (first[0] - start) if first else None

    box.new_game("pirates", 3)
    refused: list[float] = []
    await measure("red-pirate-2")  # the first card turned up
    wrong = ["blue-pirate-7", "green-pirate-8", "yellow-pirate-9", "joker-1", "family-2-mother"]
    for n in range(events):
        latency = await measure(wrong[n % len(wrong)])
        if latency is not None:
            refused.append(latency)
    accepted: list[float] = []
    while len(accepted) < min(events, 2000):
        box.new_game("pirates", 3)
        auto = Autoplayer(box, len(accepted))
        while not box.engine.over and len(accepted) < min(events, 2000):
            _seat, action = auto.choose()
            inputs = auto.inputs(action)
            if action["type"] == "play" and len(inputs) == 1:
                latency = await measure(action["card"], pace)
                if latency is not None:
                    accepted.append(latency)
            else:
                for step in inputs:  # the rest straight to the box, not measured
                    if step.kind == "tap":
                        box.tap("table", step.value)
                    elif step.kind in ("press", "hold"):
                        getattr(box, step.kind)(step.value)
    daemon.stopping.set()
    await task
    return refused, accepted


def whole_game_lines(state: Path) -> tuple[list[str], int]:
    box, _stage, clock = make_box(state, seed=4, handover=0.0)  # scripted presses come at once
    box.new_game("pirates", 3)
    auto = Autoplayer(box, 4)
    lines = ["tap control-game-pirates", "tap control-players-3"]
    while not box.engine.over:
        inputs = auto.inputs(auto.choose()[1])
        lines += [f"tap {i.value}" if i.kind == "tap" else f"{i.kind} {i.value}" for i in inputs]
        run_inputs(box, inputs, clock.advance)
    return lines, len(box.engine.log)


def line_first_plays(language: str) -> list[float]:
    """Seconds to play each spoken line of ``language`` the first time (loaded then), on SDL's dummy driver."""
    from controller.stage.stage import sound_files, voice_files
    from hardware.clock import SystemClock
    from hardware.drivers.pygame_speaker import PygameSpeaker
    from hardware.events import EventSink

    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    lines = voice_files(language)
    speaker = PygameSpeaker(EventSink(), SystemClock())
    speaker.start({**sound_files(), **lines})
    seconds = []
    for name in lines:
        start = time.perf_counter()
        speaker.play(name, "voice")
        seconds.append(time.perf_counter() - start)
    speaker.stop()
    return seconds


def subprocess_figures(state: Path, profile: str, language: str = "en") -> dict[str, float]:
    env = dict(os.environ, GAMEBOX_LOG="ERROR", PYTHONPATH=str(ROOT), SDL_AUDIODRIVER=os.environ.get("SDL_AUDIODRIVER", "dummy"))
    fast = state / "fast.toml"  # scripted presses come at once: no handover time between turns
    fast.parent.mkdir(parents=True, exist_ok=True)
    fast.write_text(f'handover = 0.0\nlanguage = "{language}"\n', encoding="utf-8")  # its lines alone played
    command = [sys.executable, "-m", "controller.cli", "run", "--config", str(fast), "--profile", profile, "--state-dir"]
    ready = []
    for n in range(5):
        start = time.perf_counter()
        proc = subprocess.Popen([*command, str(state / f"ready{n}")], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env)
        while proc.stdout.readline().strip() not in ("ready", ""):  # the sim narrates before it is ready
            pass
        ready.append(time.perf_counter() - start)
        proc.stdin.close()
        proc.wait()
    lines, total = whole_game_lines(state / "reference")
    proc = subprocess.Popen([*command, str(state / "game")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    while proc.stdout.readline().strip() not in ("ready", ""):
        pass
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    acked = 0
    while acked < total:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"the daemon ended after {acked} of {total} actions")
        if line.startswith("accepted "):
            acked = int(line.split()[1]) + 1
    time.sleep(3.0)  # let the winner's show finish
    rss_kb = int(next(l for l in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                      if l.startswith("VmRSS")).split()[1])
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before, start = cpu(), time.monotonic()
    time.sleep(5.0)
    idle = (cpu() - before) / (time.monotonic() - start)
    proc.stdin.close()
    proc.wait()
    return {"ready_median_s": statistics.median(ready), "ready_max_s": max(ready),
            "rss_mb": rss_kb / 1024, "idle_cpu_percent": idle * 100, "actions": acked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--slow-fsync-ms", default="20,200", help="fsync delays to measure accepted plays with")
    parser.add_argument("--pace-ms", type=float, default=50.0,
                        help="time between two accepted plays with a slowed fsync (a quick hand: 20 plays a second)")
    parser.add_argument("--profile", default="desktop",
                        help="profile of the subprocess (desktop: the pygame mixer, every effect loaded, the spoken lines when first said, "
                             "on SDL's dummy audio driver where SDL_AUDIODRIVER is not set)")
    parser.add_argument("--language", default="en",
                        help="the language the subprocess speaks: its lines alone are played")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        refused, accepted = asyncio.run(tap_latencies(args.events, Path(tmp) / "latency"))
        runs = [("refused tap", refused), ("accepted play (fsync as the disk does it)", accepted)]
        for ms in [float(v) for v in args.slow_fsync_ms.split(",") if v]:
            for pace in (0.001, args.pace_ms / 1000):
                _r, slowed = asyncio.run(tap_latencies(min(args.events, 2000), Path(tmp) / f"slow{ms:g}-{pace}", ms, pace))
                runs.append((f"accepted play, fsync slowed by {ms:g} ms, plays {pace * 1000:g} ms apart", slowed))
        figures = subprocess_figures(Path(tmp), args.profile, args.language)
    first_plays = [[v * 1000 for v in line_first_plays(args.language)] for _ in range(2)]  # then from the page cache
    for name, values in runs:
        ms = [v * 1000 for v in values]
        print(f"tag -> first device command, {name}: n={len(ms)}, p50 {percentile(ms, 0.5):.3f} ms, "
              f"p99 {percentile(ms, 0.99):.3f} ms (target p99 <= 2 ms)")
    print(f"subprocess profile: {args.profile}, language: {args.language}")
    print(f"daemon start -> READY: median {figures['ready_median_s']:.3f} s, max {figures['ready_max_s']:.3f} s "
          f"(target <= 1 s)")
    for run, ms in zip(("files as the disk has them", "files just read, in the page cache"), first_plays):
        print(f"a spoken line said the first time (loaded then; {len(ms)} lines, {run}): p50 "
              f"{percentile(ms, 0.5):.3f} ms, p99 {percentile(ms, 0.99):.3f} ms, max {max(ms):.3f} ms")
    print(f"resident memory after a whole game ({figures['actions']} actions): {figures['rss_mb']:.1f} MB "
          f"(target <= 60 MB)")
    print(f"idle CPU after the game: {figures['idle_cpu_percent']:.2f} % of one core (target <= 1 %)")


if __name__ == "__main__":
    main()

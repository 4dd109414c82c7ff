"""Instructions the box executes, counted by valgrind's callgrind: figures that hold on any machine.

    .venv/bin/python bench/instructions.py [--taps 100]

Wall-clock figures move with the machine and its load; instruction counts
do not (callgrind counts them the same on every run to within a few tenths
of a percent), so they say what a slower Pi would take. Budgets, sized for a
Raspberry Pi Zero 2 W running about 0.5 G Python instructions a second:

* process start → READY ≤ 1.5 G instructions: the interpreter, the imports,
  the profile, the journal, and the mixer with every effect loaded (spoken lines load when first said);
* tag → first device command ≤ 2 M instructions, for a refused tap and for
  an accepted play (journal commit included; fsync's wait is the kernel's, not counted).

The ``pi-reference`` profile cannot open a Pi's devices here, so the box
runs on the simulated buttons, reader and LEDs with the reference profile's
own ``[speaker]`` table (the pygame mixer, its channels and volumes), on
SDL's dummy audio driver: the sounds are decoded and loaded as on a Pi. The
daemon's real loop does the work: the reader posts the tag, the loop hands
it to the box, the box starts the show.

READY counts every thread; a tap counts the loop's thread, where the tag's
path to the first command runs here (on a Pi a reader's own polling thread
comes before it, and the audio thread mixes on its own time). Each segment
is counted alone through callgrind's client requests (a three-line C
helper compiled here with gcc and valgrind's callgrind.h, loaded with ctypes).
Needs valgrind and gcc (Debian: apt-get install valgrind gcc).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READY_BUDGET = 1.5e9
TAP_BUDGET = 2e6
BETWEEN_TAPS = 5.0  # seconds on the box's clock: every show and call window is over

HELPER = r"""
#include <valgrind/callgrind.h>
void counting(void) { CALLGRIND_TOGGLE_COLLECT; }
void dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""


def reference_sound_profile(folder: Path) -> Path:
    """The sim profile with pi-reference's speaker: simulated inputs and lights, the real mixer."""
    profiles = ROOT / "hardware" / "profiles"
    sim = (profiles / "sim.toml").read_text(encoding="utf-8")
    speaker = tomllib.loads((profiles / "pi-reference.toml").read_text(encoding="utf-8"))["speaker"]
    sim = sim[: sim.index("[speaker]")]
    lines = [f"{key} = {value!r}".replace("'", '"') for key, value in speaker.items()]
    path = folder / "sim-with-reference-sounds.toml"
    path.write_text(sim + "[speaker]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- inside valgrind -------------------------------------------------------------------
def child(helper: Path, profile: Path, state: Path, taps: int) -> None:
    """Runs under callgrind: READY, then ``taps`` refused taps and ``taps`` accepted plays, each counted alone."""
    cg = ctypes.CDLL(str(helper))
    sys.path.insert(0, str(ROOT))
    logging.disable(logging.WARNING)  # the refused taps' one-line warnings
    from controller.config import load_config
    from controller.daemon import Daemon
    from controller.siminput import card_uid
    from hardware.clock import FakeClock

    counting = [True]  # callgrind counts from the first instruction

    def count(on: bool) -> None:
        if counting[0] != on:
            cg.counting()  # a toggle
            counting[0] = on

    def notify(message: str) -> None:
        if message == "READY=1":
            cg.dump(b"ready")  # everything from the process's first instruction
            count(False)  # from here only the taps count

    config = load_config(None, state_dir=str(state), profile=str(profile), repeat_window=0.0, seed=1)
    # Time stands still while a tap is counted and moves on between taps (the show
    # ends, the call window closes), so no timer fires inside a count: the same
    # instructions on every run, however slowly valgrind runs them.
    clock = FakeClock()
    daemon = Daemon(config, clock=clock, stdin=False, out=lambda _line: None, notify=notify)

    async def run() -> None:
        task = asyncio.create_task(daemon.run())
        await daemon.ready.wait()
        from controller.autoplay import Autoplayer  # the bots: after READY, which `gamebox run` never loads

        devices, box = daemon.devices, daemon.box
        commanded: list[bool] = []
        speaker_play, strip_show = devices.speaker.play, devices.leds.show

        def first_command() -> None:
            count(False)  # the first device command is on its way
            commanded.append(True)

        def play(*args, **kwargs):
            first_command()
            return speaker_play(*args, **kwargs)

        def show(*args, **kwargs):
            sent = strip_show(*args, **kwargs)
            if sent:
                first_command()
            return sent

        devices.speaker.play, devices.leds.show = play, show
        reader = devices.readers["table"]

        async def tap(card: str) -> bool:
            commanded.clear()
            count(True)
            reader.tap(card_uid(card), card)
            for _ in range(1000):
                await asyncio.sleep(0)
                if commanded:
                    break
            else:
                raise SystemExit(f"tap {card}: no device command")
            reader.remove()
            await clock.run_for(BETWEEN_TAPS)
            return bool(commanded)

        box.new_game("pirates", 3)
        await tap("red-pirate-2")  # the first card turned up
        cg.dump(b"setup")
        wrong = ["blue-pirate-7", "green-pirate-8", "yellow-pirate-9", "joker-1", "family-2-mother"]
        refused = sum([await tap(wrong[n % len(wrong)]) for n in range(taps)])
        cg.dump(f"refused {refused}".encode())
        accepted = 0
        while accepted < taps:
            box.new_game("pirates", 3)
            auto = Autoplayer(box, accepted)
            while not box.engine.over and accepted < taps:
                _seat, action = auto.choose()
                inputs = auto.inputs(action)
                if action["type"] == "play" and len(inputs) == 1:
                    accepted += await tap(action["card"])
                else:
                    for step in inputs:
                        if step.kind == "tap":
                            box.tap("table", step.value)
                        elif step.kind in ("press", "hold"):
                            getattr(box, step.kind)(step.value)
                    await clock.run_for(BETWEEN_TAPS)
        cg.dump(f"accepted {accepted}".encode())
        daemon.stopping.set()
        await task

    asyncio.run(run())


# -- outside -----------------------------------------------------------------------------
def counted(folder: Path) -> dict[str, int]:
    """Instructions of each dump, by its label: READY on every thread, a tap on the loop's thread only.

    The other threads (SDL's audio mixer above all) run on their own time,
    not the tap's; counting them inside a tap made it vary by a tenth.
    """
    figures: dict[str, int] = {}
    for path in sorted(folder.glob("callgrind.out*")):
        text = path.read_text(errors="replace")
        label = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        thread = re.search(r"-(\d+)$", path.name)
        if label and total and (label.group(1) == "ready" or thread is None or int(thread.group(1)) == 1):
            figures[label.group(1)] = figures.get(label.group(1), 0) + int(total.group(1))
    return figures


def measure(taps: int, folder: Path) -> dict[str, int]:
    helper = folder / "counting.so"
    source = folder / "counting.c"
    source.write_text(HELPER)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(helper), str(source)], check=True)
    profile = reference_sound_profile(folder)
    env = dict(os.environ, SDL_AUDIODRIVER="dummy", GAMEBOX_LOG="ERROR", PYTHONDONTWRITEBYTECODE="1")
    command = [
        "valgrind", "--tool=callgrind", "--quiet", "--separate-threads=yes",
        f"--callgrind-out-file={folder}/callgrind.out.%p",
        sys.executable, __file__, "--child", str(helper), str(profile), str(folder / "state"), str(taps),
    ]
    subprocess.run(command, check=True, env=env)
    return counted(folder)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        helper, profile, state, taps = sys.argv[2:6]
        child(Path(helper), Path(profile), Path(state), int(taps))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=100, help="refused taps and accepted plays counted (each)")
    args = parser.parse_args()
    for tool in ("valgrind", "gcc"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bench/instructions.py needs {tool} (Debian: apt-get install valgrind gcc)")
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(args.taps, Path(tmp))
    ready = figures["ready"]
    print("profile: sim devices with pi-reference's [speaker] (pygame mixer, SDL dummy audio), language en")
    print(f"process start -> READY: {ready / 1e9:.3f} G instructions "
          f"({ready / READY_BUDGET:.2f} of the {READY_BUDGET / 1e9:.1f} G budget)")
    for label, total in figures.items():
        name, _, count = label.partition(" ")
        if name in ("refused", "accepted") and int(count):
            per = total / int(count)
            print(f"tag -> first device command, {name} tap: {per / 1e6:.3f} M instructions "
                  f"(mean of {count}; {per / TAP_BUDGET:.2f} of the {TAP_BUDGET / 1e6:.0f} M budget)")


if __name__ == "__main__":
    main()

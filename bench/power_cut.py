"""The power-cut campaign: SIGKILL ``gamebox run`` at random moments, start it again, count what was lost.

    .venv/bin/python bench/power_cut.py [--kills 200] [--jobs 4]

Each run feeds a whole reference game (Pirate & Co., Floppy Ears or
Policecats, 2 or 3 players, the box's die seeded) to a fresh daemon on the
sim profile and kills it without warning: after a random number of
``accepted N`` lines plus a random few milliseconds, or (one run in four)
the instant the game's last action is acknowledged. The daemon is then
started again on the same journal. Printed:

* kills, and acknowledged actions before them;
* lost: acknowledged actions missing from the journal (goal 0);
* mismatches: a journal that does not replay to the reference game at the
  same action, or a resumed box that is not that game (goal 0);
* unfinished won games: a journal holding a game's winning action without
  its result (goal 0);
* losses said: restarts that said the journal lost acknowledged actions
  (the acknowledged mark beside the journal); with nothing lost, every one
  would be a false alarm (goal: the same as the runs that lost something).

A SIGKILL leaves the kernel's page cache intact, so this proves the order of
write, fsync and acknowledgement in the program, not an SD card's own
honesty about fsync.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.autoplay import Autoplayer, run_inputs  # noqa: E402
from controller.games import engine_class  # noqa: E402
from tests.box.helpers import make_box  # noqa: E402

GAMES = [("pirates", 2), ("floppy-ears", 2), ("policecats", 3), ("pirates", 3)]
SEED = 1  # the box's die seed, the same in the reference and the daemon


@dataclass
class Reference:
    lines: list[str]
    states: list[str]  # the referee after 0, 1, ... actions


@dataclass
class Outcome:
    acknowledged: int = 0
    lost: int = 0
    mismatch: str = ""
    unfinished_won: bool = False
    said_lost: bool = False


def reference(where: Path, game: str, players: int, seed: int) -> Reference:
    box, _stage, clock = make_box(where, seed=SEED, handover=0.0)  # the lines are piped in at once
    box.new_game(game, players)
    auto = Autoplayer(box, seed)
    lines = [f"tap control-game-{game}", f"tap control-players-{players}"]
    states = [box.engine.to_json()]
    while not box.engine.over:
        inputs = auto.inputs(auto.choose()[1])
        lines += [f"tap {i.value}" if i.kind == "tap" else f"{i.kind} {i.value}" for i in inputs if i.kind != "wait"]
        run_inputs(box, inputs, clock.advance)
        states.append(box.engine.to_json())
    return Reference(lines, states)


def daemon(state: Path, config: Path, stderr: int = subprocess.DEVNULL) -> subprocess.Popen:
    env = dict(os.environ, GAMEBOX_LOG="ERROR", PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--state-dir", str(state)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env,
    )


def piped_config(folder: Path) -> Path:
    """The daemon's config for lines piped in at once: the reference's die seed, no repeat or handover time."""
    config = folder / "box.toml"
    config.write_text(f"seed = {SEED}\nrepeat_window = 0.0\nhandover = 0.0\n")
    return config


def one_run(ref: Reference, state: Path, config: Path, rng: random.Random, jitter: float = 0.02) -> Outcome:
    """Kill after a random number of acknowledged actions plus up to ``jitter`` seconds (0: at that instant)."""
    total = len(ref.states) - 1
    at_the_end = rng.random() < 0.25
    kill_after = total if at_the_end else rng.randrange(0, total)
    proc = daemon(state, config)
    acked: list[int] = []
    enough = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            if line.startswith("accepted "):
                acked.append(int(line.split()[1]))
                if len(acked) >= kill_after:
                    if at_the_end or not jitter:
                        proc.send_signal(signal.SIGKILL)  # the instant that action is acknowledged
                    enough.set()
        enough.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.stdin.write("\n".join(ref.lines) + "\n")
        proc.stdin.flush()
    except BrokenPipeError:
        pass
    enough.wait(timeout=60)
    if not at_the_end and jitter:
        time.sleep(rng.random() * jitter)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    reader.join(timeout=5)
    outcome = Outcome(acknowledged=len(acked))

    again = daemon(state, config, stderr=subprocess.PIPE)
    out, err = again.communicate("", timeout=60)
    outcome.said_lost = "acknowledged actions" in err
    db = sqlite3.connect(state / "journal.sqlite")
    row = db.execute("SELECT id, game, players, options, ended, winners FROM games ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        outcome.lost = len(acked)
        return outcome
    log = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions WHERE game_id=? ORDER BY seq", (row[0],))]
    db.close()
    outcome.lost = max(0, len(acked) - len(log))
    options = json.loads(row[3])
    replayed = engine_class(row[1]).replay(row[2], options, log)
    if replayed.over and row[4] is None:
        outcome.unfinished_won = True
    resumed = [line.split() for line in out.splitlines() if line.startswith("resumed ")]
    # A tap waiting for its call ("woof", "Mau") when the power went is offered again on resuming; this run's
    # standard input ends at once, so the window closes with no call and the tap is played: the journal then
    # holds one action of the resumed box's own after those of the game as played.
    at = int(resumed[0][2]) if resumed else len(log)
    played = engine_class(row[1]).replay(row[2], options, log[:at])
    if at > total or at not in (len(log), len(log) - 1) or played.to_json() != ref.states[at]:
        outcome.mismatch = f"the journal ({len(log)} actions, resumed at {at}) is not the game as played"
    elif resumed and (played.over or resumed[0][3] != hashlib.sha1(played.to_json().encode()).hexdigest()):
        outcome.mismatch = f"the box did not resume the journal's game: {resumed}"
    elif not resumed and log and not replayed.over:
        outcome.mismatch = "the box did not resume an unfinished game"
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gamebox-power-cut-") as tmp:
        root = Path(tmp)
        config = piped_config(root)
        refs = [reference(root / f"ref{n}", game, players, n) for n, (game, players) in enumerate(GAMES * 3)]

        def run(n: int) -> Outcome:
            rng = random.Random(args.seed * 100_003 + n)
            return one_run(refs[n % len(refs)], root / f"run{n}", config, rng)

        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(run, range(args.kills)))
    print(f"kills: {len(outcomes)} ({sum(1 for n in range(args.kills) if random.Random(args.seed * 100_003 + n).random() < 0.25)}"
          f" the instant a game's last action was acknowledged), {time.monotonic() - started:.0f} s")
    print(f"acknowledged actions before the kills: {sum(o.acknowledged for o in outcomes)}")
    print(f"lost: {sum(o.lost for o in outcomes)}")
    print(f"mismatches: {sum(1 for o in outcomes if o.mismatch)}")
    print(f"unfinished won games: {sum(1 for o in outcomes if o.unfinished_won)}")
    print(f"losses said at the restart: {sum(1 for o in outcomes if o.said_lost)}")
    for o in outcomes:
        if o.mismatch:
            print(f"  mismatch: {o.mismatch}")


if __name__ == "__main__":
    main()

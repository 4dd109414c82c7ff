"""Power cuts: SIGKILL the daemon at random moments, start it again, lose nothing (issue 4).

Each run starts ``gamebox run`` on the sim profile as a subprocess, feeds it a
whole game on standard input, kills it without warning after a random number
of acknowledged actions (plus a random few milliseconds, so the kill can land
in the middle of a write), then starts it again. The resumed game must equal
both a fresh replay of the journal and the reference game at the same
action, and hold at least every action acknowledged before the kill.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.autoplay import Autoplayer, run_inputs
from controller.games import engine_class
from tests.box.helpers import make_box

GAMBOX = [sys.executable, "-m", "controller.cli"]
RUNS_PER_CHUNK = 5
CHUNKS = 4  # 20 runs here, in short tests that share the cores; bench/power_cut.py runs the 200-kill campaign


def reference_game(tmp_path: Path, seed: int) -> tuple[list[str], list[str]]:
    """The input lines of a whole 2-player Pirate & Co. game, and the referee's state after each action."""
    box, _stage, clock = make_box(tmp_path, seed=seed, handover=0.0)  # the lines are piped in at once
    box.new_game("pirates", 2)
    auto = Autoplayer(box, seed)
    lines = ["tap control-game-pirates", "tap control-players-2"]
    states: list[str] = [box.engine.to_json()]
    while not box.engine.over:
        inputs = auto.inputs(auto.choose()[1])
        lines += [f"tap {i.value}" if i.kind == "tap" else f"{i.kind} {i.value}" for i in inputs]
        run_inputs(box, inputs, clock.advance)
        states.append(box.engine.to_json())
    return lines, states


def digest(state: str) -> str:
    return hashlib.sha1(state.encode()).hexdigest()


def start(state_dir: Path) -> subprocess.Popen:
    env = dict(os.environ, GAMEBOX_LOG="ERROR", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    fast = state_dir.parent / "fast.toml"  # the lines are piped in at once: no handover time between turns
    fast.write_text("handover = 0.0\n", encoding="utf-8")
    return subprocess.Popen(
        [*GAMBOX, "run", "--config", str(fast), "--state-dir", str(state_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )


def journal_replay(state_dir: Path) -> tuple[int, str, bool] | None:
    """(actions kept, the replayed referee, whether the journal holds the game's end)."""
    db = sqlite3.connect(state_dir / "journal.sqlite")
    row = db.execute("SELECT id, game, players, options, ended FROM games ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return None
    log = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions WHERE game_id=? ORDER BY seq", (row[0],))]
    db.close()
    return len(log), engine_class(row[1]).replay(row[2], json.loads(row[3]), log).to_json(), row[4] is not None


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_power_cut_loses_no_acknowledged_action(tmp_path: Path, chunk: int) -> None:
    lines, states = reference_game(tmp_path / "reference", seed=chunk)
    for run in range(RUNS_PER_CHUNK):
        rng = random.Random(chunk * 1000 + run)
        state_dir = tmp_path / f"run{run}"
        kill_after = rng.randrange(0, min(40, len(states) - 1))
        proc = start(state_dir)
        acked: list[int] = []
        ready = threading.Event()

        def read_acks() -> None:
            for line in proc.stdout:
                if line.startswith("accepted "):
                    acked.append(int(line.split()[1]))
                    if len(acked) > kill_after:
                        ready.set()
            ready.set()

        reader = threading.Thread(target=read_acks, daemon=True)
        reader.start()
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        ready.wait(timeout=30)
        time.sleep(rng.random() * 0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        reader.join(timeout=5)
        confirmed = len(acked)

        again = start(state_dir)
        out, _ = again.communicate("", timeout=30)
        assert again.returncode == 0, out
        replay = journal_replay(state_dir)
        if replay is None:
            assert confirmed == 0
            continue
        kept, replayed, ended = replay
        assert kept >= confirmed, f"run {run}: {confirmed} actions acknowledged, only {kept} in the journal"
        assert replayed == states[kept], f"run {run}: the journal is not the game as played"
        resumed = [line.split() for line in out.splitlines() if line.startswith("resumed ")]
        if kept == len(states) - 1:  # the whole game was played before the kill: its result is there too
            assert ended and not resumed, f"run {run}: a won game left unfinished"
        elif kept:
            assert resumed and resumed[0][2:] == [str(kept), digest(replayed)], out

"""The ``gamebox`` command as a shell uses it: piped into ``head``, every command stops quietly (issue 12, bug 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import Journal
from tests.conftest import ROOT, SHARED


def run_into_closed_pipe(args: list[str], tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess:
    """Run ``gamebox ARGS`` with its standard output a pipe nobody reads any more (``| head`` after it quit)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line: every write meets a broken pipe
    env = dict(os.environ, PYTHONPATH=str(ROOT), GAMEBOX_LOG="ERROR", XDG_RUNTIME_DIR=str(tmp_path))
    try:
        return subprocess.run([sys.executable, "-m", "controller.cli", *args], stdout=write_end,
                              stderr=subprocess.PIPE, input=stdin, text=True, env=env, timeout=60)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("command", ["status", "history", "scenario", "run"])
def test_every_command_is_quiet_when_its_reader_goes_away(command: str, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    journal.start_game("pirates", 3, {}, 1)
    journal.close()
    args = {
        "status": ["status", "--state-dir", str(tmp_path)],
        "history": ["history", "--state-dir", str(tmp_path)],
        "scenario": ["scenario", str(SHARED / "scenarios" / "pirates-bottle-debt.json")],
        "run": ["run", "--profile", "sim", "--state-dir", str(tmp_path)],
    }[command]
    result = run_into_closed_pipe(args, tmp_path, stdin="press die\n")
    assert result.stderr == "", "no traceback, no 'Exception ignored' when the reader has gone"
    assert result.returncode == 141  # 128 + SIGPIPE, as a Unix tool stopped by its pipe


def test_the_sim_box_stops_cleanly_when_its_reader_goes_away_mid_game(tmp_path: Path) -> None:
    """``gamebox run --profile sim | head -3``: the box finishes the answer in hand and stops, with no traceback."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), GAMEBOX_LOG="WARNING", XDG_RUNTIME_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--profile", "sim", "--state-dir",
                             str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout.readline().startswith("say: ")
    assert proc.stdout.readline() == "ready\n"
    proc.stdout.close()  # the reader goes, as head does after its lines
    _out, err = proc.communicate("tap control-game-policecats\ntap control-players-3\npress die\n", timeout=60)
    assert "Traceback" not in err and "internal error" not in err, err
    assert proc.returncode == 141

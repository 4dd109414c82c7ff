"""The ``gamebox`` command as a shell uses it: piped into ``head``, every command stops quietly (issue 12, bug 2)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.storage.journal import Journal
from tests.conftest import ROOT, SCENARIO_DIR


@pytest.mark.parametrize("command", ["status", "history", "scenario"])
def test_every_command_is_quiet_when_its_reader_goes_away(command: str, tmp_path: Path, monkeypatch, capfd) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    journal.start_game("pirates", 3, {}, 1)
    journal.close()
    args = {
        "status": ["status", "--state-dir", str(tmp_path)],
        "history": ["history", "--state-dir", str(tmp_path)],
        "scenario": ["scenario", str(SCENARIO_DIR / "pirates-bottle-debt.json")],
    }[command]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line (``| head`` after it quit)
    with os.fdopen(write_end, "w") as closed:
        monkeypatch.setattr(sys, "stdout", closed)
        assert main(args) == 141  # 128 + SIGPIPE, as a Unix tool stopped by its pipe
        monkeypatch.undo()
    assert capfd.readouterr().err == "", "no traceback, no 'Exception ignored' when the reader has gone"


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


@pytest.mark.timeout(120)
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_the_sim_box_stops_cleanly_at_a_signal_with_its_input_still_open(tmp_path: Path, signal_name: str) -> None:
    """``gamebox run --profile sim`` fed by a pipe that stays open (a test harness, a terminal), stopped by systemd's
    SIGTERM or a Ctrl-C: it exits 0 and never aborts from the thread that reads its input (its standard input is
    not closed first, as ``communicate`` would)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_RUNTIME_DIR=str(tmp_path))
    env.pop("RUNTIME_DIRECTORY", None)
    for run in range(3):
        with open(tmp_path / "err.log", "w+") as err:
            proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--profile", "sim", "--state-dir",
                                     str(tmp_path / "state")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err, text=True, env=env)
            try:
                while proc.stdout.readline() not in ("ready\n", ""):
                    pass
                proc.send_signal(getattr(signal, signal_name))  # the reading thread waits in its read of the pipe
                proc.stdout.read()
                proc.wait(30)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(5)
                proc.stdin.close()
                proc.stdout.close()
            err.seek(0)
            said = err.read()
        assert (proc.returncode, "Fatal Python error" in said) == (0, False), (run, said[-1000:])

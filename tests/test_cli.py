"""The ``gamebox`` command as a shell uses it: piped into ``head``, every command stops quietly (issue 12, bug 2)."""

from __future__ import annotations

import os
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


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_the_sim_box_stops_cleanly_on_a_signal_while_its_input_is_still_open(signal_name: str, tmp_path: Path) -> None:
    """``systemctl stop`` or Ctrl-C while a terminal (or a pipe) is still open on ``gamebox run``'s standard input:
    the line reader is blocked reading it, and the box still exits 0, not aborted by the interpreter's shutdown."""
    import signal

    env = dict(os.environ, PYTHONPATH=str(ROOT), GAMEBOX_LOG="WARNING", XDG_RUNTIME_DIR=str(tmp_path))
    with open(tmp_path / "stderr", "w+b") as err:
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--profile", "sim", "--state-dir",
                                 str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)
        try:
            while proc.stdout.readline() not in (b"ready\n", b""):
                pass
            proc.stdin.write(b"tap control-game-floppy-ears\n")
            proc.stdin.flush()
            proc.send_signal(getattr(signal, signal_name))
            returncode = proc.wait(60)  # standard input stays open until the box has gone
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdin.close()
            proc.stdout.close()
        err.seek(0)
        said = err.read().decode(errors="replace")
    assert returncode == 0 and "Fatal Python error" not in said, said

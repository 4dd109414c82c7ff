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

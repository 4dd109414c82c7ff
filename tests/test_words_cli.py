"""The small things a new user hit in the ``gamebox`` command (issue 21): every word true, players from 1."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser, main
from controller.config import ConfigError, load_config
from controller.storage.journal import Journal
from hardware.doctor import likely_fix
from tests.conftest import ROOT, SCENARIO_DIR
from tests.test_run_output import run_lines

README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command words, its argparse actions) for every command and sub-command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))
    if path:
        yield path, [a for a in parser._actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def test_every_option_has_help_text() -> None:
    bare = [(" ".join(path), a.option_strings or a.dest) for path, actions in commands(build_parser())
            for a in actions if not a.help]
    assert bare == []


def test_the_readme_command_table_lists_every_option_of_every_command() -> None:
    missing = []
    for path, actions in commands(build_parser()):
        if path == ("tags",):
            continue
        row = next((line for line in README.splitlines() if line.startswith(f"| `gamebox {' '.join(path)}")), None)
        assert row is not None, f"no README row for gamebox {' '.join(path)}"
        usage = row.replace("\\|", "or").split("|")[1]
        missing += [f"{' '.join(path)} {o}" for a in actions for o in a.option_strings if o.startswith("--")
                    and o not in usage]
    assert missing == []


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and re.fullmatch(r"gamebox \d+\.\d+\.\d+\n", capsys.readouterr().out)
    assert "| `gamebox --version` |" in README


def test_plain_status_counts_players_from_one_and_json_from_zero(tmp_path: Path, capsys) -> None:
    """Issue 21: plain status printed ``current: 2``, ``winners: [2]`` (the referee's seats)."""
    journal = Journal(tmp_path / "journal.sqlite")
    game = journal.start_game("policecats", 3, {}, 1)
    for seq, action in enumerate([{"type": "roll", "player": 0, "face": "whistle"}]):
        journal.record(game, seq, action)
    journal.close()
    assert main(["status", "--state-dir", str(tmp_path)]) == 0
    plain = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert plain["current"] == "Player 2" and plain["police"] == "Player 1"
    assert plain["scores"] == "Player 1: 1; Player 2: 0; Player 3: 0"
    assert main(["status", "--json", "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert '"current": 1' in out and '"police": 0' in out


def test_the_scenario_command_prints_what_the_readme_says(tmp_path: Path, capsys) -> None:
    row = next(line for line in README.splitlines() if line.startswith("| `gamebox scenario"))
    assert "`PASS <name>`" in row and "`FAIL <name>: step <n>: <what differed> (<file>)`" in row
    good = SCENARIO_DIR / "pirates-bottle-debt.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "broken", "game": "pirates", "players": 9, "steps": []}', encoding="utf-8")
    assert main(["scenario", str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"PASS [^:]+", out[0])
    assert re.fullmatch(rf"FAIL broken: step \d+: .+ \({re.escape(str(bad))}\)", out[1])
    assert out[2] == "1 passed, 1 failed"


def test_the_config_takes_values_as_written_and_lists_every_mistake_at_once(tmp_path: Path) -> None:
    path = tmp_path / "gamebox.toml"
    path.write_text('repeat_window = "2"\nvolume = 0.5\n[network]\nenabled = "yes"\n[kiosk]\nenabled = 1\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert [line.split("'")[1] for line in lines] == ["repeat_window", "network.enabled", "kiosk.enabled"]
    assert all(line.startswith(f"{path}: key ") for line in lines)
    assert load_config(None, state_dir=str(tmp_path), volume=1, repeat_window=2).repeat_window == 2.0, "whole numbers"


def test_the_sim_input_takes_card_ids_in_any_case_and_a_wait_names_its_range(tmp_path: Path) -> None:
    lines = run_lines(tmp_path, ["TAP Control-Game-Policecats", "tap CONTROL-PLAYERS-3", "Press DIE", "wait 90"])
    assert any(line.startswith("show: new_game: policecats") for line in lines), lines
    assert any(line.startswith("roll: Player 1 rolled") for line in lines)
    assert "error: cannot wait '90': a wait is 0 to 60 seconds" in lines


def test_the_readme_names_the_windows_extra_keys() -> None:
    sim = next(line for line in README.splitlines() if line.startswith("| `gamebox sim"))
    for key in ("`[` and `]`", "S)", "Tab", "Enter", "N for the new-game card", "Escape"):
        assert key in sim, key
    display = next(line for line in README.splitlines() if line.startswith("| `gamebox display"))
    assert "Escape" in display


def test_a_missing_pi_library_names_pip_install_not_the_wiring() -> None:
    for fault in ("GPIO17: No module named 'gpiozero'", "ModuleNotFoundError: No module named 'adafruit_pn532'"):
        assert "pip install -e '.[pi]'" in likely_fix(fault)


BLOCKER = """
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {"gpiozero", "adafruit_pn532", "neopixel_spi", "board", "busio", "digitalio"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Blocker())
from controller.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_doctor_on_a_pc_without_the_pi_libraries_says_to_install_them_and_keeps_library_noise_out(tmp_path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_AUDIODRIVER="alsa", GAMEBOX_LOG="WARNING")
    done = subprocess.run([sys.executable, "-c", BLOCKER, "doctor", "--profile", "pi-reference", "--state-dir",
                           str(tmp_path)], capture_output=True, text=True, env=env, timeout=60)
    fixes = [line for line in done.stdout.splitlines() if line.startswith("fix ")]
    assert [f for f in fixes if f.startswith(("fix button:die", "fix reader:table", "fix leds"))] and all(
        "pip install -e '.[pi]'" in f for f in fixes if f.startswith(("fix button:die", "fix reader:table", "fix leds")))
    assert "ALSA lib" not in done.stdout + done.stderr and "warnings.warn" not in done.stderr

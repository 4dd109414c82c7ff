"""`gamebox scenario`: the PASS/FAIL lines, the closing count and the exit code of docs/scenarios.md."""

from __future__ import annotations

import json
from pathlib import Path

from controller.cli import main
from tests.conftest import SCENARIO_DIR

BOTTLE = SCENARIO_DIR / "pirates-bottle-debt.json"
#: The three examples docs/scenarios.md points to.
EXAMPLES = [SCENARIO_DIR / f"{name}.json" for name in ("floppy-ears-stop-ear", "pirates-bottle-debt", "policecats-kittens-run")]


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_the_example_files_pass_and_exit_zero(capsys) -> None:
    files = [str(p) for p in EXAMPLES]
    assert main(["scenario", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"{len(files)} passed, 0 failed"
    assert all(line.startswith("PASS ") for line in out[:-1])


def test_a_wrong_expectation_fails_naming_step_and_difference(tmp_path: Path, capsys) -> None:
    data = json.loads(BOTTLE.read_text())
    data["steps"][1]["expect"]["pending_draw"] = 3
    bad = write(tmp_path, "bad.json", data)
    assert main(["scenario", str(BOTTLE), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "PASS bottle post passes the debt on"
    assert out[1].startswith("FAIL bottle post passes the debt on: step 2: pending_draw is 2, expected 3")
    assert out[-1] == "1 passed, 1 failed"


def test_an_expected_rejection_that_is_accepted_fails(tmp_path: Path, capsys) -> None:
    data = json.loads(BOTTLE.read_text())
    data["steps"][1]["reject"] = "no_match"
    path = write(tmp_path, "r.json", data)
    assert main(["scenario", str(path)]) == 1
    assert "step 2: accepted, expected rejection 'no_match'" in capsys.readouterr().out


def test_malformed_files_fail_with_file_step_and_problem_never_a_traceback(tmp_path: Path, capsys) -> None:
    cases = {
        "notjson.json": "{ nope",
        "list.json": [1, 2],
        "game.json": {"name": "g", "game": "chess", "players": 2, "steps": []},
        "steps.json": {"name": "s", "game": "pirates", "players": 2, "steps": {"a": 1}},
        "step.json": {"name": "t", "game": "pirates", "players": 2, "steps": [42]},
        "key.json": {"name": "k", "game": "pirates", "players": 2, "steps": [{"expect": {"ears": []}}]},
    }
    paths = [str(write(tmp_path, name, data)) for name, data in cases.items()]
    paths.append(str(tmp_path / "missing.json"))
    assert main(["scenario", *paths]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"0 passed, {len(paths)} failed"
    for line in out[:-1]:
        assert line.startswith("FAIL ") and "step " in line, line
    assert "notjson.json is not JSON" in out[0]
    assert "no game 'chess'" in out[2]
    assert "step 1: a step is an object" in out[4]
    assert "pirates has no key 'ears'" in out[5]
    assert "cannot read" in out[6]


def test_player_count_outside_the_range_is_refused_before_the_first_step(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "p.json", {"name": "six pirates", "game": "pirates", "players": 6, "steps": []})
    assert main(["scenario", str(path)]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("FAIL six pirates: step 0:") and "2 to 4 players" in line

"""The README tells the truth: its test command is what CI runs, its config example loads."""

from __future__ import annotations

import tomllib

from controller.config import load_config
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    command = README.split("Run the whole test suite:")[1].split("```sh")[1].split("```")[0].strip()
    assert command in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_readme_configuration_example_is_valid(tmp_path) -> None:
    example = README.split("```toml")[1].split("```")[0]
    tomllib.loads(example)
    path = tmp_path / "box.toml"
    path.write_text(example.replace('"/var/lib/gamebox"', repr(str(tmp_path))))
    config = load_config(path)
    assert config.language == "de" and config.options("pirates")["wins_needed"] == 3

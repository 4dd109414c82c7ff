"""The project stands alone: nothing it runs, tests or documents reads a folder beside the checkout."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import ROOT, SCENARIO_DIR

#: A path into a folder beside the repository, written as a string or a path join.
OUTSIDE = re.compile(r"""\.\./shared|["'/]shared["'/]|/ *["']shared["']""")


def tracked_text_files() -> list[str]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [n for n in names if n.endswith((".py", ".sh", ".toml", ".md", ".json", ".html", ".cfg", ".ini")) or "/" not in n]


def test_no_file_of_the_project_points_beside_the_checkout() -> None:
    hits = []
    for name in tracked_text_files():
        path = ROOT / name
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{name}:{number}: {line.strip()}")
    assert hits == []


def test_the_three_examples_the_scenario_format_names_are_the_projects_own() -> None:
    doc = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    for name in ("floppy-ears-stop-ear.json", "pirates-bottle-debt.json", "policecats-kittens-run.json"):
        assert f"`{name}`" in doc and (SCENARIO_DIR / name).is_file(), name

"""Every rule scenario passes through the runner (docs/scenarios.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.scenario import run_file
from tests.conftest import SCENARIO_DIR

FILES = sorted(SCENARIO_DIR.glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_scenario_passes(path: Path) -> None:
    ok, line = run_file(path)
    assert ok, line


def test_every_ruling_has_a_scenario() -> None:
    """Issue 2: at least one scenario per ruling F1–F11, P1–P10, C1–C10."""
    names = " ".join(p.name for p in FILES)
    rulings = [f"f{n}" for n in range(1, 12)] + [f"p{n}" for n in range(1, 11)] + [f"c{n}" for n in range(1, 11)]
    missing = [r for r in rulings if f"-{r}-" not in names]
    assert not missing, f"no scenario file for rulings {missing}"


def test_every_rejection_code_has_a_scenario() -> None:
    from controller.games.base import REJECTION_CODES

    names = " ".join(p.name for p in FILES)
    missing = sorted(c for c in REJECTION_CODES if f"reject-{c.replace('_', '-')}" not in names and f"reject-{c}" not in names)
    assert not missing, f"no scenario file for rejection codes {missing}"

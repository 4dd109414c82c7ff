"""Every transcript is played once per test session; the script's tests and its rules read the same run."""

from __future__ import annotations

import pytest

from tests.words.script import Played, played_all


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Played]:
    return {(p.transcript.group, p.transcript.name): p for p in played_all(str(tmp_path_factory.mktemp("words")))}

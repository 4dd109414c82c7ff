"""Every transcript is played once per test session; the script's tests and its rules read the same run."""

from __future__ import annotations

import pytest

from tests.words.script import Played, played_all


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Played]:
    return {(p.transcript.group, p.transcript.name): p for p in played_all(str(tmp_path_factory.mktemp("words")))}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The first test to ask for ``played`` plays every transcript in its set-up (15 s alone here, more on a busy
    two-core runner): it gets longer than the suite's 60 s before it counts as hung."""
    for item in items:
        if "played" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(240))

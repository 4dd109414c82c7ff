"""Power cuts: SIGKILL the daemon at random moments, start it again, lose nothing (issues 4 and 11).

The pieces are the power-cut campaign's (``bench/power_cut.py``, 200 kills):
a reference game is played through the box in process; each run feeds its
lines to ``gamebox run`` on the sim profile, kills it the instant a random
acknowledged action is reported (one run in four: the game's last one) and
starts it again on the same journal. The journal must hold every
acknowledged action, replay to the reference game, keep a won game's
result, and the resumed box must be that game.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.power_cut import GAMES, one_run, piped_config, reference

RUNS = 5  # per game, in short tests that share the cores


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_power_cut_loses_no_acknowledged_action(tmp_path: Path, game: str, players: int) -> None:
    ref = reference(tmp_path / "reference", game, players, seed=players)
    config = piped_config(tmp_path)
    for run in range(RUNS):
        outcome = one_run(ref, tmp_path / f"run{run}", config, random.Random(run), jitter=0.0)
        assert outcome.lost == 0, f"run {run}: {outcome.lost} acknowledged actions missing from the journal"
        assert not outcome.mismatch, f"run {run}: {outcome.mismatch}"
        assert not outcome.unfinished_won, f"run {run}: a won game left unfinished"
        assert not outcome.said_lost, f"run {run}: the restart said actions were lost when none were (issue 22)"

"""`gamebox selfplay`: whole games by bots, the same output for the same arguments (issue 2)."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.games import GAME_IDS

PLAYERS = {"floppy-ears": 3, "pirates": 3, "policecats": 4}


@pytest.mark.parametrize("game", GAME_IDS)
def test_selfplay_finishes_every_game_and_repeats_itself(game: str, capsys) -> None:
    args = ["selfplay", "--game", game, "--players", str(PLAYERS[game]), "--games", "20", "--seed", "7", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert first["finished"] == 20
    assert first["rejected"] == 0 and first["violations"] == 0
    assert sum(first["wins"]) >= 20  # ties give every tied seat a win
    assert first["actions_max"] >= first["actions_median"] >= 1


def test_selfplay_prints_the_summary_lines(capsys) -> None:
    assert main(["selfplay", "--game", "pirates", "--players", "2", "--games", "5", "--seed", "1", "--bots", "random,greedy"]) == 0
    out = capsys.readouterr().out
    for key in ("games finished: 5/5", "actions per game: mean", "wins per seat: Player 1:", "rejected bot actions: 0", "invariant violations: 0"):
        assert key in out


def test_different_seeds_play_different_games(capsys) -> None:
    outs = []
    for seed in (1, 2):
        main(["selfplay", "--game", "pirates", "--players", "3", "--games", "10", "--seed", str(seed), "--json"])
        outs.append(json.loads(capsys.readouterr().out)["actions_mean"])
    assert outs[0] != outs[1]


def test_forgetful_bot_makes_penalised_mistakes_but_never_rejected_ones(capsys) -> None:
    args = ["selfplay", "--game", "floppy-ears", "--players", "3", "--games", "20", "--seed", "3", "--json"]
    main([*args, "--bots", "greedy"])
    careful = json.loads(capsys.readouterr().out)
    assert main([*args, "--bots", "forgetful"]) == 0
    forgetful = json.loads(capsys.readouterr().out)
    assert forgetful["rejected"] == 0 and forgetful["violations"] == 0
    assert forgetful["actions_mean"] > careful["actions_mean"], "forgetting ears costs penalty cards"


@pytest.mark.parametrize("args, message", [
    (["--game", "pirates", "--players", "7"], "2 to 4 players"),
    (["--game", "pirates", "--players", "3", "--options", '{"wings": 1}'], "no option 'wings'"),
])
def test_bad_arguments_are_one_line(args, message, capsys) -> None:
    assert main(["selfplay", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1

"""Properties every referee keeps, over random options, seeds and player counts (issue 2).

Games are played by random bots through the virtual table, so the referee sees
exactly what it would on the real table.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games import GAME_IDS, engine_class
from controller.games.base import Outcome, Rejection
from controller.selfplay import MAX_ACTIONS, play_game
from controller.table import new_table
from tests.conftest import ALL_CARD_IDS

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def setups(draw: st.DrawFn, game: str | None = None) -> tuple[str, int, dict[str, Any], int]:
    """A game, a legal player count, random options and a seed."""
    game = game or draw(st.sampled_from(GAME_IDS))
    options: dict[str, Any] = {}
    if game == "floppy-ears":
        players = draw(st.integers(2, 4))
        options["edition"] = draw(st.sampled_from(["classic", "reveal"]))
        options["bark_rule"] = draw(st.booleans())
    elif game == "pirates":
        players = draw(st.integers(2, 4))
        options["mau_calls"] = draw(st.booleans())
        options["wins_needed"] = draw(st.integers(1, 3))
        options["leave_out"] = draw(st.lists(st.sampled_from(["ship", "bottle", "sleeper", "parrot"]), unique=True))
    else:
        options["variant"] = draw(st.sampled_from(["basic", "alarm"]))
        players = draw(st.integers(2 if options["variant"] == "alarm" else 3, 5))
    options["first"] = draw(st.integers(0, players - 1))
    return game, players, options, draw(st.integers(0, 2**32))


@PROPERTY
@given(setups(), st.sampled_from(["random", "greedy"]))
def test_every_game_ends_with_every_card_in_one_place_and_counts_agreeing(setup, bot) -> None:
    game, players, options, seed = setup
    record = play_game(game, players, options, seed, [bot], check=True)
    assert record.violations == []
    assert record.rejected == 0
    assert record.finished, f"not over after {MAX_ACTIONS} actions"
    assert record.winners, "a finished game names its winners"


def table_after(setup: tuple[str, int, dict[str, Any], int], actions: int):
    """A virtual table after up to ``actions`` random actions."""
    game, players, options, seed = setup
    table = new_table(game, players, options, seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if table.over:
            break
        table.act(rng.choice(table.decision().actions))
    return table


@PROPERTY
@given(setups(), st.integers(0, 400))
def test_replaying_the_log_and_json_round_trip_rebuild_the_live_state(setup, stop) -> None:
    game, players, options, _seed = setup
    live = table_after(setup, stop).referee
    cls = engine_class(game)
    assert cls.replay(players, options, live.log).to_json() == live.to_json()
    assert cls.from_json(live.to_json()).to_json() == live.to_json()


JUNK_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
    st.text(max_size=12), st.sampled_from(ALL_CARD_IDS), st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(["left", "right", "woof", "woof-woof", "mau", "mau-mau", "cat", "dog", "mouse", "whistle",
                     "yellow", "green", "blue", "red", "purple"]),
)
ACTION_TYPES = st.sampled_from(["start_card", "hang", "reveal", "play", "draw", "pass", "choose_color",
                                "roll", "send_kittens", "give", "lure", "fly", ""])
ACTIONS = st.one_of(
    st.fixed_dictionaries(
        {"type": ACTION_TYPES},
        optional={k: JUNK_VALUES for k in ("player", "card", "ear", "color", "face", "to", "call")},
    ),
    st.fixed_dictionaries({"type": ACTION_TYPES, "player": st.integers(-1, 6), "card": st.sampled_from(ALL_CARD_IDS)}),
    JUNK_VALUES,
)


@PROPERTY
@given(setups(), st.integers(0, 150), st.lists(ACTIONS, min_size=1, max_size=25))
def test_fuzzed_actions_never_raise_and_a_rejection_changes_nothing(setup, stop, actions) -> None:
    referee = table_after(setup, stop).referee
    for action in actions:
        before = referee.to_json()
        result = referee.apply(action)
        assert isinstance(result, (Outcome, Rejection))
        if isinstance(result, Rejection):
            assert referee.to_json() == before, f"{action} rejected ({result.code}) but changed the state"
        else:
            break  # the physical table no longer matches; the rest would test nothing new


@PROPERTY
@given(setups(), st.integers(0, 200))
def test_legal_actions_are_exactly_what_the_referee_accepts(setup, stop) -> None:
    table = table_after(setup, stop)
    referee = table.referee
    legal = referee.legal_actions()
    assert all(referee.would_accept(a) for a in legal)
    offered = table.decision().actions
    assert all(a in legal or referee.would_accept(a) for a in offered)
    if not referee.over:
        assert legal, "a game that is not over always awaits something"

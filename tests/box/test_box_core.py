"""The box's core: inputs become referee actions, answers become shows (issue 4).

Bots play through :class:`controller.autoplay.Autoplayer`, which only taps
cards and presses the die button, exactly as people at the table would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.autoplay import Autoplayer, run_inputs
from controller.box.box import Box
from controller.box.tags import Registry
from controller.storage.journal import Journal
from tests.box.helpers import Clock, RecordingStage, make_box, play_to_the_end

VARIANTS = [
    ("floppy-ears", 3, {}),
    ("floppy-ears", 2, {"edition": "reveal"}),
    ("floppy-ears", 4, {"bark_rule": False}),
    ("pirates", 3, {}),
    ("pirates", 2, {"mau_calls": True}),
    ("pirates", 4, {"leave_out": ["parrot", "bottle"], "wins_needed": 2}),
    ("policecats", 4, {}),
    ("policecats", 2, {"variant": "alarm"}),
]


@pytest.mark.parametrize("game, players, options", VARIANTS, ids=[f"{g}-{p}-{o}" for g, p, o in VARIANTS])
def test_whole_game_through_taps_and_presses_reaches_a_winner(tmp_path: Path, game, players, options) -> None:
    box, stage, clock = make_box(tmp_path, seed=3, games={game: options})
    assert box.new_game(game, players)
    auto = play_to_the_end(box, clock, seed=3, bots=["greedy", "random"])
    assert auto.table.referee.to_json() == box.engine.to_json(), "the box's referee and the table agree"
    assert auto.table.violations() == []
    winners = box.engine.view()["winners"]
    show = "tie" if len(winners) > 1 else "winner"
    assert winners and (show, {"winners": winners, "game": game}) in stage.shows
    record = box.journal.latest()
    assert record.winners == winners and record.actions == len(box.engine.log)
    assert "rejected" not in stage.show_names


def _play_until(box: Box, clock: Clock, auto: Autoplayer, wanted, limit: int = 3000):
    """Let the bots play until the next action satisfies ``wanted``; return it unperformed."""
    for _ in range(limit):
        _seat, action = auto.choose()
        if wanted(action):
            return action
        run_inputs(box, auto.inputs(action), clock.advance)
    raise AssertionError("situation never came up")


@pytest.mark.parametrize("press, expected_penalty", [(True, False), (False, True)])
def test_bark_is_a_die_press_within_the_call_window(tmp_path: Path, press: bool, expected_penalty: bool) -> None:
    """F8 (seed 000: "Sobald du nur noch ein Hundeohr hast, belle sofort „Wau“"): a press in the window barks."""
    box, stage, clock = make_box(tmp_path, seed=5)
    box.new_game("floppy-ears", 2)
    auto = Autoplayer(box, 5)
    action = _play_until(box, clock, auto, lambda a: a["type"] == "play" and box.engine.call_needed(
        {k: v for k, v in a.items() if k != "call"}) is not None)
    before = len(box.engine.log)
    due = box.engine.call_needed({k: v for k, v in action.items() if k != "call"})
    clock.advance(2)
    box.tap("table", action["card"])
    assert len(box.engine.log) == before, "the play waits for its call"
    if press:
        clock.advance(box.config.call_window - 0.1)
        box.press("die")
    else:
        clock.advance(box.config.call_window)
        box.poll()
    assert len(box.engine.log) == before + 1
    assert ("bark_penalty" in stage.show_names) is expected_penalty
    assert box.engine.log[-1].get("call") == (due if press else None)


def test_a_card_that_does_not_match_is_answered_and_changes_nothing(tmp_path: Path) -> None:
    """P2 (seed 001: a card must match by colour or by picture): a wrong card is refused, nothing is journalled."""
    box, stage, clock = make_box(tmp_path, seed=1)
    box.new_game("pirates", 2)
    box.tap("table", "red-pirate-2")  # the first card turned up
    state, journalled = box.engine.to_json(), box.journal.latest().actions
    clock.advance(5)
    box.tap("table", "blue-pirate-7")
    assert stage.refusals[-1] == "no_match"
    assert box.engine.to_json() == state and box.journal.latest().actions == journalled


def test_unknown_tags_and_other_games_cards_get_their_own_show(tmp_path: Path, caplog) -> None:
    box, stage, clock = make_box(tmp_path)
    box.new_game("pirates", 2)
    box.tap("table", bytes.fromhex("04a1b2c3d4e5f6"))
    assert stage.shows[-1] == ("unknown_card", {"uid": "04a1b2c3d4e5f6"})
    assert "unknown tag 04a1b2c3d4e5f6" in caplog.text
    box.tap("table", "joker-3")
    assert stage.shows[-1] == ("other_game", {"card": "joker-3", "game": "floppy-ears"})
    assert box.engine.log == []


def test_a_double_tap_is_one_tap_and_a_tag_left_lying_is_one_tap(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, repeat_window=2.0)
    box.new_game("pirates", 2)
    box.tap("table", "red-pirate-2")
    for _ in range(10):
        clock.advance(1.0)
        box.tap("table", "red-pirate-2")  # still lying there, reported again and again
    assert len(box.engine.log) == 1
    box.removed("table", "red-pirate-2")
    clock.advance(0.5)
    box.tap("table", "red-pirate-2")  # lifted and laid again at once: a wobble
    box.removed("table", "red-pirate-2")
    assert len(box.engine.log) == 1 and "rejected" not in stage.show_names
    clock.advance(3)
    box.tap("table", "red-pirate-2")  # again, later: the referee answers (it lies on the pile)
    assert stage.refusals[-1] == "card_elsewhere"


def test_a_start_joker_is_answered_with_put_it_under(tmp_path: Path) -> None:
    """F1 (seed 000: "Ist es ein Joker-Ohr, dann legt es verdeckt unter den Nachziehstapel")."""
    box, stage, clock = make_box(tmp_path)
    box.new_game("floppy-ears", 2)
    for seat, cards in ((0, ("red-1", "blue-2")), (1, ("green-3", "yellow-4"))):
        for card in cards:
            clock.advance(3)
            box.tap("table", card)
    assert box.engine.awaiting == "start_card"
    clock.advance(3)
    box.tap("table", "joker-1")
    assert stage.refusals[-1] == "joker_start"
    assert stage.prompts[-1][0] == "put-under"
    clock.advance(3)
    box.tap("table", "red-5")
    assert box.engine.awaiting == "play"


def test_setup_prompts_each_ear_in_turn(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    box.new_game("floppy-ears", 2)
    asked = []
    for card in ("red-1", "blue-2", "green-3", "yellow-4"):
        asked.append((stage.prompts[-1][0], stage.prompts[-1][1]["seat"]))
        clock.advance(3)
        box.tap("table", card)
    assert asked == [("hang-left", 0), ("hang-right", 0), ("hang-left", 1), ("hang-right", 1)]
    assert box.engine.view()["ears"] == [["red-1", "blue-2"], ["green-3", "yellow-4"]]
    assert stage.prompts[-1][0] == "start_card"


def test_a_press_at_the_wrong_moment_is_answered_and_changes_nothing(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    box.new_game("pirates", 2)
    state = box.engine.to_json()
    box.press("die")  # awaiting the first card: the die does nothing
    assert stage.refusals[-1] == "wrong_action"
    box.press("red")
    assert stage.refusals[-1] == "wrong_action"
    assert box.engine.to_json() == state


def test_a_colour_button_wishes_its_own_colour_at_once(tmp_path: Path) -> None:
    """P2 (seed 001: the parrot's player wishes a colour): on a box with colour buttons one press of a colour is the wish."""
    box, stage, clock = make_box(tmp_path, seed=2)
    box.new_game("pirates", 2)
    _play_until(box, clock, Autoplayer(box, 2), lambda a: a["type"] == "choose_color")
    wisher = box.engine.current
    clock.advance(box.config.handover)
    box.press("blue")
    assert box.engine.log[-1] == {"type": "choose_color", "player": wisher, "color": "blue"}
    assert box.engine.view()["color"] == "blue" and box.engine.current != wisher


def test_colour_wish_cycles_with_presses_and_confirms_with_a_hold(tmp_path: Path) -> None:
    """P2 (seed 001: the parrot's player wishes a colour): presses cycle the turn ring, a hold confirms."""
    box, stage, clock = make_box(tmp_path, seed=2)
    box.new_game("pirates", 2)
    auto = Autoplayer(box, 2)
    _play_until(box, clock, auto, lambda a: a["type"] == "choose_color")
    colors = ["yellow", "green", "blue", "red"]
    start = colors.index(box.wish)
    box.press("die")
    box.press("die")
    assert stage.scenes[-1].choosing_color and stage.scenes[-1].color == colors[(start + 2) % 4] == box.wish
    box.hold("die")
    assert box.engine.view()["color"] == colors[(start + 2) % 4]
    assert "color_wished" in stage.show_names


def test_resume_after_restart_replays_the_journal_and_the_die(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, seed=9)
    box.new_game("policecats", 3)
    auto = Autoplayer(box, 9)
    for _ in range(25):
        run_inputs(box, auto.inputs(auto.choose()[1]), clock.advance)
    state = box.engine.to_json()
    box.journal.close()
    # the lights go out; the box starts again on the same state directory
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    again.start()
    assert again.engine.to_json() == state
    assert again.stage.shows[0][0] == "resumed"
    assert again.die.getstate() == box.die.getstate(), "the die goes on where it stopped"


def test_menu_press_cycles_and_hold_chooses(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    assert box.engine is None and stage.prompts[-1][0] == "choose-game"
    box.press("die")
    assert stage.prompts[-1][0] == "game-pirates"
    box.press("die")
    assert stage.prompts[-1][0] == "game-policecats"
    box.hold("die")
    assert stage.prompts[-1] == ("menu-hold", {"game": "policecats", "players": 3}), "the hold names what it chose"
    box.press("die")
    box.hold("die")
    assert box.engine.game == "policecats" and box.engine.players == 4


def test_a_second_hold_in_the_menu_starts_the_game_its_prompt_names(tmp_path) -> None:
    """Issue 30: the first hold ends "...hold it to start"; the hold it asks for is not swallowed as an undo gesture
    (issue 21 wanted the first hold to say what it chose before anything starts)."""
    box, stage, clock = make_box(tmp_path)
    box.hold("die")
    assert stage.prompts[-1] == ("menu-hold", {"game": "floppy-ears", "players": 2})
    assert box.engine is None, "the first hold only chooses, and says so"
    clock.advance(2.5)
    box.hold("die")
    assert box.engine is not None and box.engine.game == "floppy-ears" and box.engine.players == 2
    assert "rejected" not in stage.show_names


def test_control_cards_choose_game_players_variant_volume_language(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, volume=0.5, volume_max=0.7)
    box.tap("table", "control-variant-mau-calls")
    assert stage.prompts[-1] == ("variant", {"variant": "mau-calls", "state": "on"})
    box.tap("table", "control-game-pirates")
    box.tap("table", "control-players-3")
    assert box.engine.game == "pirates" and box.engine.options["mau_calls"] is True
    for _ in range(5):
        clock.advance(3)
        box.tap("table", "control-volume-up")
        box.removed("table")
    assert box.volume == 0.7, "never louder than volume_max"
    box.tap("table", "control-language-de")
    assert box.language == "de" and box.journal.setting("language") == "de"
    clock.advance(3)
    box.tap("table", "control-game-floppy-ears")
    assert stage.shows[-1][0] == "not_now" and box.engine.game == "pirates", "no game switch mid-game"
    box.tap("table", "control-new-game")
    assert box.engine is None


def test_game_over_press_opens_menu_hold_plays_again(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, seed=4)
    box.new_game("floppy-ears", 2)
    play_to_the_end(box, clock, 4)
    first = box.game_id
    box.hold("die")
    assert stage.refusals[-1] == "wait" and box.game_id == first, "the last press of a game does not deal the next"
    clock.advance(box.config.handover)
    box.hold("die")
    assert box.engine.game == "floppy-ears" and box.game_id == first + 1 and box.engine.log == []


def test_the_menu_offers_the_player_counts_the_variant_allows(tmp_path: Path) -> None:
    """C10 (docs/rulings.md: the policecat-alarm variant is for 2 players and up, the basic game 3-5)."""
    box, stage, clock = make_box(tmp_path)
    box.tap("table", "control-game-policecats")
    assert stage.prompts[-1] == ("menu-game", {"game": "policecats"}), "a game card names the game"
    seen = []
    for _ in range(4):
        box.press("die")
        seen.append(box.menu.players)
    assert seen == [4, 5, 3, 4]
    box.removed("table")
    box.tap("table", "control-variant-alarm")
    box.removed("table")
    clock.advance(3)
    box.tap("table", "control-game-policecats")
    seen = []
    for _ in range(2):
        box.press("die")
        seen.append(box.menu.players)
    assert seen == [5, 2], "with the alarm, two players are offered too"
    box.hold("die")
    assert box.engine.players == 2 and box.engine.options["variant"] == "alarm"


def test_the_snapshot_says_what_the_box_is_doing(tmp_path: Path) -> None:
    """For status and the station (docs/stations.md): the menu's choices, then the game as it stands (seats 0-based)."""
    box, stage, clock = make_box(tmp_path)
    snap = box.snapshot()
    assert snap["mode"] == "menu" and snap["menu"] == {"game": "floppy-ears", "players": None, "variants": {}}
    assert "game" not in snap
    box.tap("table", "control-game-policecats")
    box.removed("table")
    box.tap("table", "control-players-3")
    box.press("die")
    snap = box.snapshot()
    assert snap["mode"] == "playing" and (snap["game"], snap["players"], snap["turn"]) == ("policecats", 3, 0)
    assert snap["last_roll"] == box.engine.log[-1]["face"] and snap["actions"] == 1
    assert snap["started_at"] == box.journal.game(box.game_id).started and snap["scores"] == [0, 0, 0]
    assert snap["menu"]["game"] == "policecats"
    view = box.engine.view()
    assert (snap["awaiting"], snap["game_id"], snap["volume"], snap["language"]) == (
        box.engine.awaiting, box.game_id, box.volume, box.language)
    assert (snap["police"], snap["track"], snap["winners"]) == (view.get("police"), view.get("track"), [])


def test_the_snapshot_follows_a_game_to_its_winners(tmp_path: Path) -> None:
    """Pirate & Co.: the colour to match, the ships and the round while playing; the winners once it is over."""
    box, stage, clock = make_box(tmp_path, seed=2)
    box.new_game("pirates", 2)
    _play_until(box, clock, Autoplayer(box, 2), lambda a: a["type"] == "play")
    snap, view = box.snapshot(), box.engine.view()
    assert snap["mode"] == "playing" and snap["color"] == view["color"] is not None
    assert (snap["ships"], snap["round"]) == (view["ships"], view["round"]) == ([0, 0], 1)
    box, stage, clock = make_box(tmp_path / "over", seed=4)
    box.new_game("floppy-ears", 2)
    play_to_the_end(box, clock, 4)
    snap = box.snapshot()
    assert snap["mode"] == "over" and snap["awaiting"] == "over"
    assert snap["winners"] == box.engine.view()["winners"] and snap["winners"]

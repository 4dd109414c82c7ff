"""Setting up, choosing, starting again (issue 12): the menu through control cards and the die button.

Choices come in any order until the game starts, each answered aloud with
what is now chosen; the new-game card gives a game up for good; variants say
their state and persist; stored settings that make no sense fall back.
"""

from __future__ import annotations

import logging
from pathlib import Path

from controller.box.box import Box
from controller.box.tags import Registry
from controller.storage.journal import Journal
from tests.box.helpers import Clock, RecordingStage, make_box


def restarted(box: Box, clock: Clock) -> Box:
    """The same state directory after the power came back."""
    box.journal.close()
    again = Box(box.config, Journal(box.config.state_dir / "journal.sqlite"),
                Registry(box.config.state_dir / "tags.sqlite"), RecordingStage(), clock)
    again.start()
    return again


def tap(box: Box, clock: Clock, card: str) -> None:
    clock.advance(3)
    box.tap("table", card)
    box.removed("table")


def test_a_players_card_before_the_game_card_waits_for_the_game(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    tap(box, clock, "control-players-4")
    assert box.engine is None, "no game starts before one is chosen"
    assert stage.prompts[-1] == ("menu-players", {"players": 4})  # "Four players. Which game shall we play?"
    tap(box, clock, "control-game-policecats")
    assert box.engine.game == "policecats" and box.engine.players == 4
    assert box.journal.setting("menu")["game"] == "policecats"


def test_choices_in_any_order_with_a_variant_between_them(tmp_path: Path) -> None:
    """docs/rulings.md C10 (the alarm variant is for 2 players and up): the variant may come between game and players."""
    box, stage, clock = make_box(tmp_path)
    tap(box, clock, "control-game-policecats")
    assert stage.prompts[-1] == ("menu-game", {"game": "policecats"})  # "Police cats! How many players?"
    tap(box, clock, "control-variant-alarm")
    assert stage.prompts[-1] == ("variant", {"variant": "alarm", "state": "on"})  # "Alarm on."
    assert box.snapshot()["menu"]["variants"] == {"alarm": True}
    tap(box, clock, "control-players-2")
    assert box.engine.game == "policecats" and box.engine.players == 2 and box.engine.options["variant"] == "alarm"


def test_a_player_count_the_game_does_not_allow_is_refused_with_the_reason(tmp_path: Path) -> None:
    """docs/rulings.md: "Policecats 3–5; the policecat-alarm variant (C10) 2–5"."""
    box, stage, clock = make_box(tmp_path)
    tap(box, clock, "control-players-2")
    tap(box, clock, "control-game-policecats")
    assert box.engine is None
    name, context = [s for s in stage.shows if s[0] == "rejected"][-1]
    assert context["code"] == "wrong_action" and "3 or 4 or 5 players, not 2" in context["reason"]
    assert stage.prompts[-1] == ("menu-game", {"game": "policecats"}) and box.menu.players == 3
    tap(box, clock, "control-players-3")
    assert box.engine.players == 3


def test_variant_cards_say_their_state_and_persist_across_games_and_restarts(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    tap(box, clock, "control-variant-alarm")
    tap(box, clock, "control-variant-alarm")
    assert [c for p, c in stage.prompts if p == "variant"] == [
        {"variant": "alarm", "state": "on"}, {"variant": "alarm", "state": "off"}]
    tap(box, clock, "control-variant-alarm")
    again = restarted(box, clock)
    assert again.menu.variants == {"alarm": True} and again.menu.options("policecats")["variant"] == "alarm"
    tap(again, clock, "control-game-policecats")
    tap(again, clock, "control-players-3")
    tap(again, clock, "control-variant-no-bark")
    assert again.stage.shows[-1][0] == "not_now", "no variant changes during a game"
    tap(again, clock, "control-new-game")
    tap(again, clock, "control-game-policecats")
    tap(again, clock, "control-players-2")
    assert again.engine.options["variant"] == "alarm", "the variant stays on for the next game"


def test_the_new_game_card_abandons_the_game_for_good(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    tap(box, clock, "control-game-pirates")
    tap(box, clock, "control-players-2")
    tap(box, clock, "red-pirate-2")
    game_id = box.game_id
    tap(box, clock, "control-new-game")
    assert box.engine is None and box.snapshot()["mode"] == "menu"
    assert "abandoned" in stage.show_names and stage.prompts[-1][0] == "choose-game"
    assert box.journal.game(game_id).abandoned and box.journal.unfinished() is None
    again = restarted(box, clock)
    assert again.engine is None, "a restart does not resume an abandoned game"


def test_the_die_button_chooses_too_and_a_game_card_after_it_starts(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    box.press("die")  # floppy-ears -> pirates
    assert stage.prompts[-1][0] == "game-pirates"
    tap(box, clock, "control-players-3")
    assert box.engine.game == "pirates" and box.engine.players == 3, "the die chose the game, the card the players"


def test_stored_settings_that_make_no_sense_fall_back_to_the_config(tmp_path: Path, caplog) -> None:
    """Issue 11 item 4: volume = "loud" and last_game = "chess" were a restart loop."""
    journal = Journal(tmp_path / "journal.sqlite")
    for key, value in (("volume", "loud"), ("language", "xx"), ("last_game", "chess"),
                       ("menu", {"game": "chess", "variants": {}})):
        journal.set_setting(key, value)
    journal.close()
    with caplog.at_level(logging.WARNING, logger="gamebox.menu"):
        box, stage, clock = make_box(tmp_path, volume=0.4, language="fr")
    assert (box.volume, box.language, box.menu.game) == (0.4, "fr", "floppy-ears")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4 and all("is not valid" in line for line in lines)
    assert stage.prompts[-1] == ("choose-game", {"game": "floppy-ears"})


def test_volume_and_language_can_be_set_by_others(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, volume_max=0.7)
    box.set_volume(0.9)
    assert box.volume == 0.7 and stage.shows[-1] == ("volume", {"volume": 0.7, "change": "up"})
    box.set_volume(-1)
    assert box.volume == 0.0, "never below silence"
    box.set_language("nl")
    assert box.language == "nl" and stage.prompts[-1] == ("language", {"language": "nl"})
    box.set_language("klingon")
    assert box.language == "nl" and stage.refusals[-1] == "wrong_action"
    assert restarted(box, clock).language == "nl"


def test_the_die_offers_only_the_counts_a_variant_allows_and_turning_it_off_moves_the_count(tmp_path: Path) -> None:
    """docs/rulings.md "Players": Policecats 3-5, the alarm variant 2-5 (C10). A 2 chosen with the alarm becomes 3 without it."""
    box, stage, clock = make_box(tmp_path)
    tap(box, clock, "control-game-policecats")
    tap(box, clock, "control-variant-alarm")  # on
    offered = []
    for _ in range(4):
        box.press("die")
        offered.append(stage.prompts[-1][0])
    assert offered == ["players-4", "players-5", "players-2", "players-3"]
    box.press("die")
    box.press("die")
    box.press("die")
    assert stage.prompts[-1][0] == "players-2"
    tap(box, clock, "control-variant-alarm")  # off: two players cannot play without it
    box.hold("die")
    assert box.engine.game == "policecats" and box.engine.players == 3 and box.engine.options["variant"] != "alarm"


def test_a_silenced_box_stays_silent_after_a_restart(tmp_path: Path) -> None:
    """Volume 0 is a choice a parent made, not a broken setting (issue 11 item 4 checks only nonsense falls back)."""
    box, stage, clock = make_box(tmp_path)
    for _ in range(12):
        tap(box, clock, "control-volume-down")
    assert box.volume == 0.0
    assert restarted(box, clock).volume == 0.0

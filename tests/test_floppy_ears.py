"""Floppy Ears: the referee (rulings F1–F11), its virtual table and the forgetting player.

Rulebook citations: CLASSIC is seeds/000_53324037a185d208.txt (the German text
wins), REVEAL is seeds/002_4a610a1dfb58a2da.txt; line numbers are the seed files'.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import OptionsError, Outcome, Rejection
from controller.games.floppy_ears import CARDS, FloppyEars, is_joker, matches
from controller.scenario import run_file
from controller.table.base import Decision
from controller.table.floppy_ears import FloppyEarsTable, ForgettingBot
from tests.conftest import ALL_CARD_IDS, SCENARIO_DIR
from tests import referee

SCENARIOS = sorted(SCENARIO_DIR.glob("floppy-ears-*.json"))
#: Self-play bound: no game of the smoke runs below needs more actions than this.
MAX_ACTIONS = 2000


# -- helpers ---------------------------------------------------------------------------------------
def ok(engine: FloppyEars, **action: Any) -> list[str]:
    """Apply an action (given as keywords) that must be accepted; return its event names."""
    return referee.ok(engine, action)


def refused(engine: FloppyEars, **action: Any) -> str:
    """Apply an action (given as keywords) that must be refused without a trace; return the code."""
    return referee.refused(engine, action)


def dealt(ears: list[tuple[str, str]], start: str, **options: Any) -> FloppyEars:
    """A game after setup: each seat's (left, right) ears hung, ``start`` turned up."""
    engine = FloppyEars(len(ears), options)
    for seat, (left, right) in enumerate(ears):
        ok(engine, type="hang", player=seat, ear="left", card=left)
        ok(engine, type="hang", player=seat, ear="right", card=right)
    ok(engine, type="start_card", card=start)
    return engine


def two(start: str = "red-5", **options: Any) -> FloppyEars:
    return dealt([("red-1", "blue-2"), ("green-3", "yellow-4")], start, **options)


def down_to_ears(engine: FloppyEars) -> None:
    """Seat 0 plays its three hand cards (yellow-4.., red-5) on a yellow-3 start while seat 1 draws."""
    for card in ("yellow-4", "yellow-5", "red-5"):
        ok(engine, type="play", player=0, card=card)
        ok(engine, type="draw", player=1)


def race(**options: Any) -> FloppyEars:
    """Seat 0 holds only its ears red-1 (left) and red-2 (right), on top red-5, its turn."""
    engine = dealt([("red-1", "red-2"), ("green-3", "green-4")], "yellow-3", **options)
    down_to_ears(engine)
    return engine


def play_out(table: FloppyEarsTable, choose, check: bool = True) -> int:
    """Play a whole game; every action accepted, every invariant kept; return the action count."""
    actions = 0
    while not table.over:
        decision = table.decision()
        assert decision.actions, "nothing to do before the game is over"
        action = choose(table, decision)
        result = table.act(action)
        assert isinstance(result, Outcome), f"action {actions}: {action} refused: {result}"
        if check:
            assert table.violations() == [], f"action {actions}: {action}"
        actions += 1
        assert actions <= MAX_ACTIONS
    return actions


# -- scenario files --------------------------------------------------------------------------------
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario_file_passes(path: Path) -> None:
    passed, line = run_file(path)
    assert passed, line


def test_every_ruling_and_rejection_code_has_a_cited_scenario() -> None:
    names = " ".join(p.name for p in SCENARIOS)
    assert all(f"floppy-ears-f{n}-" in names for n in range(1, 12))
    for code in ("not_your_turn", "wrong_action", "unknown_card", "card_elsewhere", "no_match",
                 "joker_start", "not_eligible", "game_over"):
        assert f"floppy-ears-reject-{code}.json" in names
    for path in SCENARIOS:  # every file says what it rests on
        cite = json.loads(path.read_text(encoding="utf-8"))["cite"]
        assert "seeds/" in cite or "docs/rulings.md" in cite, path.name


# -- options ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("players, options, message", [
    (1, {}, "2 to 4 players"),
    (5, {}, "2 to 4 players"),
    (2, {"edition": "deluxe"}, "'classic' or 'reveal'"),
    (2, {"bark_rule": "yes"}, "true or false"),
    (2, {"first": 2}, "seat from 0 to 1"),
    (2, {"mau_calls": True}, "no option 'mau_calls'"),
])
def test_bad_players_or_options_are_one_clear_line(players, options, message) -> None:
    with pytest.raises(OptionsError, match=message):
        FloppyEars(players, options)


def test_defaults_are_the_classic_edition_with_the_bark_rule() -> None:
    assert FloppyEars(2).options == {"edition": "classic", "bark_rule": True, "first": 0}


# -- F1 setup --------------------------------------------------------------------------------------
def test_f1_five_dealt_two_hung_in_any_order_then_the_first_card() -> None:
    """F1; CLASSIC l.117 "erhält jeder Spieler fünf Hundeohren", l.131 "Die anderen 3 Hundeohren behält jeder"."""
    engine = FloppyEars(3)
    assert engine.view()["hand_sizes"] == [5, 5, 5] and engine.view()["stack"] == 21
    assert engine.awaiting == "setup" and engine.current is None
    assert refused(engine, type="start_card", card="red-7") == "wrong_action"
    for seat, ear, card in [(2, "right", "red-1"), (0, "left", "red-2"), (1, "left", "red-3"),
                            (2, "left", "red-4"), (0, "right", "red-5"), (1, "right", "red-6")]:
        ok(engine, type="hang", player=seat, ear=ear, card=card)
    assert engine.view()["hand_sizes"] == [3, 3, 3] and engine.awaiting == "start_card"
    ok(engine, type="start_card", card="blue-1")
    assert engine.view()["stack"] == 20 and engine.current == 0 and engine.awaiting == "play"


def test_f1_a_joker_turned_up_goes_under_the_stack() -> None:
    """F1; CLASSIC l.139 "Ist es ein Joker-Ohr, dann legt es verdeckt unter den Nachziehstapel"."""
    engine = FloppyEars(2, {"first": 1})
    for seat, ear, card in [(0, "left", "red-1"), (0, "right", "red-2"), (1, "left", "red-3"), (1, "right", "red-4")]:
        ok(engine, type="hang", player=seat, ear=ear, card=card)
    assert refused(engine, type="start_card", card="joker-5") == "joker_start"
    assert engine.view()["stack"] == 26 and engine.awaiting == "start_card", "the joker went back into the stack"
    ok(engine, type="start_card", card="red-5")
    assert engine.view()["stack"] == 25 and engine.current == 1, "option first names the starting seat"


def test_f1_the_table_turns_up_the_first_card_that_is_no_joker() -> None:
    """F1; CLASSIC l.141–143 "nehmt stattdessen ein neues Hundeohr vom Nachziehstapel"."""
    seed = next(s for s in range(500) if FloppyEarsTable(2, {}, s).stack[-1].startswith("joker"))
    table = FloppyEarsTable(2, {}, seed)
    while table.referee.awaiting == "setup":
        table.act(table.decision().actions[0])
    (action,) = table.decision().actions
    skipped = table.stack[table.stack.index(action["card"]) + 1:]
    assert skipped and all(is_joker(c) for c in skipped) and not is_joker(action["card"])
    assert table.act(action) and table.violations() == []
    assert table.stack[:len(skipped)] == skipped, "each joker turned up went face down under the stack"


# -- F2 jokers -------------------------------------------------------------------------------------
def test_f2_a_joker_matches_anything_and_its_wish_stands_until_the_next_card() -> None:
    """F2;
    CLASSIC l.223 "Die Joker-Ohren dürft ihr auf jedes Hundeohr ... ablegen",
    l.235 "Auch die schon ausliegende Farbe".
    """
    engine = dealt([("red-1", "blue-2"), ("yellow-3", "red-4")], "green-5")
    assert ok(engine, type="play", player=0, card="joker-1") == ["played"]
    assert engine.awaiting == "choose_color" and engine.current == 0 and engine.view()["color"] is None
    assert refused(engine, type="choose_color", player=0, color="purple") == "wrong_action"
    assert "color_wished" in ok(engine, type="choose_color", player=0, color="green")  # the colour lying out
    assert engine.view()["color"] == "green" and engine.current == 1
    ok(engine, type="play", player=1, card="joker-2")  # a joker on a joker
    ok(engine, type="choose_color", player=1, color="blue")
    # seat 0's blue-2 ear matches the wish: ears first
    assert "stop_ear" in ok(engine, type="play", player=0, card="blue-6")
    ok(engine, type="play", player=1, card="blue-7")
    assert engine.view()["color"] == "blue" and engine.wish is None  # the wish ended with the next card


def test_f2_matching_is_colour_or_symbol_and_a_wish_replaces_the_colour() -> None:
    """F2/F11; CLASSIC l.169 "die gleiche Fellfarbe oder das gleiche Symbol"."""
    assert matches("red-3", "red-5", None) and matches("blue-5", "red-5", None)
    assert not matches("blue-3", "red-5", None)
    assert matches("joker-1", "red-5", None) and matches("joker-1", "joker-2", "green")
    assert matches("green-1", "joker-2", "green") and not matches("red-1", "joker-2", "green")
    assert matches("blue-1", "red-3", "blue") and matches("yellow-3", "red-3", "blue")
    assert not matches("red-1", "red-3", "blue")


# -- F3 jokers on ears -----------------------------------------------------------------------------
def test_f3_a_joker_on_an_ear_must_come_before_any_hand_card() -> None:
    """F3; CLASSIC l.183 "musst du immer das passende Hundeohr vom Ohr nehmen"."""
    engine = dealt([("blue-2", "joker-1"), ("green-3", "yellow-4")], "red-5")
    assert "stop_ear" in ok(engine, type="play", player=0, card="red-6")
    ok(engine, type="draw", player=1)
    ok(engine, type="play", player=0, card="joker-1")
    assert engine.awaiting == "choose_color"  # the wish comes before the hang (F7)
    ok(engine, type="choose_color", player=0, color="red")
    assert engine.awaiting == "hang" and engine.current == 0


# -- F4 ear penalty --------------------------------------------------------------------------------
def test_f4_an_ear_card_that_does_not_match_goes_back_and_ends_the_turn() -> None:
    """F4; CLASSIC l.187 "so hänge es wieder zurück. Zur Strafe musst du ein Hundeohr vom Nachziehstapel ziehen"."""
    engine = two(start="green-5")
    names = ok(engine, type="play", player=0, card="blue-2", call="woof")
    assert "ear_penalty" in names and "barked" not in names
    view = engine.view()
    assert view["ears"][0] == ["red-1", "blue-2"] and view["hand_sizes"] == [4, 3]
    assert view["stack"] == 24 and view["top"] == "green-5" and view["current"] == 1


def test_f4_f7_a_penalty_card_refills_an_empty_ear_before_the_turn_passes() -> None:
    """F4/F7; CLASSIC l.267 "Es muss immer ein Hundeohr an jedem Ohr hängen!"."""
    engine = race()
    ok(engine, type="play", player=0, card="red-1", call="woof")
    ok(engine, type="draw", player=1)  # top red-1; seat 0 holds only red-2 on the right
    ok(engine, type="draw", player=0)
    ok(engine, type="hang", player=0, ear="left", card="blue-6")
    ok(engine, type="draw", player=1)
    assert "ear_penalty" in ok(engine, type="play", player=0, card="blue-6")
    assert engine.awaiting == "play" and engine.current == 1, "both ears full: nothing to hang"


# -- F5 stop ear -----------------------------------------------------------------------------------
def test_f5_a_hand_card_while_an_ear_matches_is_stop_ear() -> None:
    """F5; CLASSIC l.213 "obwohl ein passendes an deinem Ohr hängt ... „Ohren-Stopp“", l.217 "zurück auf deine Hand"."""
    engine = two(start="red-5")
    assert "stop_ear" in ok(engine, type="play", player=0, card="red-6")
    view = engine.view()
    assert view["hand_sizes"] == [4, 3] and view["stack"] == 24 and view["top"] == "red-5" and view["current"] == 1
    assert refused(engine, type="play", player=1, card="red-6") == "card_elsewhere", "red-6 is back in seat 0's hand"


def test_f5_a_hand_card_that_does_not_match_is_refused_without_penalty() -> None:
    """F5; CLASSIC l.195 "lege das passende Hundeohr aus deiner Hand auf den Ablagestapel"."""
    engine = two(start="green-5")
    assert refused(engine, type="play", player=0, card="yellow-6") == "no_match"
    assert "played" in ok(engine, type="play", player=0, card="yellow-5")


# -- F6 draw ---------------------------------------------------------------------------------------
def test_f6_drawing_is_allowed_even_with_a_match_and_ends_the_turn() -> None:
    """F6; CLASSIC l.245 "Du darfst es nicht direkt ablegen, auch wenn es passen sollte!"."""
    engine = two(start="red-5")
    names = ok(engine, type="draw", player=0)
    assert names == ["drew"]
    assert engine.view()["hand_sizes"] == [4, 3] and engine.current == 1
    assert refused(engine, type="play", player=0, card="red-6") == "not_your_turn"


# -- F7 hanging ------------------------------------------------------------------------------------
def test_f7_after_an_ear_card_the_player_hangs_a_hand_card_on_that_ear() -> None:
    """F7; CLASSIC l.269 "suchst du dir eines aus deiner Hand aus und hängst es an das Ohr"."""
    engine = two(start="red-5")
    ok(engine, type="play", player=0, card="red-1")
    assert engine.awaiting == "hang" and engine.current == 0
    assert refused(engine, type="draw", player=0) == "wrong_action"
    assert refused(engine, type="hang", player=0, ear="right", card="red-6") == "not_eligible"
    assert refused(engine, type="hang", player=0, ear="left", card="blue-2") == "card_elsewhere"
    ok(engine, type="hang", player=0, ear="left", card="red-6")
    assert engine.view()["ears"][0] == ["red-6", "blue-2"] and engine.view()["hand_sizes"] == [2, 3]
    assert engine.current == 1


def test_f7_with_an_empty_hand_the_ear_stays_empty_until_a_card_comes() -> None:
    """F7;
    CLASSIC l.273 "Die einzige Ausnahme: Wenn du gerade erfolgreich dein vorletztes und letztes Hundeohr abgelegt hast".
    """
    engine = race()
    ok(engine, type="play", player=0, card="red-1", call="woof")
    assert engine.view()["ears"][0] == [None, "red-2"] and engine.current == 1
    ok(engine, type="draw", player=1)
    ok(engine, type="draw", player=0)
    assert engine.awaiting == "hang" and engine.current == 0


# -- F8 barking ------------------------------------------------------------------------------------
def test_f8_woof_when_one_card_is_left_and_a_forgotten_woof_costs_a_hung_card() -> None:
    """F8; CLASSIC l.285 "Sobald du nur noch ein Hundeohr hast, belle sofort „Wau“", l.291 "an sein Ohr hängen"."""
    barking = race()
    assert "barked" in ok(barking, type="play", player=0, card="red-1", call="woof")
    assert barking.current == 1
    forgetful = race()
    names = ok(forgetful, type="play", player=0, card="red-1")
    assert "bark_penalty" in names and "drew" in names
    assert forgetful.awaiting == "hang" and forgetful.current == 0
    assert forgetful.view()["hand_sizes"][0] == 1 and forgetful.view()["top"] == "red-1"


def test_f8_the_wrong_bark_counts_as_forgotten_and_a_bark_not_due_is_ignored() -> None:
    """F8; CLASSIC l.287 "Beim Ablegen des letzten Hundeohrs musst du laut „Wau Wau!“ bellen"."""
    engine = race()
    assert "bark_penalty" in ok(engine, type="play", player=0, card="red-1", call="woof-woof")
    calm = dealt([("red-1", "red-2"), ("green-3", "green-4")], "yellow-3")
    assert ok(calm, type="play", player=0, card="yellow-4", call="woof") == ["played"]
    assert refused(calm, type="play", player=1, card="yellow-5", call="mau") == "wrong_action"


def test_f8_after_a_forgotten_woof_woof_the_card_stays_played_and_the_game_goes_on() -> None:
    """F8;
    CLASSIC l.289 "Wer „Wau“ oder „Wau Wau“ vergisst, muss zur Strafe ein zusätzliches Hundeohr vom Stapel ziehen".
    """
    engine = race()
    ok(engine, type="play", player=0, card="red-1", call="woof")
    ok(engine, type="draw", player=1)
    names = ok(engine, type="play", player=0, card="red-2")
    assert "bark_penalty" in names and "game_over" not in names
    view = engine.view()
    assert view["top"] == "red-2" and view["ears"][0] == [None, None] and not view["over"]
    assert engine.awaiting == "hang" and view["hand_sizes"][0] == 1


def test_f8_a_forgotten_woof_on_a_joker_wishes_first_then_hangs_the_penalty_card() -> None:
    """F7/F8;
    CLASSIC l.229 "wünscht sich der Spieler, der dieses Hundeohr ablegt, eine Farbe",
    l.291 "an sein Ohr hängen".
    """
    engine = race()
    ok(engine, type="play", player=0, card="red-1", call="woof")
    ok(engine, type="draw", player=1)
    ok(engine, type="draw", player=0)
    ok(engine, type="hang", player=0, ear="left", card="joker-1")  # ears joker-1, red-2; empty hand
    ok(engine, type="draw", player=1)
    names = ok(engine, type="play", player=0, card="joker-1")
    assert "bark_penalty" in names and engine.awaiting == "choose_color"
    ok(engine, type="choose_color", player=0, color="green")
    assert engine.awaiting == "hang" and engine.current == 0 and engine.view()["hand_sizes"][0] == 1
    ok(engine, type="hang", player=0, ear="left", card="blue-6")
    assert engine.current == 1 and engine.view()["color"] == "green"


def test_f8_with_the_bark_rule_off_silence_costs_nothing() -> None:
    """F8 (option bark_rule=false); CLASSIC l.285 "belle sofort „Wau“"."""
    engine = race(bark_rule=False)
    assert ok(engine, type="play", player=0, card="red-1") == ["played"]
    ok(engine, type="draw", player=1)
    assert "game_over" in ok(engine, type="play", player=0, card="red-2")
    assert engine.view()["winners"] == [0]


# -- F9 the end ------------------------------------------------------------------------------------
def test_f9_the_last_card_played_with_woof_woof_wins() -> None:
    """F9;
    CLASSIC l.297 "Der Spieler, der zuerst sein letztes Hundeohr von seinem Ohr ablegt und dabei „Wau Wau“ bellt".
    """
    engine = race()
    ok(engine, type="play", player=0, card="red-1", call="woof")
    ok(engine, type="draw", player=1)
    assert "game_over" in ok(engine, type="play", player=0, card="red-2", call="woof-woof")
    view = engine.view()
    assert view["over"] and view["winners"] == [0] and view["current"] is None and view["awaiting"] == "over"
    assert engine.legal_actions() == []
    assert refused(engine, type="draw", player=1) == "game_over"


def test_f9_a_joker_as_last_card_wins_without_a_wish() -> None:
    """F9; CLASSIC l.297 "gewinnt das Spiel": the game ends with the card, nothing is wished."""
    engine = dealt([("red-1", "joker-7"), ("yellow-3", "yellow-4")], "yellow-5")
    ok(engine, type="play", player=0, card="joker-7")
    ok(engine, type="choose_color", player=0, color="green")
    ok(engine, type="hang", player=0, ear="right", card="blue-7")
    for card in ("green-6", "red-6"):  # the hand runs out
        ok(engine, type="draw", player=1)
        ok(engine, type="play", player=0, card=card)
    ok(engine, type="draw", player=1)
    ok(engine, type="play", player=0, card="red-1", call="woof")
    ok(engine, type="draw", player=1)
    ok(engine, type="draw", player=0)
    ok(engine, type="hang", player=0, ear="left", card="joker-8")
    ok(engine, type="play", player=1, card="red-7")
    ok(engine, type="play", player=0, card="blue-7", call="woof")
    ok(engine, type="draw", player=1)
    assert "game_over" in ok(engine, type="play", player=0, card="joker-8", call="woof-woof")
    assert engine.awaiting == "over" and engine.view()["winners"] == [0]


# -- F10 reshuffle ---------------------------------------------------------------------------------
def test_f10_taking_the_last_card_reshuffles_the_pile_except_its_top() -> None:
    """F10;
    CLASSIC l.255 "mischt ihr den Ablagestapel",
    l.259 "Das zuletzt auf den Ablagestapel gelegte Hundeohr wird nicht untergemischt".
    """
    engine = two(start="green-5")
    ok(engine, type="play", player=0, card="green-6")
    seat = 1
    while engine.stack > 1:
        ok(engine, type="draw", player=seat)
        seat = 1 - seat
    names = ok(engine, type="draw", player=seat)
    assert names == ["drew", "reshuffle"]
    assert engine.stack == 1 and engine.pile == ["green-6"]
    # the old start card is back in the stack, unseen: it may be drawn and played again
    assert engine.would_accept({"type": "play", "player": engine.current, "card": "green-5"})


def test_f10_a_dry_stack_gives_nothing_and_refills_once_the_pile_grows() -> None:
    """F10; CLASSIC l.255 "Ist der Nachziehstapel im Laufe des Spiels aufgebraucht"."""
    engine = dealt([("red-1", "red-2"), ("green-1", "green-2"), ("blue-1", "blue-2"), ("yellow-1", "yellow-2")],
                   "yellow-7")
    for n in range(15):
        ok(engine, type="draw", player=n % 4)
    assert engine.stack == 0 and engine.pile == ["yellow-7"]
    before = engine.view()["hand_sizes"]
    names = ok(engine, type="draw", player=3)
    assert engine.view()["hand_sizes"] == before and names == ["drew"]
    assert "ear_penalty" in ok(engine, type="play", player=0, card="red-1")
    assert engine.view()["hand_sizes"] == before, "a penalty from a dry stack takes nothing"
    ok(engine, type="play", player=1, card="yellow-6")
    assert ok(engine, type="draw", player=2) == ["reshuffle", "drew"]
    assert engine.stack == 0 and engine.pile == ["yellow-6"]


# -- F11 reveal edition ----------------------------------------------------------------------------
def test_f11_every_turn_starts_by_revealing_a_card_and_is_matched_against_it() -> None:
    """F11; REVEAL l.33 "This player reveals the top ear from the stack and places it on top of the discard pile"."""
    engine = two(start="red-5", edition="reveal")
    assert engine.awaiting == "reveal" and engine.current == 0
    assert refused(engine, type="draw", player=0) == "wrong_action"
    assert refused(engine, type="reveal", player=0, card="red-5") == "card_elsewhere"
    ok(engine, type="reveal", player=0, card="green-6")
    assert engine.view()["top"] == "green-6" and engine.view()["stack"] == 24 and engine.awaiting == "play"
    ok(engine, type="play", player=0, card="green-7")
    assert engine.awaiting == "reveal" and engine.current == 1


def test_f11_a_wish_stands_over_the_revealed_card_colour_but_not_its_symbol() -> None:
    """F11;
    REVEAL l.49 "that player must play an ear of the colour you named, with the picture that is on the ear they revealed".
    """
    engine = dealt([("red-1", "blue-2"), ("green-5", "yellow-4")], "red-5", edition="reveal")
    ok(engine, type="reveal", player=0, card="green-6")
    ok(engine, type="play", player=0, card="joker-1")
    ok(engine, type="choose_color", player=0, color="blue")
    ok(engine, type="reveal", player=1, card="red-3")
    assert engine.view()["color"] == "blue"
    assert refused(engine, type="play", player=1, card="red-6") == "no_match"
    ok(engine, type="play", player=1, card="yellow-3")  # the revealed card's symbol
    assert engine.view()["color"] == "yellow"


def test_f11_a_revealed_joker_stays_and_its_revealer_wishes_then_plays() -> None:
    """F11; REVEAL l.29 "If the face-up ear turns out to be a magic ear" applies to setup only; docs/rulings.md F11."""
    engine = two(start="red-5", edition="reveal")
    ok(engine, type="reveal", player=0, card="joker-4")
    assert engine.awaiting == "choose_color" and engine.current == 0 and engine.view()["top"] == "joker-4"
    ok(engine, type="choose_color", player=0, color="green")
    assert engine.awaiting == "play" and engine.current == 0
    assert refused(engine, type="play", player=0, card="yellow-6") == "no_match"
    ok(engine, type="play", player=0, card="green-6")
    assert engine.current == 1 and engine.awaiting == "reveal"


def test_f11_with_stack_and_pile_dry_there_is_nothing_to_reveal() -> None:
    """F10/F11;
    REVEAL l.59 "If the stack of ears runs out, shuffle the discard pile": with nothing under the top, no reveal.
    """
    engine = dealt([("red-1", "red-2"), ("green-1", "green-2"), ("blue-1", "blue-2"), ("yellow-1", "yellow-2")],
                   "yellow-7", edition="reveal")
    reshuffles = 0
    for turn in range(15):  # reveal and draw: the stack runs dry on turn 15
        seat = turn % 4
        assert engine.awaiting == "reveal" and engine.current == seat
        card = next(c for c in CARDS if not is_joker(c)
                    and engine.would_accept({"type": "reveal", "player": seat, "card": c}))
        reshuffles += ok(engine, type="reveal", player=seat, card=card).count("reshuffle")
        reshuffles += ok(engine, type="draw", player=seat).count("reshuffle")
    assert reshuffles == 4
    assert engine.stack == 0 and len(engine.pile) == 1
    assert engine.awaiting == "play" and engine.current == 3


# -- referee knowledge and precedence --------------------------------------------------------------
def test_precedence_follows_the_contract() -> None:
    """docs/scenarios.md: game_over, not_your_turn, wrong_action, unknown_card, card_elsewhere, then the rule."""
    engine = two(start="red-5")
    assert refused(engine, player=1, type="play", card="nonsense") == "not_your_turn"
    assert refused(engine, player=0, type="hang", card="nonsense", ear="left") == "wrong_action"
    assert refused(engine, player=0, type="play", card="red-9", call="bark") == "wrong_action"
    assert refused(engine, player=0, type="play", card="red-9") == "unknown_card"
    assert refused(engine, player=0, type="play", card="green-3") == "card_elsewhere"
    assert refused(engine, player=0, type="play", card="red-5") == "card_elsewhere"


def test_a_player_without_hand_cards_cannot_play_from_the_hand() -> None:
    """CLASSIC l.195 "lege das passende Hundeohr aus deiner Hand": there must be a hand."""
    engine = race()
    assert refused(engine, type="play", player=0, card="red-6") == "card_elsewhere"


@pytest.mark.parametrize("action", [
    None, [], "play", 3, {}, {"type": 3}, {"type": "play"}, {"type": "play", "player": 0},
    {"type": "play", "player": 2**70, "card": "red-6"}, {"type": "play", "player": -1, "card": "red-6"},
    {"type": "play", "player": True, "card": "red-6"}, {"type": "play", "player": 0.0, "card": "red-6"},
    {"type": "play", "player": 0, "card": ["red-6"]}, {"type": "play", "player": 0, "card": {"x": 1}},
    {"type": "play", "player": 0, "card": "red-pirate-1"}, {"type": "play", "player": 0, "card": "police-3"},
    {"type": "play", "player": 0, "card": "red-6", "call": ["woof"]}, {"type": "hang", "player": 0, "ear": {}},
    {"type": "choose_color", "player": 0, "color": ["red"]}, {"type": "roll", "player": 0, "face": "cat"},
    {"type": ["play"], "player": 0},
])
def test_junk_is_refused_without_raising_or_changing_anything(action) -> None:
    for engine in (FloppyEars(2), two(start="red-5"), race()):
        before = engine.to_json()
        assert isinstance(engine.apply(action), Rejection)
        assert engine.to_json() == before


def test_every_card_id_of_every_game_at_every_step_never_raises() -> None:
    table = FloppyEarsTable(3, {"edition": "reveal"}, 11)
    rng = random.Random(11)
    while not table.over:
        referee = table.referee
        for card in ALL_CARD_IDS:
            for kind in ("play", "hang", "reveal", "start_card"):
                before = referee.to_json()
                if isinstance(referee.apply({"type": kind, "player": 0, "card": card, "ear": "left"}), Outcome):
                    return  # accepted by chance: the physical table no longer agrees, stop here
                assert referee.to_json() == before
        table.act(rng.choice(table.decision().actions))


# -- persistence and legal actions -----------------------------------------------------------------
@pytest.mark.parametrize("edition", ["classic", "reveal"])
def test_json_round_trip_and_replay_rebuild_the_live_state(edition) -> None:
    for seed in range(12):
        table = FloppyEarsTable(2 + seed % 3, {"edition": edition, "first": seed % 2}, seed)
        rng = random.Random(seed)
        while not table.over:
            live = table.referee
            if rng.random() < 0.1:
                assert FloppyEars.from_json(live.to_json()).to_json() == live.to_json()
                assert FloppyEars.replay(live.players, live.options, live.log).to_json() == live.to_json()
            table.act(rng.choice(table.decision().actions))
        live = table.referee
        assert FloppyEars.replay(live.players, live.options, live.log).to_json() == live.to_json()
        assert FloppyEars.from_json(live.to_json()).view() == live.view()


def test_legal_actions_are_exactly_the_accepted_cards_and_include_every_offer() -> None:
    for seed in range(6):
        table = FloppyEarsTable(2 + seed % 3, {"edition": ("classic", "reveal")[seed % 2]}, seed)
        rng = random.Random(seed)
        while not table.over:
            referee = table.referee
            legal = referee.legal_actions()
            assert legal and all(referee.would_accept(a) for a in legal)
            assert all(a in legal for a in table.decision().actions)
            if referee.awaiting == "play":
                seat = referee.current
                listed = {a["card"] for a in legal if a["type"] == "play"}
                accepted = {c for c in CARDS if referee.would_accept({"type": "play", "player": seat, "card": c})}
                assert listed == accepted
            table.act(rng.choice(table.decision().actions))


# -- the virtual table -----------------------------------------------------------------------------
def test_the_table_offers_ears_first_then_hand_cards_and_draws_only_without_a_match() -> None:
    """CLASSIC l.177 "Am Ohr? Denn Ohr geht immer vor!", l.239 "musst du ein Hundeohr vom Nachziehstapel nehmen"."""
    for seed in range(40):
        table = FloppyEarsTable(3, {}, seed)
        rng = random.Random(seed)
        while not table.over:
            decision = table.decision()
            referee = table.referee
            if referee.awaiting == "play":
                seat, top, wish = decision.seat, referee.top, referee.wish
                ear_hits = [e for e in table.ears[seat] if e and matches(e, top, wish)]
                hand_hits = [c for c in table.hands[seat] if matches(c, top, wish)]
                cards = [a.get("card") for a in decision.actions]
                if ear_hits:
                    assert sorted(cards) == sorted(ear_hits)
                elif hand_hits:
                    assert sorted(cards) == sorted(hand_hits)
                else:
                    assert decision.actions == [{"type": "draw", "player": seat}]
            table.act(rng.choice(decision.actions))


def test_greedy_preference_wishes_the_colour_held_most_and_keeps_jokers() -> None:
    table = FloppyEarsTable(2, {}, 1)
    table.hands[0] = ["blue-1", "blue-3", "red-2", "joker-1"]
    table.ears[0] = ["blue-5", None]
    wishes = {c: table.preference({"type": "choose_color", "player": 0, "color": c})
              for c in ("yellow", "green", "blue", "red")}
    assert max(wishes, key=wishes.get) == "blue"
    assert table.preference({"type": "hang", "player": 0, "ear": "right", "card": "joker-1"}) < \
        table.preference({"type": "hang", "player": 0, "ear": "right", "card": "red-2"})
    assert table.preference({"type": "play", "player": 0, "card": "blue-5"}) > \
        table.preference({"type": "play", "player": 0, "card": "blue-1"}) > \
        table.preference({"type": "play", "player": 0, "card": "joker-1"}) > \
        table.preference({"type": "draw", "player": 0})


def test_counts_disagree_names_the_difference() -> None:
    table = FloppyEarsTable(2, {}, 3)
    assert table.violations() == []
    table.hands[0].append(table.stack.pop())
    problems = table.violations()
    assert any("hand sizes" in p for p in problems) and any("stack" in p for p in problems)


# -- self-play smoke -------------------------------------------------------------------------------
def uniform(rng: random.Random):
    return lambda table, decision: rng.choice(decision.actions)


@pytest.mark.parametrize("edition", ["classic", "reveal"])
def test_random_self_play_ends_every_game_with_every_invariant_kept(edition) -> None:
    for seed in range(300):
        table = FloppyEarsTable(2 + seed % 3, {"edition": edition, "bark_rule": seed % 4 != 0}, seed)
        assert play_out(table, uniform(random.Random(seed))) <= MAX_ACTIONS
        assert len(table.referee.winners) == 1


@pytest.mark.parametrize("edition", ["classic", "reveal"])
def test_forgetful_self_play_is_penalised_never_refused_and_ends(edition) -> None:
    seen: set[str] = set()
    for seed in range(300):
        table = FloppyEarsTable(2 + seed % 3, {"edition": edition}, seed)
        bot = ForgettingBot(random.Random(seed), memory=0.5, bark_forget=0.3)
        original = table.act

        def act(action, original=original):
            result = original(action)
            if isinstance(result, Outcome):
                seen.update(result.names)
            return result

        table.act = act  # type: ignore[method-assign]
        assert play_out(table, bot.choose) <= MAX_ACTIONS
    assert {"ear_penalty", "stop_ear", "bark_penalty", "reshuffle", "game_over"} <= seen


def test_a_perfect_memory_plays_only_what_the_table_offers() -> None:
    """memory=1.0, bark_forget=0.0: no penalty ever, every choice a sensible one."""
    for seed in range(60):
        table = FloppyEarsTable(2 + seed % 3, {"edition": ("classic", "reveal")[seed % 2]}, seed)
        bot = ForgettingBot(random.Random(seed))

        def choose(table: FloppyEarsTable, decision: Decision) -> dict[str, Any]:
            action = bot.choose(table, decision)
            assert action in decision.actions
            return action

        play_out(table, choose, check=False)


def test_forgetting_grows_with_the_turns_an_ear_has_hung() -> None:
    bot = ForgettingBot(random.Random(0), memory=0.5)
    chances = [bot.forget_chance(age) for age in range(6)]
    assert chances[0] == 0.0 and chances == sorted(chances) and chances[-1] < 0.5
    assert ForgettingBot(random.Random(0)).forget_chance(10) == 0.0


def test_a_card_back_in_a_hand_after_stop_ear_is_offered_only_to_that_hand() -> None:
    """F5: after "stop ear!" the played card is back in its player's hand; nobody else may play or hang it."""
    steps = json.loads((SCENARIO_DIR / "floppy-ears-f5-stop-ear.json").read_text())
    engine = FloppyEars(steps["players"], steps["options"])
    for step in steps["steps"]:
        if "act" in step:
            engine.apply(step["act"])
        if engine.held:
            break
    assert engine.held, "the scenario puts a card back in a hand"
    for _ in range(6):  # the next turns: what is offered is what the referee accepts
        legal = engine.legal_actions()
        assert legal and all(engine.would_accept(a) for a in legal)
        held_elsewhere = {c for c, seat in engine.held.items() if seat != engine.current}
        assert not any(a.get("card") in held_elsewhere for a in legal)
        engine.apply(next(a for a in legal if a["type"] == "draw") if any(a["type"] == "draw" for a in legal) else legal[0])

"""Pirate & Co. Mau Mau: the referee, the virtual table and their scenario files.

Rule tests name their ruling (docs/rulings.md, P1-P10) and quote the rulebook,
seeds/001_68665c4bfbf71314.txt (SEED below), by line and phrase.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Engine, OptionsError, Outcome, Rejection
from controller.games.pirates import BITS, CARDS, Pirates
from controller.scenario import run_scenario
from controller.table.bots import GreedyBot, RandomBot
from controller.table.pirates import PiratesTable
from tests.referee import ok, refused
from tests.conftest import SCENARIO_DIR

SEED = "seeds/001_68665c4bfbf71314.txt"
SCENARIOS = sorted(SCENARIO_DIR.glob("pirates-*.json"))
VIEW_KEYS = {"current", "awaiting", "over", "winners", "hand_sizes", "stack", "top", "color",
             "direction", "pending_draw", "ships", "round"}


# -- helpers -------------------------------------------------------------------------
def game(players: int = 3, start: str = "red-pirate-2", **options: Any) -> Pirates:
    """A game whose start card is turned up."""
    engine = Pirates(players, options)
    ok(engine, {"type": "start_card", "card": start})
    return engine


def play(p: int, card: str, call: str | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"player": p, "type": "play", "card": card}
    if call:
        action["call"] = call
    return action


def draw(p: int) -> dict[str, Any]:
    return {"player": p, "type": "draw"}


def pass_(p: int) -> dict[str, Any]:
    return {"player": p, "type": "pass"}


def wish(p: int, color: str) -> dict[str, Any]:
    return {"player": p, "type": "choose_color", "color": color}


def midgame_states(count: int, options_of=lambda s: {}) -> list[Pirates]:
    """Referees stopped at random points of random games."""
    states = []
    for seed in range(count):
        table = PiratesTable(2 + seed % 3, options_of(seed), seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 120)):
            if table.over:
                break
            table.act(rng.choice(table.decision().actions))
        states.append(table.referee)
    return states


# -- scenario files --------------------------------------------------------------------
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_scenario_file_passes(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert doc["game"] == "pirates"
    run_scenario(doc)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_scenario_file_cites_its_source(path: Path) -> None:
    cite = json.loads(path.read_text()).get("cite", "")
    assert SEED in cite or "docs/rulings.md" in cite, cite
    if path.name.startswith("pirates-p"):
        ruling = path.name.split("-")[1].upper()
        assert cite.startswith(ruling), f"{path.name} cites {cite[:20]!r}"
        assert SEED in cite


def test_every_ruling_and_every_rejection_of_this_game_has_a_file() -> None:
    names = {p.name for p in SCENARIOS}
    for n in range(1, 11):
        assert any(name.startswith(f"pirates-p{n}-") for name in names), f"P{n}"
    for code in ("not_your_turn", "wrong_action", "unknown_card", "card_elsewhere", "no_match",
                 "must_draw", "parrot_on_parrot", "special_start", "game_over"):
        assert f"pirates-reject-{code}.json" in names


# -- P1 setup and start card ---------------------------------------------------------------
def test_p1_special_cards_are_no_start_card() -> None:
    """P1; SEED l.77-86: „Ist die Karte eine Sonderkarte, wird sie wieder unter den Nachziehstapel gelegt“."""
    engine = Pirates(4)
    for card in ("red-ship", "green-bottle", "blue-sleeper", "parrot-1"):
        assert refused(engine, {"type": "start_card", "card": card}) == "special_start"
    assert engine.view()["stack"] == 52 - 20  # the special card went back under the stack
    ok(engine, {"type": "start_card", "card": "yellow-pirate-9"})
    view = engine.view()
    assert (view["stack"], view["top"], view["color"], view["current"]) == (31, "yellow-pirate-9", "yellow", 0)


def test_p1_five_cards_each_and_the_first_seat_option() -> None:
    """P1; SEED l.69-71: „Jedes Kind erhält verdeckt 5 Karten“."""
    engine = game(3, first=2)
    assert engine.view()["hand_sizes"] == [5, 5, 5]
    assert engine.view()["current"] == 2


def test_p1_the_table_turns_up_a_pirate_card_and_puts_specials_under_the_stack() -> None:
    """P1; SEED l.83-86: „(bis eine Piratenkarte erscheint)“."""
    for seed in range(60):
        table = PiratesTable(3, {}, seed)
        (action,) = table.decision().actions
        assert CARDS[action["card"]][1].isdigit()
        assert isinstance(table.act(action), Outcome)


# -- P2 matching and the parrot ------------------------------------------------------------
def test_p2_a_card_matches_by_colour_or_by_picture() -> None:
    """P2; SEED l.99-103: „die gleiche Farbe oder den gleichen Piraten wie die oberste Karte“."""
    engine = game(2, "red-pirate-2")
    assert refused(engine, play(0, "blue-pirate-3")) == "no_match"
    ok(engine, play(0, "blue-pirate-2"))  # same pirate
    ok(engine, play(1, "blue-sleeper"))  # same colour
    ok(engine, play(1, "green-sleeper"))  # same special picture (the sleeper made seat 0 miss a turn)
    assert engine.view()["color"] == "green"


def test_p2_the_parrot_goes_on_anything_but_a_parrot_and_its_wish_stands_until_covered() -> None:
    """P2; SEED l.193-211: „Sie darf nicht auf eine andere Papagei-Karte gelegt werden … Auch die Farbe
    der schon liegenden Karte darf es sich erneut wünschen“."""
    engine = game(2, "red-pirate-2")
    ok(engine, play(0, "parrot-1"))
    assert engine.view()["awaiting"] == "choose_color" and engine.view()["current"] == 0
    assert refused(engine, wish(0, "purple")) == "wrong_action"
    assert ok(engine, wish(0, "red")) == ["color_wished"]  # the colour lying there may be wished again
    assert engine.view()["color"] == "red" and engine.view()["wish"] == "red"
    assert refused(engine, play(1, "parrot-2")) == "parrot_on_parrot"
    assert refused(engine, play(1, "blue-pirate-2")) == "no_match"  # the parrot has no pirate to match
    ok(engine, play(1, "red-pirate-7"))
    assert engine.view()["wish"] is None and engine.view()["color"] == "red"
    ok(engine, play(0, "parrot-2"))  # a parrot on a pirate again is fine
    ok(engine, wish(0, "green"))
    assert engine.view()["color"] == "green" and engine.view()["top"] == "parrot-2"


# -- P3 drawing ------------------------------------------------------------------------------
def test_p3_draw_then_play_that_card_or_keep_it() -> None:
    """P3; SEED l.113-121: „Falls du diese ablegen kannst, darfst du das sofort tun. Andernfalls nimmst du
    die Karte auf die Hand. Anschließend ist das nächste Kind an der Reihe.“"""
    engine = game(3)
    assert ok(engine, draw(0)) == ["drew"]
    assert engine.view()["awaiting"] == "after_draw" and engine.view()["hand_sizes"] == [6, 5, 5]
    assert refused(engine, draw(0)) == "wrong_action"  # one card only
    assert refused(engine, play(0, "blue-pirate-9")) == "no_match"
    ok(engine, play(0, "red-pirate-9"))
    assert engine.view()["current"] == 1
    ok(engine, draw(1))
    ok(engine, pass_(1))
    assert (engine.view()["current"], engine.view()["hand_sizes"]) == (2, [5, 6, 5])
    assert refused(engine, pass_(2)) == "wrong_action"  # pass only after drawing


def test_p3_the_table_offers_only_the_drawn_card_or_keeping_it() -> None:
    """P3; SEED l.115-119: „Falls du diese ablegen kannst, darfst du das sofort tun“ (this card only)."""
    seen = played = 0
    for seed in range(20):
        table = PiratesTable(2, {}, seed)
        rng = random.Random(seed)
        drawn: set[str] = set()
        while not table.over:
            decision = table.decision()
            if table.referee.awaiting == "after_draw":
                plays = [a["card"] for a in decision.actions if a["type"] == "play"]
                assert decision.actions[-1] == pass_(decision.seat)
                assert plays == [c for c in drawn if table.referee.matches(c)]
                seen += 1
                played += bool(plays)
            action = rng.choice(decision.actions)
            before = set(table.hand(decision.seat)) if decision.seat is not None else set()
            table.act(action)
            drawn = set(table.hand(decision.seat)) - before if action["type"] == "draw" else set()
    assert seen > 50 and 0 < played < seen


# -- P4 sailing ship ---------------------------------------------------------------------------
def test_p4_the_ship_turns_the_direction() -> None:
    """P4; SEED l.141-145: „Wird die Segelschiff-Karte gelegt, wechselt die Spielrichtung.“"""
    engine = game(4, "green-pirate-1")
    ok(engine, play(0, "green-pirate-3"))
    assert ok(engine, play(1, "green-ship")) == ["reverse"]
    assert (engine.view()["direction"], engine.view()["current"]) == (-1, 0)
    ok(engine, play(0, "green-pirate-4"))
    assert engine.view()["current"] == 3


def test_p4_with_two_players_the_ship_makes_the_other_miss_a_turn() -> None:
    """P4; SEED l.145-149: „Bei zwei Kindern bedeutet das, dass das andere Kind aussetzen muss.“"""
    engine = game(2)
    assert ok(engine, play(0, "red-ship")) == ["reverse", "skip"]
    assert engine.view()["current"] == 0


# -- P5 bottle post -------------------------------------------------------------------------------
def test_p5_the_debt_grows_by_two_with_each_bottle_post() -> None:
    """P5; SEED l.175-179: „Nun muss allerdings das nächste Kind vier Karten vom Nachziehstapel ziehen.
    Es sei denn, es hat auch eine Flaschenpost-Karte.“"""
    engine = game(4, "blue-pirate-1")
    debts = []
    for seat, card in enumerate(("blue-bottle", "red-bottle", "green-bottle", "yellow-bottle")):
        assert "draw_debt" in ok(engine, play(seat, card))
        debts.append(engine.view()["pending_draw"])
    assert debts == [2, 4, 6, 8]
    assert engine.view()["current"] == 0


def test_p5_only_a_bottle_post_or_paying_the_whole_debt_is_accepted() -> None:
    """P5; SEED l.161-163: „muss das folgende Kind vor seinem Zug zwei Karten vom Nachziehstapel ziehen“."""
    engine = game(3)
    ok(engine, play(0, "red-bottle"))
    for card in ("red-pirate-4", "parrot-1", "red-ship", "red-sleeper"):
        assert refused(engine, play(1, card)) == "must_draw"
    assert refused(engine, pass_(1)) == "wrong_action"
    ok(engine, draw(1))
    view = engine.view()
    assert (view["hand_sizes"], view["pending_draw"], view["current"], view["awaiting"]) == ([4, 7, 5], 0, 1, "play")


def test_p5_after_paying_a_normal_turn_follows() -> None:
    """P5; SEED l.165-169: „Kann es noch eine seiner Karten ablegen, darf es dies tun.“ A normal turn: play a
    matching card, or draw one (docs/rules/pirates.md)."""
    engine = game(2)
    ok(engine, play(0, "red-bottle"))
    ok(engine, draw(1))
    assert refused(engine, play(1, "blue-pirate-3")) == "no_match"
    ok(engine, draw(1))
    assert engine.view()["awaiting"] == "after_draw"


def test_p5_a_debt_larger_than_stack_and_pile_draws_what_there_is() -> None:
    """P5; docs/rulings.md P5: „When the stack and the reshuffled pile cannot cover the debt, the player takes what there is.“"""
    engine = game(2)
    seat = 0
    while engine.view()["stack"] > 0:  # empty the stack by drawing and keeping
        ok(engine, draw(seat))
        if engine.awaiting == "after_draw":
            ok(engine, pass_(seat))
        seat = 1 - seat
    ok(engine, play(seat, "red-bottle"))  # the pile: red-pirate-2 under red-bottle
    ok(engine, play(1 - seat, "blue-bottle"))
    before = engine.view()["hand_sizes"][seat]
    names = ok(engine, draw(seat))
    assert names.count("reshuffle") == 1 and engine.view()["stack"] == 0
    assert engine.view()["hand_sizes"][seat] == before + 2  # two under the top, not four
    assert engine.view()["pending_draw"] == 0 and engine.view()["current"] == seat


# -- P6 sleeping pirate ----------------------------------------------------------------------------
def test_p6_the_sleeper_skips_the_next_player() -> None:
    """P6; SEED l.183-189: „muss das folgende Kind aussetzen und wird übersprungen.“"""
    engine = game(3)
    assert ok(engine, play(0, "red-sleeper")) == ["skip"]
    assert engine.view()["current"] == 2
    two = game(2)
    ok(two, play(0, "red-sleeper"))
    assert two.view()["current"] == 0


# -- P7 round and game end ---------------------------------------------------------------------------
def empty_hand(engine: Pirates, seat: int, cards: list[str]) -> list[str]:
    """Seat ``seat`` plays ``cards`` one per turn while the others draw and keep; returns the last events."""
    names: list[str] = []
    for card in cards:
        while engine.current != seat:
            other = engine.current
            ok(engine, draw(other))
            if engine.awaiting == "after_draw":
                ok(engine, pass_(other))
        names = ok(engine, play(seat, card))
    return names


def test_p7_the_round_winner_moves_on_and_a_new_round_is_dealt() -> None:
    """P7; SEED l.219-233: „Sobald ein Kind seine letzte Handkarte abgelegt hat, beendet es die Spielrunde …
    Mischt alle Karten und verteilt wieder fünf an jedes Kind.“"""
    engine = game(3, "red-pirate-1")
    ok(engine, play(0, "red-ship"))  # direction now anticlockwise
    names = empty_hand(engine, 2, ["red-pirate-2", "red-pirate-3", "red-pirate-4", "red-pirate-5", "red-pirate-6"])
    assert "round_won" in names and "game_over" not in names
    view = engine.view()
    assert view["ships"] == [0, 0, 1] and view["round"] == 2
    assert view["hand_sizes"] == [5, 5, 5] and view["stack"] == 37 and view["direction"] == 1
    assert view["awaiting"] == "start_card" and view["top"] is None
    ok(engine, {"type": "start_card", "card": "red-pirate-1"})  # the cards are all back in play
    assert engine.view()["current"] == 2  # the round's winner starts


def test_p7_a_special_card_as_last_card_has_no_effect() -> None:
    """P7; docs/rulings.md P7: „A special card played as the last card of a round does nothing.“"""
    engine = game(2, "red-pirate-1", wins_needed=2)
    names = empty_hand(engine, 0, ["red-pirate-2", "red-pirate-3", "red-pirate-4", "red-pirate-5", "red-bottle"])
    assert "round_won" in names and "draw_debt" not in names
    assert engine.view()["pending_draw"] == 0
    ok(engine, {"type": "start_card", "card": "red-pirate-1"})
    names = empty_hand(engine, 0, ["red-pirate-2", "red-pirate-3", "red-pirate-4", "red-pirate-5", "parrot-1"])
    assert names == ["round_won", "game_over"]  # no colour to wish


def test_p7_the_game_is_won_with_wins_needed_rounds() -> None:
    """P7; SEED l.235-239: „Wer als Erster mit seinem Schiff die Schatzinsel erreicht hat, gewinnt das Spiel.“;
    l.283: „Who will win three rounds“."""
    engine = Pirates(2)
    for round_ in (1, 2, 3):
        ok(engine, {"type": "start_card", "card": "blue-pirate-1"})
        names = empty_hand(engine, 1, [f"blue-pirate-{n}" for n in range(2, 7)])
        assert engine.view()["ships"] == [0, round_]
    assert names[-2:] == ["round_won", "game_over"]
    view = engine.view()
    assert view["over"] and view["winners"] == [1] and view["current"] is None and view["awaiting"] == "over"
    assert refused(engine, draw(0)) == "game_over"


# -- P8 Mau calls -------------------------------------------------------------------------------------
def down_to(engine: Pirates, seat: int, held: int) -> None:
    """Both seats play red, then blue pirates in turn until ``seat`` holds ``held`` cards and is to play."""
    cards = iter([f"red-pirate-{n}" for n in range(3, 10)] + [f"blue-pirate-{n}" for n in (9, 1, 2, 3, 4)])
    while engine.view()["hand_sizes"][seat] > held or engine.current != seat:
        card = next(cards)
        if card not in engine.pile:
            ok(engine, play(engine.current, card))


def test_p8_a_forgotten_mau_costs_a_card() -> None:
    """P8; SEED l.249-251, 257-259: „Hat ein Kind nur noch eine Karte auf der Hand, ruft es laut „Mau!“ …
    Vergisst ein Kind „Mau!“ … muss es zur Strafe eine Karte vom Nachziehstapel ziehen.“"""
    engine = game(2, mau_calls=True)
    down_to(engine, 0, 2)
    stack = engine.view()["stack"]
    assert "mau_penalty" in ok(engine, play(0, "red-sleeper"))
    assert engine.view()["hand_sizes"][0] == 2 and engine.view()["stack"] == stack - 1
    assert "mau_penalty" not in ok(engine, play(0, "red-ship", "mau"))
    assert engine.view()["hand_sizes"][0] == 1


def test_p8_a_forgotten_mau_mau_lets_the_round_go_on_with_the_card_taking_effect() -> None:
    """P8; SEED l.251-259: „Die Runde ist zu Ende, wenn ein Kind mit einem „Mau Mau!“ seine letzte
    Handkarte ablegt.“ The card stays played and acts; one penalty card; play goes on (docs/rules/pirates.md)."""
    engine = game(2, mau_calls=True)
    down_to(engine, 0, 2)
    ok(engine, play(0, "red-sleeper", "mau"))
    names = ok(engine, play(0, "parrot-1"))  # the last card, no call
    assert "mau_penalty" in names and "round_won" not in names
    view = engine.view()
    assert view["hand_sizes"][0] == 1 and view["round"] == 1 and view["awaiting"] == "choose_color"
    ok(engine, wish(0, "blue"))
    ok(engine, play(1, "blue-pirate-5"))
    assert "round_won" in ok(engine, play(0, "blue-pirate-6", "mau-mau"))


def test_p8_the_wrong_call_counts_as_forgotten_and_an_early_call_costs_nothing() -> None:
    """P8; SEED l.257-259: „Vergisst ein Kind „Mau!“ bzw. „Mau Mau!“ zu rufen“ (only forgetting is punished)."""
    engine = game(2, mau_calls=True)
    assert "mau_penalty" not in ok(engine, play(0, "red-pirate-3", "mau-mau"))  # four cards left
    down_to(engine, 0, 2)
    assert "mau_penalty" in ok(engine, play(engine.current, "red-sleeper", "mau-mau"))


def test_p8_calls_are_ignored_when_the_variant_is_off() -> None:
    """P8; docs/rulings.md P8: „Mau calls (off unless switched on)“."""
    engine = game(2)
    down_to(engine, 0, 1)
    names = ok(engine, play(0, "blue-bottle"))
    assert names[0] == "round_won" and "mau_penalty" not in names and "draw_debt" not in names
    assert refused(game(2), play(0, "red-pirate-3", "woof")) == "wrong_action"


def test_p8_the_table_offers_the_right_call_and_a_forgetful_table_also_forgets() -> None:
    """P8; SEED l.249-255: the calls „Mau!“ and „Mau Mau!“."""
    calls, forgotten = set(), 0
    for seed in range(30):
        table = PiratesTable(2, {"mau_calls": True}, seed)
        table.forgetful = seed % 2 == 1
        rng = random.Random(seed)
        while not table.over:
            decision = table.decision()
            for action in decision.actions:
                if action["type"] == "play":
                    held = len(table.hand(action["player"]))
                    if action.get("call"):
                        calls.add((held, action["call"]))
                    elif held <= 2:
                        forgotten += 1
                        assert table.forgetful
            result = table.act(rng.choice(decision.actions))
            assert isinstance(result, Outcome) and not table.violations()
    assert calls == {(2, "mau"), (1, "mau-mau")} and forgotten > 0


# -- P9 leaving out special types -------------------------------------------------------------------
def test_p9_left_out_types_are_not_in_the_deck() -> None:
    """P9; SEED l.241-245: „eine oder mehrere Sonderkartentypen aussortiert“."""
    engine = Pirates(2, {"leave_out": ["parrot", "ship"]})
    assert engine.view()["stack"] == 52 - 8 - 10
    assert refused(engine, {"type": "start_card", "card": "parrot-1"}) == "unknown_card"
    ok(engine, {"type": "start_card", "card": "red-pirate-1"})
    assert refused(engine, play(0, "red-ship")) == "unknown_card"
    table = PiratesTable(2, {"leave_out": ["parrot", "ship", "bottle", "sleeper"]}, 1)
    assert sorted(table.deck()) == sorted(c for c in CARDS if "pirate" in c)


@pytest.mark.parametrize("options, message", [
    ({"leave_out": "parrot"}, "leave_out"),
    ({"leave_out": ["joker"]}, "leave_out"),
    ({"wins_needed": 0}, "wins_needed"),
    ({"wins_needed": True}, "wins_needed"),
    ({"mau_calls": "yes"}, "mau_calls"),
    ({"first": 3}, "first"),
    ({"pirates": 1}, "no option"),
])
def test_bad_options_are_one_clear_line(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        Pirates(3, options)


@pytest.mark.parametrize("players", [1, 5, "3", True])
def test_two_to_four_players(players: Any) -> None:
    """SEED l.43: „für 2 - 4 Kinder“."""
    with pytest.raises(OptionsError, match="2 to 4 players"):
        Pirates(players)


# -- P10 reshuffle ------------------------------------------------------------------------------------
def test_p10_the_pile_but_its_top_becomes_the_stack_as_soon_as_the_last_card_is_drawn() -> None:
    """P10/F10; SEED l.123-129: „Achtung: Die oberste Karte des Ablagestapels wird nicht untergemischt,
    sondern bleibt liegen.“"""
    engine = game(2, "red-pirate-1")
    for seat, n in ((0, 2), (1, 3), (0, 4)):
        ok(engine, play(seat, f"red-pirate-{n}"))
    seat = 1
    while engine.view()["stack"] > 1:
        ok(engine, draw(seat))
        ok(engine, pass_(seat))
        seat = 1 - seat
    assert ok(engine, draw(seat)) == ["drew", "reshuffle"]
    view = engine.view()
    assert (view["stack"], view["pile_size"], view["top"]) == (3, 1, "red-pirate-4")
    ok(engine, pass_(seat))
    ok(engine, play(1 - seat, "red-pirate-2"))  # back from the reshuffled pile
    assert engine.view()["top"] == "red-pirate-2"


def test_p10_with_nothing_to_draw_the_turn_passes() -> None:
    """P10/F10: „If the pile has nothing to give, later draws take nothing“ (docs/rulings.md F10)."""
    engine = game(2)
    seat = 0
    while engine.view()["stack"]:
        ok(engine, draw(seat))
        ok(engine, pass_(seat))
        seat = 1 - seat
    sizes = engine.view()["hand_sizes"]
    assert ok(engine, draw(seat)) == ["drew"]
    assert engine.view()["hand_sizes"] == sizes and engine.view()["current"] == 1 - seat


def test_p10_the_table_reshuffles_with_the_referee() -> None:
    """P10; SEED l.123-129: the virtual table reshuffles its own pile when the referee says so."""
    reshuffles = 0
    for seed in range(40):
        table = PiratesTable(4, {}, seed)
        rng = random.Random(seed)
        while not table.over:
            result = table.act(rng.choice(table.decision().actions))
            if "reshuffle" in result.names:
                reshuffles += 1
                assert table.violations() == []
                assert table.pile() == [table.referee.view()["top"]] or "new_round" in result.names
    assert reshuffles >= 10


# -- persistence, replay, robustness ------------------------------------------------------------------
def test_view_has_exactly_the_contract_keys_and_is_json() -> None:
    view = game(3).view()
    assert VIEW_KEYS <= set(view)
    assert json.loads(json.dumps(view)) == view


def test_json_round_trip_and_replay_rebuild_the_same_state() -> None:
    for engine in midgame_states(40, options_of=lambda s: {"mau_calls": s % 2 == 0, "leave_out": ["ship"] * (s % 3 == 0)}):
        text = engine.to_json()
        assert Pirates.from_json(text).to_json() == text
        assert Pirates.replay(engine.players, engine.options, engine.log).to_json() == text


JUNK: list[Any] = [
    None, [], (), 3, "play", b"x", {"type": 3}, {"type": None}, {"type": []}, {"type": {}},
    {"type": "play"}, {"type": "play", "player": 0}, {"type": "play", "player": 0, "card": None},
    {"type": "play", "player": 0, "card": ["red-pirate-3"]}, {"type": "play", "player": 0, "card": {"a": 1}},
    {"type": "play", "player": 2**80, "card": "red-pirate-3"}, {"type": "play", "player": -1, "card": "red-pirate-3"},
    {"type": "play", "player": True, "card": "red-pirate-3"}, {"type": "play", "player": 0.0, "card": "red-pirate-3"},
    {"type": "play", "player": 0, "card": "red-pirate-3", "call": ["mau"]},
    {"type": "play", "player": 0, "card": "red-pirate-3", "call": 7},
    {"type": "play", "player": 0, "card": "joker-1"}, {"type": "play", "player": 0, "card": "family-1-mother"},
    {"type": "play", "player": 0, "card": "police-9"}, {"type": "play", "player": 0, "card": 10**30},
    {"type": "draw", "player": "0"}, {"type": "pass", "player": 0}, {"type": "choose_color", "player": 0, "color": 5},
    {"type": "start_card", "card": []}, {"type": "start_card", "card": "parrot-9"},
    {"type": "hang", "player": 0, "ear": "left", "card": "red-1"}, {"type": "roll", "player": 0, "face": "cat"},
    {"player": 0}, {}, float("nan"), {"type": "play", "player": 0, "card": float("nan")},
]


@pytest.mark.parametrize("junk", JUNK, ids=repr)
def test_junk_never_raises_and_changes_nothing(junk: Any) -> None:
    for engine in (Pirates(3), game(3), game(2, mau_calls=True)):
        refused(engine, junk)
        assert engine.would_accept(junk) is False


def test_a_rejection_leaves_the_state_byte_identical_in_every_state() -> None:
    probes = [play(p, c) for p in range(4) for c in ("red-pirate-3", "parrot-2", "blue-bottle", "joker-1")]
    probes += [draw(p) for p in range(4)] + [pass_(p) for p in range(4)] + [wish(1, "pink")]
    for engine in midgame_states(30):
        for action in probes:
            before = engine.to_json()
            result = engine.apply(action)
            if isinstance(result, Rejection):
                assert engine.to_json() == before
            else:
                engine = Pirates.from_json(before)  # accepted: continue from the old state


def candidates(engine: Pirates) -> list[dict[str, Any]]:
    """Every action worth probing now: all cards by every seat with every call, and the rest."""
    acts: list[dict[str, Any]] = []
    for p in range(engine.players):
        for card in list(CARDS) + ["joker-1"]:
            for call in (None, "mau", "mau-mau", "woof"):
                acts.append(play(p, card, call))
        acts += [draw(p), pass_(p), wish(p, "blue"), wish(p, "pink")]
    acts += [{"type": "start_card", "card": c} for c in ("red-pirate-1", "red-ship", "joker-1")]
    return acts


def edge_states(engine: Pirates) -> list[str]:
    """``engine`` as JSON, and as it would be with a stack of 0 or 1 card and with a bottle-post debt due."""
    data = engine.to_dict()
    texts = [json.dumps(data)]
    for key, value in (("stack", 0), ("stack", 1), ("pending", 2)):
        texts.append(json.dumps({**data, "state": {**data["state"], key: value}}))
    return texts


def test_the_fast_lane_agrees_with_the_generic_referee() -> None:
    """Pirates.apply takes a shortcut for the turns of a round; it must accept and do exactly what the generic path does."""
    for engine in midgame_states(30, options_of=lambda s: {"mau_calls": s % 2 == 1}):
        for n, text in enumerate(edge_states(engine)):
            every = candidates(engine)
            for action in every[n::4] + [a for a in every if a["type"] != "play"]:
                fast, slow = Pirates.from_json(text), Pirates.from_json(text)
                a, b = fast.apply(action), Engine.apply(slow, action)
                assert type(a) is type(b), action
                if isinstance(a, Rejection):
                    assert a.code == b.code
                else:
                    assert list(a.events) == list(b.events)
                assert fast.to_json() == slow.to_json()


def test_legal_actions_are_what_the_referee_accepts() -> None:
    for engine in midgame_states(25, options_of=lambda s: {"mau_calls": s % 2 == 1}):
        legal = engine.legal_actions()
        assert all(engine.would_accept(a) for a in legal)
        for action in candidates(engine):  # every accepted action is listed (calls only where they matter)
            if engine.would_accept(action):
                assert {k: v for k, v in action.items() if k != "call"} in legal, action


# -- the virtual table and self-play -------------------------------------------------------------------
MAX_ACTIONS = 4000  # the stated bound: no game of these options has taken more than about 1,600


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_self_play_never_breaks_an_invariant_and_every_game_ends(bot: str) -> None:
    """A few hundred seeds, 2-4 players, random options; every offered action accepted, every card placed."""
    longest = 0
    for seed in range(300):
        rng = random.Random(seed)
        options = {
            "mau_calls": rng.random() < 0.5,
            "wins_needed": rng.randint(1, 3),
            "leave_out": rng.sample(["ship", "bottle", "sleeper", "parrot"], rng.randint(0, 4)),
            "first": 0,
        }
        players = rng.randint(2, 4)
        options["first"] = rng.randrange(players)
        table = PiratesTable(players, options, seed)
        table.forgetful = rng.random() < 0.3
        bots = [(RandomBot if bot == "random" else GreedyBot)(random.Random(seed * 7 + s)) for s in range(players)]
        actions = 0
        while not table.over:
            decision = table.decision()
            assert decision.actions, "nothing to do before the game is over"
            who = decision.seat
            action = decision.actions[0] if who is None else bots[who].choose(table, decision)
            result = table.act(action)
            assert isinstance(result, Outcome), f"seed {seed}: {action} refused: {result}"
            assert table.violations() == [], f"seed {seed}, action {actions}"
            actions += 1
            assert actions < MAX_ACTIONS, f"seed {seed} did not end"
        assert table.referee.view()["winners"]
        assert table.decision().actions == []
        longest = max(longest, actions)
    assert longest > 20


def test_self_play_is_the_same_for_the_same_seed() -> None:
    def finished(seed: int) -> str:
        table = PiratesTable(3, {"mau_calls": True}, seed)
        rng = random.Random(seed)
        while not table.over:
            table.act(rng.choice(table.decision().actions))
        return table.referee.to_json()

    assert finished(5) == finished(5) != finished(6)


def test_the_table_hands_match_the_referees_counts_and_every_card_is_somewhere() -> None:
    table = PiratesTable(4, {}, 11)
    assert sorted(table.deck()) == sorted(CARDS)
    places = dict(table.placements())
    assert len(places) == 52 and sum(1 for w in places.values() if w == "hand:3") == 5
    table.act(table.decision().actions[0])
    assert table.counts_disagree() == []
    assert table.pile() == [table.referee.view()["top"]]
    assert len(table.stack()) == 31 and len(table.hand(0)) == 5


def test_counts_disagree_notices_a_table_out_of_step() -> None:
    table = PiratesTable(2, {}, 3)
    table.act(table.decision().actions[0])
    table.referee.apply(draw(0))  # the referee alone: the table did not follow
    problems = table.counts_disagree()
    assert any("hand sizes" in p for p in problems) and any("stack" in p for p in problems)


# -- greedy preferences -----------------------------------------------------------------------------------
def table_with(hands: list[list[str]], top: str, players: int = 2, **options: Any) -> PiratesTable:
    """A table whose hands are set by hand (the stack keeps the rest)."""
    table = PiratesTable(players, options, 0)
    rest = [c for c in table.deck() if c != top and all(c not in h for h in hands)]
    table._hands = [sum(BITS[c] for c in h) for h in hands]
    table._stack = [BITS[c] for c in (*rest, top)]
    table.act({"type": "start_card", "card": top})
    assert table.violations() == []
    return table


def best(table: PiratesTable) -> dict[str, Any]:
    decision = table.decision()
    return max(decision.actions, key=table.preference)


def test_greedy_passes_the_bottle_post_debt_on() -> None:
    table = table_with([["red-bottle", "red-pirate-5", "blue-pirate-1", "green-pirate-1", "yellow-pirate-1"],
                        ["blue-bottle", "green-pirate-2", "yellow-pirate-2", "blue-pirate-2", "green-pirate-3"]],
                       "red-pirate-2")
    assert best(table)["card"] == "red-bottle"  # the next seat gets the debt
    table.act(best(table))
    assert best(table)["card"] == "blue-bottle"  # rather than drawing two


def test_greedy_keeps_the_parrot_and_wishes_the_colour_it_holds() -> None:
    table = table_with([["parrot-1", "red-pirate-5", "blue-pirate-1", "blue-pirate-4", "blue-pirate-7"],
                        ["green-pirate-2", "yellow-pirate-2", "green-pirate-5", "green-pirate-6", "green-pirate-7"]],
                       "red-pirate-2")
    assert best(table)["card"] == "red-pirate-5"
    table.act(play(0, "parrot-1"))
    assert best(table) == wish(0, "blue")


def test_greedy_makes_the_call() -> None:
    table = table_with([["red-pirate-5", "red-pirate-6", "red-pirate-7", "red-pirate-8", "blue-pirate-7"],
                        ["red-pirate-3", "red-pirate-4", "red-pirate-9", "green-pirate-6", "green-pirate-7"]],
                       "red-pirate-2", mau_calls=True)
    table.forgetful = True
    for card in ("red-pirate-5", "red-pirate-3", "red-pirate-6", "red-pirate-4", "red-pirate-7", "red-pirate-9"):
        table.act(play(table.referee.current, card))
    decision = table.decision()
    assert play(0, "red-pirate-8") in decision.actions  # a forgetful table offers the forgotten call
    assert best(table) == play(0, "red-pirate-8", "mau")


def test_a_stray_card_the_referee_accepted_is_taken_from_wherever_it_lay() -> None:
    """The box accepts any card it has not seen elsewhere; the table keeps every count the referee keeps."""
    table = PiratesTable(3, {}, 4)
    stray = next(c for c in table.hand(1) if CARDS[c][1].isdigit())
    assert isinstance(table.act({"type": "start_card", "card": stray}), Outcome)  # from a hand, not the stack
    assert table.violations() == [] and table.pile() == [stray]
    colour = CARDS[stray][0]
    from_stack = next(c for c in table.stack() if CARDS[c][0] == colour and CARDS[c][1].isdigit())
    assert isinstance(table.act(play(0, from_stack)), Outcome)
    assert table.violations() == []
    from_other = next((c for c in table.hand(2) if CARDS[c][0] == colour and CARDS[c][1].isdigit()), None)
    if from_other is not None:
        assert isinstance(table.act(play(1, from_other)), Outcome)
        assert table.violations() == []


@pytest.mark.parametrize("mau_calls", [True, False])
def test_the_offered_plays_carry_the_call_the_mau_variant_asks_for(mau_calls: bool) -> None:
    """P8 (docs/rulings.md; rulebook lines 247-259): with one card left after it a play may say "mau", with none "mau-mau"."""
    seen = set()
    for seed in range(20):
        table = PiratesTable(2, {"mau_calls": mau_calls}, seed)
        bots = [RandomBot(random.Random(seed * 7 + s)) for s in range(2)]
        while not table.over:
            engine, decision = table.referee, table.decision()
            if engine.awaiting in ("play", "after_draw"):
                left = engine.view()["hand_sizes"][engine.current] - 1
                due = ("mau" if left else "mau-mau") if mau_calls and left < 2 else None
                plays = [a for a in engine.legal_actions() if a["type"] == "play"]
                assert {a.get("call") for a in plays} <= {None, due}
                assert sum(1 for a in plays if a.get("call") == due) == (len(plays) // 2 if due else len(plays))
                seen.add(due)
            who = decision.seat
            table.act(decision.actions[0] if who is None else bots[who].choose(table, decision))
    assert seen == ({None, "mau", "mau-mau"} if mau_calls else {None})

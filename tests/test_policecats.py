"""Policecats: the referee (rulings C1–C10) and its virtual table.

Rule tests cite the ruling of docs/rulings.md and the German rulebook,
``seeds/003_dee9562dab4e2222.txt`` (SEED below), by line and a short phrase.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import OptionsError, Outcome, Rejection
from controller.games.policecats import CAT_CARDS, POLICE_CARDS, Policecats
from controller.scenario import run_scenario
from controller.table.policecats import PolicecatsTable
from tests.conftest import ALL_CARD_IDS, SCENARIO_DIR
from tests.referee import ok, refused

SEED = "seeds/003_dee9562dab4e2222.txt"
SCENARIOS = sorted(SCENARIO_DIR.glob("policecats-*.json"))
#: No game may take more accepted actions than this (a whole basic game averages about 130).
MAX_ACTIONS = 1000


def m(n: int) -> str:
    return f"family-{n}-mother"


def f(n: int) -> str:
    return f"family-{n}-father"


def k(n: int) -> str:
    return f"family-{n}-kittens"


def new(players: int = 3, **options: Any) -> Policecats:
    return Policecats(players, options)


def roll(engine: Policecats, face: str) -> list[str]:
    return ok(engine, {"player": engine.current, "type": "roll", "face": face})


def cat(engine: Policecats, card: str) -> list[str]:
    """The current player rolls the cat and reveals ``card``."""
    seat = engine.current
    roll(engine, "cat")
    return ok(engine, {"player": seat, "type": "reveal", "card": card})


def act(engine: Policecats, kind: str, **fields: Any) -> list[str]:
    return ok(engine, {"player": engine.current, "type": kind, **fields})


def tableau(engine: Policecats) -> list[list[str]]:
    return engine.view()["tableau"]


# -- scenario files -------------------------------------------------------------------


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario_file(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == "policecats"
    run_scenario(data)


def test_every_ruling_and_possible_rejection_has_a_cited_scenario() -> None:
    names = " ".join(p.name for p in SCENARIOS)
    for n in range(1, 11):
        assert f"-c{n}-" in names
    for code in ("not-your-turn", "wrong-action", "unknown-card", "card-elsewhere", "not-eligible", "game-over"):
        assert f"policecats-reject-{code}.json" in names
    for path in SCENARIOS:
        assert "seeds/003_" in json.loads(path.read_text(encoding="utf-8"))["cite"], path.name


# -- options and setup ----------------------------------------------------------------------


def test_basic_game_refuses_two_players_naming_the_ranges() -> None:
    """C10; SEED line 19: 'für 3 - 5 Spieler', line 23: 'Katzenpolizei-Alarm!“ ab 2 Spielern'."""
    with pytest.raises(OptionsError, match="3 to 5 players .*alarm variant for 2 to 5"):
        Policecats(2, {})
    assert Policecats(2, {"variant": "alarm"}).view()["stack"] == 27
    for players in (1, 6, "3", True):
        with pytest.raises(OptionsError):
            Policecats(players, {"variant": "alarm"})


@pytest.mark.parametrize("options, message", [
    ({"variant": "expert"}, "'basic' or 'alarm'"),
    ({"die": ["cat"] * 5}, "six faces"),
    ({"die": ["cat"] * 5 + ["bird"]}, "six faces"),
    ({"die": "cat"}, "six faces"),
    ({"die": ["dog", "dog", "mouse", "mouse", "whistle", "whistle"]}, "needs a cat face"),
    ({"colour": "red"}, "no option 'colour'"),
    ({"first": 3}, "'first'"),
])
def test_bad_options_are_one_clear_line(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message) as caught:
        Policecats(3, options)
    assert "\n" not in str(caught.value)


def test_the_die_defaults_to_three_cats_and_is_configurable() -> None:
    """docs/rulings.md 'Policecats die': 3 cat, 1 dog, 1 mouse, 1 whistle, kept configurable."""
    engine = new()
    assert sorted(engine.options["die"]) == ["cat", "cat", "cat", "dog", "mouse", "whistle"]
    assert new().options["die"] is not engine.options["die"]
    quiet = new(die=["cat", "cat", "cat", "cat", "dog", "dog"])
    assert refused(quiet, {"player": 0, "type": "roll", "face": "whistle"}) == "wrong_action"
    assert [a["face"] for a in quiet.legal_actions()] == ["cat", "dog"]


def test_c1_setup_all_cards_face_down_figure_in_the_centre() -> None:
    """C1; SEED line 79: 'Mischt alle Karten und legt sie als verdeckten Stapel in die Tischmitte'."""
    view = new(4, first=2).view()
    assert (view["stack"], view["police"], view["current"], view["awaiting"]) == (36, None, 2, "roll")
    assert view["tableau"] == [[]] * 4 and view["scores"] == [0] * 4 and view["winners"] == []


# -- turns ------------------------------------------------------------------------------------


def test_only_the_end_of_a_whole_turn_passes_the_die_on() -> None:
    """SEED line 237: 'Anschließend ist der nächste Spieler an der Reihe und würfelt'."""
    engine = new()
    roll(engine, "cat")
    assert (engine.current, engine.awaiting) == (0, "reveal")  # a cat roll is half a turn
    act(engine, "reveal", card=m(1))
    assert (engine.current, engine.awaiting) == (1, "roll")
    roll(engine, "whistle")
    assert (engine.current, engine.awaiting) == (2, "roll")
    cat(engine, f(1))
    roll(engine, "dog")
    assert (engine.current, engine.awaiting) == (0, "give")  # the dog waits for the choice
    act(engine, "give", card=m(1))
    assert (engine.current, engine.awaiting) == (1, "roll")
    roll(engine, "mouse")
    assert (engine.current, engine.awaiting) == (1, "lure")
    act(engine, "lure", card=f(1))
    assert (engine.current, engine.awaiting) == (2, "roll")
    roll(engine, "dog")  # seat 2 has no cat card: nothing happens, the turn is over
    assert (engine.current, engine.awaiting) == (0, "roll")


# -- C2 and C7: the figure --------------------------------------------------------------------


def test_c2_policecat_card_takes_the_figure_and_stays_in_front_of_you() -> None:
    """C2; SEED line 131: 'nimm die Spielfigur zu dir. Hast du die Figur schon, stelle sie zurück'."""
    engine = new()
    assert "policecat_moved" in cat(engine, "police-1")  # seat 0 takes it from the centre
    assert engine.view()["police"] == 0
    cat(engine, "police-2")  # seat 1 takes it from seat 0
    assert engine.view()["police"] == 1
    roll(engine, "dog")  # seat 2: nothing to give
    roll(engine, "mouse")  # seat 0: seat 1 is protected, seat 2 has nothing
    assert "policecat_moved" in cat(engine, "police-3")  # seat 1 holds it: back to the centre
    view = engine.view()
    assert view["police"] is None
    assert view["tableau"] == [["police-1"], ["police-2", "police-3"], []]
    assert view["scores"] == [1, 2, 0]


def test_c7_whistle_takes_the_figure_or_returns_it() -> None:
    """C7; SEED line 179: 'Nimm die Figur des Katzenpolizisten zu dir'."""
    engine = new()
    events = roll(engine, "whistle")
    assert "policecat_moved" in events and engine.view()["police"] == 0
    roll(engine, "whistle")
    assert engine.view()["police"] == 1
    roll(engine, "mouse")
    roll(engine, "dog")
    roll(engine, "whistle")
    assert engine.view()["police"] is None and engine.view()["scores"] == [0, 0, 0]


# -- C3: the running rules --------------------------------------------------------------------


def test_c3_kittens_run_to_a_parent_when_revealed_or_when_the_parent_is() -> None:
    """C3; SEED line 187: 'Katzenkinder laufen immer sofort zu einer passenden Elternkatze'."""
    engine = new()
    assert "kittens_ran" not in cat(engine, k(1))  # no parent out: they stay
    assert tableau(engine)[0] == [k(1)]
    assert "kittens_ran" in cat(engine, f(1))
    assert tableau(engine) == [[], [f(1), k(1)], []]
    cat(engine, m(2))
    assert "kittens_ran" in cat(engine, k(2))
    assert tableau(engine) == [[], [f(1), k(1)], [k(2), m(2)]]


def test_c3_second_parent_changes_nothing_unless_it_completes_the_family() -> None:
    """C3; SEED line 203: 'die zweite Elternkatze wird aufgedeckt, passiert nichts'."""
    engine = new()
    cat(engine, m(1))
    cat(engine, k(1))
    events = cat(engine, f(1))
    assert "kittens_ran" not in events and "family_complete" not in events
    assert tableau(engine) == [[k(1), m(1)], [], [f(1)]]
    cat(engine, m(2))
    cat(engine, k(2))  # seat 1 reveals: the kittens run to seat 0
    cat(engine, f(3))
    assert "family_complete" in cat(engine, f(2))  # seat 0: both parents and the kittens
    assert engine.view()["families"] == [[2], [], []]


def test_c3_both_parents_out_the_player_at_turn_decides() -> None:
    """C3; SEED line 195: 'Liegen beide Elternkatzen aus, entscheidet der Spieler, der an der Reihe ist'."""
    engine = new(4)
    cat(engine, m(1))
    cat(engine, f(1))
    cat(engine, k(1))
    assert (engine.awaiting, engine.current) == ("send_kittens", 2)
    assert engine.legal_actions() == [
        {"player": 2, "type": "send_kittens", "to": 0}, {"player": 2, "type": "send_kittens", "to": 1},
    ]
    for seat in (2, 3):  # neither holds a parent
        assert refused(engine, {"player": 2, "type": "send_kittens", "to": seat}) == "not_eligible"
    for bad in (4, -1, True, "1", None, 1.0):
        assert refused(engine, {"player": 2, "type": "send_kittens", "to": bad}) == "wrong_action"
    assert refused(engine, {"player": 1, "type": "send_kittens", "to": 1}) == "not_your_turn"
    assert "kittens_ran" in act(engine, "send_kittens", to=1)
    assert tableau(engine) == [[m(1)], [f(1), k(1)], [], []]
    assert (engine.awaiting, engine.current) == ("roll", 3)


def test_c3_a_parent_holder_may_keep_the_kittens() -> None:
    """C3; SEED line 199: 'Hat er selbst eine passende Elternkatze, dürfen die Katzenkinder bei ihm bleiben'."""
    engine = new()
    cat(engine, m(1))
    cat(engine, f(1))
    roll(engine, "dog")  # seat 2, nothing to give
    cat(engine, k(1))  # seat 0 holds the mother
    assert engine.awaiting == "send_kittens"
    act(engine, "send_kittens", to=0)
    assert tableau(engine) == [[k(1), m(1)], [f(1)], []]
    assert engine.view()["scores"] == [3, 1, 0]


def test_c3_kittens_revealed_to_both_parents_with_one_player_complete_the_family() -> None:
    """C3, C4; SEED line 187: 'sobald sie selbst aufgedeckt werden', line 215: 'Ist eine Katzenfamilie komplett'."""
    engine = new()
    cat(engine, m(1))
    roll(engine, "dog")
    roll(engine, "dog")
    cat(engine, f(1))
    events = cat(engine, k(1))  # seat 1 reveals them; they run to seat 0
    assert "kittens_ran" in events and "family_complete" in events
    assert engine.view()["families"] == [[1], [], []] and tableau(engine) == [[], [], []]


def test_c3_parentless_kittens_join_a_parent_given_to_their_player() -> None:
    """C3 last sentence; SEED line 209: 'laufen bereits vorhandene Katzenkinder mit'.

    The running rules never leave parentless kittens beside a face-up parent
    (see docs/rules/policecats.md), so the rule is checked on a state built
    by hand: seat 0 must give the mother to seat 1, where her kittens lie.
    """
    live = new()
    data = live.to_dict()
    data["state"].update(phase="give", seen=sorted([m(1), k(1)]), where={m(1): 0, k(1): 1})
    engine = Policecats.from_dict(data)
    assert "kittens_ran" in act(engine, "give", card=m(1))
    assert tableau(engine) == [[], [k(1), m(1)], []]


# -- C4: complete families --------------------------------------------------------------------


def test_c4_complete_family_is_safe_from_dog_and_mouse() -> None:
    """C4; SEED line 219: 'können weder vom Hund vertrieben noch von der Maus angelockt werden'."""
    engine = new()
    cat(engine, m(1))
    cat(engine, m(2))
    cat(engine, k(1))  # seat 2: runs to seat 0
    assert "family_complete" in cat(engine, f(1))
    assert engine.view()["families"] == [[1], [], []] and engine.view()["scores"] == [4, 1, 0]
    roll(engine, "mouse")  # seat 1: nothing to lure from seat 0
    assert engine.current == 2 and engine.view()["families"] == [[1], [], []]
    cat(engine, f(3))
    roll(engine, "dog")  # seat 0 has only the family: nothing happens
    assert engine.current == 1
    roll(engine, "mouse")
    assert engine.awaiting == "lure"
    assert refused(engine, {"player": 1, "type": "lure", "card": k(1)}) == "not_eligible"
    act(engine, "lure", card=f(3))
    cat(engine, m(4))
    roll(engine, "dog")  # seat 0: still nothing to give
    roll(engine, "dog")  # seat 1 gives
    assert refused(engine, {"player": 1, "type": "give", "card": f(1)}) == "card_elsewhere"
    act(engine, "give", card=m(2))
    assert engine.view()["families"] == [[1], [], []]


def test_c4_a_lured_parent_completes_the_family_of_the_lurer() -> None:
    """C4; SEED line 209: 'einer Maus angelockt, laufen bereits vorhandene Katzenkinder mit'."""
    engine = new()
    cat(engine, f(1))
    cat(engine, k(1))  # runs to seat 0
    cat(engine, m(1))  # seat 2: nothing happens
    roll(engine, "mouse")  # seat 0 lures the mother
    assert "family_complete" in act(engine, "lure", card=m(1))
    assert engine.view()["families"] == [[1], [], []] and tableau(engine) == [[], [], []]


# -- C5: the dog --------------------------------------------------------------------------------


def test_c5_dog_gives_a_parent_with_its_kittens_to_the_next_player() -> None:
    """C5; SEED line 151: 'gib sie (ggf. samt dazugehöriger Katzenkinder) an den nächsten Spieler weiter'."""
    engine = new()
    roll(engine, "dog")  # seat 0 has nothing: 'Hast du keine Katzenkarte vor dir liegen, passiert nichts'
    assert engine.current == 1
    cat(engine, m(1))
    cat(engine, k(1))
    cat(engine, k(2))
    roll(engine, "dog")  # seat 1
    assert sorted(a["card"] for a in engine.legal_actions()) == [m(1)]
    assert refused(engine, {"player": 1, "type": "give", "card": k(1)}) == "not_eligible"
    act(engine, "give", card=m(1))
    assert tableau(engine) == [[k(2)], [], [k(1), m(1)]]


def test_c5_the_last_seat_gives_to_the_first_and_parentless_kittens_go_alone() -> None:
    """C5; SEED line 145: 'zwei Katzenkinder, die noch ohne Elternkatze sind'."""
    engine = new(first=2)
    cat(engine, k(3))
    cat(engine, "police-1")
    roll(engine, "whistle")
    roll(engine, "dog")  # seat 2 gives to seat 0
    act(engine, "give", card=k(3))
    assert tableau(engine) == [[k(3), "police-1"], [], []]


def test_c5_policecat_cards_are_never_given() -> None:
    """C5; SEED line 149: 'Suche von den vor dir liegenden Katzenkarten eine beliebige aus'."""
    engine = new()
    cat(engine, "police-1")  # seat 0 takes the figure
    roll(engine, "whistle")  # seat 1 takes it away
    roll(engine, "dog")  # seat 2: nothing
    events = roll(engine, "dog")  # seat 0: only a policecat card, which is no cat card
    assert "nothing_happens" in events and engine.current == 1
    roll(engine, "dog")  # seat 1: holds the figure and nothing else
    roll(engine, "dog")  # seat 2
    cat(engine, m(1))  # seat 0
    roll(engine, "mouse")  # seat 1: lures the mother
    act(engine, "lure", card=m(1))
    cat(engine, m(2))  # seat 2
    cat(engine, m(3))  # seat 0
    roll(engine, "whistle")  # seat 1 returns the figure
    roll(engine, "mouse")  # seat 2 lures from seat 1
    act(engine, "lure", card=m(1))
    roll(engine, "dog")  # seat 0 gives, but not the policecat card
    assert engine.legal_actions() == [{"player": 0, "type": "give", "card": m(3)}]
    assert refused(engine, {"player": 0, "type": "give", "card": "police-1"}) == "not_eligible"


# -- C6: the mouse --------------------------------------------------------------------------------


def test_c6_mouse_lures_from_any_other_player_with_the_kittens() -> None:
    """C6; SEED line 169: 'zwei Katzenkinder samt dazugehöriger Elternkatze von einem beliebigen Spieler zu dir'."""
    engine = new(4)
    cat(engine, m(1))
    cat(engine, k(1))  # runs to seat 0
    cat(engine, k(2))
    roll(engine, "mouse")  # seat 3
    assert sorted(a["card"] for a in engine.legal_actions()) == [m(1), k(2)]
    assert refused(engine, {"player": 3, "type": "lure", "card": k(1)}) == "not_eligible"
    assert refused(engine, {"player": 3, "type": "lure", "card": k(9)}) == "card_elsewhere"
    act(engine, "lure", card=m(1))
    assert tableau(engine) == [[], [], [k(2)], [k(1), m(1)]]
    roll(engine, "mouse")  # seat 0 lures the parentless kittens
    act(engine, "lure", card=k(2))
    assert tableau(engine)[0] == [k(2)]


def test_c6_you_cannot_lure_your_own_cat_and_nothing_to_lure_passes_the_turn() -> None:
    """C6; SEED line 171: 'von einem beliebigen Spieler zu dir' (another player's cat)."""
    engine = new()
    cat(engine, m(1))  # seat 0
    cat(engine, m(2))  # seat 1
    cat(engine, m(3))  # seat 2
    roll(engine, "mouse")  # seat 0
    assert refused(engine, {"player": 0, "type": "lure", "card": m(1)}) == "card_elsewhere"
    act(engine, "lure", card=m(2))
    assert tableau(engine) == [[m(1), m(2)], [], [m(3)]]
    engine = new()
    assert "nothing_happens" in roll(engine, "mouse")
    assert (engine.current, engine.awaiting) == (1, "roll")


# -- C8: the figure protects ------------------------------------------------------------------------


def test_c8_figure_holder_cannot_lose_cats_but_their_kittens_still_run() -> None:
    """C8; SEED line 225: 'sind deine Katzen geschützt'; line 231: 'Katzenkinder ohne Elternkatze laufen trotzdem'."""
    engine = new()
    cat(engine, k(1))  # seat 0
    cat(engine, m(3))  # seat 1
    cat(engine, m(4))  # seat 2
    roll(engine, "whistle")  # seat 0 holds the figure
    roll(engine, "mouse")  # seat 1 may lure only from seat 2
    assert engine.legal_actions() == [{"player": 1, "type": "lure", "card": m(4)}]
    assert refused(engine, {"player": 1, "type": "lure", "card": k(1)}) == "not_eligible"
    act(engine, "lure", card=m(4))
    assert "kittens_ran" in cat(engine, f(1))  # seat 2: the protected kittens run all the same
    assert tableau(engine) == [[], [m(3), m(4)], [f(1), k(1)]]
    cat(engine, m(5))  # seat 0, still holding the figure
    roll(engine, "dog")  # seat 1 gives to seat 2
    act(engine, "give", card=m(3))
    roll(engine, "mouse")  # seat 2: seat 0 is protected, so only seat 1's mother
    assert engine.legal_actions() == [{"player": 2, "type": "lure", "card": m(4)}]
    act(engine, "lure", card=m(4))
    events = roll(engine, "dog")  # seat 0 holds the figure: the dog cannot take its mother
    assert "nothing_happens" in events
    assert (engine.current, tableau(engine)[0], engine.view()["police"]) == (1, [m(5)], 0)


# -- C9: the end ----------------------------------------------------------------------------------------


def test_c9_game_ends_when_the_stack_is_empty_and_most_cats_win() -> None:
    """C9; SEED line 241: 'Das Spiel endet, sobald der Stapel in der Mitte aufgebraucht ist'."""
    engine = new()
    order = [card for card in CAT_CARDS if "kittens" not in card] + list(POLICE_CARDS[:-1])
    order += [card for card in CAT_CARDS if "kittens" in card]  # each runs: both parents lie out
    order.append(POLICE_CARDS[-1])
    for card in order:
        assert not engine.over
        events = cat(engine, card)
        while engine.awaiting == "send_kittens":  # keep them if you can, else the lower seat
            act(engine, "send_kittens", to=engine.legal_actions()[0]["to"])
    assert engine.over and "game_over" in events
    view = engine.view()
    assert view["stack"] == 0 and view["current"] is None and view["awaiting"] == "over"
    best = max(view["scores"])
    assert view["winners"] == [s for s, score in enumerate(view["scores"]) if score == best]
    depicted = 27 // 3 * 4 + 9 + 1  # every family, every policecat card, the figure
    assert sum(view["scores"]) == depicted - (view["police"] is None)


def test_c9_scores_count_parents_kittens_policecats_families_and_the_figure() -> None:
    """C9; SEED line 245: 'Elternkatzen, Katzenkinder und Polizeikatzen'; line 249: 'darf er diese ebenfalls mitzählen'."""
    engine = new()
    cat(engine, m(1))
    cat(engine, k(2))
    cat(engine, "police-1")
    assert engine.view()["scores"] == [1, 2, 2]
    cat(engine, k(1))  # runs to seat 0
    assert engine.view()["scores"] == [3, 2, 2]


def test_c9_a_tie_gives_several_winners() -> None:
    """C9; SEED line 253: 'Bei Gleichstand gibt es mehrere Gewinner'."""
    engine = new()
    for base in (1, 4, 7):  # each seat completes three families
        for card in (m(base), m(base + 1), m(base + 2), f(base), k(base + 1), k(base + 2),
                     k(base), f(base + 1), f(base + 2)):
            cat(engine, card)
    assert engine.view()["families"] == [[1, 4, 7], [2, 5, 8], [3, 6, 9]]
    for card in POLICE_CARDS[:8]:  # the figure goes round and ends with seat 1
        cat(engine, card)
    roll(engine, "whistle")  # seat 2 takes it
    roll(engine, "dog")  # seat 0: families and policecat cards cannot go
    roll(engine, "dog")  # seat 1
    cat(engine, "police-9")  # seat 2 holds the figure: back to the centre
    view = engine.view()
    assert view["over"] and view["police"] is None
    assert view["scores"] == [15, 15, 15] and view["winners"] == [0, 1, 2]


def test_c9_the_last_card_is_resolved_before_the_end() -> None:
    """C9; SEED line 241: 'aufgebraucht ist und alle Karten verteilt sind' (the kittens find a parent first)."""
    engine = new()
    rest = [c for c in CAT_CARDS + POLICE_CARDS if c not in (m(1), f(1), k(1))]
    cat(engine, m(1))  # seat 0
    cat(engine, f(1))  # seat 1
    for card in rest:
        cat(engine, card)
        while engine.awaiting == "send_kittens":
            act(engine, "send_kittens", to=engine.legal_actions()[0]["to"])
    cat(engine, k(1))  # the very last card: both parents are out
    assert engine.view()["stack"] == 0 and engine.awaiting == "send_kittens" and not engine.over
    assert "game_over" in act(engine, "send_kittens", to=1)
    assert engine.over and k(1) in tableau(engine)[1]


# -- C10: the alarm variant ----------------------------------------------------------------------------


def test_c10_alarm_policecats_lie_on_the_track_and_the_whistle_moves_the_figure() -> None:
    """C10; SEED line 263: 'Sortiert vor Spielbeginn alle Katzenpolizeikarten aus'; line 275: 'eine Karte auf seinem Weg weiter'."""
    engine = new(2, variant="alarm")
    assert engine.view()["stack"] == 27 and engine.view()["track"] == 0
    roll(engine, "cat")
    assert refused(engine, {"player": 0, "type": "reveal", "card": "police-1"}) == "card_elsewhere"
    assert all("police" not in a["card"] for a in engine.legal_actions())
    act(engine, "reveal", card=m(1))
    assert "policecat_moved" in roll(engine, "whistle")
    view = engine.view()
    assert view["track"] == 1 and view["police"] is None and view["scores"] == [1, 0]


def test_c10_alarm_figure_protects_nobody() -> None:
    """C10; SEED line 269: 'hat er keine Schutzfunktion'."""
    engine = new(3, variant="alarm")
    cat(engine, m(1))
    roll(engine, "whistle")
    roll(engine, "whistle")
    roll(engine, "whistle")  # seat 0 whistled last: in the basic game it would hold the figure
    roll(engine, "mouse")  # seat 1
    act(engine, "lure", card=m(1))
    roll(engine, "whistle")
    roll(engine, "dog")  # seat 0 has nothing left
    roll(engine, "dog")  # seat 1 whistled two turns ago and still has to give
    assert engine.awaiting == "give"


def test_c10_alarm_ends_when_the_figure_reaches_the_last_card() -> None:
    """C10; SEED line 279: 'sobald der Katzenpolizist die letzte Katzenpolizeikarte erreicht hat'."""
    engine = new(2, variant="alarm")
    cat(engine, k(1))
    for _ in range(8):
        roll(engine, "whistle")
    assert not engine.over and engine.view()["track"] == 8
    assert "game_over" in roll(engine, "whistle")
    view = engine.view()
    assert view["over"] and view["track"] == 9 and view["scores"] == [2, 0] and view["winners"] == [0]
    assert refused(engine, {"player": 0, "type": "roll", "face": "cat"}) == "game_over"


def test_c10_alarm_ends_when_the_stack_is_empty_and_counts_only_cats() -> None:
    """C10; SEED line 281: 'Es gewinnt auch hier der Spieler mit den meisten Katzen' (policecats lie on the track)."""
    engine = new(2, variant="alarm")
    roll(engine, "whistle")
    for card in CAT_CARDS:
        cat(engine, card)
        while engine.awaiting == "send_kittens":
            act(engine, "send_kittens", to=engine.current)
    view = engine.view()
    assert view["over"] and view["stack"] == 0 and view["track"] == 1
    assert sum(view["scores"]) == 27 // 3 * 4  # no policecat card and no figure counts


# -- the referee's contract -----------------------------------------------------------------------------


def test_rejection_precedence() -> None:
    """docs/scenarios.md: game_over, not_your_turn, wrong_action, unknown_card, card_elsewhere, then the rule."""
    engine = new()
    roll(engine, "cat")
    assert refused(engine, {"player": 1, "type": "give", "card": "red-1"}) == "not_your_turn"
    assert refused(engine, {"player": 0, "type": "give", "card": "red-1"}) == "wrong_action"
    assert refused(engine, {"player": 0, "type": "reveal", "card": "red-1"}) == "unknown_card"
    act(engine, "reveal", card="police-1")
    cat(engine, m(1))
    roll(engine, "mouse")
    assert refused(engine, {"player": 2, "type": "lure", "card": "pirate"}) == "unknown_card"
    assert refused(engine, {"player": 2, "type": "lure", "card": m(2)}) == "card_elsewhere"
    assert refused(engine, {"player": 2, "type": "lure", "card": "police-1"}) == "not_eligible"
    assert refused(engine, {"type": "lure", "card": m(1)}) == "wrong_action"


JUNK: list[Any] = [
    None, [], {}, 3, "roll", {"type": 3}, {"type": None}, {"type": []}, {"type": {}},
    {"player": 0}, {"player": 10**30, "type": "roll", "face": "cat"}, {"player": -1, "type": "roll"},
    {"player": True, "type": "roll", "face": "cat"}, {"player": 0.0, "type": "roll", "face": "cat"},
    {"player": 0, "type": "roll"}, {"player": 0, "type": "roll", "face": ["cat"]},
    {"player": 0, "type": "roll", "face": {"cat": 1}}, {"player": 0, "type": "roll", "face": 2**70},
    {"player": 0, "type": "reveal", "card": "red-1"}, {"player": 0, "type": "reveal", "card": ["m"]},
    {"player": 0, "type": "send_kittens", "to": 10**40}, {"player": 0, "type": "send_kittens", "to": None},
    {"player": 0, "type": "give", "card": {"x": 1}}, {"player": 0, "type": "lure", "card": None},
    {"player": 0, "type": "play", "card": "joker-1"}, {"player": [0], "type": "roll", "face": "cat"},
]


def test_junk_never_raises_and_changes_nothing_in_any_phase() -> None:
    """An apply that raises would stop the box; any input is a Rejection or a legal act."""
    table = PolicecatsTable(4, {}, seed=11)
    rng = random.Random(5)
    awaited = set()
    while not table.over:
        engine = table.referee
        awaited.add(engine.awaiting)
        for junk in JUNK + [{"player": engine.current, "type": engine.awaiting, "card": c, "to": c, "face": c}
                            for c in ("red-1", "parrot-2", 10**20, "", "police-0")]:
            before = engine.to_json()
            result = engine.apply(junk)
            assert isinstance(result, Rejection), junk
            assert engine.to_json() == before
        table.act(rng.choice(table.decision().actions))
    for junk in JUNK:
        assert table.referee.apply(junk).code in ("game_over", "wrong_action")
    assert {"roll", "reveal", "give", "lure"} <= awaited


def test_legal_actions_are_exactly_the_accepted_ones() -> None:
    """legal_actions lists what could be tapped; every other card or seat is refused."""
    table = PolicecatsTable(3, {}, seed=2)
    rng = random.Random(2)
    probes = [{"face": face} for face in ("cat", "dog", "mouse", "whistle")]
    probes += [{"card": card} for card in CAT_CARDS + POLICE_CARDS] + [{"to": s} for s in range(3)]
    while not table.over:
        engine = table.referee
        legal = engine.legal_actions()
        accepted = [
            a for a in ({"player": engine.current, "type": engine.awaiting, **p} for p in probes)
            if engine.would_accept(a)
        ]
        assert sorted(map(json.dumps, accepted)) == sorted(map(json.dumps, legal))
        if engine.awaiting == "reveal":
            assert len(legal) == engine.view()["stack"]  # every card not yet seen
        table.act(rng.choice(table.decision().actions))
    assert table.referee.legal_actions() == []


@pytest.mark.parametrize("variant, players", [("basic", 3), ("basic", 5), ("alarm", 2)])
def test_json_round_trip_and_replay_rebuild_every_state(variant: str, players: int) -> None:
    table = PolicecatsTable(players, {"variant": variant}, seed=players)
    rng = random.Random(players)
    while not table.over:
        live = table.referee
        text = live.to_json()
        assert Policecats.from_json(text).to_json() == text
        if len(live.log) % 7 == 0 or live.awaiting == "send_kittens":
            assert Policecats.replay(players, live.options, live.log).to_json() == text
        table.act(rng.choice(table.decision().actions))
    assert Policecats.replay(players, table.referee.options, table.referee.log).to_json() == table.referee.to_json()


# -- the virtual table ------------------------------------------------------------------------------------


def test_table_offers_a_weighted_die_and_the_physical_top_card() -> None:
    table = PolicecatsTable(3, {}, seed=1)
    decision = table.decision()
    assert decision.chance and decision.seat == 0
    assert sorted(a["face"] for a in decision.actions) == ["cat", "cat", "cat", "dog", "mouse", "whistle"]
    top = table.stack[-1]
    table.act({"player": 0, "type": "roll", "face": "cat"})
    assert table.decision().actions == [{"player": 0, "type": "reveal", "card": top}]
    table.act(table.decision().actions[0])
    assert top in table.hand(0) and table.violations() == []
    assert sorted(table.deck()) == sorted(ALL_CARD_IDS[-36:])


def test_table_alarm_keeps_the_policecats_on_the_track() -> None:
    table = PolicecatsTable(2, {"variant": "alarm"}, seed=3)
    places = dict(table.placements())
    assert sorted(c for c, where in places.items() if where == "track") == sorted(POLICE_CARDS)
    assert len(table.stack) == 27 and table.violations() == []


def test_table_disagreement_is_reported() -> None:
    table = PolicecatsTable(3, {}, seed=4)
    table.front[1].add(table.stack.pop())
    problems = table.counts_disagree()
    assert any(p.startswith("stack") for p in problems) and any(p.startswith("tableau") for p in problems)


def reveal_as(table: PolicecatsTable, card: str) -> None:
    """The current player rolls the cat and finds ``card`` on top (the test stacks the deck)."""
    seat = table.referee.current
    table.stack.remove(card)
    table.stack.append(card)
    table.act({"player": seat, "type": "roll", "face": "cat"})
    table.act({"player": seat, "type": "reveal", "card": card})


def test_preference_gives_the_least_and_lures_the_most() -> None:
    table = PolicecatsTable(3, {}, seed=0)
    for card in (m(1), k(1), m(2), k(3), f(5), m(6)):  # seats 0, 1, 2, 0, 1, 2
        reveal_as(table, card)
    assert tableau(table.referee) == [sorted([k(1), k(3), m(1)]), [f(5)], [m(2), m(6)]]
    table.act({"player": 0, "type": "roll", "face": "dog"})
    give = {a["card"]: table.preference(a) for a in table.decision().actions}
    assert give[k(3)] > give[m(1)]  # two cats rather than mother and kittens
    table.act({"player": 0, "type": "give", "card": k(3)})
    table.act({"player": 1, "type": "roll", "face": "mouse"})
    lure = {a["card"]: table.preference(a) for a in table.decision().actions}
    assert max(lure, key=lure.__getitem__) == m(1)  # mother and kittens: three cats
    assert table.violations() == []


def test_preference_sends_kittens_to_yourself() -> None:
    table = PolicecatsTable(3, {}, seed=0)
    reveal_as(table, m(1))  # seat 0
    reveal_as(table, f(1))  # seat 1
    table.act({"player": 2, "type": "roll", "face": "dog"})
    reveal_as(table, k(1))  # seat 0 decides
    send = {a["to"]: table.preference(a) for a in table.decision().actions}
    assert sorted(send) == [0, 1] and send[0] > send[1]


def test_greedy_play_beats_random_play() -> None:
    """The heuristic is worth having: greedy seats win more often than random ones."""
    wins = [0, 0]
    for seed in range(80):
        table = PolicecatsTable(4, {}, seed=seed)
        rng = random.Random(seed)
        while not table.over:
            decision = table.decision()
            if decision.chance or decision.seat % 2 == 0:
                action = rng.choice(decision.actions)
            else:
                action = max(decision.actions, key=table.preference)
            table.act(action)
        for seat in table.referee.view()["winners"]:
            wins[seat % 2] += 1
    assert wins[1] > wins[0]


# -- self-play ---------------------------------------------------------------------------------------------


def _kittens_stay_with_a_parent(engine: Policecats) -> bool:
    """The fact the referee's bookkeeping rests on: no parentless kittens beside a face-up parent."""
    view = engine.view()
    seat_of = {card: seat for seat, cards in enumerate(view["tableau"]) for card in cards}
    for n in range(1, 10):
        seat = seat_of.get(k(n))
        out = [seat_of[p] for p in (m(n), f(n)) if p in seat_of]
        if seat is not None and out and seat not in out and view["pending_kittens"] != n:
            return False
    return True


def test_self_play_keeps_every_invariant_and_every_game_ends() -> None:
    """Random and greedy bots, 2–5 players, both variants: never a refused offer, never a broken count."""
    games = 0
    longest = 0
    for seed in range(300):
        variant = ("basic", "alarm")[seed % 2]
        players = 2 + seed % 4 if variant == "alarm" else 3 + seed % 3
        table = PolicecatsTable(players, {"variant": variant, "first": seed % players}, seed=seed)
        rng = random.Random(seed)
        greedy = seed % 3 == 0
        actions = 0
        while not table.over:
            decision = table.decision()
            assert decision.actions, "only a finished game offers nothing"
            if decision.chance or not greedy:
                action = rng.choice(decision.actions)
            else:
                action = max(decision.actions, key=table.preference)
            assert isinstance(table.act(action), Outcome), action
            actions += 1
            assert table.violations() == []
            assert _kittens_stay_with_a_parent(table.referee)
            assert actions <= MAX_ACTIONS
        assert table.decision().actions == [] and table.referee.view()["winners"]
        games += 1
        longest = max(longest, actions)
    assert games == 300 and longest <= MAX_ACTIONS

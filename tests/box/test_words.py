"""Every word the box says is true, and no moment passes in silence (issue 21).

A five-year-old cannot read the log: what the box says is the whole
interface. These tests walk every phase each referee can await, play many
self-play games through the box, and hammer it with random inputs, and fail
on any decision never announced and any refusal without a spoken line.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from controller.autoplay import Autoplayer, run_inputs
from controller.box.announce import prompt_for, setup_of
from controller.decks import DECKS
from controller.games import GAME_IDS, engine_class
from controller.games.base import Rejection
from controller.games.policecats import Policecats
from controller.games.reasons import NOT_NOW, NOTHING_HAPPENS, REASONS
from controller.stage.narration import voice_lines
from controller.stage.shows import ShowBook
from tests.box.helpers import make_box

BOOK = ShowBook.load()
LINES = voice_lines()
LANGUAGES = ("de", "en", "fr", "nl", "es", "it")
REFUSALS = ("rejected", "not_now", "other_game", "unknown_card")

#: Every game and variant the box can set up, with a player count it allows.
VARIANTS: list[tuple[str, int, dict[str, Any]]] = [
    ("floppy-ears", 3, {}),
    ("floppy-ears", 2, {"edition": "reveal"}),
    ("floppy-ears", 2, {"bark_rule": False}),
    ("pirates", 3, {}),
    ("pirates", 2, {"mau_calls": True}),
    ("policecats", 3, {}),
    ("policecats", 2, {"variant": "alarm"}),
]
IDS = [f"{g}-{p}-{o}" for g, p, o in VARIANTS]


def spoken(cue) -> list[str]:
    """The lines a cue says, each checked to exist in all six languages."""
    lines = list(cue.say) if cue else []
    for line in lines:
        assert line in LINES and all(LINES[line].get(lang) for lang in LANGUAGES), f"{line!r} is not in six languages"
    return lines


# -- a reason for every refusal -----------------------------------------------------------

def test_every_reason_key_has_its_own_spoken_line_in_six_languages() -> None:
    for key, code in REASONS.items():
        cue = BOOK.show("rejected", {"code": code, "key": key, "allowed": "pirates"})
        assert spoken(cue), f"the refusal {key!r} ({code}) says nothing"
        assert cue.sound, f"the refusal {key!r} makes no sound"
    for key in NOTHING_HAPPENS:
        assert spoken(BOOK.show("nothing_happens", {"key": key})), key
    for key in NOT_NOW:
        assert spoken(BOOK.show("not_now", {"key": key})), key


def test_the_line_is_chosen_by_the_key_not_by_the_code_alone() -> None:
    """Issue 21: every not_eligible refusal said "The policecat protects these cats"."""
    said = {key: BOOK.show("rejected", {"code": "not_eligible", "key": key}).say
            for key in ("kittens_need_parent", "protected_by_policecat", "complete_family")}
    assert said == {"kittens_need_parent": ("kittens-need-parent",), "protected_by_policecat": ("protected",),
                    "complete_family": ("complete-family",)}


def policecats_at(actions: list[dict[str, Any]], players: int = 3) -> Policecats:
    engine = Policecats(players)
    for action in actions:
        assert engine.apply(action), action
    return engine


def turn(player: int, face: str, card: str | None = None) -> list[dict[str, Any]]:
    roll = [{"type": "roll", "player": player, "face": face}]
    return roll + ([{"type": "reveal", "player": player, "card": card}] if card else [])


#: Player 1 has family 1's mother and kittens; Players 2 and 3 a mother each; Player 1 to roll.
TABLEAU = [*turn(0, "cat", "family-1-mother"), *turn(1, "cat", "family-2-mother"), *turn(2, "cat", "family-3-mother"),
           *turn(0, "cat", "family-1-kittens"), *turn(1, "cat", "family-4-mother"), *turn(2, "cat", "family-5-mother")]


def test_kittens_with_their_parent_are_refused_as_such_not_as_protected() -> None:
    """docs/rulings.md C5: kittens go only together with a parent; nobody holds the policecat here."""
    engine = policecats_at([*TABLEAU, *turn(0, "dog")])
    refusal = engine.apply({"type": "give", "player": 0, "card": "family-1-kittens"})
    assert isinstance(refusal, Rejection)
    assert (refusal.code, refusal.key) == ("not_eligible", "kittens_need_parent")
    assert refusal.message == "family-1-kittens cannot go: kittens go only with their parent"


def test_cats_of_the_policecats_holder_are_refused_as_protected() -> None:
    """docs/rulings.md C8: the figure's holder keeps their cats."""
    engine = policecats_at([*TABLEAU, *turn(0, "whistle"), *turn(1, "mouse")])
    refusal = engine.apply({"type": "lure", "player": 1, "card": "family-1-mother"})
    assert (refusal.code, refusal.key) == ("not_eligible", "protected_by_policecat")
    assert refusal.message == "Player 1 holds the policecat: their cats are protected", "players from 1"


def test_luring_ones_own_cat_says_so() -> None:
    engine = policecats_at([*TABLEAU, *turn(0, "mouse")])
    refusal = engine.apply({"type": "lure", "player": 0, "card": "family-1-mother"})
    assert (refusal.code, refusal.key) == ("card_elsewhere", "own_card")


def test_a_dog_for_the_policecats_holder_says_the_policecat_protects_not_that_there_is_no_cat(tmp_path: Path) -> None:
    """Issue 21: the holder rolled a dog and heard "No cat to move: nothing happens"."""
    engine = policecats_at([*TABLEAU, *turn(0, "whistle"), *turn(1, "cat", "family-6-mother"),
                            *turn(2, "cat", "family-7-mother")])
    events = engine.apply({"type": "roll", "player": 0, "face": "dog"}).events
    nothing = [e for e in events if e["event"] == "nothing_happens"]
    assert nothing and nothing[0]["key"] == "protected_by_policecat"
    assert BOOK.show("nothing_happens", nothing[0]).say == ("protected-nothing-happens",)
    empty = Policecats(3).apply({"type": "roll", "player": 0, "face": "dog"}).events
    assert [e["key"] for e in empty if e["event"] == "nothing_happens"] == ["no_cat"]
    assert BOOK.show("nothing_happens", {"key": "no_cat"}).say == ("nothing-happens",)


def test_the_box_says_the_reason_of_the_refusal_it_got(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    box.new_game("policecats", 3)
    for action in [*TABLEAU, *turn(0, "dog")]:
        assert box.play.act(action)
    box.tap("table", "family-1-kittens")
    name, context = stage.shows[-1]
    assert (name, context["code"], context["key"]) == ("rejected", "not_eligible", "kittens_need_parent")
    assert BOOK.show(name, context).say == ("kittens-need-parent",)


@pytest.mark.parametrize("game, players, options", VARIANTS, ids=IDS)
def test_every_refusal_of_random_actions_carries_a_known_key_of_its_code(game, players, options) -> None:
    """2,000 random actions, well-formed or not, against each referee."""
    rng = random.Random(21)
    cls = engine_class(game)
    engine = cls(players, options)
    cards = list(DECKS[game]) + ["nonsense", "family-1-mother", "red-1"]
    seen = set()
    for _ in range(2000):
        if engine.over:
            engine = cls(players, options)
        legal = engine.legal_actions()
        if legal and rng.random() < 0.5:
            action = dict(rng.choice(legal))
        else:
            action = {"type": rng.choice([*cls.shapes, "fly"]), "player": rng.choice([0, 1, players, None, True])}
            for name in ("card", "color", "ear", "face", "call", "to"):
                if rng.random() < 0.5:
                    action[name] = rng.choice([*cards, "red", "left", "dog", "woof", "mau", 1, -1, None])
            action = {k: v for k, v in action.items() if v is not None}
        result = engine.apply(action)
        if isinstance(result, Rejection):
            assert REASONS.get(result.key) == result.code, f"{action}: {result}"
            if result.key not in ("no_such_seat", "bad_field"):  # these quote the action's JSON
                assert "seat" not in result.message, f"people count players from 1: {result.message}"
            seen.add(result.key)
    assert len(seen) >= 4


# -- a prompt for every moment ---------------------------------------------------------------

@pytest.mark.parametrize("game, players, options", VARIANTS, ids=IDS)
def test_every_phase_an_engine_can_await_has_a_spoken_prompt_in_six_languages(game, players, options) -> None:
    """The phases are the referee's own list (``accepts``: each value ``awaiting`` can take)."""
    engine = engine_class(game)(players, options)
    for phase in engine.accepts:
        if phase == "over":  # the end: who won, and the scores or the ships
            assert spoken(BOOK.show("winner", {"game": game, "winners": [0]})), game
            assert spoken(BOOK.show("tie", {"game": game, "winners": [0, 1]})), game
            continue
        if phase in ("setup", "hang"):
            names = [("hang-left", {"seat": 0}), ("hang-right", {"seat": 1})]
        else:
            names = [(phase, {"seat": 0, "game": game})]
        for name, context in names:
            assert spoken(BOOK.prompt(name, context)), f"{game}: nothing is said when awaiting {phase!r}"
    assert spoken(BOOK.show("deal", {"game": game, "setup": setup_of(game, engine.options)})), "the set-up"


def test_the_alarm_variant_sets_the_track_up_and_the_basic_game_does_not() -> None:
    """docs/rulings.md C10: "The 9 policecat cards lie out as a track with the figure before the first"."""
    alarm = BOOK.show("deal", {"game": "policecats", "setup": "policecats-alarm"}).say
    basic = BOOK.show("deal", {"game": "policecats", "setup": "policecats"}).say
    assert "setup-track" in alarm and "setup-track" not in basic
    assert "alarm track" in LINES["setup-track"]["en"]


def test_a_new_round_says_shuffle_and_deal_five_and_where_every_ship_is(tmp_path: Path) -> None:
    """docs/rulings.md P7: "For a new round all the cards are shuffled, 5 are dealt to each player"."""
    box, stage, clock = make_box(tmp_path, seed=4)
    box.new_game("pirates", 3)
    auto = Autoplayer(box, 4)
    while not any(name == "new_round" for name, _ in stage.shows):
        run_inputs(box, auto.inputs(auto.choose()[1]), clock.advance)
    at = next(i for i, (name, _) in enumerate(stage.shows) if name == "new_round")
    assert "deal five" in LINES[BOOK.show("new_round", stage.shows[at][1]).say[0]]["en"]
    ships = stage.shows[at - 1]  # where the ships are, then the new round's deal (issue 30)
    assert ships[0] == "ships" and sum(ships[1]["ships"]) == 1
    said = BOOK.show(*ships).say
    assert said[0] == "ships-header" and len(said) == 1 + 2 * 3
    winner = ships[1]["ships"].index(1)
    assert said[1 + 2 * winner: 3 + 2 * winner] == (f"seat-{winner + 1}", "number-1")


def test_policecats_ends_with_every_players_cats(tmp_path: Path) -> None:
    """docs/rulings.md C9: the cats depicted in front of each player are counted."""
    box, stage, clock = make_box(tmp_path, seed=5)
    box.new_game("policecats", 3)
    Autoplayer(box, 5)
    from tests.box.helpers import play_to_the_end

    play_to_the_end(box, clock, seed=5)
    names = stage.show_names
    scores = stage.shows[names.index("scores")][1]["scores"]
    assert scores == box.engine.view()["scores"]
    said = BOOK.show("scores", {"scores": scores}).say
    assert said == ("scores-header", *[x for s, n in enumerate(scores) for x in (f"seat-{s + 1}", f"number-{n}")])
    assert names.index("scores") < names.index("winner" if len(box.engine.view()["winners"]) == 1 else "tie")


def test_a_missed_turn_names_who() -> None:
    assert BOOK.show("skip", {"player": 2}).say == ("seat-3", "skip")


def unannounced(box, stage, clock, seed: int) -> list[str]:
    """Play one game of the box's game through taps and presses; the decisions awaited but never announced aloud.

    Before every input the referee awaits a decision; the prompt for it
    (:func:`prompt_for`) must have been asked for since the last input, or
    still be the one asked for when the same decision is still awaited (a
    call window), and it must say something in all six languages.
    """
    engine = box.engine
    game = engine.game
    auto = Autoplayer(box, seed, ["random", "greedy"])
    missed: list[str] = []
    previous = None
    for _ in range(5000):
        engine = box.engine
        if engine.over:
            break
        expected = prompt_for(engine)
        said = [p for p in stage.prompts if (p[0], p[1]) == expected]
        if said:
            if not spoken(BOOK.prompt(*said[-1])):
                missed.append(f"{game} seed {seed}: {expected} is silent")
        elif expected != previous:
            missed.append(f"{game} seed {seed}: {expected} never announced, after {len(engine.log)} actions")
        seat = expected[1]["seat"]
        if seat is not None and stage.scenes[-1].current != seat:  # the light: the turn ring shows whose it is
            missed.append(f"{game} seed {seed}: {expected} not lit, after {len(engine.log)} actions")
        previous = expected
        stage.prompts.clear()
        run_inputs(box, auto.inputs(auto.choose()[1]), clock.advance)
    if not box.engine.over or not {"winner", "tie"} & set(stage.show_names):
        missed.append(f"{game} seed {seed}: the end is not announced")
    return missed


def self_play_through_the_box(game: str, players: int, options: dict[str, Any], games: int, tmp_path: Path) -> list[str]:
    """``games`` games on one box, one after another; every decision never announced."""
    box, stage, clock = make_box(tmp_path, seed=0, games={game: options})
    missed: list[str] = []
    for seed in range(games):
        box.config.seed = seed
        stage.prompts.clear()
        stage.shows.clear()
        assert box.new_game(game, players)
        missed += unannounced(box, stage, clock, seed)
    return missed


GAMES_PER_VARIANT = 25
"""Games per variant in the suite (175 in all); ``bench/words.py`` plays thousands the same way."""


@pytest.mark.parametrize("game, players, options", VARIANTS, ids=IDS)
def test_self_play_through_the_box_announces_every_awaited_decision(game, players, options, tmp_path: Path) -> None:
    assert self_play_through_the_box(game, players, options, GAMES_PER_VARIANT, tmp_path) == []


# -- never silent ------------------------------------------------------------------------------

def test_two_thousand_random_inputs_get_a_spoken_line_and_a_sound_for_every_refusal(tmp_path: Path) -> None:
    rng = random.Random(2000)
    box, stage, clock = make_box(tmp_path, seed=7)
    cards = [c for game in GAME_IDS for c in DECKS[game]] + [f"control-{c}" for c in (
        "game-pirates", "players-3", "variant-alarm", "undo", "volume-up")] + ["04aabbccddeeff"]
    silent = []
    for _ in range(2000):
        clock.advance(rng.choice([0.1, 0.5, 2.5]))
        box.poll()
        before = len(stage.shows)
        kind = rng.random()
        if kind < 0.6:
            box.tap("table", rng.choice(cards))
        elif kind < 0.8:
            box.press(rng.choice(["die", "die", "red", "blue"]))
        else:
            box.hold("die")
        if box.engine is None and rng.random() < 0.2:
            box.new_game(rng.choice(GAME_IDS), 3)
        for name, context in stage.shows[before:]:
            if name in REFUSALS:
                cue = BOOK.show(name, context)
                if not spoken(cue) or not cue.sound:
                    silent.append((name, context.get("code"), context.get("key")))
    assert silent == []
    assert any(name == "not_now" for name, _ in stage.shows)


def test_a_menu_card_during_a_game_says_why(tmp_path: Path) -> None:
    """Issue 21: a game, players or variant card during a game got only ``refused: not_now``."""
    box, stage, clock = make_box(tmp_path)
    box.new_game("pirates", 2)
    box.tap("table", "control-game-policecats")
    name, context = stage.shows[-1]
    assert name == "not_now" and BOOK.show(name, context).say == ("not-now-playing", "another-game")


def test_a_press_in_the_handover_says_to_wait(tmp_path: Path) -> None:
    cue = BOOK.show("rejected", {"code": "wait"})
    assert cue.sound == "wait" and cue.say == ("wait-turn",)


def test_two_language_cards_within_two_seconds_both_answer_and_the_last_is_said_in_its_language(tmp_path) -> None:
    """Issue 21: the second language card changed the language but said nothing."""
    from controller.box.box import Box
    from controller.box.tags import Registry
    from controller.config import load_config
    from controller.stage.narration import Narrator
    from controller.stage.stage import DeviceStage
    from controller.storage.journal import Journal
    from tests.box.helpers import Clock

    clock = Clock()
    stage = DeviceStage(None, None, BOOK, clock)
    stage.speak("en")
    printed: list[str] = []
    stage.listeners.append(Narrator(printed.append, lambda: stage.language))
    box = Box(load_config(None, state_dir=str(tmp_path), seed=1), Journal(tmp_path / "journal.sqlite"),
              Registry(tmp_path / "tags.sqlite"), stage, clock)
    box.start()
    stage.tick()  # "Which game shall we play?" is being said
    box.tap("table", "control-language-de")
    clock.advance(1.0)
    stage.tick()
    box.tap("table", "control-language-fr")  # "Deutsch" still waits to be said
    for _ in range(60):
        stage.tick()
        clock.advance(0.5)
    assert printed[-1] == f"say: {LINES['language']['fr']}", "the second card is answered"
    said = [name for _t, kind, name in stage.transcript if kind == "say"]
    assert said[-1] == "language" and stage.language == "fr", "the last choice is said, in its own language"


def test_log_lines_and_refusal_texts_count_players_from_one(tmp_path: Path, caplog) -> None:
    box, stage, clock = make_box(tmp_path)
    box.new_game("policecats", 3)
    with caplog.at_level("INFO", logger="gamebox.box"):
        box.play.act({"type": "roll", "player": 1, "face": "cat"})
    assert "rejected Player 2: roll face=cat: not_your_turn (it is Player 1's turn, not Player 2's)" in caplog.text
    assert stage.shows[-1][1]["reason"] == "it is Player 1's turn, not Player 2's"
    assert box.status_line() == "policecats: player 1 to roll"


def test_every_refusal_written_in_the_code_names_a_reason_key_of_its_code() -> None:
    """Each ``Rejection(code, message, reason)`` and ``show("rejected", code=..., key=...)``, read from the source."""
    import ast

    root = Path(__file__).resolve().parents[2] / "controller"
    wrong = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            words = {k.arg: k.value for k in node.keywords}
            if name == "Rejection" and node.args and isinstance(node.args[0], ast.Constant):
                code, reason = node.args[0].value, node.args[2] if len(node.args) > 2 else None
            elif name == "show" and node.args and getattr(node.args[0], "value", None) == "rejected" and "code" in words:
                code, reason = words["code"].value, words.get("key")
            else:
                continue
            key = reason.value if isinstance(reason, ast.Constant) else code if reason is None else None
            if key is not None and REASONS.get(key) != code:
                wrong.append(f"{path.name}:{node.lineno}: {code} / {key}")
    assert wrong == []


def test_the_printed_lines_name_every_players_ships_and_cats_from_one() -> None:
    from controller.stage.narration import show_lines

    assert show_lines("show", "ships", {"ships": [1, 0, 2]}) == ["show: ships: Player 1: 1; Player 2: 0; Player 3: 2"]
    assert show_lines("show", "scores", {"scores": [5, 9]}) == ["show: scores: Player 1: 5; Player 2: 9"]

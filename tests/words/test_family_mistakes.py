"""A family playing by hand, making children's mistakes, hears nothing false, doubled or vague (issue 30, items 1-17).

Each test types the issue's input sequence into a sim box (seed 7, no handover
time, no repeat filter, English) the way ``gamebox run --profile sim`` reads
it, and checks what the box said back. Rules are cited by their ids (rulings
F10, P5, C1, ...).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from controller.games.reasons import REASONS
from controller.stage.narration import voice_lines
from controller.stage.shows import DEFAULT_SHOWS, ShowBook
from tests.words.sim import FE_SETUP, answer, bots_play, play, said

LINES = voice_lines()
POLICECATS_3 = ["tap control-game-policecats", "tap control-players-3"]
PIRATES_2 = ["tap control-game-pirates", "tap control-players-2"]


def heard(lines: list[str], index: int = -1) -> list[str]:
    """The spoken lines of one input's answer."""
    return said(answer(lines, index))


# -- false ---------------------------------------------------------------------------------

def test_1_an_empty_stack_in_floppy_ears_says_the_stack_is_empty_not_that_no_cat_moves(tmp_path: Path) -> None:
    """Ruling F10: "If the pile has nothing to give, later draws take nothing"; Floppy Ears has no cats."""
    lines = play(tmp_path, FE_SETUP + ["press die"] * 40)
    empty = [i for i, line in enumerate(lines) if re.fullmatch(r"show: drew: Player \d, 0", line)]
    assert empty, "the stack ran out"
    assert lines[empty[0] + 1] == "say: The stack is empty: no card to take, play goes on."
    assert not [line for line in said(lines) if "cat" in line.lower()]


def test_2_undoing_a_policecats_reveal_puts_the_card_back_on_the_stack(tmp_path: Path) -> None:
    """Policecats has no hands (ruling C2: the card is revealed from the stack)."""
    lines = play(tmp_path, POLICECATS_3 + ["press die", "tap family-1-kittens", "tap control-undo"])
    assert heard(lines) == ["Taken back: put the card back on top of the stack.",
                            "Turn over the top card and tap it on the box."]


def test_3_undoing_pirates_start_card_puts_it_back_on_the_stack(tmp_path: Path) -> None:
    """Ruling P1: the first discard is turned up from the stack."""
    lines = play(tmp_path, PIRATES_2 + ["tap blue-pirate-7", "tap control-undo"])
    assert heard(lines) == ["Taken back: put the card back on top of the stack.",
                            "Turn up the first card and tap it on the box."]


def test_4_undoing_a_two_card_debt_says_cards_and_asks_for_them_again(tmp_path: Path) -> None:
    """Ruling P5: the next player must first draw 2, unless they play a bottle post themselves."""
    lines = play(tmp_path, PIRATES_2 + ["tap blue-pirate-7", "tap blue-bottle", "wait 3", "press die",
                                        "tap control-undo"])
    assert heard(lines) == ["Taken back: put the cards you drew back on top of the stack.",
                            "Player two, green: your turn!", "Take two cards, or play a message in a bottle."]


def test_5_another_players_ear_card_out_of_turn_is_refused_as_not_your_turn(tmp_path: Path) -> None:
    """Ruling F3/F7: ear cards are played from the ear, by their owner, in their turn."""
    lines = play(tmp_path, FE_SETUP + ["tap yellow-1"])
    assert answer(lines)[0].startswith("refused: not_your_turn: yellow-1 hangs on Player 2's ear")
    assert heard(lines) == ["Wait, it's not your turn.", "Player one, yellow: your turn!",
                            "Play a card, or press the button and take one."]


def test_6_a_card_that_is_no_parent_of_the_kittens_says_to_tap_their_mother_or_father(tmp_path: Path) -> None:
    """Ruling C3: the player whose turn it is decides to which parent the kittens go."""
    lines = play(tmp_path, POLICECATS_3 + [
        "press die", "tap family-3-mother", "wait 2.2", "press die", "tap family-3-father", "wait 2.2", "press die",
        "wait 2.2", "press die", "wait 2.2", "press die", "tap family-3-kittens", "tap family-7-father"])
    assert heard(lines) == ["The kittens only run to their mother or father.",
                            "Where do the kittens go? Tap their mother or father."]
    assert "-1" not in answer(lines)[0] and "seat" not in answer(lines)[0]


def test_7_the_hold_the_menu_asks_for_starts_the_game(tmp_path: Path) -> None:
    lines = play(tmp_path, ["hold die", "wait 3", "hold die"])
    assert heard(lines, -3)[-1] == "Press for another number, hold to start."
    assert "show: new_game: floppy-ears" in answer(lines)
    assert heard(lines, -3)[0] == "Floppy Ears!"  # the hold's answer named the game: the start does not again
    assert heard(lines)[0] == "Two players."
    assert "There is nothing to take back." not in said(lines)


def _pirates_last_card(engine, action) -> bool:
    return action["type"] == "play" and engine.view()["hand_sizes"][action["player"]] == 1


def _mau_calls(tmp_path: Path, until) -> tuple[list[str], dict]:
    setup = ["tap control-variant-mau-calls", *PIRATES_2]
    moves, action, _ = bots_play(tmp_path / "bots", setup, until)
    assert action is not None
    return setup + moves, action


def test_8_a_forgotten_mau_mau_is_told_as_mau_mau_and_the_round_goes_on(tmp_path: Path) -> None:
    """Ruling P8: a forgotten "Mau Mau" costs a penalty card and the round does not end."""
    before, action = _mau_calls(tmp_path, _pirates_last_card)
    lines = play(tmp_path / "box", before + [f"tap {action['card']}", "wait 3"], wait_for_words=True)
    assert heard(lines)[0] == "You forgot Mau Mau! Take a card: the round goes on."


# -- twice, or half --------------------------------------------------------------------------

def test_9_an_ear_that_does_not_match_says_take_a_card_once(tmp_path: Path) -> None:
    """Ruling F4: the ear card goes back, the player takes a penalty card, the turn ends."""
    lines = play(tmp_path, FE_SETUP + ["tap red-1"])
    assert heard(lines) == ["That ear does not match. Hang it back and take a card.", "Player two, green: your turn!"]


def test_9_a_forgotten_bark_says_take_a_card_once_and_the_hang_once(tmp_path: Path) -> None:
    """Ruling F8: a forgotten bark costs a penalty card that is hung on an ear."""
    setup = ["tap control-game-floppy-ears", "tap control-players-2"]

    def bark_due(engine, action) -> bool:
        return action["type"] == "play" and action.get("call") == "woof"

    moves, action, _ = bots_play(tmp_path / "bots", setup, bark_due)
    lines = play(tmp_path / "box", setup + moves + [f"tap {action['card']}", "wait 3"], wait_for_words=True)
    spoken = heard(lines)
    assert spoken[0] == "You forgot to bark! Take a card."
    assert sum("Take a card" in line for line in spoken) == 1
    assert sum("Hang a card" in line for line in spoken) == 1


def test_9_a_forgotten_mau_says_take_a_card_once(tmp_path: Path) -> None:
    """Ruling P8: a forgotten call costs one penalty card."""
    def mau_due(engine, action) -> bool:
        return action["type"] == "play" and action.get("call") == "mau"

    before, action = _mau_calls(tmp_path, mau_due)
    lines = play(tmp_path / "box", before + [f"tap {action['card']}", "wait 3"], wait_for_words=True)
    spoken = heard(lines)
    assert spoken[0] == "You forgot to call Mau! Take a card."
    assert sum("Take a card" in line for line in spoken) == 1


def test_10_the_reshuffle_keeps_the_top_card(tmp_path: Path) -> None:
    """Rulings F10, P10: the discard pile except its top card is shuffled into a new stack."""
    lines = play(tmp_path, FE_SETUP + ["tap blue-7", "tap blue-6"] + ["press die"] * 30)
    at = next(i for i, line in enumerate(lines) if line.startswith("show: reshuffle"))
    assert lines[at + 1] == "say: Keep the top card and shuffle the rest: the new stack."


def test_11_a_debt_is_said_after_whose_turn_with_the_bottle_post_that_passes_it_on(tmp_path: Path) -> None:
    """Ruling P5: draw 2, unless you play a bottle post yourself."""
    lines = play(tmp_path, PIRATES_2 + ["tap blue-pirate-7", "tap blue-bottle", "tap yellow-pirate-3"])
    assert heard(lines, -2) == ["Player two, green: your turn!", "Take two cards, or play a message in a bottle."]
    assert heard(lines) == ["First take your cards from the stack, or play a message in a bottle."]


def test_12_a_count_the_game_does_not_allow_names_the_counts_it_does(tmp_path: Path) -> None:
    """Rulebook (seed 003): Policecats for 3 to 5 players; the alarm variant from 2 (ruling C10)."""
    lines = play(tmp_path, ["tap control-game-policecats", "tap control-players-2", "tap control-players-3"])
    assert heard(lines, -2)[0] == "Police cats is for three to five players, or two with the alarm."
    assert heard(lines)[0] == "Three players.", "the game that starts confirms the count"
    alarm = play(tmp_path / "alarm", ["tap control-variant-alarm", "tap control-players-2",
                                      "tap control-game-policecats"])
    assert "show: new_game: policecats" in answer(alarm)
    assert heard(alarm)[:3] == ["Police cats!", "Two players.", "Alarm on."], "and the variant it starts with"


def test_13_policecats_set_up_puts_the_policecat_in_the_middle(tmp_path: Path) -> None:
    """Ruling C1: all cards shuffled face down; the policecat figure in the centre."""
    lines = play(tmp_path, POLICECATS_3)
    assert "Stand the policecat in the middle." in heard(lines)


# -- silent or vague ---------------------------------------------------------------------------

def test_14_the_volume_cards_say_louder_quieter_and_when_it_goes_no_further(tmp_path: Path) -> None:
    lines = play(tmp_path, ["tap control-volume-up"] * 3 + ["tap control-volume-down", "press yellow"],
                 volume=0.6, volume_max=0.8)
    assert [heard(lines, i) for i in range(5)] == [
        ["Louder."], ["Louder."], ["This is as loud as I go."], ["Quieter."],
        ["Not now.", "Which game shall we play? Tap a game card on the box."]]
    quiet = play(tmp_path / "quiet", ["tap control-volume-down"], volume=0.0)
    assert heard(quiet) == ["This is as quiet as I go."]


def test_15_after_the_winner_the_box_says_what_next_and_the_end_can_still_be_taken_back(tmp_path: Path) -> None:
    """Ruling F9: the player who played their last card wins."""
    setup = ["tap control-game-floppy-ears", "tap control-players-2"]
    moves, _, _ = bots_play(tmp_path / "bots", setup)
    lines = play(tmp_path / "box", setup + moves + ["press die", "tap control-undo"], wait_for_words=True)
    end = heard(lines, -3)
    assert end[-2:] == ["Player two, green, wins!", "Press for a new game, or hold to play again."]
    assert heard(lines, -2) == ["Which game shall we play? Tap a game card on the box."]
    assert heard(lines)[0].startswith("Taken back:") and heard(lines)[-1] == "Player two, green: your turn!"


def test_16_a_press_while_a_card_is_awaited_says_which_card_and_prints_no_internal_name(tmp_path: Path) -> None:
    lines = play(tmp_path, ["tap control-game-floppy-ears", "tap control-players-2", "press die"])
    assert heard(lines) == ["Not the button now.", "Player one, yellow: your turn!",
                            "Hang a card on your left ear and tap it on the box."]
    assert answer(lines)[0] == ("refused: wrong_action: the die button does nothing now; the box waits for "
                                "Player 1 to hang a card on the left ear")
    kittens = play(tmp_path / "kittens", POLICECATS_3 + [
        "press die", "tap family-3-mother", "wait 2.2", "press die", "tap family-3-father", "wait 2.2", "press die",
        "wait 2.2", "press die", "wait 2.2", "press die", "tap family-3-kittens", "press die"], wait_for_words=True)
    refused = answer(kittens)[0]
    assert refused.startswith("refused: ") and "_" not in refused.split(": ", 2)[2], refused
    assert heard(kittens) == ["Not the button now.", "Where do the kittens go? Tap their mother or father."]


def _templates() -> list[str]:
    """Every line template a show or prompt names, and every prompt id the code asks for."""
    book = ShowBook.load(DEFAULT_SHOWS)
    names: list[str] = []
    for _kind, _name, fields in book.every_cue():
        for field in ("say", "each", "then"):
            value = fields[field]
            names += [value] if isinstance(value, str) else list(value or [])
    for path in (Path(__file__).resolve().parents[2] / "controller").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "prompt" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    names.append(first.value)
                elif isinstance(first, ast.JoinedStr):
                    names.append("".join(v.value if isinstance(v, ast.Constant) else "{x}" for v in first.values))
    return names


def test_17_every_recorded_line_is_said_somewhere_and_the_unused_ones_are_gone() -> None:
    patterns = [re.compile(re.sub(r"\\\{\w+\\\}", r"[\\w-]+", re.escape(t)) + "$") for t in _templates()]
    unused = [line for line in LINES if not any(p.match(line) for p in patterns)]
    assert unused == []
    for gone in ("bark", "bark-twice", "new-round", "variant-on", "variant-off"):
        assert gone not in LINES
        assert not list((Path(__file__).resolve().parents[2] / "sounds" / "voice").glob(f"*/{gone}.wav"))
    shows = tomllib.loads(DEFAULT_SHOWS.read_text(encoding="utf-8"))
    assert shows["show"]["volume"]["up"]["say"] == "volume-up" and shows["show"]["volume"]["down"]["say"] == "volume-down"
    assert set(REASONS) >= {"players_not_allowed", "tap_a_card"}


# -- undoing a penalty (issue 30, what was left) -------------------------------------------

def test_one_undo_takes_back_a_forgotten_bark_and_the_hang_of_its_penalty_card_also_after_a_power_cut(
        tmp_path: Path) -> None:
    """Ruling F8: the forgotten bark's penalty card is hung on an ear. One undo takes back the play, the penalty and
    that hang, and says what goes where; a power cut after it resumes the game as it was before the play."""
    setup = ["tap control-game-floppy-ears", "tap control-players-2"]

    def bark_due(engine, action) -> bool:
        return action["type"] == "play" and action.get("call") == "woof"

    moves, action, _ = bots_play(tmp_path / "bots", setup, bark_due)
    before = setup + moves
    lines = play(tmp_path / "box", before + [f"tap {action['card']}", "wait 3", "tap green-2", "tap control-undo",
                                             "power-cut", "tap control-undo"], wait_for_words=True)
    assert heard(lines, -3)[:2] == ["Taken back: put the penalty card back on the stack.",
                                    "And hang your card back on its ear."]
    again = play(tmp_path / "again", before + ["tap control-undo"], wait_for_words=True)
    assert heard(lines, -1) == heard(again, -1), "after the cut, the next undo takes back what came before the play"


def test_undoing_a_forgotten_mau_gives_the_penalty_card_back(tmp_path: Path) -> None:
    """Ruling P8: a forgotten call costs one penalty card; taking the play back returns it to the stack."""
    def mau_due(engine, action) -> bool:
        return action["type"] == "play" and action.get("call") == "mau"

    before, action = _mau_calls(tmp_path, mau_due)
    lines = play(tmp_path / "box", before + [f"tap {action['card']}", "wait 3", "tap control-undo"], wait_for_words=True)
    assert heard(lines)[:2] == ["Taken back: put the penalty card back on the stack.",
                                "And take your card back into your hand."]

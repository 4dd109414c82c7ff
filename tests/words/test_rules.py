"""The rules of the script, each checked over every transcript as the sim box plays it.

No instruction twice in one answer; no word of another game; no internal
name, seat counted from 0 or code word in anything said or printed for people;
every ending says why and names every winner; every resume says whose turn
and what to do; every refusal says what to do instead; a prompt never
contradicts what the next gesture does.
"""

from __future__ import annotations

import re

from tests.words.script import Played
from tests.words.sim import said

#: The verbs a line tells a child to do something with ("Take a card.", "Press the button ...").
VERBS = ("take", "hang", "tap", "press", "hold", "roll", "turn", "choose", "put", "shuffle", "deal", "lay", "stand",
         "play", "give", "keep", "wait", "first", "where do", "one moment")

INSTRUCTION = re.compile(rf"^(or |and )?({'|'.join(VERBS)})\b")

#: Words only one game has: said in another game's transcript, they would be false.
GAME_WORDS = {
    "floppy-ears": r"\b(ears?|bark|woof)\b",
    "pirates": r"\b(ships?|treasure|pirates?|parrots?|bottle|mau)\b",
    "policecats": r"\b(cats?|kittens|policecat|dog|mouse|whistle|mother|father)\b",
}

#: The box's own lines for scripts (``ready``, ``resumed <id> <actions> <digest>``), not for people.
MACHINE = re.compile(r"^resumed \d+ \d+ [0-9a-f]+$")


def instructions(line: str) -> list[str]:
    """The instructions of one spoken line: its phrases that begin with a verb, lower case."""
    phrases = [p.strip().lower() for p in re.split(r"[.!?:;,]", line)]
    return [p for p in phrases if INSTRUCTION.match(p)]


def steps(played: dict[tuple[str, str], Played]):
    for p in played.values():
        for n, (typed, words) in enumerate(zip(p.inputs, p.answers())):
            yield p, n, typed, words


def test_no_instruction_twice_in_one_answer(played) -> None:
    twice = []
    for p, _n, typed, words in steps(played):
        seen: list[str] = [i.removeprefix("or ").removeprefix("and ") for line in said(words) for i in instructions(line)]
        doubled = {i for i in seen if seen.count(i) > 1}
        if doubled:
            twice.append(f"{p.transcript.name} after {typed!r}: {said(words)}")
    assert twice == []


def test_no_word_of_another_game(played) -> None:
    wrong = []
    for p, _n, typed, words in steps(played):
        game = p.transcript.game
        if game is None:
            continue
        for other, pattern in GAME_WORDS.items():
            if other == game:
                continue
            for line in said(words):
                if line in ("Floppy Ears!", "Pirate and Co., Mau Mau!", "Police cats!"):
                    continue  # a game's name, said when it is chosen
                if re.search(pattern, line.lower()):
                    wrong.append(f"{game}/{p.transcript.name} after {typed!r}: {line!r} is {other}'s")
    assert wrong == []


def test_nothing_said_or_printed_for_people_names_an_internal_name_a_seat_from_zero_or_a_code(played) -> None:
    wrong = []
    for p in played.values():
        for line in p.lines:
            if line.startswith("> ") or MACHINE.match(line):
                continue
            kind, _, rest = line.partition(": ")
            people = rest if kind == "say" else rest.split(": ", 1)[-1] if kind in ("refused", "show") else line
            if kind == "show" and ": " not in rest:
                continue  # a show's name alone: the line says which show ran, for scripts
            if re.search(r"\b[a-z]+_[a-z_]+\b", people) or re.search(r"\b(seat|awaiting)\b", people) \
                    or re.search(r"\bplayer 0\b", people.lower()) or re.search(r"(?<![\w-])-1\b", people):
                wrong.append(f"{p.transcript.name}: {line}")
    assert wrong == []


def test_every_ending_says_why_and_names_every_winner(played) -> None:
    endings = 0
    wrong = []
    for p in played.values():
        for (typed, words), ids in zip(zip(p.inputs, p.answers()), p.answer_ids()):
            ends = [line for line in words if line.startswith(("show: winner: ", "show: tie: "))]
            if not ends:
                continue
            endings += 1
            winners = re.findall(r"Player (\d)", ends[0].split(": ", 2)[2])
            why = [i for i in ids if i.startswith(("end-", "treasure-"))]
            named = {i.rsplit("-", 1)[1] for i in ids if i.startswith(("winner-", "treasure-"))}
            if not why or not set(winners) <= named:
                wrong.append(f"{p.transcript.name} after {typed!r}: {said(words)}")
    assert wrong == [] and endings >= 4


def test_every_resume_says_whose_turn_and_what_to_do(played) -> None:
    wrong = []
    resumes = 0
    for p, _n, typed, words in steps(played):
        if typed != "power-cut" or p.transcript.game is None:
            continue
        resumes += 1
        spoken = said(words)
        first_card = spoken[-1:] == ["Turn up the first card and tap it on the box."]  # nobody's turn yet
        whose = any(re.match(r"Player \w+, \w+: your turn!", line) for line in spoken)
        if spoken[:1] != ["Let's go on where we stopped."] or not (whose or first_card) \
                or not any(instructions(line) for line in spoken):
            wrong.append(f"{p.transcript.name}: {spoken}")
    assert wrong == [] and resumes >= 15


def test_every_refusal_says_what_to_do_instead(played) -> None:
    wrong = []
    for p, _n, typed, words in steps(played):
        refused = [line for line in words if line.startswith("refused: ")]
        if not refused:
            continue
        if not any(instructions(line) for line in said(words)):
            wrong.append(f"{p.transcript.name} after {typed!r}: {said(words)}")
    assert wrong == []


#: What a spoken instruction makes a gesture mean, and how the answer to that gesture shows it did.
GESTURES = [
    ("hold to start", "hold die", "show: new_game: "),
    ("hold to play again", "hold die", "show: new_game: "),
    ("press for a new game", "press die", "say: Which game shall we play? Tap a game card on the box."),
    ("roll the die", "press die", "roll: "),
    ("hold to choose", "hold die", "show: color_wished: "),
    ("press the button to keep it", "press die", None),
    ("press the button and take one", "press die", "show: drew: "),
    ("hold the button again to take back", "hold die", "show: undone: "),
]


def test_a_prompt_never_contradicts_what_the_next_gesture_does(played) -> None:
    wrong, checked = [], 0
    for p in played.values():
        answers = p.answers()
        for n in range(1, len(answers)):
            told = " ".join(said(answers[n - 1])).lower()
            for phrase, gesture, shows in GESTURES:
                if phrase in told and p.inputs[n] == gesture:
                    checked += 1
                    refused = [line for line in answers[n] if line.startswith("refused: ")]
                    if refused or (shows and not any(line.startswith(shows) for line in answers[n])):
                        wrong.append(f"{p.transcript.name}: told {phrase!r}, then {gesture!r}: {answers[n]}")
    assert wrong == [] and checked >= 5

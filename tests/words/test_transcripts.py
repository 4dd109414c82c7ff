"""The box says exactly its script (``tests/words/transcripts/*.toml``), and has a line for it in six languages.

A reviewer reads the transcripts as the box's script; these tests hold the
box to it. A line changed in ``sounds/voice/lines.toml`` or a show changed in
``controller/stage/shows.toml`` changes the transcripts it appears in: read
them again, then write down the new lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.games.reasons import REASONS
from controller.stage.narration import voice_lines
from tests.words.script import Played, load
from tests.words.sim import said

TRANSCRIPTS = load()
LANGUAGES = ("de", "en", "fr", "nl", "es", "it")
VOICE = Path(__file__).resolve().parents[2] / "sounds" / "voice"
LINES = voice_lines()


@pytest.mark.parametrize("t", TRANSCRIPTS, ids=[f"{t.group}-{t.name}" for t in TRANSCRIPTS])
def test_the_box_says_its_script(t, played: dict[tuple[str, str], Played]) -> None:
    p = played[t.group, t.name]
    answers = p.answers()
    assert len(answers) == len(t.steps)
    for step, words in zip(t.steps, answers):
        assert said(words) == list(step.says), f"{t.group}/{t.name}, after {step.input!r}: {words}"


def test_every_line_of_the_script_is_said_in_all_six_languages(played: dict[tuple[str, str], Played]) -> None:
    missing = set()
    for p in played.values():
        assert len(p.ids) == len(said(p.lines)), f"{p.transcript.name}: a spoken line without its id"
        for line in p.ids:
            for lang in LANGUAGES:
                if not LINES.get(line, {}).get(lang) or not (VOICE / lang / f"{line}.wav").is_file():
                    missing.add(f"{line}/{lang}")
    assert sorted(missing) == []


def test_the_other_five_languages_say_a_line_for_each_english_one(tmp_path: Path) -> None:
    """One transcript played in each language: as many spoken lines as in English, each in that language."""
    from tests.words.sim import FE_SETUP, play

    inputs = FE_SETUP + ["tap red-1", "press die", "tap joker-1", "hold die", "power-cut"]
    english = said(play(tmp_path / "en", inputs, wait_for_words=True))
    for lang in LANGUAGES[:1] + LANGUAGES[2:]:
        ids: list[str] = []
        spoken = said(play(tmp_path / lang, inputs, wait_for_words=True, ids=ids, language=lang))
        assert len(spoken) == len(english), lang
        assert spoken == [LINES[i][lang] for i in ids], lang


#: What each game's script must show: set-up, every kind of undo, a resume in every phase, the end.
COVERED = {
    "floppy-ears": {"set-up", "undo-hang", "undo-start-card", "undo-hand-card", "undo-ear-card", "undo-draw", "undo-colour",
                    "undo-waiting-call", "resume-hanging", "resume-start-card", "resume-play", "resume-colour", "resume-call",
                    "end", "ear-penalty", "stop-ear", "bark-forgotten", "woof-woof-forgotten", "control-cards-in-play",
                    "undo-bark-penalty", "undo-bark-penalty-before-hang", "no-bark-set-up", "no-bark-two-cards",
                    "reveal-joker", "unknown-tag-in-play"},
    "pirates": {"set-up", "undo-start-card", "undo-play", "undo-draw", "undo-debt", "undo-keep", "undo-colour",
                "resume-start-card", "resume-play", "resume-debt", "resume-after-draw", "resume-colour", "round-won", "end",
                "ship-two-players", "ship-three-players", "sleeper", "bottle", "parrot", "mau-forgotten", "mau-mau-forgotten",
                "undo-mau-penalty", "resume-new-round"},
    "policecats": {"set-up", "set-up-alarm", "undo-roll", "undo-reveal", "undo-send-kittens", "undo-give", "undo-lure",
                   "resume-roll", "resume-reveal", "resume-send-kittens", "resume-give", "resume-lure", "end", "end-alarm",
                   "cat", "dog-no-cats", "whistle", "kittens-choose", "give", "lure", "tie", "protected",
                   "complete-family"},
    "menu": {"start", "game-card", "players-refused", "variant-cards", "volume-cards", "language-cards", "undo-card",
             "new-game-card", "power-off-card", "colour-button", "unknown-tag", "unknown-tag-game-chosen", "power-cut"},
}

#: Refusals no family can provoke with cards and buttons: the box itself builds every action it referees.
UNREACHABLE = {
    "not_an_action", "no_such_seat", "no_such_action", "not_awaited", "missing_field", "bad_field", "bad_color",
    "bad_call", "bad_ear", "bad_face", "cannot_start", "no_language", "ear_taken", "not_in_game",
}
#: Refusals no transcript of play shows: enrolling stickers (``gamebox enroll``, ``tags write``: their script is
#: tests/words/test_enrol_words.py), and a Pirate & Co. player with no card at all (a hand that empties ends the
#: round, P7).
NOT_SCRIPTED = {"tag_taken", "write_failed", "no_cards_left"}


def test_every_situation_and_every_reachable_refusal_has_a_transcript(played: dict[tuple[str, str], Played]) -> None:
    names: dict[str, set[str]] = {}
    for group, name in played:
        names.setdefault(group, set()).add(name)
    assert {group: sorted(need - names.get(group, set())) for group, need in COVERED.items()} == {
        group: [] for group in COVERED}
    tags = {(p.transcript.group, tag) for p in played.values() for tag in p.transcript.tags}
    needed = {(g, tag) for g in ("floppy-ears", "pirates", "policecats")
              for tag in ("set-up", "refusal", "undo", "resume", "ending")}
    needed |= {("floppy-ears", "penalty"), ("pirates", "penalty"), ("pirates", "round")}  # Policecats has neither
    assert sorted(needed - tags) == []
    keys = {context.get("key") or context.get("code") for p in played.values() for name, context in p.shows
            if name == "rejected"}
    assert sorted(set(REASONS) - UNREACHABLE - NOT_SCRIPTED - keys) == []

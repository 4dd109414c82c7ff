"""Spoken prompts: every prompt has a line and a rendered file in each rulebook language, and falls back sensibly.

A child who cannot read depends on hearing the prompt in their own language;
a missing or stale file means silence (or the wrong words) at the table.
"""

from __future__ import annotations

import json
import re
import wave
from pathlib import Path

import numpy as np
import pytest
from soundkit import VOICE, render, wavtools

from controller.stage.voice import voice_path

LANGUAGES = ["de", "en", "fr", "nl", "es", "it"]

REQUIRED = (
    [f"turn-{s}" for s in range(1, 6)]
    + ["deal", "hang-left", "hang-right", "start-card", "put-under", "stop-ear", "ear-penalty",
       "no-match", "take-card", "take-2", "take-4", "take-6", "take-8", "keep-or-play", "reshuffle", "choose-color",
       "color-yellow", "color-green", "color-blue", "color-red", "bark-penalty", "mau-penalty", "reverse",
       "skip", "stack-empty", "mau-mau-penalty", "after-the-end", "setup-policecat"]
    + [f"round-won-{s}" for s in range(1, 5)] + [f"treasure-{s}" for s in range(1, 5)]
    + [f"winner-{s}" for s in range(1, 6)]
    + ["tie", "roll", "reveal", "send-kittens", "give", "lure", "family-complete", "policecat-taken",
       "policecat-back", "unknown-card", "other-game", "not-your-turn", "resumed", "choose-game", "game-floppy-ears",
       "game-pirates", "game-policecats"]
    + [f"players-{n}" for n in range(2, 6)]
    + ["new-game", "volume-up", "volume-max", "volume-min", "volume-down", "language", "enroll-next",
       "enroll-taken", "attract"]
    + [f"press-for-{call}" for call in ("woof", "woof-woof", "mau", "mau-mau")] + ["moves-lost"]
)
"""Every prompt the box is known to give."""

LINES = render.load_lines()


def test_every_prompt_the_box_gives_is_in_the_catalogue() -> None:
    assert sorted(set(REQUIRED) - set(LINES)) == []


def test_every_prompt_has_a_line_in_every_language() -> None:
    gaps = [f"{pid}/{lang}" for pid, lines in LINES.items() for lang in LANGUAGES
            if not str(lines.get(lang, "")).strip()]
    assert gaps == []
    assert {lang for lines in LINES.values() for lang in lines} == set(LANGUAGES)


def test_prompt_ids_are_kebab_case() -> None:
    assert [pid for pid in LINES if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", pid)] == []


def test_each_language_names_itself_in_its_own_words() -> None:
    names = [LINES["language"][lang] for lang in LANGUAGES]
    assert len(set(names)) == len(LANGUAGES)


def test_seat_prompts_name_the_seat_colour_the_turn_ring_shows() -> None:
    # the voice and the light must agree: seat 1 is yellow, seat 2 green, ...
    colours = {"en": ["yellow", "green", "blue", "red", "purple"], "de": ["Gelb", "Grün", "Blau", "Rot", "Lila"]}
    for lang, words in colours.items():
        for seat, word in enumerate(words, start=1):
            assert word in LINES[f"turn-{seat}"][lang]
            assert word in LINES[f"winner-{seat}"][lang]


def test_every_line_is_rendered_in_every_language_and_nothing_else() -> None:
    for lang in LANGUAGES:
        files = sorted(p.stem for p in (VOICE / lang).glob("*.wav"))
        assert files == sorted(LINES), lang


def test_no_line_was_edited_without_rendering_it_again() -> None:
    rendered = json.loads((VOICE / "rendered.json").read_text("utf-8"))["lines"]
    stale = [f"{pid}/{lang}" for pid, lines in LINES.items() for lang in LANGUAGES
             if rendered.get(lang, {}).get(pid) != lines[lang]]
    assert stale == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_spoken_files_match_the_sound_set(lang: str) -> None:
    """Same format, same loudness, no clipping, no click: a voice must not jump out after a bark."""
    problems = []
    for path in sorted((VOICE / lang).glob("*.wav")):
        with wave.open(str(path), "rb") as w:
            if (w.getnchannels(), w.getsampwidth(), w.getframerate()) != (1, 2, 22050):
                problems.append(f"{path.name}: format")
                continue
        x, _ = wavtools.read_wav(path)
        if not 0.2 <= len(x) / 22050 <= 7.0:
            problems.append(f"{path.name}: {len(x) / 22050:.2f} s")
        if wavtools.peak_dbfs(x) > -1.0:
            problems.append(f"{path.name}: peak {wavtools.peak_dbfs(x):.2f} dBFS")
        level = wavtools.loudness_lufs(x)
        if abs(level - wavtools.TARGET_LUFS) > 2.0:
            problems.append(f"{path.name}: {level:.1f} LUFS")
        if abs(x[0]) > 0.002 or abs(x[-1]) > 0.002:
            problems.append(f"{path.name}: clicks")
        if np.argmax(np.abs(x) > 0.01) > 0.2 * 22050:
            problems.append(f"{path.name}: starts with silence")
    assert problems == []


def test_every_prompt_resolves_to_its_own_language_on_the_real_tree() -> None:
    for lang in LANGUAGES:
        for pid in LINES:
            assert voice_path(VOICE, lang, pid) == VOICE / lang / f"{pid}.wav"


# -- the fallback, on a tree made for the purpose ------------------------------------

@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in ("en/turn-1.wav", "en/roll.wav", "de/turn-1.wav"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"RIFF")
    return tmp_path


def test_a_line_in_the_chosen_language_is_used(tree: Path) -> None:
    assert voice_path(tree, "de", "turn-1") == tree / "de" / "turn-1.wav"


def test_a_missing_line_falls_back_to_english(tree: Path) -> None:
    assert voice_path(tree, "de", "roll") == tree / "en" / "roll.wav"


def test_a_language_with_no_lines_at_all_falls_back_to_english(tree: Path) -> None:
    assert voice_path(tree, "it", "turn-1") == tree / "en" / "turn-1.wav"


def test_with_no_line_even_in_english_the_box_plays_sound_alone(tree: Path) -> None:
    assert voice_path(tree, "de", "tie") is None


def test_a_locale_counts_by_its_language(tree: Path) -> None:
    assert voice_path(tree, "de-DE", "turn-1") == tree / "de" / "turn-1.wav"
    assert voice_path(tree, "DE_at", "turn-1") == tree / "de" / "turn-1.wav"


def test_odd_ids_and_languages_never_reach_outside_the_voice_folder(tree: Path) -> None:
    (tree / "secret.wav").write_bytes(b"RIFF")
    assert voice_path(tree, "en", "../secret") is None
    assert voice_path(tree, "..", "turn-1") == tree / "en" / "turn-1.wav"
    assert voice_path(tree, "", "roll") == tree / "en" / "roll.wav"


def test_the_stage_loads_one_language_with_english_standing_in_for_its_gaps(tree: Path) -> None:
    """One set of lines in memory (not the language and English): a German box still says "roll"."""
    from controller.stage.stage import voice_files

    assert voice_files("de", tree) == {"voice/de/roll": tree / "en" / "roll.wav",
                                         "voice/de/turn-1": tree / "de" / "turn-1.wav"}

"""The family's page says everything in each of the box's six languages: no key of the page without its words."""

from __future__ import annotations

import re
from pathlib import Path

from controller.control import settings
from controller.control.settings import FIELDS
from controller.decks import DECKS, LANGUAGES, enrollable
from controller.games import engine_class
from controller.home.page import PAGE
from controller.home.words import page_words
from controller.window.cards import card_look


def test_every_word_the_page_uses_is_there_in_six_languages() -> None:
    words, page = page_words(), PAGE.read_text(encoding="utf-8")
    used = set(re.findall(r'data-w="([a-z_]+)"', page)) | set(re.findall(r'\bw\("([a-z_]+)"\)', page))
    used |= {f"{prefix}_{name}" for prefix in ("f", "x") for name in FIELDS}  # each setting's label and explanation
    assert used - set(words["text"]) == set()
    missing = {key: sorted(set(LANGUAGES) - set(texts)) for key, texts in words["text"].items() if set(texts) != set(LANGUAGES)}
    assert missing == {}
    assert all(set(words["games"][game]) == set(LANGUAGES) for game in DECKS)
    assert set(words["language_names"]) == set(LANGUAGES) and words["language_names"]["de"] == "Deutsch"


def test_every_card_word_and_game_option_has_its_words() -> None:
    words = page_words()
    kinds = {card_look(card).small for deck in (*DECKS, "control") for card in enrollable(deck)}
    assert kinds - set(words["kinds"]) == set()
    options = {option for game in DECKS for option in engine_class(game).default_options}
    assert {f"o_{o}" for o in options} | {f"xo_{o}" for o in options} <= set(words["text"])


def test_every_refusal_the_box_names_by_a_key_has_the_pages_words() -> None:
    """A setting's problem or an enrolment's refusal is shown in the page's language: each key the daemon sends."""
    sent = {key for path in (Path(settings.__file__).parent).glob("*.py")
            for key in re.findall(r'key="([a-z_]+)"|"(restore_[a-z_]+)"', path.read_text(encoding="utf-8"))
            for key in key if key}
    sent |= set(settings.REASONS.values()) | {"p_game", "p_louder"}
    games = Path(__file__).parents[2] / "controller" / "games"  # each game's house-rule problems (OptionsError)
    sent |= {f"p_option_{kind}" for path in games.glob("*.py")
             for kind in re.findall(r'"([a-z_]+)",\s+option=', path.read_text(encoding="utf-8"))}
    assert {"p_option_range", "p_option_choice", "p_option_die_cat", "p_option_unknown"} <= sent
    assert {"pair_playing", "pair_busy", "enrol_playing", "enrol_no_card", "p_le", "restore_other_box",
            "restore_newer"} <= sent
    assert sent - set(page_words()["text"]) == set()

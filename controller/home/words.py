"""The page's words in the box's six languages: its own table, and the box's spoken names of languages and games."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from controller.decks import DECKS, LANGUAGES
from controller.games.base import COLORS
from controller.stage.narration import voice_lines

WORDS = Path(__file__).with_name("words.toml")


@lru_cache(maxsize=1)
def page_words() -> dict[str, Any]:
    """What the page says, per key and language; colours and games as the box says them (without the "!")."""
    table = tomllib.loads(WORDS.read_text(encoding="utf-8"))
    spoken = voice_lines()

    def said(line: str) -> dict[str, str]:
        return {lang: text.rstrip("!.¡ ").lstrip("¡") for lang, text in spoken.get(line, {}).items()}

    kinds = dict(table["kinds"])
    kinds.update({color: said(f"color-{color}") for color in COLORS})
    return {"languages": list(LANGUAGES), "language_names": {lang: said("language").get(lang, lang) for lang in LANGUAGES},
            "games": {game: said(f"game-{game}") for game in DECKS}, "kinds": kinds, "text": table["text"]}

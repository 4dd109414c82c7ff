"""How long each spoken line takes at the voice's speed: the recordings' own durations (``sounds/voice/<lang>/``)."""

from __future__ import annotations

import re
import wave
from pathlib import Path

from controller.stage.shows import DEFAULT_SHOWS, ShowBook

VOICE = Path(__file__).resolve().parents[2] / "sounds" / "voice"
LANGUAGES = ("de", "en", "fr", "nl", "es", "it")
LIMIT = 5.0
"""Seconds: the longest a line a child must act on may take to say (issue 30)."""


def seconds(lang: str, line: str) -> float:
    with wave.open(str(VOICE / lang / f"{line}.wav"), "rb") as w:
        return w.getnframes() / w.getframerate()


def durations() -> dict[str, dict[str, float]]:
    """Line id -> language -> seconds, for every recording."""
    out: dict[str, dict[str, float]] = {}
    for lang in LANGUAGES:
        for path in sorted((VOICE / lang).glob("*.wav")):
            out.setdefault(path.stem, {})[lang] = seconds(lang, path.stem)
    return out


def _placeholder(match: re.Match[str]) -> str:
    """A template's field as a pattern: numbers for seats, counts and debts, names (``floppy-ears``) for the rest."""
    return r"\d+" if match.group(1) in ("seat1", "winner1", "players", "debt", "value1") else r"[\w-]+"


def prompt_lines(ids: list[str]) -> set[str]:
    """The ids among ``ids`` that a prompt (what the box waits for) says: ``[prompt.*]`` of the shows, or its own."""
    templates = []
    for kind, name, fields in ShowBook.load(DEFAULT_SHOWS).every_cue():
        if kind == "prompt":
            for field in ("say", "each", "then"):
                value = fields[field]
                templates += [value] if isinstance(value, str) else list(value or [])
    patterns = [re.compile(re.sub(r"\\\{(\w+)\\\}", _placeholder, re.escape(t)) + "$") for t in templates]
    return {line for line in ids if any(p.match(line) for p in patterns)}

"""What the box says and shows, as words: one line each, for ``gamebox run --profile sim`` and every view.

A person at a simulated box cannot hear it or see its lights, and a script
driving it needs to know how the box answered. :class:`Narrator` listens to
the stage and prints one line per spoken line, refusal, roll and show, each
starting with its kind and a colon so a script can split it::

    say: Player two, green: your turn!
    refused: not_your_turn: it is Player 2's turn
    roll: Player 1 rolled cat
    show: stop_ear: Player 1, joker-3

People are numbered from 1 (``Player 1``) wherever a person reads them;
only JSON keeps the referee's 0-based seats.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Protocol

VOICE_LINES = Path(__file__).resolve().parents[2] / "sounds" / "voice" / "lines.toml"
REFUSALS = ("rejected", "unknown_card", "other_game", "not_now")
"""The shows that answer "no": printed as ``refused:`` lines."""
QUIET = ("accepted",)
"""Shows the daemon reports itself (``accepted N``)."""


class Spoken(Protocol):
    say: tuple[str, ...]


def player_name(seat: int) -> str:
    """A referee seat (0-based) as people count it: seat 0 is ``Player 1``."""
    return f"Player {seat + 1}"


@lru_cache(maxsize=1)
def voice_lines(path: Path = VOICE_LINES) -> dict[str, dict[str, str]]:
    """sounds/voice/lines.toml: line id -> language -> text."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def spoken_text(line: str, language: str = "en") -> str:
    """What a spoken line says in ``language``, else in English, else its id as words."""
    texts = voice_lines().get(line, {})
    return texts.get(language) or texts.get("en") or line.replace("-", " ")


def refusal_reason(name: str, context: dict[str, Any]) -> str:
    """Why the box said no, in words: the referee's reason when it gave one."""
    if context.get("reason"):
        return str(context["reason"])
    if name == "unknown_card":
        return f"no card has the tag {context.get('uid', '?')}"
    if name == "other_game":
        return f"{context.get('card', 'that card')} belongs to {context.get('game', 'another game')}"
    if name == "not_now":
        return f"{context.get('card', 'that card')} cannot be used now"
    return str(context.get("code", name)).replace("_", " ")


def details(context: dict[str, Any]) -> str:
    """A show's context as words: who (numbered from 1), which card, how many."""
    words = []
    for key in ("player", "seat"):
        if isinstance(context.get(key), int):
            words.append(player_name(context[key]))
    if context.get("winners"):
        words.append(" and ".join(player_name(w) for w in context["winners"]))
    for key in ("card", "color", "count", "call", "face", "family", "game"):
        if context.get(key) is not None:
            words.append(str(context[key]))
    for key in ("ships", "scores"):  # one number per seat: where each ship is, how many cats each has
        if isinstance(context.get(key), list):
            words.append("; ".join(f"{player_name(seat)}: {n}" for seat, n in enumerate(context[key])))
    return ", ".join(words)


def show_lines(kind: str, name: str, context: dict[str, Any]) -> list[str]:
    """The line for one show (none for a prompt: it is heard in its ``say:`` lines)."""
    if kind != "show" or name in QUIET:
        return []
    if name in REFUSALS:
        code = context.get("code", name) if name == "rejected" else name
        return [f"refused: {code}: {refusal_reason(name, context)}"]
    if name == "rolled" and "face" in context:
        who = player_name(context["player"]) if isinstance(context.get("player"), int) else "the die"
        return [f"roll: {who} rolled {context['face']}"]
    said = details(context)
    return [f"show: {name}: {said}" if said else f"show: {name}"]


class Narrator:
    """A stage listener that prints what the box does, in the box's language."""

    def __init__(self, out: Callable[[str], None], language: Callable[[], str]) -> None:
        self.out = out
        self.language = language

    def __call__(self, kind: str, name: str, cue: Spoken, context: dict[str, Any]) -> None:
        for line in show_lines(kind, name, context):
            self.out(line)
        for line in cue.say:
            self.out(f"say: {spoken_text(line, self.language())}")

"""Every show in ``controller/stage/shows.toml`` names sounds, spoken lines and lights that exist.

A show naming a missing file would be silent (or dark) exactly when a child
waits for an answer, so each template is filled with every value it can take.
"""

from __future__ import annotations

import itertools
import re

from soundkit import SOUNDS, render

from controller.decks import VARIANTS
from controller.games import GAME_IDS
from controller.stage.lights import ANIMATIONS
from controller.stage.shows import LIGHTS, ShowBook

LINES = render.load_lines()
SOUND_NAMES = {p.stem for p in SOUNDS.glob("*.wav")}

FOUR_SEATS = [str(s) for s in range(1, 5)]
DOMAINS: dict[str, list[str]] = {
    "seat1": [str(s) for s in range(1, 6)],
    "winner1": [str(s) for s in range(1, 6)],
    "count": ["2", "4", "6", "8"],  # bottle-post debts (P5)
    "color": ["yellow", "green", "blue", "red"],
    "call": ["woof", "woof-woof"],  # the barks of F8 (barked events)
    "game": list(GAME_IDS),  # the menu's answers
    "players": ["2", "3", "4", "5"],
    "variant": list(VARIANTS),
    "state": ["on", "off"],
    "value": [str(n) for n in range(51)],  # a ship's crosses or a player's cats, said one by one ("each")
    "value1": [str(s) for s in range(1, 6)],  # a winner's seat from 1, one by one (a tie)
    "ending": ["last-card", "stack-empty", "track"],  # why a game ended (F9, C9, C10)
    "debt": ["2", "4", "6", "8"],  # the cards a bottle post left to take (P5)
    "allowed": [*GAME_IDS, "policecats-alarm"],  # which player counts a refusal names
}


def expand(template: str) -> list[str]:
    """Every name ``template`` can become; Pirate & Co. seats (round won, treasure) go up to 4 (2-4 players),
    and the variants a game starts with are said one by one (``{value}`` of ``variant-{value}-on``)."""
    keys = re.findall(r"{(\w+)}", template)
    domains = [FOUR_SEATS if template.startswith(("round-won", "treasure")) and k in ("seat1", "winner1")
               else list(VARIANTS) if template.startswith("variant-") and k == "value"
               else DOMAINS[k] for k in keys]
    names = []
    for values in itertools.product(*domains):
        name = template
        for key, value in zip(keys, values):
            name = name.replace("{" + key + "}", value, 1)
        names.append(name)
    return names


def cues() -> list[tuple[str, dict]]:
    return [(f"{kind}.{name}", fields) for kind, name, fields in ShowBook.load().every_cue()]


def test_every_sound_a_show_names_exists() -> None:
    missing = [f"{cue}: {name}" for cue, fields in cues() if fields["sound"]
               for name in expand(fields["sound"]) if name not in SOUND_NAMES]
    assert missing == []


def test_every_line_a_show_says_is_in_the_catalogue() -> None:
    missing = []
    for cue, fields in cues():
        say = fields["say"]
        then = fields["then"]
        for template in ([say] if isinstance(say, str) else list(say or [])) + list(fields["each"] or []) + (
                [then] if isinstance(then, str) else list(then or [])):
            missing += [f"{cue}: {name}" for name in expand(template) if name not in LINES]
    assert missing == []


def test_every_light_a_show_names_is_an_animation() -> None:
    assert sorted(set(LIGHTS) - set(ANIMATIONS)) == []
    named = {fields["light"] for _, fields in cues() if fields["light"]}
    assert sorted(named - set(ANIMATIONS)) == []

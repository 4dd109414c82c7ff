"""A line a child must act on is said in under five seconds, in every language, at the voice's speed (issue 30).

What a child must act on: every line a prompt says, and every line of the
script that tells the table what to do (an instruction: "Take a card.",
"Keep the top card and shuffle the rest: the new stack."). The durations are
the recordings' own; ``bench/spoken_length.py`` prints the longest per language.
"""

from __future__ import annotations

from controller.stage.narration import voice_lines
from tests.words.lengths import LANGUAGES, LIMIT, durations, prompt_lines
from tests.words.script import Played
from tests.words.test_rules import instructions


def test_every_line_a_child_acts_on_is_said_in_under_five_seconds(played: dict[tuple[str, str], Played]) -> None:
    lines = voice_lines()
    said = {line for p in played.values() for line in p.ids}
    acted_on = prompt_lines(list(lines)) | {line for line in said if instructions(lines[line]["en"])}
    took = durations()
    assert len(acted_on) > 40
    too_long = {f"{line}/{lang}": round(took[line][lang], 2) for line in sorted(acted_on) for lang in LANGUAGES
                if took[line][lang] >= LIMIT}
    assert too_long == {}

"""How long the box takes to say its lines, per language: the longest line, and the prompts over five seconds.

    .venv/bin/python bench/spoken_length.py

Reads the recordings' durations (``sounds/voice/<lang>/*.wav``, espeak-ng at the
rendered speed). ``tests/words/test_spoken_length.py`` holds every line a child
must act on under five seconds; this prints the figures behind it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.stage.narration import voice_lines  # noqa: E402
from tests.words.lengths import LANGUAGES, LIMIT, durations, prompt_lines  # noqa: E402


def main() -> None:
    took = durations()
    prompts = prompt_lines(list(voice_lines()))
    print(f"{'language':<9} {'longest line':<22} {'seconds':>7}   {'longest prompt':<22} {'seconds':>7}   lines over {LIMIT:g} s")
    for lang in LANGUAGES:
        longest = max(took, key=lambda line: took[line].get(lang, 0.0))
        prompt = max(prompts, key=lambda line: took[line].get(lang, 0.0))
        over = sorted(line for line in took if took[line].get(lang, 0.0) >= LIMIT)
        print(f"{lang:<9} {longest:<22} {took[longest][lang]:>7.2f}   {prompt:<22} {took[prompt][lang]:>7.2f}   "
              f"{', '.join(over) or 'none'}")


if __name__ == "__main__":
    main()

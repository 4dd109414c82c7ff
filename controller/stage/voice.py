"""Which recorded file speaks a prompt, with the box's fallbacks.

The spoken prompts live in ``sounds/voice/<lang>/<prompt-id>.wav``. A
language may lack a line (a new prompt not yet translated, a language added
later): then English speaks it, and where even English is missing the box
plays its sound alone. Keeping that rule in one small function means every
caller falls back the same way.
"""

from __future__ import annotations

import re
from pathlib import Path

FALLBACK_LANGUAGE = "en"
_PROMPT_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def voice_path(root: Path, lang: str, prompt_id: str) -> Path | None:
    """The WAV that speaks ``prompt_id`` in ``lang`` under the voice folder ``root``, else English, else None.

    ``lang`` may be a locale such as ``de-DE`` or ``fr_FR``: only its language
    part counts, so a system setting can be passed straight through. Ids and
    languages are checked before they touch the file system, since a language
    can come from a tapped control card.
    """
    if not _PROMPT_ID.fullmatch(prompt_id):
        return None
    primary = lang.replace("_", "-").split("-", 1)[0].lower()
    candidates = ([primary] if primary.isascii() and primary.isalpha() else []) + [FALLBACK_LANGUAGE]
    for candidate in dict.fromkeys(candidates):
        path = Path(root) / candidate / f"{prompt_id}.wav"
        if path.is_file():
            return path
    return None

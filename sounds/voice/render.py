#!/usr/bin/env python3
"""Render the spoken prompts of ``lines.toml`` into ``sounds/voice/<lang>/<id>.wav`` with espeak-ng.

Speech is made once, here, at build time, and the WAVs are committed: the box
and CI need no speech engine. Each line is trimmed of silence, faded and
normalised to the same loudness and peak limit as the sound effects, so a
voice never sounds louder or quieter than the bark before it.

    python sounds/voice/render.py              # every line in every language
    python sounds/voice/render.py de turn-1    # only these languages and/or prompt ids

Needs ``espeak-ng`` (Debian: ``apt-get install espeak-ng``) and numpy.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from wavtools import RATE, fade, normalise, read_wav, trim, write_wav  # noqa: E402

LANGUAGES: dict[str, str] = {"de": "de", "en": "en-gb", "fr": "fr-fr", "nl": "nl", "es": "es", "it": "it"}
"""The rulebooks' languages and the espeak-ng voice that speaks each."""

WORDS_PER_MINUTE = 145
"""A little slower than espeak-ng's default, for young listeners."""

MANIFEST = HERE / "rendered.json"
"""What was rendered from which text, so a test can tell when a line was edited but not re-rendered."""


def load_lines(path: Path = HERE / "lines.toml") -> dict[str, dict[str, str]]:
    """The catalogue: prompt id -> language -> text."""
    with path.open("rb") as f:
        return tomllib.load(f)


def speak(text: str, lang: str, out: Path) -> np.ndarray:
    """One line, spoken (into the scratch file ``out``), trimmed, faded and loudness-matched."""
    subprocess.run(["espeak-ng", "-v", LANGUAGES[lang], "-s", str(WORDS_PER_MINUTE), "-w", str(out), "--", text],
                   check=True, capture_output=True)
    x, rate = read_wav(out)
    if rate != RATE:
        raise RuntimeError(f"espeak-ng spoke at {rate} Hz, expected {RATE}")
    return normalise(fade(trim(x), 0.01, 0.03))


def espeak_version() -> str:
    """The engine's name and version, without the machine's data path."""
    out = subprocess.run(["espeak-ng", "--version"], check=True, capture_output=True, text=True).stdout
    return out.split("Data at:")[0].strip()


def main(argv: list[str]) -> int:
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is not installed (Debian: apt-get install espeak-ng)", file=sys.stderr)
        return 2
    lines = load_lines()
    langs = [a for a in argv if a in LANGUAGES] or list(LANGUAGES)
    ids = [a for a in argv if a not in LANGUAGES] or list(lines)
    unknown = [i for i in ids if i not in lines]
    if unknown:
        print(f"not in lines.toml: {', '.join(unknown)}", file=sys.stderr)
        return 2
    missing = [f"{i}/{lang}" for i in ids for lang in langs if not lines[i].get(lang)]
    for item in missing:
        print(f"no line for {item}: the box will fall back to English", file=sys.stderr)

    jobs = [(i, lang) for i in ids for lang in langs if lines[i].get(lang)]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor() as pool:
        rendered = pool.map(lambda job: speak(lines[job[0]][job[1]], job[1], Path(tmp) / f"{job[1]}-{job[0]}.wav"),
                            jobs)
        for (pid, lang), x in zip(jobs, rendered):
            write_wav(HERE / lang / f"{pid}.wav", x)

    # Files of prompts that left the catalogue would be found by the box and spoken: remove them.
    for lang in LANGUAGES:
        for f in (HERE / lang).glob("*.wav"):
            if f.stem not in lines or not lines[f.stem].get(lang):
                f.unlink()
                print(f"removed stale {lang}/{f.name}")

    manifest = json.loads(MANIFEST.read_text("utf-8")) if MANIFEST.exists() else {}
    rendered_text = manifest.get("lines", {})
    for pid, lang in jobs:
        rendered_text.setdefault(lang, {})[pid] = lines[pid][lang]
    rendered_text = {lang: {pid: t for pid, t in sorted(rendered_text.get(lang, {}).items())
                            if lines.get(pid, {}).get(lang)} for lang in LANGUAGES}
    MANIFEST.write_text(json.dumps({"engine": espeak_version(), "voices": LANGUAGES,
                                    "words_per_minute": WORDS_PER_MINUTE, "lines": rendered_text},
                                   ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"rendered {len(jobs)} line(s) in {len(langs)} language(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The box's script: the transcripts in ``tests/words/transcripts/*.toml``, played through the sim box.

A transcript is one situation a family meets: how the table got there
(``before``: input lines, ``FE`` standing for the Floppy Ears set-up, or
``bots``: bots play from a set-up until a named moment) and then each input
(``step.input``) with the exact English lines the box says back
(``step.says``). ``{card}`` in an input is the card of the bots' next action;
the input ``next`` is the bots' next action itself.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests.words.sim import FE_SETUP, INPUT, answer, bots_play, play, said

HERE = Path(__file__).resolve().parent / "transcripts"


@dataclass(frozen=True)
class Step:
    input: str
    says: tuple[str, ...]


@dataclass(frozen=True)
class Transcript:
    group: str  # the file: menu, floppy-ears, pirates, policecats
    name: str
    situation: str
    rules: str
    before: tuple[str, ...]
    bots: dict[str, Any] | None
    steps: tuple[Step, ...]
    config: dict[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()  # ending, resume, refusal, ...

    @property
    def game(self) -> str | None:
        return None if self.group == "menu" else self.group


@dataclass
class Played:
    """What the box printed for a transcript, and the id of each spoken line."""

    transcript: Transcript
    lines: list[str]
    ids: list[str]
    inputs: list[str]  # the checked steps' inputs, as typed
    shows: list[tuple[str, dict[str, Any]]]  # every show of the run, with its context

    def answers(self) -> list[list[str]]:
        """The printed answer to each checked step, in order."""
        marks = [i for i, line in enumerate(self.lines) if line.startswith(INPUT)]
        first = len(marks) - len(self.inputs)
        return [answer(self.lines, first + n) for n in range(len(self.inputs))]

    def answer_ids(self) -> list[list[str]]:
        """The spoken line ids of each checked step's answer."""
        out: list[list[str]] = []
        marks = [i for i, line in enumerate(self.lines) if line.startswith(INPUT)]
        first = len(marks) - len(self.inputs)
        before = self.lines[:marks[first]] if marks else []
        at = len(said(before))
        for words in self.answers():
            n = len(said(words))
            out.append(self.ids[at:at + n])
            at += n
        return out


def load(root: Path = HERE) -> list[Transcript]:
    """Every transcript, file by file, in the order written."""
    out = []
    for path in sorted(root.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for t in data.get("transcript", []):
            steps = tuple(Step(s["input"], tuple(s.get("says", []))) for s in t.get("step", []))
            out.append(Transcript(path.stem, t["name"], t["situation"], t.get("rules", ""), tuple(t.get("before", [])),
                                  t.get("bots"), steps, t.get("config", {}), tuple(t.get("tags", []))))
    return out


def typed_before(t: Transcript, tmp_path: Path) -> tuple[list[str], dict[str, Any] | None, list[str]]:
    """The input lines before the checked steps; the bots' next action and its lines, if bots played."""
    lines = [x for line in t.before for x in (FE_SETUP if line == "FE" else [line])]
    if t.bots is None:
        return lines, None, []
    setup = [x for line in t.bots["setup"] for x in (FE_SETUP if line == "FE" else [line])]
    moves, action, nxt = bots_play(tmp_path / "bots", setup, t.bots.get("until"), t.bots.get("bots"),
                                   **t.config)
    return lines + setup + moves, action, nxt


def run(t: Transcript, tmp_path: Path) -> Played:
    before, action, nxt = typed_before(t, tmp_path)
    inputs: list[str] = []
    for step in t.steps:
        if step.input == "next":
            inputs.append(" + ".join(nxt))
        else:
            inputs.append(step.input.format(card=(action or {}).get("card", "")))
    typed = before + [x for line in inputs for x in line.split(" + ")]
    ids: list[str] = []
    shows: list[tuple[str, dict[str, Any]]] = []
    lines = play(tmp_path / "box", typed, wait_for_words=True, ids=ids, shows=shows, **t.config)
    # a "next" of several inputs (a tap and its call) is one step: its answer runs to the next step's input
    merged = _merge(lines, [len(line.split(" + ")) for line in inputs])
    return Played(t, merged, ids, inputs, shows)


def _merge(lines: list[str], sizes: list[int]) -> list[str]:
    """Drop the input marks inside a step of several inputs, so each step has one answer."""
    marks = [i for i, line in enumerate(lines) if line.startswith(INPUT)]
    inner = set()
    at = len(marks) - sum(sizes)
    for size in sizes:
        inner |= set(marks[at + 1:at + size])
        at += size
    return [line for i, line in enumerate(lines) if i not in inner]


@lru_cache(maxsize=None)
def played_all(tmp: str) -> tuple[Played, ...]:
    """Every transcript played once (the exact lines and every rule of the script read the same run)."""
    return tuple(run(t, Path(tmp) / f"{t.group}-{t.name}") for t in load())

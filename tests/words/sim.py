"""A family at a sim box: input lines typed as into ``gamebox run --profile sim``, and what the box printed back.

The box runs in process on a fake clock (no test sleeps). Each input is typed
through the simulator's own input language (:class:`~controller.siminput.SimInput`),
so it goes through the simulated devices, their debouncing and the daemon's
loop, as a line piped into ``gamebox run`` does. Two extra lines stand for what
no device can type: ``power-cut`` (the box goes dark and starts again on the
disk as the power left it) and ``quiet`` (the family waits until the box has said everything).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any, Callable

from controller.siminput import SimInput
from tests.box.daemon_helpers import started, stopped

#: The issue's table: the same seed, no handover time, no repeat filter, English.
TABLE: dict[str, Any] = {"seed": 7, "handover": 0.0, "repeat_window": 0.0, "language": "en"}

#: "FE set-up": Floppy Ears for two, both players' ears hung, the first card turned up (blue 5).
FE_SETUP = ["tap control-game-floppy-ears", "tap control-players-2", "tap red-1", "tap red-2", "tap yellow-1",
            "tap yellow-2", "tap blue-5"]

GAP = 0.1
"""Table seconds between two typed lines when the family does not wait for the box: a quick child."""

QUIET_LIMIT = 60.0
"""The longest a family waits for the box to finish speaking."""

INPUT = "> "
"""How a transcript marks the line the family typed."""


def cut_power(state: Path, after: Path) -> Path:
    """The state folder as a power cut leaves it: its files copied as they lie, SQLite's ``-wal`` included, while the
    box still runs (no shutdown of the box's has written anything yet); the next box starts on the copy."""
    after.mkdir()
    for path in state.iterdir():
        if path.is_file() and not path.name.endswith(".lock"):
            try:
                shutil.copy2(path, after / path.name)
            except FileNotFoundError:  # renamed into place between the listing and the copy: the cut came first
                pass
    return after


async def _type(typed: SimInput, clock: Any, line: str) -> None:
    typing = asyncio.create_task(typed.command(line))
    while not typing.done():  # a press or a wait runs on the clock: move it on
        await clock.run_for(0.05)


async def _quiet(daemon: Any, clock: Any) -> None:
    """Let the box finish speaking; not while a tap waits for its call (a child presses at once)."""
    stage, waited = daemon.stage, 0.0
    while daemon.box.pending is None and (stage.voice or clock.monotonic() < stage.voice_free) and waited < QUIET_LIMIT:
        await clock.run_for(0.25)
        waited += 0.25


def play(tmp_path: Path, inputs: list[str], wait_for_words: bool = False, ids: list[str] | None = None,
         shows: list[tuple[str, dict[str, Any]]] | None = None, **config: Any) -> list[str]:
    """Type ``inputs``; every line the box printed, each input marked ``> ``, without ``ready``/``accepted``.

    ``wait_for_words``: before each input the family lets the box finish speaking (as a family does).
    ``ids``: filled with the id of each spoken line (``sounds/voice/lines.toml``), one per ``say:`` line;
    ``shows``: with the name and context of each show.
    """
    settings = {**TABLE, **config}
    spoken = ids if ids is not None else []
    seen = shows if shows is not None else []

    def heard(kind: str, name: str, cue: Any, context: dict[str, Any]) -> None:
        spoken.extend(cue.say)
        if kind == "show":
            seen.append((name, context))

    def listen(daemon: Any) -> None:
        daemon.stage.listeners.append(heard)

    async def scenario() -> list[str]:
        out: list[str] = []
        state = tmp_path
        daemon, task, clock, lines = await started(state, **settings)
        listen(daemon)
        spoken[:] = [_id_of(text) for text in said(lines)]  # said before a listener could hear it
        typed = SimInput(daemon.devices, clock, lines.append)
        try:
            for line in inputs:
                if wait_for_words:
                    await _quiet(daemon, clock)
                if line == "start":  # what the box said before anything was typed
                    lines.insert(0, INPUT + line)
                else:
                    lines.append(INPUT + line)
                if line == "power-cut":
                    state = cut_power(state, tmp_path.parent / f"{tmp_path.name}-cut{len(out)}")
                    await stopped(daemon, task)  # what it does on its way out reaches only the old folder
                    out += lines
                    daemon, task, clock, lines = await started(state, **settings)  # a fresh box on the cut disk
                    spoken.extend(_id_of(text) for text in said(lines))
                    listen(daemon)
                    typed = SimInput(daemon.devices, clock, lines.append)
                elif line in ("quiet", "start"):
                    await _quiet(daemon, clock)
                else:
                    await _type(typed, clock, line)
                await clock.run_for(GAP)
            await _quiet(daemon, clock)
        finally:  # the box this test started is stopped, also when an input fails
            await stopped(daemon, task)
        return out + lines

    printed = asyncio.run(scenario())
    return [line for line in printed if line not in ("ready", "stopped") and not line.startswith("accepted ")]


def _id_of(text: str) -> str:
    """The English line's id (only for what a box says while it starts, before a listener hears it)."""
    from controller.stage.narration import voice_lines

    return next((i for i, texts in voice_lines().items() if texts.get("en") == text or text in texts.values()), text)


def said(lines: list[str]) -> list[str]:
    """The spoken lines, in order."""
    return [line.removeprefix("say: ") for line in lines if line.startswith("say: ")]


def answer(lines: list[str], index: int = -1) -> list[str]:
    """What the box printed after one input (the last by default), up to the next."""
    marks = [i for i, line in enumerate(lines) if line.startswith(INPUT)]
    start = marks[index]
    end = next((m for m in marks if m > start), len(lines))
    return lines[start + 1:end]


def bots_play(tmp_path: Path, setup: list[str], until: Callable[[Any, dict[str, Any]], bool] | str | None = None,
              bots: list[str] | None = None, limit: int = 5000, **config: Any
              ) -> tuple[list[str], dict[str, Any] | None, list[str]]:
    """The input lines with which bots play on from ``setup`` on a box like the family's (same seed, same table).

    Bots play until ``until(engine, action)`` (or the :func:`condition` it names) holds for the action they would
    make next (returned with the lines that would make it, not made), or to the game's end (None). The lines replay the same game on the sim box:
    the deal and the die follow the same seed.
    """
    from controller.autoplay import Autoplayer, run_inputs
    from tests.box.helpers import make_box

    check = condition(until) if isinstance(until, str) else until
    settings = {**TABLE, **config}
    box, _stage, clock = make_box(tmp_path, seed=settings.pop("seed"), **settings)
    for line in setup:
        verb, what = line.split()
        getattr(box, verb)(*(["table", what] if verb == "tap" else [what]))
        clock.advance(GAP)
        box.poll()
    auto = Autoplayer(box, 7, bots)
    typed: list[str] = []
    for _ in range(limit):
        engine = box.engine
        if engine.over:
            return typed, None, []
        _seat, action = auto.choose()
        steps = auto.inputs(action)
        if check is not None and check(engine, action):
            return typed, action, [f"{s.kind} {s.value}" for s in steps]
        typed += [f"{s.kind} {s.value}" for s in steps]
        run_inputs(box, steps, clock.advance)
    raise AssertionError(f"no end after {limit} actions")


def _after(engine: Any, action: dict[str, Any]) -> Any:
    trial = type(engine).replay(engine.players, engine.options, engine.log)
    trial.apply(dict(action))
    return trial


def condition(name: str) -> Callable[[Any, dict[str, Any]], bool]:
    """A named ``until`` of :func:`bots_play`, as transcripts write it.

    ``last`` (the action that ends the game), ``round`` (the one that wins a round), ``awaiting:<phase>``
    (the box awaits that phase; ``awaiting:<phase>@<n>``: once the game has ``n`` actions or more),
    ``call:<call>`` (a play that needs that call, made with it), ``bark-due`` (a play a bark would be due for).
    """
    if name == "last":
        return lambda engine, action: bool(_after(engine, action).over)
    if name == "round":
        return lambda engine, action: _after(engine, action).view().get("round") != engine.view().get("round")
    kind, _, value = name.partition(":")
    if kind == "awaiting":
        phase, _, after = value.partition("@")
        return lambda engine, action: engine.awaiting == phase and len(engine.log) >= int(after or 0)
    if kind == "call":
        return lambda engine, action: action["type"] == "play" and action.get("call") == value
    if name == "bark-due":  # a Floppy Ears play a bark would be due for, were the bark rule on (F8)
        from controller.games.floppy_ears import bark_due

        return lambda engine, action: action["type"] == "play" and bark_due(engine.cards_of(action["player"])) is not None
    raise ValueError(f"no condition {name!r}")

"""The stage: the box's shows, prompts and scenes played on a speaker and an LED strip.

Sound effects start at once on the effects channel; spoken lines queue on
the voice channel, one after another, and a new prompt replaces the prompt
lines not yet spoken (they are out of date). Each LED segment shows its
scene (the turn ring, the sea route, the police track) and, over it, at most
one running animation. :meth:`DeviceStage.tick` draws what is due and
:meth:`DeviceStage.next_deadline` says when to call it again, so the loop
sleeps while nothing moves.
"""

from __future__ import annotations

import logging
import wave
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from controller.config import Config
from controller.stage.lights import Animation
from controller.stage.lights.cues import LightCall, rgb, scene_animation, show_animation
from controller.stage.scene import Scene
from controller.stage.shows import Cue, ShowBook
from controller.stage.voice import voice_path
from hardware.clock import Clock
from hardware.interfaces import DiePuck, LedStrip, Speaker

if TYPE_CHECKING:
    from hardware.factory import Devices

log = logging.getLogger("gamebox.stage")

SOUNDS = Path(__file__).resolve().parents[2] / "sounds"
VOICE = SOUNDS / "voice"
GAP = 0.15  # seconds of quiet between two spoken lines
WAITING = 6  # shows whose lines may wait: a child tapping faster than the box speaks builds no backlog
KEPT = 2000  # transcript entries kept (a daemon runs for months)

OFF = (0, 0, 0)


def sound_files(root: Path = SOUNDS) -> dict[str, Path]:
    """Every effect by name: ``sounds/<name>.wav``."""
    return {p.stem: p for p in sorted(root.glob("*.wav"))}


def voice_files(language: str, root: Path = VOICE) -> dict[str, Path]:
    """Spoken lines as ``voice/<language>/<id>`` -> file, English standing in for a line the language lacks."""
    ids = {p.stem for p in (root / "en").glob("*.wav")} | {p.stem for p in (root / language).glob("*.wav")}
    files: dict[str, Path] = {}
    for prompt_id in sorted(ids):
        path = voice_path(root, language, prompt_id)
        if path is not None:
            files[f"voice/{language}/{prompt_id}"] = path
    return files


def wav_seconds(path: Path) -> float:
    try:
        with wave.open(str(path), "rb") as w:
            return w.getnframes() / float(w.getframerate())
    except (OSError, wave.Error, EOFError):
        return 1.0


class Transcript:
    """What was said and shown, newest last: the last ``keep`` entries of it.

    ``len()`` counts every entry ever written and a slice takes those
    positions, so a reader that remembers how far it read (the demo, the
    window) reads on from there after older entries were let go.
    """

    def __init__(self, keep: int = KEPT) -> None:
        self._kept: deque[tuple[float, str, str]] = deque(maxlen=keep)
        self._count = 0

    def append(self, entry: tuple[float, str, str]) -> None:
        self._kept.append(entry)
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[tuple[float, str, str]]:
        return iter(self._kept)

    def __reversed__(self) -> Iterator[tuple[float, str, str]]:
        return reversed(self._kept)

    def __getitem__(self, index: slice) -> list[tuple[float, str, str]]:
        first = self._count - len(self._kept)  # the position of the oldest entry kept
        return [self._kept[i - first] for i in range(self._count)[index] if i >= first]


@dataclass(slots=True)
class Running:
    animation: Animation
    started: float


class DeviceStage:
    """Plays the box's shows on a :class:`Speaker` and a :class:`LedStrip`."""

    def __init__(self, leds: LedStrip | None, speaker: Speaker | None, book: ShowBook, clock: Clock,
                 language: str = "en", durations: dict[str, float] | None = None,
                 puck: DiePuck | None = None) -> None:
        """``puck``: the die puck, when one is paired, shows each roll on its own ring too."""
        self.leds, self.speaker, self.book, self.clock, self.puck = leds, speaker, book, clock, puck
        self.language = language
        self.durations = durations or {}
        self.segments = {name: len(leds.segment(name)) for name in leds.segments} if leds else {}
        self.base: dict[str, Running] = {}
        self.active: dict[str, Running] = {}
        self.voice: deque[tuple[str, bool, int]] = deque()  # (line, is a prompt line, the show it belongs to)
        self._shows = 0  # shows queued so far: the number of the next one
        self.voice_free = 0.0
        self.scene_now: Scene | None = None
        self.last_prompt: tuple[str, tuple[str, ...]] | None = None
        self._due: float | None = 0.0
        #: What was said and shown, newest last: the demo prints it, tests read it.
        self.transcript = Transcript()
        #: What the speaker must load: every effect, and the spoken lines of :attr:`language` and English.
        self.sounds: dict[str, Path] = {}
        self._spoken = ""  # the language whose lines are in :attr:`sounds`
        #: Called with (kind, name, cue, context) for each show and prompt played: ``gamebox run`` prints them.
        self.listeners: list[Callable[[str, str, Cue, dict[str, Any]], None]] = []

    @classmethod
    def for_devices(cls, devices: Devices, book: ShowBook, clock: Clock, config: Config) -> "DeviceStage":
        """A stage on a profile's devices; :attr:`sounds` is what the speaker must load at start."""
        stage = cls(devices.leds, devices.speaker, book, clock, config.language, puck=devices.puck)
        stage.speak(config.language)
        return stage

    def speak(self, language: str) -> None:
        """Speak ``language`` from now on, its lines loaded now if they are not.

        Only its lines are loaded, English files standing in for any it lacks
        (:func:`voice_path`); the language spoken before is let go, so the
        speaker holds one set of lines, not all six a card may choose.
        """
        self.language = language
        if language == self._spoken:
            return
        self._spoken = language
        voice = voice_files(language)
        self.sounds = {**sound_files(), **voice}
        self.durations = {name: wav_seconds(path) for name, path in voice.items()}
        if self.speaker is not None:
            self.speaker.load(self.sounds)

    # -- the box's three calls ---------------------------------------------------------
    def show(self, name: str, **context: Any) -> None:
        cue = self.book.show(name, context)
        if cue is not None:
            for listener in self.listeners:
                listener("show", name, cue, context)
            self._play(name, cue, prompt=False, context=context)
        if name == "volume" and self.speaker is not None and "volume" in context:
            self.speaker.volume = context["volume"]
        if name == "rolled" and self.puck is not None and "face" in context:
            self.puck.show(context["face"])

    def prompt(self, prompt_id: str, **context: Any) -> None:
        cue = self.book.prompt(prompt_id, context)
        if cue is None:
            return
        if prompt_id == "language":
            self.speak(context.get("language", self.language))
        key = (prompt_id, cue.say, self.language)  # a language chosen again is said in the new language
        if key == self.last_prompt and self.voice and self.voice[-1][1]:
            return  # already waiting to be said, after every answer
        self.last_prompt = key
        if any(is_prompt for _, is_prompt, _ in self.voice):  # out-of-date prompt lines, wherever they wait
            self.voice = deque(item for item in self.voice if not item[1])
        for listener in self.listeners:
            listener("prompt", prompt_id, cue, context)
        self._play(prompt_id, cue, prompt=True)

    def scene(self, scene: Scene) -> None:
        self.scene_now = scene
        now = self.clock.monotonic()
        for segment, n in self.segments.items():
            animation = scene_animation(segment, n, scene)
            old = self.base.get(segment)
            if old is None or old.animation != animation:
                self.base[segment] = Running(animation, now)
        self._due = now

    # -- time ---------------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        return self._due

    def quiet_at(self) -> float:
        """When everything queued to be said will have been said (a player waits for the box)."""
        pending = sum(self.durations.get(self._voice_name(line), 0.0) + GAP for line, _, _ in self.voice)
        return max(self.voice_free, self.clock.monotonic()) + pending

    def tick(self) -> None:
        """Start due voice lines and push the LED frames that changed."""
        now = self.clock.monotonic()
        due: list[float] = []
        if self.leds is not None:  # first: a spoken line may be loaded from disk when it starts
            for segment in self.segments:
                running = self.active.get(segment)
                if running is not None and running.animation.done(now - running.started):
                    del self.active[segment]
                    running = None
                running = running or self.base.get(segment)
                if running is None:
                    continue
                t = now - running.started
                self.leds.segment(segment).paint(running.animation.frame(t))
                nxt = running.animation.next_change(t)
                if nxt is not None:
                    due.append(running.started + nxt)
            self.leds.show()
        if self.voice and now >= self.voice_free:
            self._say_next(now)
        if self.voice:
            due.append(self.voice_free)
        self._due = min(due) if due else None

    # -- playing ------------------------------------------------------------------------
    def _play(self, name: str, cue: Cue, prompt: bool, context: dict[str, Any] | None = None) -> None:
        now = self.clock.monotonic()
        if cue.sound and self.speaker is not None:
            self.speaker.play(cue.sound, "fx")
        self._queue(cue.say, prompt)
        self.transcript.append((now, "prompt" if prompt else "show", name))
        if cue.light and cue.segment in self.segments:
            call = LightCall(self.segments[cue.segment], self._rest(cue.segment, now), rgb(cue.color),
                             context or {}, self.scene_now)
            animation = show_animation(cue.light, call)
            if animation is not None:
                self.active[cue.segment] = Running(animation, now)
        self._due = now

    def _queue(self, lines: tuple[str, ...], prompt: bool) -> None:
        """Queue one show's spoken lines, keeping only what still matters when shows come faster than speech.

        A show's lines stay together (a seat's name and its score are said
        both or neither). An answer already waiting is not said twice; past
        :data:`WAITING` shows, the oldest waiting answer (to an earlier tap)
        gives way. The newest answer is always said; stale prompts are
        dropped by :meth:`prompt`.
        """
        if not lines or (not prompt and lines in self._waiting_answers()):
            return
        self._shows += 1
        self.voice.extend((line, prompt, self._shows) for line in lines)
        while len({show for _, _, show in self.voice}) > WAITING:
            waiting = [item for item in self.voice if item[2] != self._shows]  # never the show just queued
            stale = next((show for _, is_prompt, show in waiting if not is_prompt), waiting[0][2])
            self.voice = deque(item for item in self.voice if item[2] != stale)

    def _waiting_answers(self) -> list[tuple[str, ...]]:
        """The lines of each answer waiting to be said, show by show."""
        shows: dict[int, list[str]] = {}
        for line, is_prompt, show in self.voice:
            if not is_prompt:
                shows.setdefault(show, []).append(line)
        return [tuple(lines) for lines in shows.values()]

    def _voice_name(self, line: str) -> str:
        """The loaded sound that says ``line`` in the box's language (an English file where it has none)."""
        return f"voice/{self.language}/{line}"

    def _say_next(self, now: float) -> None:
        line, _, _ = self.voice.popleft()
        name = self._voice_name(line)
        if name not in self.durations:
            log.debug("no spoken line %r", line)
            return
        self.transcript.append((now, "say", line))
        if self.speaker is not None:
            self.speaker.play(name, "voice")
        self.voice_free = now + self.durations[name] + GAP

    def _rest(self, segment: str, now: float) -> list[tuple[int, int, int]]:
        base = self.base.get(segment)
        if base is None:
            return [OFF] * self.segments[segment]
        return base.animation.frame(now - base.started)

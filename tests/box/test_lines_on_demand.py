"""Spoken lines are loaded when first said (the box's memory holds the effects and the latest lines, not all 200):
a line said once in a long while must still be heard, whole and at once.

Played through the real stage and the pygame speaker into a file (SDL's disk
audio driver), with the box's own recorded lines, at full volume, so the file
holds the line's very samples.
"""

from __future__ import annotations

import asyncio
import wave
from pathlib import Path

import hardware.drivers.pygame_speaker as pygame_speaker
from controller.stage.shows import ShowBook
from controller.stage.stage import VOICE, DeviceStage
from hardware.clock import FakeClock
from hardware.drivers.pygame_speaker import PygameSpeaker
from hardware.events import EventSink
from tests.hardware.support import wait_until
from tests.hardware.test_speaker import flat_wav, levels, mixed  # noqa: F401  (a fixture)

SPOKEN = 0.25  # seconds of a line the file must hold: heard, not cut off


def opening(path: Path, seconds: float = SPOKEN) -> bytes:
    """The line's first ``seconds`` of sound, from its first sample that is not silence."""
    with wave.open(str(path), "rb") as line:
        frames = line.readframes(line.getnframes())
    start = next(i for i in range(0, len(frames), 2) if frames[i:i + 2] != b"\0\0")
    return frames[start:start + int(line.getframerate() * seconds) * 2]


def heard(out: Path, sound: bytes) -> bool:
    """Wait until the mixer has written ``sound`` to ``out``."""
    return wait_until(lambda: out.exists() and sound in out.read_bytes())


def test_a_prompt_said_once_in_a_long_while_is_heard_from_its_first_word(mixed):
    """"Hold again to take it back" (undo-hold-again) is said only when a child lets go of the undo button early."""
    clock = FakeClock()

    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=1.0, volume=1.0)
        stage = DeviceStage(None, speaker, ShowBook.load(), clock, "en")
        stage.speak("en")
        speaker.start(stage.sounds)
        assert speaker.fault is None
        stage.prompt("undo-hold-again")
        stage.tick()
        assert heard(mixed, opening(VOICE / "en" / "undo-hold-again.wav"))
        assert [entry[1:] for entry in stage.transcript[-2:]] == [("prompt", "undo-hold-again"), ("say", "undo-hold-again")]
        speaker.stop()

    asyncio.run(scenario())


def test_a_line_let_go_past_the_memory_budget_is_loaded_again_when_next_said(mixed, tmp_path, monkeypatch):
    monkeypatch.setattr(pygame_speaker, "KEPT_LINE_BYTES", 1000)  # one short line at a time
    lines = {f"voice/en/{name}": flat_wav(tmp_path / f"{name}.wav", level, 0.02)
             for name, level in (("yes", 1000), ("no", 2000))}
    clock = FakeClock()

    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=1.0, volume=1.0)
        speaker.start(lines)
        speaker.play("voice/en/yes", "voice")
        assert wait_until(lambda: 1000 in levels(mixed))
        speaker.play("voice/en/no", "voice")  # "yes" is let go
        assert wait_until(lambda: 2000 in levels(mixed))
        after = mixed.stat().st_size // 2
        speaker.play("voice/en/yes", "voice")
        assert wait_until(lambda: 1000 in levels(mixed, after))
        after = mixed.stat().st_size // 2
        speaker.play("voice/en/yes", "voice")  # kept now: said again at once
        assert wait_until(lambda: 1000 in levels(mixed, after))
        speaker.stop()
        assert speaker.fault is None and not speaker.unknown

    asyncio.run(scenario())

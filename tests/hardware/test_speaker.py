"""The pygame speaker, mixing into a file through SDL's disk audio driver.

Each test sound is a constant level (a flat line), so the mixed file shows
exactly which sounds played together and how loud.
"""

from __future__ import annotations

import array
import asyncio
import struct
import wave
from pathlib import Path

import pytest

from hardware.drivers.pygame_speaker import PygameSpeaker
from hardware.events import EventSink
from tests.hardware.support import kinds, pump, wait_until

RATE = 22050  # the mixer's rate, mono, as every file in sounds/


def flat_wav(path: Path, level: int, seconds: float) -> Path:
    frames = int(RATE * seconds)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(struct.pack(f"<{frames}h", *([level] * frames)))
    return path


@pytest.fixture
def mixed(tmp_path, monkeypatch) -> Path:
    """Where SDL writes what the mixer played."""
    out = tmp_path / "mixed.raw"
    monkeypatch.setenv("SDL_AUDIODRIVER", "disk")
    monkeypatch.setenv("SDL_DISKAUDIOFILE", str(out))
    return out


@pytest.fixture
def sounds(tmp_path) -> dict[str, Path]:
    return {
        "bark": flat_wav(tmp_path / "bark.wav", 1000, 0.05),
        "fanfare": flat_wav(tmp_path / "fanfare.wav", 3000, 0.15),
    }


def levels(path: Path, after: int = 0) -> set[int]:
    samples = array.array("h")
    samples.frombytes(path.read_bytes()[after * 2 :] if path.exists() else b"")
    return set(samples)


def played_out(path: Path, *wanted: int) -> bool:
    """Wait until the mixer has written ``wanted`` levels and a little silence after them."""
    return wait_until(lambda: set(wanted) | {0} <= levels(path) and path.stat().st_size > RATE)


def test_a_bark_on_voice_plays_over_a_fanfare_on_music(clock, mixed, sounds):
    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=1.0, volume=1.0)
        speaker.start(sounds)
        speaker.play("fanfare", "music")
        speaker.play("bark", "voice")
        assert played_out(mixed, 4000, 3000)
        speaker.stop()
        assert speaker.fault is None

    asyncio.run(scenario())
    assert {4000, 3000} <= levels(mixed), "both at once, then the fanfare alone"


def test_a_new_sound_on_a_busy_channel_cuts_the_old_one_off(clock, mixed, sounds):
    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=1.0, volume=1.0)
        speaker.start(sounds)
        speaker.play("fanfare", "music")
        speaker.play("bark", "music")
        assert played_out(mixed, 1000)
        speaker.stop()

    asyncio.run(scenario())
    assert 4000 not in levels(mixed)


def test_the_volume_never_goes_past_the_ceiling(clock, mixed, sounds):
    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=0.5, volume=0.2)
        speaker.start(sounds)
        speaker.volume = 1.0
        assert speaker.volume == 0.5
        speaker.play("bark")
        assert played_out(mixed, 500)
        speaker.stop()

    asyncio.run(scenario())
    assert max(levels(mixed)) == 500


def test_silence_stops_one_channel(clock, mixed, sounds):
    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=1.0, volume=1.0)
        speaker.start(sounds)
        speaker.silence()  # nothing playing: nothing to do
        speaker.play("fanfare", "music")
        speaker.silence("music")
        speaker.play("bark", "voice")
        assert played_out(mixed, 1000)
        speaker.stop()

    asyncio.run(scenario())
    assert 3000 not in levels(mixed) and 4000 not in levels(mixed)


def test_missing_or_unreadable_sounds_are_a_fault_and_the_rest_play(clock, mixed, sounds, tmp_path):
    broken = tmp_path / "whistle.wav"
    broken.write_bytes(b"not a wave file")

    async def scenario():
        sink = EventSink()
        speaker = PygameSpeaker(sink, clock, max_volume=1.0, volume=1.0)
        speaker.start(sounds | {"whistle": broken, "siren": tmp_path / "siren.wav"})
        speaker.play("whistle")
        speaker.play("bark")
        assert played_out(mixed, 1000)
        speaker.stop()
        await pump()
        (fault,) = sink.drain()
        assert "siren" in fault.message and "whistle" in fault.message
        assert list(speaker.unknown) == ["whistle"]

    asyncio.run(scenario())


def test_no_audio_device_is_a_fault_and_a_later_play_finds_the_device(clock, mixed, sounds, monkeypatch):
    async def scenario():
        sink = EventSink()
        speaker = PygameSpeaker(sink, clock, audio_driver="no-such-audio", retry_after=5.0, volume=1.0)
        speaker.start(sounds)
        speaker.play("bark")  # silent, and no exception
        monkeypatch.setattr(speaker, "audio_driver", "disk")
        clock.advance(1.0)
        speaker.play("bark")  # too soon to try again
        clock.advance(5.0)
        speaker.play("bark")
        assert played_out(mixed, 1000)
        speaker.stop()
        await pump()
        events = sink.drain()
        assert kinds(events) == ["DeviceFault", "DeviceRecovered"]
        assert "no audio device" in events[0].message

    asyncio.run(scenario())


def test_the_profiles_audio_device_is_the_one_the_mixer_opens(clock, mixed, sounds, tmp_path):
    """`speaker.device` picks the output (a USB speaker on a Pi 5); SDL's disk driver takes it as the file to fill."""
    usb = tmp_path / "usb-speaker.raw"

    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, device=str(usb), max_volume=1.0, volume=1.0)
        speaker.start(sounds)
        speaker.play("bark")
        assert played_out(usb, 1000)
        speaker.stop()

    asyncio.run(scenario())
    assert not mixed.exists(), "nothing went to the default device"


def test_loading_another_set_adds_the_new_sounds_and_lets_go_of_the_old(clock, mixed, sounds, tmp_path):
    """A box choosing another language loads its lines then, and frees the language it spoke before."""
    whistle = flat_wav(tmp_path / "whistle.wav", 2000, 0.05)

    async def scenario():
        speaker = PygameSpeaker(EventSink(), clock, max_volume=1.0, volume=1.0)
        speaker.start(sounds)
        speaker.load({"fanfare": sounds["fanfare"], "whistle": whistle})
        assert sorted(speaker.sounds) == ["fanfare", "whistle"]
        speaker.play("bark")  # let go of: not played, and no exception
        speaker.play("whistle", "voice")
        assert played_out(mixed, 2000)
        speaker.stop()
        assert list(speaker.unknown) == ["bark"] and speaker.fault is None

    asyncio.run(scenario())
    assert 1000 not in levels(mixed)

"""The Pi's audio out (or a PC's), through pygame's mixer.

Every sound is loaded at start, so a bark starts within one mixer buffer
(512 samples: 11.6 ms at 44.1 kHz). Each named channel is a reserved mixer
channel: a bark on "voice" plays over a fanfare on "music", and a new
sound on a busy channel cuts the old one off. The volume is applied to
every loaded sound, capped by ``max_volume``.

Without an audio device the speaker reports a fault and stays silent; it
tries to open the device again on a later ``play`` (at most every
``retry_after`` seconds), so a USB speaker plugged in late is picked up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink
from hardware.speaker import ChannelSpeaker


class PygameSpeaker(ChannelSpeaker):
    """Sounds through ``pygame.mixer``; one per process, as the mixer is global."""

    driver = "pygame"

    def __init__(
        self,
        sink: EventSink,
        clock: Clock,
        *,
        frequency: int = 22050,
        buffer: int = 512,
        audio_driver: str | None = None,
        device: str | None = None,
        retry_after: float = 10.0,
        **settings: Any,
    ) -> None:
        super().__init__(sink, clock, **settings)
        self.frequency = frequency
        self.buffer = buffer
        self.audio_driver = audio_driver
        self.audio_device = device
        self.retry_after = retry_after
        self._mixer: Any = None
        self._sounds: dict[str, Any] = {}
        self._mixer_channels: dict[str, Any] = {}
        self._retry_at = 0.0

    def start(self, sounds: Mapping[str, str | Path] | None = None) -> None:
        self._take_paths(sounds)
        self._open()

    def stop(self) -> None:
        mixer, self._mixer = self._mixer, None
        self._sounds.clear()
        self._mixer_channels.clear()
        if mixer is not None:
            mixer.quit()

    def _loaded(self) -> None:
        for name in [name for name in self._sounds if name not in self._paths]:
            del self._sounds[name]  # a language no longer spoken: its memory goes back
        if self._mixer is not None:  # else the next open loads them
            self._load(self._mixer)
            self._report_missing()

    @property
    def sounds(self) -> tuple[str, ...]:
        return tuple(self._sounds)

    def play(self, name: str, channel: str | None = None) -> None:
        channel = self._lookup(name, channel)
        if channel is None or not self._ready():
            return
        sound = self._sounds.get(name)
        if sound is not None:
            self._mixer_channels[channel].play(sound)

    def silence(self, channel: str | None = None) -> None:
        if self._mixer is None:
            return
        for name, mixer_channel in self._mixer_channels.items():
            if channel in (None, name):
                mixer_channel.stop()

    def describe(self) -> str:
        where = self.audio_driver or os.environ.get("SDL_AUDIODRIVER") or "default audio driver"
        where += f", device {self.audio_device!r}" if self.audio_device else ", default device"
        return (
            f"{where}, {len(self._paths)} sounds on channels {', '.join(self.channels)}, "
            f"volume {self.volume:.2f} of max {self.max_volume:.2f}"
        )

    def _volume_changed(self) -> None:
        for sound in self._sounds.values():
            sound.set_volume(self.volume)

    def _ready(self) -> bool:
        if self._mixer is None and self._clock.monotonic() >= self._retry_at:
            self._open()
        return self._mixer is not None

    def _open(self) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        if self.audio_driver:
            os.environ["SDL_AUDIODRIVER"] = self.audio_driver
        try:
            import pygame.mixer as mixer

            mixer.init(
                frequency=self.frequency, size=-16, channels=1, buffer=self.buffer, devicename=self.audio_device
            )
            mixer.set_num_channels(max(8, len(self.channels)))
            mixer.set_reserved(len(self.channels))
        except Exception as error:  # pygame.error: no audio device; ImportError: no pygame
            self._retry_at = self._clock.monotonic() + self.retry_after
            self._faults.fault(f"no audio device: {error}")
            return
        self._mixer = mixer
        self._mixer_channels = {name: mixer.Channel(i) for i, name in enumerate(self.channels)}
        self._load(mixer)
        self._report_missing()

    def _report_missing(self) -> None:
        message = self._missing_message()
        if message:
            self._faults.fault(message)
        else:
            self._faults.ok()

    def _load(self, mixer: Any) -> None:
        for name, path in list(self._paths.items()):
            if name in self._sounds:
                continue  # loaded already
            try:
                sound = mixer.Sound(str(path))
            except Exception:  # pygame.error: not a sound file it can read
                del self._paths[name]
                self._missing.append(name)
                continue
            sound.set_volume(self.volume)
            self._sounds[name] = sound

"""The Pi's audio out (or a PC's), through pygame's mixer.

Every effect is loaded at start, so a bark starts within one mixer buffer
(512 samples: 11.6 ms at 44.1 kHz). Spoken lines (names with a folder,
``voice/<lang>/<id>``) are many and mostly rare, so they are loaded when
first played (a fraction of a millisecond from the page cache) and the
latest :data:`KEPT_LINE_BYTES` of them stay loaded: the lines said often
stay in memory, a reason said once a month does not. Each named channel is a reserved mixer
channel: a bark on "voice" plays over a fanfare on "music", and a new
sound on a busy channel cuts the old one off. The volume is applied to
every loaded sound, capped by ``max_volume``.

Without an audio device the speaker reports a fault and stays silent; it
tries to open the device again on a later ``play`` (at most every
``retry_after`` seconds), so a USB speaker plugged in late is picked up.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink
from hardware.speaker import ChannelSpeaker

KEPT_LINE_BYTES = 3 * 1024 * 1024  # spoken lines kept loaded: about 70 s of speech at 22 050 Hz, 16-bit mono


def on_demand(name: str) -> bool:
    """A spoken line (``voice/<lang>/<id>``): loaded when first played, not at start."""
    return "/" in name


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
        self._sounds: dict[str, Any] = {}  # the effects, loaded at start
        self._lines: OrderedDict[str, tuple[Any, int]] = OrderedDict()  # spoken lines: sound, bytes; newest last
        self._mixer_channels: dict[str, Any] = {}
        self._retry_at = 0.0

    def start(self, sounds: Mapping[str, str | Path] | None = None) -> None:
        self._take_paths(sounds)
        self._open()

    def stop(self) -> None:
        mixer, self._mixer = self._mixer, None
        self._sounds.clear()
        self._lines.clear()
        self._mixer_channels.clear()
        if mixer is not None:
            mixer.quit()

    def _loaded(self) -> None:
        for name in [name for name in self._sounds if name not in self._paths]:
            del self._sounds[name]
        for name in [name for name in self._lines if name not in self._paths]:
            del self._lines[name]  # a language no longer spoken: its memory goes back
        if self._mixer is not None:  # else the next open loads them
            self._load(self._mixer)
            self._report_missing()

    @property
    def sounds(self) -> tuple[str, ...]:
        """The effects loaded and, while the device is open, the spoken lines it loads when first played."""
        lines = tuple(name for name in self._paths if on_demand(name)) if self._mixer is not None else ()
        return (*self._sounds, *lines)

    def play(self, name: str, channel: str | None = None) -> None:
        channel = self._lookup(name, channel)
        if channel is None or not self._ready():
            return
        sound = self._line(name) if on_demand(name) else self._sounds.get(name)
        if sound is not None:
            self._mixer_channels[channel].play(sound)

    def _line(self, name: str) -> Any:
        """The spoken line ``name``, loaded now if it is not; the least recently said go past the budget."""
        if name in self._lines:
            self._lines.move_to_end(name)
            return self._lines[name][0]
        try:
            sound = self._mixer.Sound(str(self._paths[name]))
        except Exception:  # pygame.error: not a sound file it can read
            del self._paths[name]
            self._missing.append(name)
            self._report_missing()
            return None
        sound.set_volume(self.volume)
        self._lines[name] = (sound, round(sound.get_length() * self.frequency) * 2)
        while sum(size for _, size in self._lines.values()) > KEPT_LINE_BYTES and len(self._lines) > 1:
            self._lines.popitem(last=False)  # a channel still playing it holds it until it ends
        return sound

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
        for sound in [*self._sounds.values(), *(line for line, _ in self._lines.values())]:
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
            if name in self._sounds or on_demand(name):
                continue  # loaded already, or when first played
            try:
                sound = mixer.Sound(str(path))
            except Exception:  # pygame.error: not a sound file it can read
                del self._paths[name]
                self._missing.append(name)
                continue
            sound.set_volume(self.volume)
            self._sounds[name] = sound

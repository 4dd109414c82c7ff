"""What every speaker shares: named channels, a volume ceiling, sounds by name.

The ceiling (``max_volume``) is set per room in the profile; a volume
control card can never go past it. A sound the box asks for that was never
loaded is logged and skipped: a missing bark must not stop a game.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from hardware.clock import Clock
from hardware.events import EventSink
from hardware.faults import FaultReporter
from hardware.interfaces import Speaker

log = logging.getLogger(__name__)

UNKNOWN_KEPT = 100  # a box asking for a missing sound on every tap must not grow without end


class ChannelSpeaker(Speaker):
    """Channel names, volume clamping and sound lookup; drivers add the audio."""

    def __init__(
        self,
        sink: EventSink,
        clock: Clock,
        *,
        channels: Sequence[str] = ("voice", "fx", "music"),
        max_volume: float = 1.0,
        volume: float = 0.7,
    ) -> None:
        if not channels:
            raise ValueError("a speaker needs at least one channel")
        self.device = "speaker"
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self._channels = tuple(channels)
        self._max_volume = max_volume
        self._volume = self._clamp(volume)
        self._paths: dict[str, Path] = {}
        self._missing: list[str] = []
        #: Sound names the box asked for that were never loaded, the latest few, in order.
        self.unknown: deque[str] = deque(maxlen=UNKNOWN_KEPT)

    @property
    def channels(self) -> tuple[str, ...]:
        return self._channels

    @property
    def volume(self) -> float:
        return self._volume

    @volume.setter
    def volume(self, value: float) -> None:
        self._volume = self._clamp(value)
        self._volume_changed()

    @property
    def max_volume(self) -> float:
        return self._max_volume

    def _volume_changed(self) -> None:
        """Drivers apply the new :attr:`volume` here."""

    def _clamp(self, value: float) -> float:
        return min(max(float(value), 0.0), self._max_volume)

    def _take_paths(self, sounds: Mapping[str, str | Path] | None) -> None:
        """Keep the sounds whose files exist; remember the others as missing."""
        paths = {name: Path(path) for name, path in (sounds or {}).items()}
        self._missing = sorted(name for name, path in paths.items() if not path.is_file())
        self._paths = {name: path for name, path in paths.items() if name not in self._missing}

    def load(self, sounds: Mapping[str, str | Path]) -> None:
        self._take_paths(sounds)
        self._loaded()

    def _loaded(self) -> None:
        """Drivers bring what they hold in line with the sounds now named (and report the missing)."""

    def _missing_message(self) -> str | None:
        return f"sounds not loaded (missing or unreadable): {', '.join(self._missing)}" if self._missing else None

    def _lookup(self, name: str, channel: str | None) -> str | None:
        """The channel to play ``name`` on, or None (logged) if there is no such sound."""
        if name not in self._paths:
            log.warning("speaker: no sound %r", name)
            self.unknown.append(name)
            return None
        if channel is None:
            return self._channels[0]
        if channel not in self._channels:
            log.warning("speaker: no channel %r, playing %r on %r", channel, name, self._channels[0])
            return self._channels[0]
        return channel

"""One small interface per kind of device; the box sees nothing else.

Inputs arrive as events on the :class:`~hardware.events.EventSink`; outputs
are plain method calls. Every device can be started and stopped, and tells
what is wrong with it through :attr:`Device.fault` (and a
:class:`~hardware.events.DeviceFault` event) instead of raising: a missing
sound card must never stop a game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypeAlias

from hardware.faults import FaultReporter

RGB: TypeAlias = tuple[int, int, int]


class Device(ABC):
    """What every device shares: a name, a life cycle and a health."""

    #: Which driver this is, as profiles name it ("gpio", "pn532", "sim", ...).
    driver: str
    #: The device id used in fault events: "button:die", "reader:table", "leds", ...
    device: str
    _faults: FaultReporter

    @abstractmethod
    def start(self) -> None:
        """Open the device; failures become a fault, never an exception."""

    @abstractmethod
    def stop(self) -> None:
        """Release the device; safe to call twice, or without :meth:`start`."""

    @property
    def fault(self) -> str | None:
        """What is wrong right now, or None when the device works."""
        return self._faults.message

    def wait_started(self, timeout: float) -> bool:
        """Wait until the device has tried to open once, so :attr:`fault` tells the truth.

        Devices that open in :meth:`start` are there at once; threaded ones
        open on their thread and say so here. False if ``timeout`` ran out.
        """
        return True

    def describe(self) -> str:
        """One line for people: where the device is wired, how it is set up."""
        return ""


class Button(Device):
    """A push button: posts ButtonPressed, ButtonReleased and ButtonHeld."""

    name: str

    @property
    @abstractmethod
    def is_pressed(self) -> bool:
        """The debounced state the last event reported."""


class TagReader(Device):
    """An NFC/RFID reader: posts TagSeen and, where it can tell, TagGone.

    A blocking reader runs in a thread of its own; :meth:`stop` wakes that
    thread and waits for it to end.
    """

    name: str


class Segment(ABC):
    """A named run of pixels, indexed from its own start."""

    name: str

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def __getitem__(self, index: int) -> RGB:
        """The colour last set at ``index`` (before the brightness cap)."""

    @abstractmethod
    def set(self, index: int, rgb: RGB) -> None:
        """Set one pixel; shown on the next :meth:`LedStrip.show`."""

    def fill(self, rgb: RGB) -> None:
        """Set every pixel of the segment to ``rgb``."""
        for index in range(len(self)):
            self.set(index, rgb)

    def paint(self, colours: Iterable[RGB]) -> None:
        """Set pixels from the start, one colour each."""
        for index, rgb in enumerate(colours):
            self.set(index, rgb)


class LedStrip(Device):
    """A pixel buffer split into named segments over one or more physical strips."""

    @property
    @abstractmethod
    def segments(self) -> tuple[str, ...]:
        """The segment names, as configured."""

    @abstractmethod
    def segment(self, name: str) -> Segment:
        """The segment called ``name`` (KeyError if the profile has none)."""

    @abstractmethod
    def show(self) -> bool:
        """Push what changed since the last show; True if anything was sent."""

    def clear(self) -> None:
        """Turn every segment off (shown on the next :meth:`show`)."""
        for name in self.segments:
            self.segment(name).fill((0, 0, 0))


class Speaker(Device):
    """Plays short named sounds on named channels, so a bark overlaps a fanfare."""

    @abstractmethod
    def start(self, sounds: Mapping[str, str | Path] | None = None) -> None:
        """Open the audio device and load every sound, so playing is instant."""

    @abstractmethod
    def load(self, sounds: Mapping[str, str | Path]) -> None:
        """Make ``sounds`` the loaded set: load the new ones, let go of those no longer named.

        A box switching language loads that language's lines then, rather
        than every language at start (memory on a Pi is small).
        """

    @property
    @abstractmethod
    def sounds(self) -> tuple[str, ...]:
        """The names of the sounds loaded."""

    @property
    @abstractmethod
    def channels(self) -> tuple[str, ...]:
        """The channel names, as configured; the first is the default."""

    @abstractmethod
    def play(self, name: str, channel: str | None = None) -> None:
        """Play ``name`` on ``channel``, cutting off what that channel was playing."""

    @abstractmethod
    def silence(self, channel: str | None = None) -> None:
        """Stop what one channel is playing, or all of them.

        Named apart from :meth:`Device.stop`, which closes the audio device.
        """

    @property
    @abstractmethod
    def volume(self) -> float:
        """The volume, 0 to :attr:`max_volume`."""

    @volume.setter
    @abstractmethod
    def volume(self, value: float) -> None: ...

    @property
    @abstractmethod
    def max_volume(self) -> float:
        """The loudest the box may get, as configured for the room."""


class DiePuck(Device):
    """The optional die puck: posts PuckPressed and shows the face it is told."""

    name: str

    @abstractmethod
    def show(self, face: str) -> None:
        """Show ``face`` (a die face name such as "cat" or "3")."""

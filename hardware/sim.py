"""Simulated devices: the box on a PC, in the demo and in every test.

Each implements the same interface as its real twin and goes through the
same shared logic (debouncing, presence edges, segments, fault reporting),
so what the box sees is what it would see on the table. They record what
they were told, stamped with the clock time; accept injected input
(``press``, ``release``, ``hold``, ``tap``, ``remove``); and break on
demand (``fail``/``recover``, ``unplug``/``plug``, ``fail_writes``/``repair``).
Injection methods are safe from any thread, like a real reader's. No
simulated device runs a thread, and none has a timer running while
nothing is pressed, so an idle simulated box costs no CPU.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.button import DebouncedButton
from hardware.clock import Clock
from hardware.events import EventSink, PuckPressed, TagGone, TagSeen
from hardware.faults import FaultReporter
from hardware.interfaces import RGB, DiePuck, TagReader
from hardware.pixels import PixelStrip, SegmentSpec
from hardware.speaker import ChannelSpeaker


FRAMES_KEPT = 5000  # LED frames a simulated strip remembers for tests and the window
SOUNDS_KEPT = 1000  # sounds (and silences) a simulated speaker remembers: a day of play stays small


def as_uid(uid: bytes | str) -> bytes:
    """A uid given as bytes or as hex text ("04a1b2c3d4e5f6", "04:A1:B2")."""
    if isinstance(uid, str):
        return bytes.fromhex(uid.replace(":", "").replace(" ", ""))
    return bytes(uid)


class _Breakable:
    """The fault switch every simulated device has."""

    device: str
    _faults: FaultReporter

    def fail(self, message: str = "simulated I/O error") -> None:
        """Break the device now: it reports one fault and stops working."""
        self._faults.fault(message)

    def recover(self) -> None:
        """Mend the device: it reports the recovery and works again."""
        self._faults.ok()

    def unplug(self) -> None:
        """The device disappears (a cable pulled out)."""
        self.fail(f"{self.device} disappeared")

    def plug(self) -> None:
        """The device comes back."""
        self.recover()

    @property
    def broken(self) -> bool:
        return self._faults.message is not None


class SimButton(DebouncedButton, _Breakable):
    """A button pressed by the simulator's window, a test or a bot."""

    driver = "sim"

    def start(self) -> None:
        pass

    def stop(self) -> None:
        self._cancel_timers()

    def press(self) -> None:
        """Push the button down (held until :meth:`release`)."""
        if not self.broken:
            self._contact(True)

    def release(self) -> None:
        """Let the button go."""
        if not self.broken:
            self._contact(False)

    def hold(self) -> None:
        """Hold the button now, without waiting for its hold time (pressing it first if need be)."""
        if not self.broken:
            self._sink.call_soon(self._hold_now, self._clock.monotonic())

    def _hold_now(self, at: float) -> None:
        self._edge(True, at)
        if self.is_pressed:
            self._post_held()

    def describe(self) -> str:
        return f"simulated, hold {self.hold_time:g} s"


class SimReader(TagReader, _Breakable):
    """A reader that cards are tapped on by hand: ``tap`` puts a card on, ``remove`` lifts it.

    Tapping while another card lies there lifts that one first; tapping the
    card already there lifts and places it again. A broken or stopped
    reader reads nothing, as a real one would.
    """

    driver = "sim"

    def __init__(self, name: str, sink: EventSink, clock: Clock) -> None:
        self.name = name
        self.device = f"reader:{name}"
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self._lock = threading.Lock()
        self._running = False
        self.present: bytes | None = None
        #: Text records written onto cards, by uid.
        self.written: dict[bytes, str] = {}

    def start(self) -> None:
        self._running = True

    def stop(self) -> None:
        self._running = False

    def tap(self, uid: bytes | str, text: str | None = None) -> None:
        """Put a card on the reader (a card written earlier carries the text written on it)."""
        with self._lock:
            if not self._running or self.broken:
                return
            self._lift()
            self.present = as_uid(uid)
            text = text if text is not None else self.written.get(self.present)
            self._sink.post(TagSeen(self.name, self.present, text, at=self._clock.monotonic()))

    def write_text(self, text: str, uid: bytes | None = None) -> Future[bytes]:
        """Write ``text`` onto the card lying on the reader (``uid``: only if it is that card), as the PN532 does."""
        future: Future[bytes] = Future()
        with self._lock:
            if self.present is None or self.broken or uid not in (None, self.present):
                future.set_exception(LookupError("that card is no longer on the reader"))
            else:
                self.written[self.present] = text
                future.set_result(self.present)
        return future

    def remove(self) -> None:
        """Lift the card off the reader."""
        with self._lock:
            self._lift()

    def fail(self, message: str = "simulated I/O error") -> None:
        with self._lock:
            self._lift()
            self._faults.fault(message)

    def _lift(self) -> None:
        uid, self.present = self.present, None
        if uid is not None:
            self._sink.post(TagGone(self.name, uid, at=self._clock.monotonic()))

    def describe(self) -> str:
        return "simulated"


@dataclass(frozen=True, slots=True)
class LedFrame:
    """One frame sent to a strip, as the pixels would light (after the brightness cap)."""

    at: float
    strip: str
    pixels: tuple[RGB, ...]


class SimLedOutput:
    """A strip that remembers every frame it was sent."""

    driver = "sim"

    def __init__(self, name: str, pixels: int, clock: Clock, frames: deque[LedFrame]) -> None:
        self.name = name
        self.pixels = pixels
        self._clock = clock
        self._frames = frames
        self.failing = False

    def open(self) -> None:
        pass

    def write(self, pixels: Sequence[RGB]) -> None:
        if self.failing:
            raise OSError("simulated write failure")
        self._frames.append(LedFrame(self._clock.monotonic(), self.name, tuple(pixels)))

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"{self.pixels} simulated pixels"


class SimLedStrip(PixelStrip):
    """The LED buffer over simulated strips, with what they showed at hand."""

    def __init__(
        self,
        strips: Mapping[str, int],
        segments: Mapping[str, SegmentSpec],
        sink: EventSink,
        clock: Clock,
        *,
        brightness: float = 1.0,
    ) -> None:
        #: The frames sent, oldest first; bounded, so a long simulator session stays small.
        self.frames: deque[LedFrame] = deque(maxlen=FRAMES_KEPT)
        outputs = {name: SimLedOutput(name, pixels, clock, self.frames) for name, pixels in strips.items()}
        self._specs = dict(segments)
        super().__init__(outputs, segments, sink, clock, brightness=brightness)

    def shown(self, segment: str) -> list[RGB]:
        """What ``segment`` last showed on its strip, from its first pixel on."""
        spec = self._specs[segment]
        for frame in reversed(self.frames):
            if frame.strip == spec.strip:
                return [frame.pixels[i] for i in spec.positions()]
        return [(0, 0, 0)] * spec.count

    def fail_writes(self, strip: str | None = None) -> None:
        """Make writes to ``strip`` (or every strip) fail until :meth:`repair`."""
        for output in self._sim_outputs(strip):
            output.failing = True

    def repair(self, strip: str | None = None) -> None:
        for output in self._sim_outputs(strip):
            output.failing = False

    def _sim_outputs(self, strip: str | None) -> list[SimLedOutput]:
        outputs = [self._outputs[strip]] if strip else list(self._outputs.values())
        return [output for output in outputs if isinstance(output, SimLedOutput)]


@dataclass(frozen=True, slots=True)
class Played:
    at: float
    name: str
    channel: str


class SimSpeaker(ChannelSpeaker):
    """A silent speaker that remembers what it played; ``unplug`` takes its sound card away."""

    driver = "sim"

    def __init__(self, sink: EventSink, clock: Clock, **settings: Any) -> None:
        super().__init__(sink, clock, **settings)
        self._audio = True
        #: The latest sounds played, oldest first; ``played_count`` counts them all.
        self.played: deque[Played] = deque(maxlen=SOUNDS_KEPT)
        self.played_count = 0
        self.silenced: deque[tuple[float, str | None]] = deque(maxlen=SOUNDS_KEPT)

    def start(self, sounds: Mapping[str, str | Path] | None = None) -> None:
        self._take_paths(sounds)
        self._report()

    def stop(self) -> None:
        pass

    def _loaded(self) -> None:
        self._report()

    @property
    def sounds(self) -> tuple[str, ...]:
        return tuple(self._paths)

    def play(self, name: str, channel: str | None = None) -> None:
        channel = self._lookup(name, channel)
        if channel is not None and self._audio:
            self.played.append(Played(self._clock.monotonic(), name, channel))
            self.played_count += 1

    def silence(self, channel: str | None = None) -> None:
        if self._audio:
            self.silenced.append((self._clock.monotonic(), channel))

    def unplug(self) -> None:
        """No audio device any more: nothing plays until :meth:`plug`."""
        self._audio = False
        self._report()

    def plug(self) -> None:
        self._audio = True
        self._report()

    def _report(self) -> None:
        message = "no audio device" if not self._audio else self._missing_message()
        if message:
            self._faults.fault(message)
        else:
            self._faults.ok()

    def describe(self) -> str:
        return f"simulated, {len(self._paths)} sounds, volume {self.volume:.2f} of max {self.max_volume:.2f}"


class SimPuck(DiePuck, _Breakable):
    """A die puck on the simulator's table: ``press`` it, read the faces it showed."""

    driver = "sim"

    def __init__(self, name: str, sink: EventSink, clock: Clock) -> None:
        self.name = name
        self.device = f"puck:{name}"
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self.faces: list[tuple[float, str]] = []

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def press(self) -> None:
        if not self.broken:
            self._sink.post(PuckPressed(self.name, at=self._clock.monotonic()))

    def show(self, face: str) -> None:
        if not self.broken:
            self.faces.append((self._clock.monotonic(), face))

    def describe(self) -> str:
        return "simulated"

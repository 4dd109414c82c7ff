"""The LED pixel buffer: named segments over physical strips, pushed only on change.

The box paints segments ("sea-route", "police-track", "turn-ring"); the
profile says which pixels of which strip each one is. A
:class:`PixelOutput` is one physical strip (WS2812 over SPI, over PWM, or a
simulated one). :meth:`PixelStrip.show` sends only the strips whose pixels
changed, scaled by the brightness cap that keeps the strip within its power
supply. A failed write becomes a fault, and is retried on the next show.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from hardware.clock import Clock
from hardware.events import EventSink
from hardware.faults import FaultReporter
from hardware.interfaces import RGB, LedStrip, Segment

BLACK: RGB = (0, 0, 0)
#: A WS2812 pixel draws about 20 mA per channel at full brightness, 60 mA for white.
MILLIAMPS_PER_CHANNEL = 20


class PixelOutput(Protocol):
    """One physical strip."""

    driver: str
    pixels: int

    def open(self) -> None:
        """Claim the bus; raise if the strip cannot be driven."""

    def write(self, pixels: Sequence[RGB]) -> None:
        """Send a whole frame of already-scaled colours; raise on failure."""

    def close(self) -> None:
        """Release the bus."""

    def describe(self) -> str:
        """Where the strip is wired, for the doctor."""


@dataclass(frozen=True, slots=True)
class SegmentSpec:
    """Which pixels of which strip a segment is; ``reverse`` when the strip runs backwards."""

    strip: str
    start: int
    count: int
    reverse: bool = False

    def positions(self) -> list[int]:
        indices = range(self.start, self.start + self.count)
        return list(reversed(indices) if self.reverse else indices)


def worst_case_milliamps(pixels: int, brightness: float) -> float:
    """The current ``pixels`` draw all white at ``brightness``."""
    return pixels * 3 * MILLIAMPS_PER_CHANNEL * brightness


class _BufferSegment(Segment):
    def __init__(self, name: str, owner: PixelStrip, strip: str, positions: list[int]) -> None:
        self.name = name
        self._owner = owner
        self._strip = strip
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, index: int) -> RGB:
        return self._owner._buffers[self._strip][self._position(index)]

    def set(self, index: int, rgb: RGB) -> None:
        self._owner._set(self._strip, self._position(index), _checked(rgb))

    def _position(self, index: int) -> int:
        if not 0 <= index < len(self._positions):
            raise IndexError(f"segment {self.name!r} has {len(self._positions)} pixels, not {index + 1}")
        return self._positions[index]


def _checked(rgb: RGB) -> RGB:
    colour = tuple(rgb)
    if len(colour) != 3 or not all(isinstance(c, int) and 0 <= c <= 255 for c in colour):
        raise ValueError(f"a colour is three whole numbers 0-255, not {rgb!r}")
    return colour  # type: ignore[return-value]


class PixelStrip(LedStrip):
    """The box's LEDs: segments over outputs, one brightness cap for all."""

    def __init__(
        self,
        outputs: Mapping[str, PixelOutput],
        segments: Mapping[str, SegmentSpec],
        sink: EventSink,
        clock: Clock,
        *,
        brightness: float = 1.0,
    ) -> None:
        if not 0 <= brightness <= 1:
            raise ValueError("brightness must be between 0 and 1")
        self.device = "leds"
        self.driver = "+".join(sorted({output.driver for output in outputs.values()}))
        self.brightness = brightness
        self._faults = FaultReporter(self.device, sink, clock)
        self._outputs = dict(outputs)
        self._buffers = {name: [BLACK] * output.pixels for name, output in outputs.items()}
        self._segments = {
            name: _BufferSegment(name, self, spec.strip, spec.positions()) for name, spec in segments.items()
        }
        self._dirty: set[str] = set(outputs)  # the first show darkens strips left lit
        self._opened: set[str] = set()
        self._scale = [round(level * brightness) for level in range(256)]

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self._segments)

    def segment(self, name: str) -> Segment:
        try:
            return self._segments[name]
        except KeyError:
            raise KeyError(f"no LED segment {name!r}; the profile has {', '.join(self._segments)}") from None

    def start(self) -> None:
        self.show()

    def show(self) -> bool:
        """Open strips not yet open, then send each changed one."""
        problems = self._open_all()
        sent = False
        for name in sorted(self._dirty & self._opened):
            try:
                self._outputs[name].write([self._scaled(rgb) for rgb in self._buffers[name]])
            except Exception as error:  # a driver fault must not reach the loop
                problems.append(f"strip {name!r} write failed: {error}")
                continue
            self._dirty.discard(name)
            sent = True
        if problems:
            self._faults.fault("; ".join(problems))
        else:
            self._faults.ok()
        return sent

    def stop(self) -> None:
        if self._opened:
            self.clear()
            self.show()
        for name in sorted(self._opened):
            with contextlib.suppress(Exception):  # closing a broken bus: nothing left to do
                self._outputs[name].close()
        self._opened.clear()

    def describe(self) -> str:
        pixels = sum(len(buffer) for buffer in self._buffers.values())
        strips = ", ".join(f"{name}: {output.describe()}" for name, output in self._outputs.items())
        amps = worst_case_milliamps(pixels, self.brightness) / 1000
        return (
            f"{pixels} pixels, segments {', '.join(self._segments)}; {strips}; "
            f"brightness cap {self.brightness:.2f}, at most {amps:.1f} A"
        )

    def _set(self, strip: str, position: int, rgb: RGB) -> None:
        buffer = self._buffers[strip]
        if buffer[position] != rgb:
            buffer[position] = rgb
            self._dirty.add(strip)

    def _scaled(self, rgb: RGB) -> RGB:
        scale = self._scale
        return (scale[rgb[0]], scale[rgb[1]], scale[rgb[2]])

    def _open_all(self) -> list[str]:
        problems = []
        for name, output in self._outputs.items():
            if name in self._opened:
                continue
            try:
                output.open()
            except Exception as error:  # missing SPI device, no permission, ...
                problems.append(f"strip {name!r} cannot open: {error}")
                continue
            self._opened.add(name)
        return problems

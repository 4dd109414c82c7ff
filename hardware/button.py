"""The button logic shared by the GPIO button and the simulated one.

A driver only reports raw contact levels (from any thread); this class turns
them into ButtonPressed, ButtonReleased and ButtonHeld on the loop, with the
:class:`~hardware.debounce.Debouncer` and timers that run on the injected
clock. So the simulated die button behaves exactly like the real one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hardware.clock import Clock
from hardware.debounce import Debouncer
from hardware.events import ButtonHeld, ButtonPressed, ButtonReleased, EventSink
from hardware.faults import FaultReporter
from hardware.interfaces import Button


class DebouncedButton(Button):
    """A button fed raw levels through :meth:`_contact`; subclasses add start/stop."""

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        *,
        bounce_time: float = 0.03,
        hold_time: float = 2.0,
    ) -> None:
        self.name = name
        self.device = f"button:{name}"
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self._debouncer = Debouncer(bounce_time)
        self.hold_time = hold_time
        self._presses = 0
        self._held = False
        self._settling = False
        self._timers: set[asyncio.Task[None]] = set()

    @property
    def is_pressed(self) -> bool:
        return self._debouncer.state

    @property
    def bounce_time(self) -> float:
        """Seconds of contact chatter ignored after an edge (the box's config may tune it)."""
        return self._debouncer.bounce_time

    @bounce_time.setter
    def bounce_time(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("bounce_time must be >= 0")
        self._debouncer.bounce_time = seconds

    def _contact(self, pressed: bool) -> None:
        """Report a raw contact level; safe from any thread."""
        self._sink.call_soon(self._edge, pressed, self._clock.monotonic())

    def _cancel_timers(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        self._settling = False

    # -- on the loop's thread from here on ---------------------------------------
    def _edge(self, pressed: bool, at: float) -> None:
        self._report(self._debouncer.edge(pressed, at), at)
        due = self._debouncer.due
        if due is not None and not self._settling:
            self._settling = True
            self._at(due, self._settle)

    def _settle(self) -> None:
        self._settling = False
        now = self._clock.monotonic()
        self._report(self._debouncer.settle(now), now)

    def _report(self, pressed: bool | None, at: float) -> None:
        if pressed is None:
            return
        if not pressed:
            self._sink.post(ButtonReleased(self.name, at=at))
            return
        self._presses += 1
        self._held = False
        self._sink.post(ButtonPressed(self.name, at=at))
        press = self._presses
        self._at(at + self.hold_time, lambda: self._hold_reached(press))

    def _hold_reached(self, press: int) -> None:
        if press == self._presses and self.is_pressed:
            self._post_held()

    def _post_held(self) -> None:
        if not self._held:
            self._held = True
            self._sink.post(ButtonHeld(self.name, at=self._clock.monotonic()))

    def _at(self, when: float, callback: Callable[[], None]) -> None:
        async def wait_then_call() -> None:
            await self._clock.sleep(when - self._clock.monotonic())
            callback()

        timer = self._sink.loop.create_task(wait_then_call())
        self._timers.add(timer)
        timer.add_done_callback(self._timers.discard)

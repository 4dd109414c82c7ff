"""A push button on a GPIO pin, through gpiozero.

gpiozero reports every raw edge (its own ``bounce_time`` is left off: it
delays the first edge and its mock pins ignore it); the shared
:class:`~hardware.button.DebouncedButton` does the debouncing and hold
timing on the box's clock. A plain ``DigitalInputDevice`` is used rather
than gpiozero's ``Button``, whose hold thread would wake ten times a second
for timing the box already does.
"""

from __future__ import annotations

from typing import Any

from hardware.button import DebouncedButton
from hardware.clock import Clock
from hardware.events import EventSink


class GpioButton(DebouncedButton):
    """A button between a GPIO pin and ground (or 3.3 V with ``pull_up=False``)."""

    driver = "gpio"

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        *,
        pin: int,
        pull_up: bool = True,
        pin_factory: Any = None,
        **timing: float,
    ) -> None:
        super().__init__(name, sink, clock, **timing)
        self.pin = pin
        self.pull_up = pull_up
        self._pin_factory = pin_factory
        self._button: Any = None

    def start(self) -> None:
        if self._button is not None:
            return
        try:
            from gpiozero import DigitalInputDevice

            button = DigitalInputDevice(self.pin, pull_up=self.pull_up, bounce_time=None, pin_factory=self._pin_factory)
        except Exception as error:  # no GPIO on this machine, pin taken, ...
            self._faults.fault(f"GPIO{self.pin}: {error}")
            return
        button.when_activated = lambda: self._contact(True)
        button.when_deactivated = lambda: self._contact(False)
        self._button = button
        self._faults.ok()

    def stop(self) -> None:
        self._cancel_timers()
        button, self._button = self._button, None
        if button is not None:
            button.close()

    def describe(self) -> str:
        wiring = "to ground, pulled up" if self.pull_up else "to 3.3 V, pulled down"
        return f"GPIO{self.pin} {wiring}, hold {self.hold_time:g} s"

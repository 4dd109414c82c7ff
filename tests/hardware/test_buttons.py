"""The GPIO button through gpiozero's mock pins, debounced on the box's clock."""

from __future__ import annotations

import asyncio
import threading

from hardware.drivers.gpio_button import GpioButton
from hardware.events import ButtonHeld, ButtonPressed, ButtonReleased, DeviceFault, EventSink
from tests.hardware.support import kinds, pump


def die_button(sink, clock, **options) -> GpioButton:
    settings = {"pin": 17, "bounce_time": 0.03, "hold_time": 2.0} | options
    return GpioButton("die", sink, clock, **settings)


def test_a_press_is_reported_at_once_and_a_release_after_it(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock)
        button.start()
        pin = mock_pins.pin(17)
        pin.drive_low()
        await pump()
        pressed = sink.drain()
        await clock.run_for(0.2)
        pin.drive_high()
        await pump()
        released = sink.drain()
        button.stop()
        assert pressed == [ButtonPressed("die", at=0.0)]
        assert released == [ButtonReleased("die", at=0.2)]

    asyncio.run(scenario())


def test_contact_chatter_is_one_press(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock)
        button.start()
        pin = mock_pins.pin(17)
        for _ in range(5):
            pin.drive_low()
            await clock.run_for(0.002)
            pin.drive_high()
            await clock.run_for(0.002)
        pin.drive_low()
        await clock.run_for(0.5)
        button.stop()
        assert kinds(sink.drain()) == ["ButtonPressed"]
        assert button.is_pressed

    asyncio.run(scenario())


def test_a_tap_shorter_than_the_bounce_time_is_released_when_the_bounce_time_ends(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock)
        button.start()
        pin = mock_pins.pin(17)
        pin.drive_low()
        await clock.run_for(0.01)
        pin.drive_high()
        await clock.run_for(0.1)
        button.stop()
        assert sink.drain() == [ButtonPressed("die", at=0.0), ButtonReleased("die", at=0.03)]

    asyncio.run(scenario())


def test_holding_the_button_sends_held_once_after_the_hold_time(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock, hold_time=2.0)
        button.start()
        pin = mock_pins.pin(17)
        pin.drive_low()
        await clock.run_for(1.9)
        early = sink.drain()
        await clock.run_for(3.0)
        pin.drive_high()
        await pump()
        late = sink.drain()
        button.stop()
        assert early == [ButtonPressed("die", at=0.0)]
        assert late == [ButtonHeld("die", at=2.0), ButtonReleased("die", at=4.9)]

    asyncio.run(scenario())


def test_a_press_released_before_the_hold_time_is_not_held_even_if_pressed_again(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock, hold_time=1.0)
        button.start()
        pin = mock_pins.pin(17)
        pin.drive_low()
        await clock.run_for(0.5)
        pin.drive_high()
        await clock.run_for(0.4)
        pin.drive_low()
        await clock.run_for(0.3)  # 1.2 s after the first press, 0.3 s into the second
        events = sink.drain()
        button.stop()
        assert kinds(events) == ["ButtonPressed", "ButtonReleased", "ButtonPressed"]

    asyncio.run(scenario())


def test_a_button_wired_to_3v3_is_pressed_when_driven_high(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock, pull_up=False)
        button.start()
        mock_pins.pin(17).drive_high()
        await pump()
        button.stop()
        assert kinds(sink.drain()) == ["ButtonPressed"]

    asyncio.run(scenario())


def test_a_pin_already_taken_is_a_fault_not_an_exception(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        first, second = die_button(sink, clock), die_button(sink, clock)
        first.start()
        second.start()
        await pump()
        first.stop()
        second.stop()
        events = sink.drain()
        assert len(events) == 1 and isinstance(events[0], DeviceFault)
        assert events[0].device == "button:die" and "GPIO17" in events[0].message
        assert second.fault is not None and first.fault is None

    asyncio.run(scenario())


def test_stop_frees_the_pin_for_the_next_start(mock_pins, clock):
    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock)
        button.start()
        button.stop()
        again = die_button(sink, clock)
        again.start()
        mock_pins.pin(17).drive_low()
        await pump()
        again.stop()
        assert kinds(sink.drain()) == ["ButtonPressed"]

    asyncio.run(scenario())


def test_edges_from_another_thread_reach_the_loop_each_one_in_order(mock_pins, clock):
    """A real pin factory (lgpio) calls back on its own thread: the button hands every edge to the box's loop."""

    async def scenario():
        sink = EventSink()
        button = die_button(sink, clock, bounce_time=0.0)
        button.start()
        pin = mock_pins.pin(17)
        callers: set[str] = set()
        button._button.when_activated = _noting(callers, button._button.when_activated)

        def presses() -> None:
            for _ in range(10):
                pin.drive_low()
                pin.drive_high()

        edges = threading.Thread(target=presses, name="lgpio-callbacks")
        edges.start()
        await asyncio.to_thread(edges.join, 5)
        await pump(50)
        button.stop()
        return callers, sink.drain()

    callers, events = asyncio.run(scenario())
    assert callers == {"lgpio-callbacks"}
    assert kinds(events) == ["ButtonPressed", "ButtonReleased"] * 10


def _noting(callers: set[str], callback):
    def noted() -> None:
        callers.add(threading.current_thread().name)
        callback()

    return noted

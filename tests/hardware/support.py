"""Waiting helpers for the hardware tests: on events and conditions, never on fixed sleeps."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from hardware.events import Event, EventSink

TIMEOUT = 5.0


async def pump(times: int = 10) -> None:
    """Let the loop run what was posted to it (same-thread posts need a few turns)."""
    for _ in range(times):
        await asyncio.sleep(0)


async def next_event(sink: EventSink, timeout: float = TIMEOUT) -> Event:
    """The next event a device thread posts, failing the test if none comes."""
    return await asyncio.wait_for(sink.get(), timeout)


async def events_until(sink: EventSink, last: Callable[[Event], bool], timeout: float = TIMEOUT) -> list[Event]:
    """Every event up to and including the first for which ``last`` is true."""
    events: list[Event] = []
    while True:
        event = await next_event(sink, timeout)
        events.append(event)
        if last(event):
            return events


def wait_until(condition: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Wait for a condition another thread makes true, checking every few milliseconds."""
    tick = threading.Event()
    deadline = threading.Event()
    timer = threading.Timer(timeout, deadline.set)
    timer.start()
    try:
        while not condition():
            if deadline.is_set():
                return False
            tick.wait(0.002)
        return True
    finally:
        timer.cancel()


def kinds(events: list[Event]) -> list[str]:
    return [type(event).__name__ for event in events]

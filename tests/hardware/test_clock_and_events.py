"""The fake clock and the event sink: time by hand, events from any thread, in order."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

import pytest

from hardware.clock import FakeClock, SystemClock
from hardware.events import ButtonPressed, EventSink, TagSeen


def test_advance_wakes_sleepers_due_by_then_in_order():
    async def scenario():
        clock = FakeClock(100.0)
        woke: list[tuple[str, float]] = []

        async def sleeper(name: str, seconds: float) -> None:
            await clock.sleep(seconds)
            woke.append((name, clock.monotonic()))

        tasks = [asyncio.create_task(sleeper(name, s)) for name, s in (("late", 2.0), ("early", 1.0), ("never", 9.0))]
        await asyncio.sleep(0)
        clock.advance(0.5)
        await asyncio.sleep(0)
        assert woke == []
        clock.advance(2.0)
        await asyncio.sleep(0)
        assert woke == [("early", 102.5), ("late", 102.5)], "in due order, running once advance returned"
        assert clock.monotonic() == 102.5 and clock.sleepers == 1
        tasks[2].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert clock.sleepers == 0

    asyncio.run(scenario())


def test_run_for_lets_chained_sleeps_fire_at_their_own_times():
    async def scenario():
        clock = FakeClock()
        ticks: list[float] = []

        async def metronome() -> None:
            while True:
                await clock.sleep(0.25)
                ticks.append(clock.monotonic())

        task = asyncio.create_task(metronome())
        await clock.run_for(1.0)
        task.cancel()
        assert ticks == [0.25, 0.5, 0.75, 1.0]
        assert clock.monotonic() == 1.0

    asyncio.run(scenario())


def test_time_does_not_go_backwards():
    with pytest.raises(ValueError):
        FakeClock().advance(-1)


def test_the_system_clock_is_monotonic_and_sleeps():
    async def scenario():
        clock = SystemClock()
        before = clock.monotonic()
        await clock.sleep(0)
        assert clock.monotonic() >= before

    asyncio.run(scenario())


def test_events_posted_from_threads_arrive_on_the_loop_each_thread_in_order():
    async def scenario():
        sink = EventSink()

        def post(reader: str) -> None:
            for n in range(200):
                sink.post(TagSeen(reader, bytes([n]), at=float(n)))

        threads = [threading.Thread(target=post, args=(name,)) for name in ("a", "b")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
        events = [await asyncio.wait_for(sink.get(), 5) for _ in range(400)]
        for reader in ("a", "b"):
            assert [e.uid[0] for e in events if e.reader == reader] == list(range(200))

    asyncio.run(scenario())


def test_posting_after_the_loop_closed_is_quietly_dropped():
    """A reader thread still winding down after the box stopped must neither crash nor deliver."""
    loop = asyncio.new_event_loop()
    sink = EventSink(loop)
    loop.close()
    delivered: list[str] = []
    sink.post(ButtonPressed("die", at=0.0))  # raises RuntimeError if the closed loop is not caught
    sink.call_soon(delivered.append, "never")
    assert delivered == []
    assert sink._queue.empty()


def test_events_are_frozen_and_carry_their_time():
    event = ButtonPressed("die", at=1.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.at = 2.0  # type: ignore[misc]
    assert TagSeen("table", b"\x01", at=0.0).text is None

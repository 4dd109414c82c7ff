"""Where time comes from.

Every timer in the box and in the drivers asks a :class:`Clock`, never
:mod:`time` directly, so a test can replace minutes of play with a
:class:`FakeClock` that it moves forward by hand.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    """The two things anyone needs from time: reading it and waiting for it."""

    def monotonic(self) -> float:
        """Seconds since an arbitrary point; never goes backwards."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` on this clock."""
        ...


class SystemClock:
    """The real clock, for the box on the table."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


# How often run_for yields to the loop after waking sleepers, so a woken task
# can run, post to the loop and sleep again before time moves on.
_YIELDS = 8


class FakeClock:
    """A clock that stands still until a test moves it.

    :meth:`advance` wakes every sleeper due by the new time, in due order;
    the woken tasks run the next time the loop gets control. :meth:`run_for`
    does the same from inside a coroutine and lets each woken task run
    before moving on, so chains of sleeps (a hold timer started by a press
    that a settle timer reported) fire as they would in real time.
    Reading the time is safe from any thread; sleeping and advancing belong
    to the loop's thread.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def monotonic(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), future))
        await future

    @property
    def sleepers(self) -> int:
        """How many sleeps are still waiting (cancelled ones excluded)."""
        return sum(1 for *_, future in self._sleepers if not future.done())

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` and wake every sleeper due by then."""
        if seconds < 0:
            raise ValueError("time does not go backwards")
        target = self._now + seconds
        while self._wake_next(target):
            pass
        self._now = target

    async def run_for(self, seconds: float) -> None:
        """Move time forward step by step, letting each woken task run."""
        if seconds < 0:
            raise ValueError("time does not go backwards")
        target = self._now + seconds
        await self._yield()
        while self._wake_next(target):
            await self._yield()
        self._now = target
        await self._yield()

    def _wake_next(self, target: float) -> bool:
        while self._sleepers and self._sleepers[0][0] <= target:
            due, _, future = heapq.heappop(self._sleepers)
            if future.done():
                continue
            self._now = max(self._now, due)
            future.set_result(None)
            return True
        return False

    @staticmethod
    async def _yield() -> None:
        for _ in range(_YIELDS):
            await asyncio.sleep(0)

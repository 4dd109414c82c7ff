"""What waits to be sent to the broker: bounded, so an absent broker costs the box a fixed, small memory.

Retained topics (state, health, online, discovery) keep only their newest
payload and are never dropped: after a reconnection they are sent again,
so the broker catches up with the box. Events queue in order up to a
limit; past it the oldest event goes, counted in :attr:`dropped`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from controller.station.topics import encode

Entry = str | tuple[str, dict[str, Any]]  # a retained topic, or (topic, event)


class Outbox:
    def __init__(self, size: int) -> None:
        self.size = size
        self.retained: dict[str, bytes] = {}
        self.dropped = 0
        self.ready = asyncio.Event()
        self._queue: deque[Entry] = deque()
        self._waiting: set[str] = set()  # retained topics in the queue
        self._events = 0

    def __len__(self) -> int:
        return len(self._queue)

    def retain(self, topic: str, payload: bytes) -> None:
        """Send ``payload`` as ``topic``'s retained message; a newer one replaces it while it waits."""
        self.retained[topic] = payload
        if topic not in self._waiting:
            self._waiting.add(topic)
            self._queue.append(topic)
        self.ready.set()

    def event(self, topic: str, payload: dict[str, Any]) -> None:
        """Queue one event (encoded when sent, off the tap's path); the oldest goes when the queue is full."""
        if self._events >= self.size:
            for i, entry in enumerate(self._queue):
                if not isinstance(entry, str):
                    del self._queue[i]
                    self._events -= 1
                    self.dropped += 1
                    break
        self._queue.append((topic, payload))
        self._events += 1
        self.ready.set()

    def resend_retained(self) -> None:
        """After a reconnection: every retained message first, so the broker holds the box's present state."""
        for topic in reversed(list(self.retained)):
            if topic not in self._waiting:
                self._waiting.add(topic)
                self._queue.appendleft(topic)
        if self._queue:
            self.ready.set()

    def peek(self) -> tuple[str, bytes, bool] | None:
        """The next message as (topic, payload, retain), left in place until :meth:`sent`."""
        if not self._queue:
            self.ready.clear()
            return None
        entry = self._queue[0]
        if isinstance(entry, str):
            return entry, self.retained[entry], True
        return entry[0], encode(entry[1]), False

    def sent(self, payload: bytes) -> None:
        """The message :meth:`peek` gave (``payload``) was delivered to the broker."""
        entry = self._queue.popleft()
        if isinstance(entry, str):
            self._waiting.discard(entry)
            if self.retained[entry] != payload:  # changed while it was on its way: send the newer one too
                self.retain(entry, self.retained[entry])
        else:
            self._events -= 1

"""What waits to be sent to the broker: bounded, so an absent broker costs the box a fixed, small memory.

Retained topics (state, health, online, discovery) keep only their newest
payload and are never dropped: after a reconnection they are sent again,
so the broker catches up with the box. Events queue in order. What happened
at the table (accepted actions, finished games) has a bound of its own,
``TABLE_MOST``, far above a day of play, so no flood of command answers can
push it out; the answers to commands are kept up to ``size``, and past it
the oldest answer goes. Whatever goes is counted in :attr:`dropped`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from controller.station.topics import encode

Entry = str | tuple[str, dict[str, Any], bool]  # a retained topic, or (topic, event, from the table)
TABLE_MOST = 50_000  # actions and game ends waiting at most (a game has a few hundred)


class Outbox:
    def __init__(self, size: int, table_size: int = TABLE_MOST) -> None:
        self.size, self.table_size = size, table_size
        self.retained: dict[str, bytes] = {}
        self.dropped = 0
        self.ready = asyncio.Event()
        self._queue: deque[Entry] = deque()
        self._waiting: set[str] = set()  # retained topics in the queue
        self._waiting_events = [0, 0]  # answers, table events in the queue

    def __len__(self) -> int:
        return len(self._queue)

    def retain(self, topic: str, payload: bytes) -> None:
        """Send ``payload`` as ``topic``'s retained message; a newer one replaces it while it waits."""
        self.retained[topic] = payload
        if topic in self._waiting:  # it goes behind the events queued since: a state never runs ahead of its events
            if self._queue[-1] == topic:
                self.ready.set()
                return
            self._queue.remove(topic)
        self._waiting.add(topic)
        self._queue.append(topic)
        self.ready.set()

    def event(self, topic: str, payload: dict[str, Any], table: bool = False) -> None:
        """Queue one event (encoded when sent, off the tap's path); past its bound the oldest of its kind goes."""
        if self._waiting_events[table] >= (self.table_size if table else self.size):
            for i, entry in enumerate(self._queue):
                if not isinstance(entry, str) and entry[2] == table:
                    del self._queue[i]
                    self._waiting_events[table] -= 1
                    self.dropped += 1
                    break
        self._queue.append((topic, payload, table))
        self._waiting_events[table] += 1
        self.ready.set()

    def resend_retained(self) -> None:
        """After a reconnection: every retained message first, so the broker holds the box's present state."""
        for topic in reversed(list(self.retained)):
            if topic not in self._waiting:
                self._waiting.add(topic)
                self._queue.appendleft(topic)
        if self._queue:
            self.ready.set()

    def take(self) -> tuple[Entry, str, bytes, bool] | None:
        """The next message as (entry, topic, payload, retain), out of the queue; :meth:`put_back` if unsent."""
        if not self._queue:
            self.ready.clear()
            return None
        entry = self._queue.popleft()
        if isinstance(entry, str):
            self._waiting.discard(entry)
            return entry, entry, self.retained[entry], True
        self._waiting_events[entry[2]] -= 1
        return entry, entry[0], encode(entry[1]), False

    def put_back(self, entry: Entry) -> None:
        """A message :meth:`take` gave could not be sent: first in line again (unless a newer one already waits)."""
        if isinstance(entry, str):
            if entry in self._waiting:
                return
            self._waiting.add(entry)
        else:
            self._waiting_events[entry[2]] += 1
        self._queue.appendleft(entry)
        self.ready.set()

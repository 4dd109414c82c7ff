"""What waits to be sent to the broker: bounded, so an absent broker costs the box a fixed, small memory.

Retained topics (state, health, online, discovery) keep only their newest
payload and are never dropped: after a reconnection they are sent again,
so the broker catches up with the box. Events queue in order. What happened
at the table (accepted actions, finished games, each with its place in the
journal) has a bound of its own, so no flood of command answers can push it
out; past that bound a table event is not queued at all (:meth:`event` says
so) and the link reads it back from the journal later
(:mod:`controller.station.catchup`). The answers to commands are kept up to
``size``, and past it the oldest answer goes, counted in :attr:`dropped`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from controller.station.topics import encode

Place = tuple[int, int]  # a table event's place in the journal: (game id, an action's seq; its game's end: one more)
Entry = str | tuple[str, dict[str, Any], Place | None]  # a retained topic, or (topic, event, its place if from the table)


class Outbox:
    def __init__(self, size: int, table_size: int) -> None:
        self.size, self.table_size = size, table_size
        self.retained: dict[str, bytes] = {}
        self.dropped = 0
        self.ready = asyncio.Event()
        self._queue: deque[Entry] = deque()
        self._waiting: set[str] = set()  # retained topics in the queue
        self._waiting_events = [0, 0]  # answers, table events in the queue

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def table_waiting(self) -> int:
        """Table events in the queue (taken ones not counted)."""
        return self._waiting_events[1]

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

    def event(self, topic: str, payload: dict[str, Any], place: Place | None = None) -> bool:
        """Queue one event (encoded when sent, off the tap's path). A table event (with its ``place``) past its
        bound is not queued (False); past theirs, the oldest answer goes."""
        table = place is not None
        if table and self._waiting_events[1] >= self.table_size:
            return False
        if not table and self._waiting_events[0] >= self.size:
            for i, entry in enumerate(self._queue):
                if not isinstance(entry, str) and entry[2] is None:
                    del self._queue[i]
                    self._waiting_events[0] -= 1
                    self.dropped += 1
                    break
        self._queue.append((topic, payload, place))
        self._waiting_events[table] += 1
        self.ready.set()
        return True

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
        self._waiting_events[entry[2] is not None] -= 1
        return entry, entry[0], encode(entry[1]), False

    def put_back(self, entry: Entry) -> None:
        """A message :meth:`take` gave could not be sent: first in line again (unless a newer one already waits)."""
        if isinstance(entry, str):
            if entry in self._waiting:
                return
            self._waiting.add(entry)
        else:
            self._waiting_events[entry[2] is not None] += 1
        self._queue.appendleft(entry)
        self.ready.set()

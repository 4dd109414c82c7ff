"""What the hardware tells the box, and the one door it comes in through.

Events are small frozen records stamped with the clock time ``at`` at which
the driver noticed them. Drivers hand them to an :class:`EventSink`, which
is safe to call from any thread: reader threads only ever call
:meth:`EventSink.post`, so box code always runs on the loop's own thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    button: str
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class ButtonReleased:
    button: str
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class ButtonHeld:
    """The button has stayed down for its hold time (sent once per press)."""

    button: str
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class TagSeen:
    """A tag came onto a reader; ``text`` is its NDEF text record, if it has one."""

    reader: str
    uid: bytes
    text: str | None = None
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class TagGone:
    """The tag left the reader (readers that cannot tell never send this)."""

    reader: str
    uid: bytes
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class PuckPressed:
    """The die puck's button was pressed: the player wants a roll."""

    puck: str
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class DeviceFault:
    """A device stopped working; sent once per outage, with what went wrong."""

    device: str
    message: str
    at: float = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class DeviceRecovered:
    """A device that had a fault works again."""

    device: str
    at: float = field(kw_only=True)


Event: TypeAlias = (
    ButtonPressed | ButtonReleased | ButtonHeld | TagSeen | TagGone | PuckPressed | DeviceFault | DeviceRecovered
)


class EventSink:
    """The queue of hardware events, owned by one asyncio loop.

    Create it on the loop's thread (inside the running loop, or passing the
    loop). :meth:`post` and :meth:`call_soon` may be called from any thread;
    everything they deliver runs on the loop, in the order it was posted.
    Once the loop is closed, posts are dropped quietly: a reader thread that
    is still winding down must not crash.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """``loop`` defaults to the running one; a sink made before its loop runs is bound by :meth:`bind`."""
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
        self.loop = loop
        self._queue: asyncio.Queue[Event] = asyncio.Queue()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver to ``loop`` from now on (call it on that loop, before any device starts)."""
        self.loop = loop

    def post(self, event: Event) -> None:
        """Deliver ``event`` to the loop (thread-safe)."""
        self.call_soon(self._queue.put_nowait, event)

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop's thread (thread-safe)."""
        try:
            if self.loop is None:
                raise RuntimeError("no loop yet")
            self.loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:  # the loop is closed: the box is shutting down
            log.debug("dropped %r: loop closed", args or callback)

    async def get(self) -> Event:
        """The next event, waiting for one if need be."""
        return await self._queue.get()

    def drain(self) -> list[Event]:
        """Every event already delivered, oldest first (loop thread only)."""
        events = []
        while not self._queue.empty():
            events.append(self._queue.get_nowait())
        return events

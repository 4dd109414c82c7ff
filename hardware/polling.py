"""The thread behind a reader that must be asked, again and again, what lies on it.

PN532 and RC522 chips do not announce a card; a thread polls them. This
class owns that thread and everything the two have in common: turning a
stream of "uid or nothing" into TagSeen and TagGone edges, reading a new
card's text once, and surviving I/O errors by closing the chip, reporting
one fault, retrying with growing waits and reporting the recovery.
Subclasses only say how to open, poll, read text and close.
"""

from __future__ import annotations

import contextlib
import logging
import queue
from collections import OrderedDict
from concurrent.futures import Future

from hardware.clock import Clock
from hardware.events import EventSink, TagGone, TagSeen
from hardware.faults import Backoff, FaultReporter
from hardware.interfaces import TagReader
from hardware.ndef_text import TagReadError
from hardware.worker import Threaded, Worker

log = logging.getLogger(__name__)

_TEXT_CACHE = 256


class PollingReader(Threaded, TagReader):
    """A polled reader in a thread of its own; stop() ends it within one poll."""

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        *,
        read_text: bool = True,
        gone_after: int = 2,
        interval: float = 0.05,
        backoff: Backoff | None = None,
        bus_lock: contextlib.AbstractContextManager[object] | None = None,
    ) -> None:
        self.name = name
        self.device = f"reader:{name}"
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self.read_text = read_text
        self.gone_after = gone_after
        self.interval = interval
        self._backoff = backoff or Backoff()
        #: Held around each whole open, poll, text read, write and close: readers sharing a bus take turns.
        self._bus_lock = bus_lock or contextlib.nullcontext()
        self._worker = Worker(self.device, self._run)
        self._opened = False
        self._present: bytes | None = None
        self._misses = 0
        self._texts: OrderedDict[bytes, str | None] = OrderedDict()
        self._writes: queue.SimpleQueue[tuple[str, bytes | None, Future[bytes]]] = queue.SimpleQueue()

    # -- what a chip driver provides (called on the reader thread) -------------
    def _open(self) -> None:
        raise NotImplementedError

    def _poll(self) -> bytes | None:
        """The uid on the reader now, or None; raise on an I/O failure."""
        raise NotImplementedError

    def _read_text(self, uid: bytes) -> str | None:
        """The NDEF text of the card just polled, or None; TagReadError if it went away."""
        return None

    def _close(self) -> None:
        raise NotImplementedError

    def _write_text(self, uid: bytes, text: str) -> None:
        """Write ``text`` as the NDEF record of the card on the reader; raise if it did not hold."""
        raise NotImplementedError(f"{self.driver} readers cannot write tags")

    # -- writing -----------------------------------------------------------------
    def write_text(self, text: str, uid: bytes | None = None) -> Future[bytes]:
        """Write ``text`` onto the card lying on the reader (the reader's thread does it between polls).

        The future gives the card's uid, or the error; it fails at once when
        no card lies there, or (given ``uid``) when another card does.
        """
        future: Future[bytes] = Future()
        self._writes.put((text, uid, future))
        return future

    def _do_writes(self) -> None:
        while True:
            try:
                text, expected, future = self._writes.get_nowait()
            except queue.Empty:
                return
            uid = self._present
            if uid is None or expected not in (None, uid):
                future.set_exception(LookupError("that card is no longer on the reader"))
                continue
            try:
                self._write_text(uid, text)
            except Exception as error:  # the chip library's, or TagWriteError
                future.set_exception(error)
                continue
            self._texts[uid] = text
            future.set_result(uid)

    # -- the thread ------------------------------------------------------------
    def _run(self) -> None:
        stopping = self._worker.stopping
        while not stopping.is_set():
            with self._bus_lock:
                polled = self._poll_once()
            if polled is None:
                stopping.wait(self._backoff.next())
                continue
            self._backoff.reset()
            self._faults.ok()
            self._worker.tried.set()
            self._update(*polled)
            with self._bus_lock:
                self._do_writes()
            if self.interval:
                stopping.wait(self.interval)
        if self._opened:
            with self._bus_lock:
                self._safe_close()

    def _poll_once(self) -> tuple[bytes | None, str | None] | None:
        """The uid on the reader and its text (opening the chip first if need be); None on a failure."""
        try:
            if not self._opened:
                self._open()
                self._opened = True
            uid = self._poll()
            return uid, self._text_for(uid) if uid is not None and uid != self._present else None
        except Exception as error:  # whatever the chip library raises
            self._fail(error)
            if self._opened:
                self._safe_close()
            return None

    def _text_for(self, uid: bytes) -> str | None:
        """The card's text, read once per card and remembered afterwards."""
        if not self.read_text:
            return None
        if uid in self._texts:
            self._texts.move_to_end(uid)
            return self._texts[uid]
        try:
            text = self._read_text(uid)
        except TagReadError as error:
            log.info("%s: text of %s not read: %s", self.device, uid.hex(), error)
            return None
        self._texts[uid] = text
        if len(self._texts) > _TEXT_CACHE:
            self._texts.popitem(last=False)
        return text

    def _update(self, uid: bytes | None, text: str | None) -> None:
        if uid is None:
            self._misses += 1
            if self._present is not None and self._misses >= self.gone_after:
                self._gone()
            return
        self._misses = 0
        if uid == self._present:
            return
        if self._present is not None:
            self._gone()
        self._present = uid
        self._sink.post(TagSeen(self.name, uid, text, at=self._clock.monotonic()))

    def _gone(self) -> None:
        uid, self._present = self._present, None
        if uid is not None:
            self._sink.post(TagGone(self.name, uid, at=self._clock.monotonic()))

    def _fail(self, error: Exception) -> None:
        # A failed reader no longer knows what lies on it: the card is gone
        # for the box, and is seen again once the reader is back.
        self._gone()
        self._misses = 0
        self._faults.fault(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
        self._worker.tried.set()

    def _safe_close(self) -> None:
        self._opened = False
        try:
            self._close()
        except Exception:  # the chip is already in trouble; closing is best effort
            log.debug("%s: close failed", self.device, exc_info=True)

"""The thread a blocking device runs in.

Readers that block (a PN532 waiting for a card, evdev waiting for a key, a
serial line waiting for the puck) each get one thread. It only ever posts
events; :meth:`Worker.stop` sets ``stopping``, calls the device's ``wake``
so a blocked call returns now, and joins the thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Worker:
    """One device thread: started once, woken and joined by :meth:`stop`."""

    def __init__(self, name: str, run: Callable[[], None], wake: Callable[[], None] = lambda: None) -> None:
        self.name = name
        self._run = run
        self._wake = wake
        #: Set by stop(); the thread checks it and waits on it between retries.
        self.stopping = threading.Event()
        #: Set by the thread once it has tried to open the device, whatever came of it.
        self.tried = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is not None:
            return
        self.stopping.clear()
        self.tried.clear()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self.stopping.set()
        self._wake()
        thread.join(timeout)
        if thread.is_alive():
            log.warning("%s: thread did not stop within %.1f s", self.name, timeout)


class Threaded:
    """``start``, ``stop`` and ``wait_started`` of a device whose blocking work runs on ``self._worker``.

    Put it before the device interface in the bases, so these satisfy its abstract methods.
    """

    _worker: Worker

    def start(self) -> None:
        self._worker.start()

    def stop(self) -> None:
        self._worker.stop()

    def wait_started(self, timeout: float) -> bool:
        return self._worker.tried.wait(timeout)

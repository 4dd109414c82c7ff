"""fsync a journal's write-ahead log: the one copy used by :meth:`Journal.sync` and by the sync process.

Run as a file (``python -I walsync.py WAL FOLDER DELAY``) it is the daemon's
sync process: one request per line on stdin, one answer per line (``ok`` or
``error <cause>``). It imports only the standard library, so the child
starts in milliseconds and needs nothing of the box.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable


class WalSync:
    """``sync()`` fsyncs the -wal (opened once) and, the first time, its folder, so the log's name survives too."""

    def __init__(self, wal: str | Path, fsync: Callable[[int], None] = os.fsync) -> None:
        self.wal = Path(wal)
        self._fsync = fsync
        self._fd: int | None = None
        self._folder_done = False

    def sync(self) -> None:
        """Raise ``OSError`` when the disk refuses; a missing -wal is done (the log was folded into the file)."""
        try:
            if self._fd is None:
                self._fd = os.open(self.wal, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            self._fsync(self._fd)
            if not self._folder_done:
                folder = os.open(self.wal.parent, os.O_RDONLY)
                try:
                    self._fsync(folder)
                finally:
                    os.close(folder)
                self._folder_done = True
        except FileNotFoundError:
            return

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def serve(wal: str, delay: float) -> None:
    """The sync process: ``delay`` seconds are added before each fsync (the bench's slow SD card)."""
    syncer = WalSync(wal)
    for _request in sys.stdin.buffer:
        time.sleep(delay)
        try:
            syncer.sync()
            answer = "ok"
        except OSError as exc:
            answer = "error " + (exc.strerror or str(exc))
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve(sys.argv[1], float(sys.argv[2]))

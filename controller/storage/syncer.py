"""The journal's fsync in a child process, so that waiting for an SD card never touches the loop.

A worker thread would do the same fsync, but each time it returns it needs
Python's global lock back, and on a busy CPU the loop then waits for that
thread to be scheduled: the answer to a tap stalls for milliseconds (the
bench measured p99 5.6 ms with a thread, 0.6 ms with this process). The
child is :mod:`controller.storage.walsync` run as a file: the same fsync as
:meth:`Journal.sync`, one request and one answer per line.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from controller.storage import walsync
from controller.storage.journal import JournalError


class SyncProcess:
    """``await sync()`` makes everything the journal at ``path`` recorded so far durable."""

    def __init__(self, path: Path, delay: float = 0.0) -> None:
        """``delay``: seconds added before each fsync (the bench: an SD card's slow fsync)."""
        self.wal = path.with_name(path.name + "-wal")
        self.delay = delay
        self._child: asyncio.subprocess.Process | None = None

    async def sync(self, mark: str | None = None) -> None:
        """fsync the -wal in the child, then write ``mark`` (:class:`~controller.storage.walsync.WalSync`).

        :class:`JournalError` (one line) when it fails or the child is gone.
        """
        try:
            if self._child is None or self._child.returncode is not None:
                self._child = await asyncio.create_subprocess_exec(
                    sys.executable, "-I", walsync.__file__, str(self.wal), str(self.delay),
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                )
            assert self._child.stdin is not None and self._child.stdout is not None
            self._child.stdin.write(f"sync {mark or ''}\n".encode())
            await self._child.stdin.drain()
            answer = (await self._child.stdout.readline()).decode().strip()
        except OSError as exc:
            raise JournalError(f"{self.wal}: fsync failed: {exc.strerror or exc}") from None
        if answer != "ok":
            raise JournalError(f"{self.wal}: {answer.removeprefix('error ') or 'fsync failed: the sync process ended'}")

    async def close(self) -> None:
        if self._child is not None and self._child.returncode is None:
            assert self._child.stdin is not None
            self._child.stdin.close()
            await self._child.wait()
        self._child = None

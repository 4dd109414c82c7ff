"""One box per state directory: an advisory lock held for a writer's whole life.

Two programs writing one journal (the service, and someone running
``gamebox run`` by hand) each believe their own story of the game: one
abandons the game the other still acknowledges into. ``gamebox run``,
``enroll`` and ``tags write`` take this lock first and a second one stops
at once with one line naming the first. ``flock`` is the kernel's: it goes
with the process, so a power cut or a SIGKILL never leaves a stale lock.
Read-only commands (``status``, ``history``, ``doctor``) never take it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from controller.storage.store import StoreError, cause, usable_dir

LOCK_NAME = "gamebox.lock"


class InUse(StoreError):
    """Another gamebox holds the state directory."""


class StateLock:
    """``gamebox.lock`` in the state directory, locked while this process writes there; it holds our pid."""

    def __init__(self, folder: Path, what: str) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.what = what  # "run", "enroll", "tags write": said to the second one
        self._fd: int | None = None

    def acquire(self, create: bool = True) -> None:
        """Take the lock, or raise :class:`InUse` naming the holder's pid (or :class:`StoreError` for the folder).

        ``create``: make the state directory when it is not there (at start; never when taking it back).
        """
        usable_dir(self.folder, StoreError, create=create)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the lock: {cause(exc)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise InUse(f"state directory {self.folder} is in use by another gamebox ({holder}); "
                        f"only one box may use it: stop that one first") from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {self.what}\n".encode())
        except OSError:
            pass  # a full disk: the lock holds all the same, only the pid is not written
        if self._fd is not None:
            os.close(self._fd)
        self._fd = fd

    def held(self) -> bool:
        """The lock file we hold still has its name (the folder was not deleted or unmounted under us)."""
        if self._fd is None:
            return False
        try:
            now, ours = os.stat(self.path), os.fstat(self._fd)
        except OSError:
            return False
        return (now.st_dev, now.st_ino) == (ours.st_dev, ours.st_ino)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = None


def _holder(fd: int) -> str:
    try:
        words = os.pread(fd, 64, 0).decode(errors="replace").split()
    except OSError:
        words = []
    if words and words[0].isdigit():
        return f"pid {words[0]}" + (f", gamebox {' '.join(words[1:])}" if len(words) > 1 else "")
    return "pid not written yet"

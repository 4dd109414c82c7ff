"""fsync a journal's write-ahead log: the one copy used by :meth:`Journal.sync` and by the sync process.

After the fsync it writes the acknowledged mark: the game, how many
actions were ever written to it and how many to the games before it (so a
new game's mark still covers the end of the last), in a tiny file of its own beside the
journal (written, fsynced, renamed over the old one), so that a start can
tell when the journal holds fewer than were acknowledged. The folder is not
fsynced after the rename: a mark lost to a power cut is an older, lower
one, which can hide a loss of the last moments but never invent one.

Run as a file (``python -I walsync.py WAL DELAY``) it is the daemon's sync
process: one request per line on stdin (``sync`` or ``sync MARK``), one
answer per line (``ok`` or ``error <cause>``). It imports only the standard
library, so the child starts in milliseconds and needs nothing of the box.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable


def mark_path(wal: Path) -> Path:
    """``journal.sqlite-acked`` beside ``journal.sqlite-wal``."""
    return wal.with_name(wal.name.removesuffix("-wal") + "-acked")


def write_mark(path: Path, text: str, fsync: Callable[[int], None] = os.fsync) -> None:
    """Replace the file at ``path`` by one holding ``text``, durable before it takes the name."""
    new = path.with_name(path.name + ".new")
    try:
        fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            os.write(fd, text.encode() + b"\n")
            fsync(fd)
        finally:
            os.close(fd)
        os.replace(new, path)
    except OSError:
        new.unlink(missing_ok=True)
        raise


class MarkError(OSError):
    """The log is durable, but the acknowledged mark could not be written."""


def failure(exc: OSError) -> str:
    """What failed, in words: the fsync, or the mark after it."""
    step = "cannot write the acknowledged mark" if isinstance(exc, MarkError) else "fsync failed"
    return f"{step}: {exc.strerror or exc}"


class WalSync:
    """``sync()`` fsyncs the -wal (opened once) and, the first time, its folder, so the log's name survives too."""

    def __init__(self, wal: str | Path, fsync: Callable[[int], None] = os.fsync) -> None:
        self.wal = Path(wal)
        self._fsync = fsync
        self._fd: int | None = None
        self._folder_done = False
        self._mark: str | None = None  # the last mark written

    def sync(self, mark: str | None = None) -> None:
        """Raise ``OSError`` when the disk refuses; a missing -wal is done (the log was folded into the file).

        ``mark`` ("GAME WRITTEN BEFORE"), once the log is durable, goes into the acknowledged mark; written again
        when the mark was deleted, so a start can still tell what was acknowledged.
        """
        self._sync_log()
        if mark and (mark != self._mark or not mark_path(self.wal).is_file()):
            try:
                write_mark(mark_path(self.wal), mark, self._fsync)
            except OSError as exc:
                raise MarkError(exc.errno, exc.strerror) from None
            self._mark = mark

    def _sync_log(self) -> None:
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
    """The sync process: ``delay`` seconds are added before each fsync (the bench's slow SD card).

    Answers go straight to the file descriptor: when the daemon is gone (killed
    mid-sync) the broken pipe ends this process quietly, with no traceback.
    """
    syncer = WalSync(wal)
    try:
        for request in sys.stdin.buffer:
            time.sleep(delay)
            try:
                syncer.sync(" ".join(request.decode(errors="replace").split()[1:]) or None)
                answer = "ok"
            except OSError as exc:
                answer = "error " + failure(exc)
            os.write(sys.stdout.fileno(), (answer + "\n").encode())
    except (BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    serve(sys.argv[1], float(sys.argv[2]))

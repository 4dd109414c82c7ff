"""What the journal and the tag registry share: opening one SQLite file safely on an SD card.

A file is moved aside only when SQLite itself says it is damaged
(``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, a failed ``quick_check``) or it is
some other program's database. A full disk, a read-only file or a folder
owned by someone else is not damage: the caller gets one line naming the
file and the cause, and the file is left exactly as it was.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import sqlite3
import struct
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger("gamebox.store")

#: SQLite's primary result codes that mean "this file is damaged", never "this file cannot be reached".
DAMAGE_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


class StoreError(Exception):
    """A state file cannot be opened, read or written; the message is one line naming the file and the cause."""


class Damaged(Exception):
    """SQLite says the file is damaged or not ours: the one case where it is moved aside."""


def is_damage(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in DAMAGE_CODES


def cause(exc: BaseException) -> str:
    """The cause of a storage error in words a person can act on ("database or disk is full")."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def usable_dir(folder: Path, error: type[StoreError], create: bool) -> None:
    """Make sure ``folder`` is a folder we may use (creating it when ``create``), or raise one line."""
    if folder.exists() and not folder.is_dir():
        raise error(f"state directory {folder} is not a directory")
    if not folder.exists():
        if not create:
            raise error(f"state directory {folder} does not exist")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise error(f"cannot create state directory {folder}: {cause(exc)}") from None
    if create and not os.access(folder, os.W_OK | os.X_OK):
        if read_only_mount(folder):
            raise error(f"state directory {folder} is on a read-only file system")
        raise error(f"state directory {folder} is not writable by this user (uid {os.getuid()})")


def read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


#: Below this many free bytes a failure to open or grow a file is the full disk's (SQLite's -shm alone is 32 kB).
FULL_BELOW = 128 * 1024


def full_disk(folder: Path) -> str | None:
    """"the disk is full: N bytes free" when it is, so a failure is not blamed on the file or on SQLite."""
    try:
        stat = os.statvfs(folder)
    except OSError:
        return None
    free = stat.f_bavail * stat.f_frsize
    return f"the disk is full: {free} bytes free" if free < FULL_BELOW else None


def open_cause(path: Path, exc: BaseException) -> str:
    """Why opening ``path`` failed, in the words that fit: a full disk, a read-only mount, else SQLite's own."""
    if read_only_mount(path.parent):
        return "read-only file system"
    return full_disk(path.parent) or cause(exc)


def move_aside(path: Path, why: str, wall: Callable[[], float], what: str) -> Path:
    """Rename a damaged file (and its -wal/-shm) to ``<name>.bad-<time>``, with one log line."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(wall()))
    target = path.with_name(f"{path.name}.bad-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.bad-{stamp}-{n}")
        n += 1
    path.rename(target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    log.error("%s %s: %s; moved aside to %s, starting a new one", what, path, why, target)
    return target


def open_checked(path: Path, what: str, error: type[StoreError],
                 foreign: Callable[[sqlite3.Connection], str | None],
                 prepare: Callable[[sqlite3.Connection], None]) -> sqlite3.Connection:
    """A connection on a sound file of ours, made ready by ``prepare``.

    :class:`Damaged` when SQLite says the file is damaged or ``foreign``
    names why it is some other program's database; ``error`` (one line
    naming the file and the cause) for everything else.
    """
    if path.is_dir():
        raise error(f"{path}: the {what} is a directory, not a file")
    made = not path.exists()
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise error(f"{path}: cannot open the {what}: {open_cause(path, exc)}") from None
    try:
        why = None if _empty(db) else foreign(db)  # no tables at all: a file made but never written, not another's
        if why:
            raise Damaged(why)
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise Damaged(f"integrity check failed: {check}")
        prepare(db)
    except Damaged:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        if is_damage(exc):
            raise Damaged(cause(exc)) from None
        if made:  # nothing of ours was in it: leave no empty file behind
            for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                leftover.unlink(missing_ok=True)
        raise error(f"{path}: cannot open the {what}: {open_cause(path, exc)}") from None
    return db


def _empty(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0


class HeldName:
    """A state file held open by a descriptor, to tell whether its path still names it.

    A folder deleted or unmounted leaves the open file readable and writable
    but nameless: what is written there is gone at the next start, and what
    another program writes at the path is never seen. The journal and the
    tag registry both follow their names with this.
    """

    def __init__(self, path: Path, what: str) -> None:
        """Raises ``OSError`` when the file cannot be opened."""
        self.path, self.what = path, what
        self.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self.device = os.fstat(self.fd).st_dev  # a folder back on another file system is not the one it was in

    def lost(self) -> str | None:
        """Why the path no longer names the open file, in words; None while it does."""
        try:
            now = os.stat(self.path)
        except OSError as exc:
            return f"the {self.what}'s file is gone ({cause(exc)}): its folder was deleted or unmounted"
        ours = os.fstat(self.fd)
        if (now.st_dev, now.st_ino) != (ours.st_dev, ours.st_ino):
            return f"the path names another file now, not the open {self.what}"
        return None

    def folder_back(self, error: type[StoreError]) -> None:
        """Raise ``error`` unless the folder is there again, on the file system it was on (a mount gone leaves an
        empty mount point on another one: a file written there would be hidden by the mount later)."""
        usable_dir(self.path.parent, error, create=False)
        if os.stat(self.path.parent).st_dev != self.device:
            raise error(f"{self.path.parent}: on another file system than the {self.what} was (is the storage "
                        "unmounted?); waiting until it is back")

    def close(self) -> None:
        os.close(self.fd)


# -- the write-ahead log -------------------------------------------------------------------
WAL_MAGIC = (0x377F0682, 0x377F0683)


def _wal_checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    mask = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & mask
        s1 = (s1 + words[i + 1] + s0) & mask
    return s0, s1


def wal_damage(path: Path) -> str | None:
    """Why the -wal file beside ``path`` would silently drop committed transactions, or None when it is sound.

    SQLite replays a write-ahead log up to the first frame whose checksum
    fails and quietly ignores the rest. A bad last frame is a write cut
    short (what a power cut does to the one transaction not yet synced); a
    bad frame with good frames of the same log after it, or a bad header on a
    log that holds frames, is damage: committed data would vanish unseen.
    """
    wal = path.with_name(path.name + "-wal")
    try:
        data = wal.read_bytes()
    except FileNotFoundError:
        return None
    if len(data) < 32:
        return None
    magic, _version, page_size, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    if magic not in WAL_MAGIC:
        return f"its header is not a write-ahead log header ({len(data)} bytes ignored)"
    big = magic & 1 == 1
    if _wal_checksum(data[:24], big, 0, 0) != (c1, c2):
        return f"its header fails its checksum ({len(data)} bytes ignored)"
    frame = 24 + page_size
    frames = (len(data) - 32) // frame
    s0, s1 = c1, c2
    for n in range(frames):
        at = 32 + n * frame
        head = data[at:at + 24]
        _page, _commit, f1, f2, k1, k2 = struct.unpack(">6I", head)
        if (f1, f2) != (salt1, salt2):
            return None  # an older generation of the log: already in the database
        s0, s1 = _wal_checksum(head[:8] + data[at + 24:at + frame], big, s0, s1)
        if (s0, s1) != (k1, k2):
            later = sum(
                1 for m in range(n + 1, frames)
                if struct.unpack(">2I", data[32 + m * frame + 8:32 + m * frame + 16]) == (salt1, salt2)
            )
            if later == 0:
                return None  # the last write, cut short
            return f"frame {n + 1} of {n + 1 + later} fails its checksum; the {later} frames after it are lost"
    return None


def keep_copy(path: Path, wall: Callable[[], float]) -> Path:
    """Copy a damaged -wal file aside before SQLite opens (and later overwrites) it, made durable.

    The copy's name is one no earlier copy has (``-1``, ``-2`` after the time when it is taken: two starts in
    the same second on a Pi without a real-time clock), created exclusively: nothing kept for a person is ever
    overwritten.
    """
    wal = path.with_name(path.name + "-wal")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(wall()))
    for n in itertools.count():
        target = wal.with_name(f"{wal.name}.bad-{stamp}" + (f"-{n}" if n else ""))
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            continue
        break
    try:
        with open(fd, "wb") as copy, open(wal, "rb") as source:
            shutil.copyfileobj(source, copy)
            copy.flush()
            os.fsync(copy.fileno())
    except OSError:
        target.unlink(missing_ok=True)
        raise
    return target


class CommittedImage:
    """The database as a reader would see it now: the file with its -wal's committed frames laid over it.

    Read with plain ``read()`` calls, so nothing is created (SQLite itself
    needs a -shm beside a write-ahead log, which a full disk or a read-only
    mount refuses) and a daemon writing at the same time is never blocked.
    The -wal's checksums are checked in Python, about 0.1 ms a frame, so a
    second :meth:`read` (the kiosk display, after each commit of a running
    box) checks only the frames added since the last one: committed frames
    are never overwritten until the log restarts, which changes its header.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._forget(b"")

    def _forget(self, head: bytes) -> None:
        self._head = head  # the -wal's header these frames belong to
        self._end = 32  # where the frames after the last commit start
        self._sums = (0, 0)  # the running checksum there
        self._pages: dict[int, bytes] = {}  # every committed page, newest
        self._size: int | None = None  # the database's pages at the last commit

    def read(self, tries: int = 20) -> bytes:
        """The file and its -wal read as one moment: the -wal is read before and after the file, and again if it
        changed (a commit, or a checkpoint that restarted it)."""
        wal = self.path.with_name(self.path.name + "-wal")
        for _ in range(tries):
            before = _read_if_there(wal)
            data = self.path.read_bytes()
            if _read_if_there(wal) == before:
                return self._overlay(data, before)
        raise OSError(f"the journal changed on every one of {tries} reads")

    def _overlay(self, data: bytes, wal: bytes) -> bytes:
        """``data`` with every page of ``wal``'s committed transactions (those SQLite would replay) written in."""
        if len(wal) >= 32:
            self._replay(wal)
        else:
            self._forget(b"")
        image = bytearray(data)
        if self._size is not None:
            page_size = len(next(iter(self._pages.values())))
            image = bytearray(data[:self._size * page_size].ljust(self._size * page_size, b"\0"))
            for page, body in self._pages.items():
                if page <= self._size:
                    image[(page - 1) * page_size:page * page_size] = body
        if len(image) >= 100:
            image[18:20] = b"\x01\x01"  # read as one plain file: no write-ahead log beside it
        return bytes(image)

    def _replay(self, wal: bytes) -> None:
        """Take in the committed frames of ``wal`` after those already taken in, stopping where SQLite's own
        recovery stops (a frame of an older log, or one that fails its checksum)."""
        magic, _version, page_size, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", wal[:32])
        big = magic & 1 == 1
        if magic not in WAL_MAGIC or _wal_checksum(wal[:24], big, 0, 0) != (c1, c2):
            self._forget(b"")
            return
        if wal[:32] != self._head or len(wal) < self._end:
            self._forget(wal[:32])
            self._sums = (c1, c2)
        frame, (s0, s1), pending = 24 + page_size, self._sums, {}
        for at in range(self._end, len(wal) - frame + 1, frame):
            head = wal[at:at + 24]
            page, commit, f1, f2, k1, k2 = struct.unpack(">6I", head)
            body = wal[at + 24:at + frame]
            s0, s1 = _wal_checksum(head[:8] + body, big, s0, s1)
            if (f1, f2) != (salt1, salt2) or (s0, s1) != (k1, k2):
                break
            pending[page] = body
            if commit:
                self._pages.update(pending)
                pending, self._size, self._end, self._sums = {}, commit, at + frame, (s0, s1)


def _read_if_there(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""

"""What the journal and the tag registry share: opening one SQLite file safely on an SD card.

A file is moved aside only when SQLite itself says it is damaged
(``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, a failed ``quick_check``) or it is
some other program's database. A full disk, a read-only file or a folder
owned by someone else is not damage: the caller gets one line naming the
file and the cause, and the file is left exactly as it was.
"""

from __future__ import annotations

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
        raise error(f"state directory {folder} is not writable by this user (uid {os.getuid()})")


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
    fresh = not path.exists() or path.stat().st_size == 0
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise error(f"{path}: cannot open the {what}: {cause(exc)}") from None
    try:
        why = None if fresh else foreign(db)
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
        raise error(f"{path}: cannot open the {what}: {cause(exc)}") from None
    return db


def read_only_uri(path: Path) -> str:
    return f"{path.resolve().as_uri()}?mode=ro"


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
    """Copy a damaged -wal file aside before SQLite opens (and later overwrites) it."""
    wal = path.with_name(path.name + "-wal")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(wall()))
    target = wal.with_name(f"{wal.name}.bad-{stamp}")
    shutil.copyfile(wal, target)
    return target

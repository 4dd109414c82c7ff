"""The journal's file: opening it, its name on disk, making it durable, and one line for every way it fails.

:class:`JournalFile` is what :class:`controller.storage.journal.Journal`
stands on: it opens (or, read-only, reads one moment of) the SQLite file,
moves it aside only when SQLite says it is damaged or not a gamebox
journal, keeps a copy of a write-ahead log that breaks in the middle,
fsyncs the -wal (:meth:`JournalFile.sync`) and checkpoints it on its own
connection, tells whether its path and its -wal's still name the open files, and turns
every SQLite or OS error into one :class:`JournalError` line naming the
file and the cause. What the tables hold is read and written by the
classes above it.
"""

from __future__ import annotations

import json
import logging
import os
import pwd
import sqlite3
import threading
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Callable, Iterator

from controller.storage.boxid import BOX_ID_NAME, box_id
from controller.storage.store import (
    CommittedImage, Damaged, HeldName, StoreError, cause, keep_copy, move_aside, open_cause, open_checked,
    usable_dir, wal_damage,
)
from controller.storage.walsync import WalSync, failure, mark_path

log = logging.getLogger("gamebox.journal")

#: PRAGMA application_id of a gamebox journal: "GBOX".
APPLICATION_ID = 0x47424F58
#: The journal's ``PRAGMA user_version`` this program writes and the newest it reads (:func:`journal_version`).
SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players INTEGER NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    winners TEXT,
    abandoned INTEGER NOT NULL DEFAULT 0,
    note TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS undone (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

#: The settings row holding the id of the box that made the journal (:func:`journal_owner`).
OWNER_KEY = "box"

#: Frames the -wal may hold before the sync worker checkpoints it even in the middle of a game.
CHECKPOINT_PAGES = 256


class JournalError(StoreError):
    """The journal cannot be opened, read or written; the message is one line naming the file and the cause."""


class NameLost(JournalError):
    """The journal's path no longer names the file being written (its folder was deleted or unmounted)."""


class JournalFile:
    """One gamebox journal's SQLite file, its -wal and its name; what its tables hold is read above it."""

    def __init__(self, path: str | Path, wall: Callable[[], float] = time.time, read_only: bool = False,
                 fsync: Callable[[int], None] = os.fsync) -> None:
        """Open the journal's file, moving it aside only when SQLite says it is damaged or not a journal.

        ``read_only`` (``status``, ``history``, ``doctor``, the kiosk
        display) never creates, moves, repairs or writes anything; it reads
        one moment of the journal (:func:`read_moment`). ``fsync`` is what
        :meth:`sync` calls on the -wal file (the bench slows it down, the
        fault tests make it fail).
        """
        self.path = Path(path)
        self.wall = wall
        self.read_only = read_only
        self.moved_aside: Path | None = None
        self.wal_damage: str | None = None  # what a damaged write-ahead log cost, said once at start
        self.losses: list[str] = []  # acknowledged actions the journal no longer holds, said once at start
        self.log_before: int | None = None  # the -wal's size found at start (None: there was none)
        self._fsync = fsync
        self._sync_lock = threading.Lock()
        self._wal = WalSync(self.path.with_name(self.path.name + "-wal"), fsync)
        self._checkpointer: sqlite3.Connection | None = None
        self._name: HeldName | None = None  # the journal's file, held to tell whether its path still names it
        self._wal_name: HeldName | None = None  # its write-ahead log, likewise: SQLite writes on into a deleted one
        self._image = CommittedImage(self.path)  # what a read-only journal reads
        self._reopen = False  # relink copied the journal to its path but could not open it yet
        self._refused: str | None = None  # another box's journal found where this one's was, said once
        self.box_id: str | None = None  # the box writing here (:func:`~controller.storage.boxid.box_id`)
        if self.path.is_dir():
            raise JournalError(f"{self.path}: the journal is a directory, not a file")
        if read_only:
            self.db = read_moment(self.path, self._image)
            return
        usable_dir(self.path.parent, JournalError, create=True)
        self.box_id = check_owner_and_version(self.path, self.path.parent)  # before anything is touched
        self.log_before = self._wal.wal.stat().st_size if self._wal.wal.exists() else None
        self._check_wal()
        try:
            self.db = self._open()
        except Damaged as exc:
            self.moved_aside = self._guard(lambda: move_aside(self.path, str(exc), wall, "journal"))
            self.db = self._open()
        self._claim()
        self._hold_names()

    # -- opening ---------------------------------------------------------------
    def reread(self) -> None:
        """Read-only: read the journal's moment again (the kiosk display, after the box wrote); only the -wal's
        frames added since the last read are checked."""
        db = read_moment(self.path, self._image)
        self.db.close()
        self.db = db

    def _claim(self) -> None:
        """Write this box's id into a journal that has none: a new one, or one made before boxes had ids."""
        if self._read("SELECT 1 FROM settings WHERE key=?", (OWNER_KEY,)):
            return
        with self._transaction():
            self.db.execute("INSERT INTO settings (key, value) VALUES (?,?)", (OWNER_KEY, json.dumps(self.box_id)))

    def _open(self) -> sqlite3.Connection:
        """A connection on a sound gamebox journal; :class:`Damaged` when SQLite says it is not one."""
        return open_checked(self.path, "journal", JournalError, _foreign, _prepare)

    def _check_wal(self) -> None:
        """Before SQLite replays the -wal: a log that breaks in the middle is copied aside and reported."""
        why = wal_damage(self.path)
        if why is None:
            return
        copy = self._guard(lambda: keep_copy(self.path, self.wall))
        self.wal_damage = f"the write-ahead log is damaged ({why}); a copy is kept at {copy}"

    def _guard(self, step: Callable[[], Any]) -> Any:
        try:
            return step()
        except OSError as exc:
            raise JournalError(f"{self.path}: {cause(exc)}") from None

    # -- where the acknowledged mark is kept ----------------------------------------------
    @property
    def mark_path(self) -> Path:
        return mark_path(self._wal.wal)

    # -- the file's name ------------------------------------------------------------------
    def check_named(self) -> None:
        """Raise :class:`NameLost` unless the journal's path and its -wal's still name the open files: what is
        acknowledged must be where the next start reads it, not in a file whose folder was deleted or unmounted,
        nor in a write-ahead log deleted under SQLite (which writes on into it, and a restart never sees it)."""
        why = "it is not open again yet" if self._reopen else None if self._name is None else self._name.lost()
        if why is not None:
            raise NameLost(f"{self.path}: {why}; nothing is acknowledged until it is back")
        if self._wal_name is not None and self._wal_name.lost() is not None:
            raise NameLost(f"{self._wal.wal}: the write-ahead log was deleted or replaced while the box wrote into it; "
                           "nothing is acknowledged until the journal is written again")

    def _hold_names(self) -> None:
        self._name = self._guard(lambda: HeldName(self.path, "journal"))
        self._wal_name = self._guard(lambda: HeldName(self._wal.wal, "journal's write-ahead log"))

    def folder_back(self) -> None:
        """Raise :class:`JournalError` unless the journal's folder is there again, on the file system it was on,
        and holds no other box's journal (said once: the folder was replaced by another box's)."""
        if self._name is not None:
            self._name.folder_back(JournalError)
        owner = _look(self.path)[1] if self.path.exists() else None
        if owner is not None and owner != self.box_id:
            why = (f"{self.path} is now another box's journal (made by box {owner}; this box ({self.box_id}) never "
                   "writes into it; was its state folder replaced?): nothing is acknowledged until its own is back")
            if why != self._refused:
                log.error("journal %s", why)
                self._refused = why
            raise JournalError(why)
        self._refused = None

    def relink(self) -> None:
        """After :class:`NameLost`, once the folder is back: copy the open journal (SQLite still reads the file
        or the -wal that lost its name) to the path, and write there from now on. Raises :class:`JournalError`
        while it cannot.

        When only the -wal lost its name the copy is made beside the journal and renamed over it once complete,
        after the old connections are closed, so a kill at any moment leaves a whole journal at the path.
        """
        self.folder_back()
        with self._sync_lock:
            if self._reopen:  # the copy is at the path already; only opening it failed
                self._open_again()
                return
            in_place = self._name is not None and self._name.lost() is None
            if self.path.exists() and not in_place:  # another file took the name (an old copy on a card put back)
                self._guard(lambda: move_aside(self.path, "it replaced the open journal", self.wall, "journal"))
            target = self.path.with_name(self.path.name + ".new") if in_place else self.path
            if in_place:
                self._guard(lambda: target.unlink(missing_ok=True))  # a copy left by a try cut short
            try:
                copy = sqlite3.connect(target)
                try:
                    self.db.backup(copy)
                finally:
                    copy.close()
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot write the journal again: {cause(exc)}") from None
            self._close_files()
            self.db.close()
            self._reopen = True
            if in_place:
                self._guard(lambda: os.replace(target, self.path))
            self._open_again()
        log.warning("journal %s: written again from the open journal; nothing acknowledged was lost", self.path)

    def _open_again(self) -> None:
        try:
            self.db = self._open()
        except Damaged as exc:
            raise JournalError(f"{self.path}: cannot write the journal again: {exc}") from None
        self._reopen = False
        self._wal = WalSync(self._wal.wal, self._fsync)
        self._hold_names()

    def close(self) -> None:
        with self._sync_lock:
            self._close_files()
        self.db.close()

    def _close_files(self) -> None:
        self._wal.close()
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        for held in (self._name, self._wal_name):
            if held is not None:
                held.close()
        self._name = self._wal_name = None

    # -- durability ------------------------------------------------------------------
    def sync(self, mark: str | None = None) -> None:
        """Make everything recorded so far durable: fsync the -wal file (and, once, its folder); then write ``mark``.

        Safe from a worker thread while the loop records: it touches only
        its own file descriptors, never the SQLite connection.
        """
        if self.read_only:
            return
        with self._sync_lock:
            try:
                self._wal.sync(mark)
            except OSError as exc:
                raise JournalError(f"{self._wal.wal}: {failure(exc)}") from None

    def checkpoint(self, force: bool = False) -> None:
        """Copy the -wal into the database (a game's end, an idle box); off the loop, on its own connection.

        Without ``force`` only a log longer than :data:`CHECKPOINT_PAGES` is copied.
        """
        if self.read_only:
            return
        with self._sync_lock:
            try:
                if self._checkpointer is None:
                    self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                    self._checkpointer.execute("PRAGMA busy_timeout=2000")
                    self._checkpointer.execute("PRAGMA synchronous=NORMAL")
                wal = self._wal.wal
                size = wal.stat().st_size if wal.exists() else 0
                if not force and size < CHECKPOINT_PAGES * 4096:
                    return
                self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except (sqlite3.Error, OSError) as exc:
                raise JournalError(f"{self.path}: checkpoint failed: {cause(exc)}") from None

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one moment of the journal (``status --json`` under fast play)."""
        try:
            self.db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {cause(exc)}") from None
        try:
            yield
        except BaseException:
            with suppress(sqlite3.Error):
                self.db.execute("COMMIT")
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {cause(exc)}") from None

    # -- helpers -----------------------------------------------------------------
    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {cause(exc)}") from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; on any failure rolled back and raised as one :class:`JournalError`."""
        if self.read_only:
            raise JournalError(f"{self.path}: opened read-only")
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: journal write failed: {cause(exc)}") from None
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException as exc:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite already rolled back (a full disk does that itself)
            if isinstance(exc, sqlite3.Error):
                raise JournalError(f"{self.path}: journal write failed: {cause(exc)}") from None
            raise


def check_owner_and_version(path: Path, state_dir: Path) -> str:
    """The id of the box of ``state_dir``, once the journal at ``path`` (if there is one) is known to be neither of a
    newer version nor another box's: either is one :class:`JournalError` line, and the journal is not touched.

    A start checks its own journal so; a restore checks the journal it would bring back. A state folder without
    a ``box-id`` takes the journal's (:func:`~controller.storage.boxid.box_id`): a box whose card was wiped is
    still the box its journal was made by.
    """
    version, owner = _look(path) if path.exists() else (0, None)
    refuse_newer(path, version)
    try:
        mine = box_id(state_dir, owner)
    except OSError as exc:
        raise JournalError(f"{state_dir / BOX_ID_NAME}: cannot keep the box's id: "
                           f"{open_cause(state_dir / BOX_ID_NAME, exc)}") from None
    if owner is not None and owner != mine:
        raise JournalError(f"{path} is another box's journal (made by box {owner}; this box ({mine}) never writes "
                           f"into it): nothing was changed; move it out of {state_dir} to start a new journal "
                           f"here, or copy that box's {BOX_ID_NAME} file along with it to play it on this box")
    return mine


def read_moment(path: Path, image: CommittedImage) -> sqlite3.Connection:
    """One moment of the journal, in memory: nothing is created, so a full disk or a read-only mount still answers.

    SQLite's ``immutable=1`` would read only the file and miss what a
    running box has in its -wal (and assumes nobody writes); ``mode=ro``
    must create a -shm beside a -wal, which a full disk refuses and
    which is left behind. So the file and its -wal are read as bytes,
    the -wal's committed frames laid over the file exactly as SQLite's
    recovery would (:class:`CommittedImage`), and SQLite opens that copy.
    """
    if not path.is_file():
        raise JournalError(f"{path}: no journal yet")
    data = _committed(path, image, writer=False)
    refuse_newer(path, _version(data))
    try:
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        if data:
            db.deserialize(data)
        if not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            db.executescript(SCHEMA)  # killed while it was made: read as the empty journal a start makes of it
        db.execute("PRAGMA query_only=1")
        db.execute("SELECT 1 FROM games LIMIT 1")
    except (sqlite3.Error, OSError) as exc:
        raise JournalError(f"{path}: cannot read the journal: {cause(exc)}") from None
    return db


def _committed(path: Path, image: CommittedImage, writer: bool) -> bytes:
    """The journal's committed image (:class:`CommittedImage`), or one :class:`JournalError` line."""
    try:
        return image.read()
    except PermissionError as exc:
        raise JournalError(_not_readable(Path(exc.filename or path), exc, writer)) from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {cause(exc)}") from None


def journal_version(path: str | Path) -> int:
    """The journal's version (its ``PRAGMA user_version``) as a start reads it, the -wal's committed frames laid
    over the file; nothing is created or changed. 0 for a file that is empty or not SQLite's (a start moves that
    aside), :class:`JournalError` for one that cannot be read. A start and ``status`` refuse a version above
    :data:`SCHEMA_VERSION` (:func:`refuse_newer`); so should anything that brings a journal back (a restore)."""
    return _look(Path(path))[0]


def journal_owner(path: str | Path) -> str | None:
    """The id of the box that made the journal (:func:`~controller.storage.boxid.box_id` of its state folder), read
    as :func:`journal_version` reads, changing nothing; None for a journal made before boxes had ids (the next box
    to write it claims it) or a file that is not a journal. A box refuses to write into a journal whose owner is
    another box; so should anything that brings a journal back (a restore)."""
    return _look(Path(path))[1]


def _look(path: Path) -> tuple[int, str | None]:
    """The journal's version and owner, from one read of its committed image."""
    image = _committed(path, CommittedImage(path), writer=True)
    version = _version(image)
    if not image.startswith(b"SQLite format 3\0"):
        return version, None
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(image)
        row = db.execute("SELECT value FROM settings WHERE key=?", (OWNER_KEY,)).fetchone()
        owner = json.loads(row[0]) if row else None
    except (sqlite3.Error, TypeError, ValueError):
        owner = None  # no settings yet, or a damaged file: a start judges that
    finally:
        db.close()
    return version, owner if isinstance(owner, str) else None


def refuse_newer(path: Path, version: int) -> None:
    """Raise one :class:`JournalError` line naming both versions and the update when ``version`` is newer than this
    program's: an older gamebox would write into a journal it does not understand and set its version back."""
    if version > SCHEMA_VERSION:
        raise JournalError(f"{path}: this journal was written by a newer gamebox (journal version {version}; this one "
                           f"reads up to version {SCHEMA_VERSION}): update gamebox to play it; nothing was changed")


def _not_readable(path: Path, exc: OSError, writer: bool) -> str:
    """A journal file this user may not read, whose it is, and the fix: the box takes it for its own user; a reader
    (``status``) is told to read it as its owner, so the service's journal is never handed to the person asking."""
    user = _user_name(os.getuid())
    try:
        st = path.stat()
        owner, whose = _user_name(st.st_uid), f"owned by {_user_name(st.st_uid)}, mode {st.st_mode & 0o777:03o}; "
    except OSError:
        owner, whose = "", ""
    if owner == user:
        fix = f"let its owner read and write it: chmod u+rw {path}"
    elif writer or not owner:
        fix = f"let this user read and write it: sudo chown {user} {path} && sudo chmod u+rw {path}"
    else:
        fix = f"read it as its owner: sudo -u {owner} gamebox ..."
    return f"{path}: cannot read the journal: {cause(exc)} ({whose}this is {user}): {fix}"


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _version(image: bytes) -> int:
    if len(image) < 100 or not image.startswith(b"SQLite format 3\0"):
        return 0
    return int.from_bytes(image[60:64], "big", signed=True)


def _foreign(db: sqlite3.Connection) -> str | None:
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id != APPLICATION_ID or "games" not in tables:
        return f"not a gamebox journal (application id {app_id:#x}, tables {sorted(tables)})"
    return None


def _prepare(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # commits write, sync() makes them durable
    db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run off the loop (checkpoint())
    db.execute("PRAGMA busy_timeout=2000")
    db.executescript(SCHEMA)
    if "note" not in {r[1] for r in db.execute("PRAGMA table_info(games)")}:  # a journal of schema 1
        db.execute("ALTER TABLE games ADD COLUMN note TEXT")
    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:  # a new or an older journal
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def dumps(value: Any, path: Path) -> str:
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise JournalError(f"{path}: not written, the value cannot be stored: {exc}") from None

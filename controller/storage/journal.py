"""The journal: every game's options and accepted actions, in SQLite, safe against power cuts and full disks.

Writing and making durable are two steps, so that the answer to a tap never
waits for an SD card's fsync:

* :meth:`Journal.record` commits an action (and, for a game's last action,
  its result, in the same transaction) in write-ahead logging with
  ``synchronous=NORMAL``: the commit is a ``write()`` into the -wal file, no
  fsync. It raises :class:`JournalError` with nothing written when it fails.
* :meth:`Journal.sync` fsyncs the -wal file: everything recorded before it
  is then on the card. It touches no SQLite connection, so it runs beside
  the loop while the loop goes on recording (the daemon runs the same code
  in a child process, :mod:`controller.storage.syncer`) and prints
  ``accepted N`` only after it returned.

Checkpoints (copying the -wal into the database) run on their own
connection, from the same worker, at a game's end and when the box is idle;
the loop's connection never checkpoints, so a commit never waits for one.

A file is moved aside only when SQLite says it is damaged or it is not a
gamebox journal; anything else (a full disk, a read-only file, a folder
owned by someone else) is one line naming the file and the cause. A
write-ahead log whose checksums break in the middle is kept as a copy and
reported loudly, with what was recovered. A game whose stored options or
actions do not parse is set aside with a note; the other games are kept.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from contextlib import contextmanager, suppress
from typing import Any, Callable, Iterator

from controller.storage.store import (
    Damaged, StoreError, cause, committed_image, keep_copy, move_aside, open_checked, read_only_uri, usable_dir,
    wal_damage,
)
from controller.storage.walsync import WalSync, failure, mark_path, write_mark

log = logging.getLogger("gamebox.journal")

#: PRAGMA application_id of a gamebox journal: "GBOX".
APPLICATION_ID = 0x47424F58
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

#: Frames the -wal may hold before the sync worker checkpoints it even in the middle of a game.
CHECKPOINT_PAGES = 256


class JournalError(StoreError):
    """The journal cannot be opened, read or written; the message is one line naming the file and the cause."""


class NameLost(JournalError):
    """The journal's path no longer names the file being written (its folder was deleted or unmounted)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    id: int
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    started: float
    ended: float | None
    winners: list[int] | None
    actions: int
    abandoned: bool
    problem: str | None = None  # why this game cannot be replayed (a stored field that does not parse)


class Journal:
    """One SQLite file of games, their actions and the box's settings."""

    def __init__(self, path: str | Path, wall: Callable[[], float] = time.time, read_only: bool = False,
                 fsync: Callable[[int], None] = os.fsync, live: bool = False) -> None:
        """Open the journal.

        ``read_only`` (``status``, ``history``, ``doctor``, the kiosk
        display) never creates, moves, repairs or writes anything; it reads
        one moment of the journal (:meth:`_open_image`), or with ``live``
        (the display, which follows the game) SQLite's own read-only
        connection. ``fsync`` is what :meth:`sync` calls on the -wal file
        (the bench slows it down, the fault tests make it fail).
        """
        self.path = Path(path)
        self.wall = wall
        self.read_only = read_only
        self.moved_aside: Path | None = None
        self.wal_damage: str | None = None  # what a damaged write-ahead log cost, said once at start
        self.losses: list[str] = []  # acknowledged actions the journal no longer holds, said once at start
        self._fsync = fsync
        self._sync_lock = threading.Lock()
        self._wal = WalSync(self.path.with_name(self.path.name + "-wal"), fsync)
        self._checkpointer: sqlite3.Connection | None = None
        self._fd: int | None = None  # the journal's file, held to tell whether its path still names it
        self._device: int | None = None  # the file system it is on
        if self.path.is_dir():
            raise JournalError(f"{self.path}: the journal is a directory, not a file")
        if read_only:
            self.db = self._open_read_only() if live else self._open_image()
            return
        usable_dir(self.path.parent, JournalError, create=True)
        log_before = self._wal.wal.stat().st_size if self._wal.wal.exists() else None
        self._check_wal()
        try:
            self.db = self._open()
        except Damaged as exc:
            self.moved_aside = self._guard(lambda: move_aside(self.path, str(exc), wall, "journal"))
            self.db = self._open()
        self._fd = self._guard(lambda: os.open(self.path, os.O_RDONLY | os.O_CLOEXEC))
        self._device = os.fstat(self._fd).st_dev  # a folder back on another file system is not the journal's
        self._check_acknowledged(log_before)

    # -- opening ---------------------------------------------------------------
    def _open_image(self) -> sqlite3.Connection:
        """One moment of the journal, in memory: nothing is created, so a full disk or a read-only mount still answers.

        SQLite's ``immutable=1`` would read only the file and miss what a
        running box has in its -wal (and assumes nobody writes); ``mode=ro``
        must create a -shm beside a -wal, which a full disk refuses and
        which is left behind. So the file and its -wal are read as bytes,
        the -wal's committed frames laid over the file exactly as SQLite's
        recovery would (:func:`committed_image`), and SQLite opens that copy.
        """
        if not self.path.is_file():
            raise JournalError(f"{self.path}: no journal yet")
        try:
            image = committed_image(self.path)
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            if image:
                db.deserialize(image)
            db.execute("PRAGMA query_only=1")
            db.execute("SELECT 1 FROM games LIMIT 1")
        except (sqlite3.Error, OSError) as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {cause(exc)}") from None
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise JournalError(f"{self.path}: no journal yet")
        uri = read_only_uri(self.path)
        if not self._wal.wal.exists() and not os.access(self.path.parent, os.W_OK):
            # no -wal, and none can be made in a read-only folder: nothing is being written, read the file as it is
            uri += "&immutable=1"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            db.execute("SELECT 1 FROM games LIMIT 1")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot read the journal: {cause(exc)}") from None
        return db

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

    def report_recovery(self) -> list[str]:
        """What the journal lost at this start, one line each (logged as errors); empty when nothing was lost."""
        lines = [f"journal {self.path}: {why}" for why in self.losses]
        if self.wal_damage is not None:
            latest = self.latest()
            kept = "no game" if latest is None else f"game {latest.id} with {latest.actions} actions"
            lines.insert(0, f"journal {self.path}: {self.wal_damage}; recovered {kept}")
        for line in lines:
            log.error("%s", line)
        return lines

    # -- what was acknowledged ---------------------------------------------------------
    @property
    def mark_path(self) -> Path:
        return mark_path(self._wal.wal)

    def mark(self, game_id: int | None) -> str | None:
        """The acknowledged mark for everything written so far: "GAME WRITTEN" (see :meth:`written`)."""
        return None if game_id is None else f"{game_id} {self.written(game_id)}"

    def written(self, game_id: int) -> int:
        """How many actions were ever recorded in this game: its log and what was taken back (never goes down)."""
        return self._read("SELECT (SELECT count(*) FROM actions WHERE game_id=?)"
                          " + (SELECT count(*) FROM undone WHERE game_id=?)", (game_id, game_id))[0][0]

    def _check_acknowledged(self, log_before: int | None) -> None:
        """At start: a journal holding fewer actions than the mark says were acknowledged lost them; say so once."""
        try:
            words = self.mark_path.read_text().split()
            game_id, acknowledged = int(words[0]), int(words[1])
        except FileNotFoundError:
            return
        except (OSError, ValueError, IndexError):
            log.warning("journal %s: the acknowledged mark %s does not parse; it is written afresh",
                        self.path, self.mark_path)
            return
        have = self.written(game_id)
        if have >= acknowledged:
            return
        record = self.game(game_id)
        where = ""  # a -wal is also missing after a clean stop: named only where it explains the loss
        if log_before == 0:
            where = " with its write-ahead log, which was empty"
        elif log_before is None and self.latest() is None:
            where = " with its write-ahead log, which was missing"
        now = f"game {game_id} is gone" if record is None else f"game {game_id} resumes at action {self._good(record)}"
        self.losses.append(f"the SD card lost the last {acknowledged - have} acknowledged actions{where}: {now}")
        self._guard(lambda: write_mark(self.mark_path, f"{game_id} {have}", self._fsync))  # said once

    # -- the file's name ------------------------------------------------------------------
    def check_named(self) -> None:
        """Raise :class:`NameLost` unless the journal's path still names the open file: what is acknowledged must be
        where the next start reads it, not in a file whose folder was deleted or unmounted."""
        if self._fd is None:
            return
        try:
            now = os.stat(self.path)
        except OSError as exc:
            raise NameLost(f"{self.path}: the journal's file is gone ({cause(exc)}): its folder was deleted or "
                           "unmounted; nothing is acknowledged until it is back") from None
        ours = os.fstat(self._fd)
        if (now.st_dev, now.st_ino) != (ours.st_dev, ours.st_ino):
            raise NameLost(f"{self.path}: the path names another file now, not the open journal; "
                           "nothing is acknowledged until the journal is written there again")

    def folder_back(self) -> None:
        """Raise :class:`JournalError` unless the journal's folder is there again, on the file system it was on
        (a mount gone leaves an empty mount point on another one: a journal written there would be hidden later)."""
        usable_dir(self.path.parent, JournalError, create=False)
        if os.stat(self.path.parent).st_dev != self._device:
            raise JournalError(f"{self.path.parent}: on another file system than the journal was (is the storage "
                               "unmounted?); nothing is acknowledged until it is back")

    def relink(self) -> None:
        """After :class:`NameLost`, once the folder is back: copy the open journal (SQLite still reads the file
        that lost its name) to the path, and write there from now on. Raises :class:`JournalError` while it cannot."""
        self.folder_back()
        with self._sync_lock:
            if self.path.exists():  # another file took the name (an old copy on a card put back): keep it aside
                self._guard(lambda: move_aside(self.path, "it replaced the open journal", self.wall, "journal"))
            try:
                target = sqlite3.connect(self.path)
                try:
                    self.db.backup(target)
                finally:
                    target.close()
                fresh = self._open()
            except (sqlite3.Error, Damaged) as exc:
                raise JournalError(f"{self.path}: cannot write the journal again: {cause(exc)}") from None
            self._close_files()
            self.db.close()
            self.db = fresh
            self._wal = WalSync(self._wal.wal, self._fsync)
            self._fd = self._guard(lambda: os.open(self.path, os.O_RDONLY | os.O_CLOEXEC))
        log.warning("journal %s: written again from the open journal; nothing acknowledged was lost", self.path)

    def close(self) -> None:
        with self._sync_lock:
            self._close_files()
        self.db.close()

    def _close_files(self) -> None:
        self._wal.close()
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

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

    # -- games -----------------------------------------------------------------
    def start_game(self, game: str, players: int, options: dict[str, Any], seed: int) -> int:
        """Record a new game; any unfinished game before it is marked abandoned."""
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1 WHERE ended IS NULL")
            cur = self.db.execute(
                "INSERT INTO games (game, players, options, seed, started) VALUES (?,?,?,?,?)",
                (game, players, _dumps(options, self.path), seed, self.wall()),
            )
        return int(cur.lastrowid)

    def record(self, game_id: int, seq: int, action: dict[str, Any], winners: list[int] | None = None) -> None:
        """Commit one accepted action and, with ``winners``, the game's end, in one transaction.

        Written when this returns, durable after the next :meth:`sync`.
        Raises :class:`JournalError` with nothing written: a full disk, an
        I/O error, a seq already used in this game's log, a value JSON
        cannot hold (NaN).
        """
        text = _dumps(action, self.path)
        result = None if winners is None else _dumps(list(winners), self.path)
        now = self.wall()
        with self._transaction():
            last = self.db.execute("SELECT MAX(seq) FROM actions WHERE game_id=?", (game_id,)).fetchone()[0]
            if last is not None and seq <= last:
                raise JournalError(f"{self.path}: seq {seq} of game {game_id} is already used (last {last})")
            if seq != (-1 if last is None else last) + 1:
                raise JournalError(f"{self.path}: seq {seq} of game {game_id} would leave a gap (last {last})")
            self.db.execute(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (?,?,?,?)",
                (game_id, seq, text, now),
            )
            if result is not None:
                self.db.execute("UPDATE games SET ended=?, winners=? WHERE id=?", (now, result, game_id))

    def abandon(self, game_id: int) -> None:
        """The new-game card: this game is abandoned for good (durable when this returns)."""
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1 WHERE id=? AND ended IS NULL", (game_id,))
        self.sync()

    def set_aside(self, game_id: int, why: str) -> None:
        """A game that cannot be replayed: never resumed again, kept with a note for ``history``."""
        log.error("journal %s: game %s cannot be replayed (%s); set aside, the other games are kept",
                  self.path, game_id, why)
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1, note=? WHERE id=?", (why[:200], game_id))

    def undo(self, game_id: int, seq: int) -> dict[str, Any]:
        """Take the game's last action (which must be ``seq``) out of its log, keeping it in ``undone``."""
        with self._transaction():
            row = self.db.execute(
                "SELECT seq, action FROM actions WHERE game_id=? ORDER BY seq DESC LIMIT 1", (game_id,)
            ).fetchone()
            if row is None or row[0] != seq:
                raise JournalError(f"{self.path}: cannot undo seq {seq} of game {game_id}: "
                                   f"its last action is {None if row is None else row[0]}")
            self.db.execute("DELETE FROM actions WHERE game_id=? AND seq=?", (game_id, seq))
            self.db.execute("INSERT INTO undone (game_id, seq, action, at) VALUES (?,?,?,?)",
                            (game_id, seq, row[1], self.wall()))
            self.db.execute("UPDATE games SET ended=NULL, winners=NULL WHERE id=?", (game_id,))
        return _loads_action(row[1]) or {}

    def undone(self, game_id: int) -> list[dict[str, Any]]:
        """The actions taken back in this game, oldest first (a taken-back roll is rolled afresh)."""
        rows = self._read("SELECT action FROM undone WHERE game_id=? ORDER BY rowid", (game_id,))
        return [a for a in (_loads_action(r[0]) for r in rows) if a is not None]

    def unfinished(self) -> GameRecord | None:
        """The game to resume: the newest one neither ended nor abandoned, whose log parses.

        A game whose options or actions do not parse is set aside (writable
        journal) or skipped (read-only), and the one before it is not
        resumed either: it was abandoned when that game started.
        """
        rows = self._read("SELECT id FROM games WHERE ended IS NULL AND abandoned=0 ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        record = self.game(rows[0][0])
        if record is None:
            return None
        problem = record.problem
        if problem is None:
            try:
                self.actions(record.id)
            except JournalError as exc:
                problem = str(exc)
        if problem is None:
            return self._close_gap(record)
        if not self.read_only:
            self.set_aside(record.id, problem)
        return None

    def latest(self) -> GameRecord | None:
        rows = self._read("SELECT id FROM games ORDER BY id DESC LIMIT 1")
        return self.game(rows[0][0]) if rows else None

    def game(self, game_id: int) -> GameRecord | None:
        rows = self._read(
            "SELECT g.id, g.game, g.players, g.options, g.seed, g.started, g.ended, g.winners,"
            " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id), g.abandoned, g.note"
            " FROM games g WHERE g.id=?",
            (game_id,),
        )
        return _game_record(rows[0]) if rows else None

    def _good(self, record: GameRecord) -> int:
        """How many of the game's actions replay: up to a gap in their numbers, or a row that does not parse."""
        try:
            return len(self.actions(record.id))
        except JournalError:
            return 0

    def _close_gap(self, record: GameRecord) -> GameRecord:
        """A game whose action numbers skip one (a damaged row) resumes at the last good action, said once:
        the actions after the gap are kept as taken back, so the next action's number follows on."""
        good = self._good(record)
        if good == record.actions or self.read_only:
            return record
        after = self._read("SELECT min(seq) FROM actions WHERE game_id=? AND seq>=?", (record.id, good))[0][0]
        with self._transaction():
            self.db.execute("INSERT INTO undone (game_id, seq, action, at) SELECT game_id, seq, action, at"
                            " FROM actions WHERE game_id=? AND seq>=? ORDER BY seq", (record.id, good))
            self.db.execute("DELETE FROM actions WHERE game_id=? AND seq>=?", (record.id, good))
        self.losses.append(f"game {record.id}'s action numbers jump from {good - 1} to {after}: the game resumes at "
                           f"action {good}, the {record.actions - good} actions after the gap are set aside")
        return self.game(record.id) or record

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The game's live log, in order, up to a gap in its numbers (:meth:`_close_gap`); :class:`JournalError`
        naming the first row that does not parse."""
        out = []
        rows = self._read("SELECT seq, action FROM actions WHERE game_id=? ORDER BY seq", (game_id,))
        for expected, (seq, text) in enumerate(rows):
            if seq != expected:
                break
            action = _loads_action(text)
            if action is None:
                raise JournalError(f"{self.path}: action {seq} of game {game_id} does not parse")
            out.append(action)
        return out

    def history(self, limit: int = 50) -> list[GameRecord]:
        ids = [r[0] for r in self._read("SELECT id FROM games ORDER BY id DESC LIMIT ?", (limit,))]
        return [g for g in map(self.game, ids) if g is not None]

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

    # -- settings ----------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        """A stored setting; ``default`` when it is missing or does not parse."""
        rows = self._read("SELECT value FROM settings WHERE key=?", (key,))
        if not rows:
            return default
        try:
            return json.loads(rows[0][0])
        except (TypeError, ValueError):
            log.warning("journal %s: setting %r does not parse; using %r", self.path, key, default)
            return default

    def set_setting(self, key: str, value: Any) -> None:
        text = _dumps(value, self.path)
        with self._transaction():
            self.db.execute(
                "INSERT INTO settings (key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, text),
            )

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


def _dumps(value: Any, path: Path) -> str:
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise JournalError(f"{path}: not written, the value cannot be stored: {exc}") from None


def _loads_action(text: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _game_record(row: tuple[Any, ...]) -> GameRecord:
    """A games row, read so that no stored value can crash a reader: what does not parse is named in ``problem``."""
    problems: list[str] = []
    game_id, game, players, options_text, seed, started, ended, winners_text, count, abandoned, note = row
    try:
        options = json.loads(options_text)
    except (TypeError, ValueError):
        options = None
    if not isinstance(options, dict):
        problems.append("its options do not parse")
        options = {}
    winners = None
    if winners_text:
        try:
            winners = json.loads(winners_text)
        except (TypeError, ValueError):
            winners = None
        if not (isinstance(winners, list) and all(isinstance(w, int) for w in winners)):
            problems.append("its winners do not parse")
            winners = None
    if not isinstance(game, str):
        problems.append("its game is not a name")
        game = str(game)
    if not isinstance(players, int):
        problems.append("its player count is not a number")
        players = 0
    if not isinstance(seed, int):
        problems.append("its seed is not a number")
        seed = 0

    def number(value: Any) -> float | None:
        return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None

    return GameRecord(
        game_id, game, players, options, seed, number(started) or 0.0, number(ended), winners, count,
        bool(abandoned), note or ("; ".join(problems) if problems else None),
    )

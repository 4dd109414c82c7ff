"""The journal: every game's options and accepted actions, in SQLite, safe against power cuts.

Write-ahead logging with ``synchronous=FULL``: when :meth:`Journal.record`
returns, the action is on disk, so the box commits before it plays a show and
pulling the plug loses nothing the table has seen. A game is its options plus
its action log, so resuming is replaying.

A file that is not a gamebox journal (corrupt, or some other database) is
moved aside with one line on the log and a fresh journal is started; it is
never silently overwritten.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("gamebox.journal")

#: PRAGMA application_id of a gamebox journal: "GBOX".
APPLICATION_ID = 0x47424F58
SCHEMA_VERSION = 1

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
    abandoned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class JournalError(Exception):
    """The journal cannot be opened or written; the message is one line."""


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


class Journal:
    """One SQLite file of games, their actions and the box's settings."""

    def __init__(self, path: str | Path, wall: Callable[[], float] = time.time, read_only: bool = False) -> None:
        """Open (creating) the journal; ``read_only`` (a kiosk display) never writes, repairs or moves it."""
        self.path = Path(path)
        self.wall = wall
        self.moved_aside: Path | None = None
        if read_only:
            self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
            try:
                self.db.execute("SELECT 1 FROM games LIMIT 1")
            except sqlite3.DatabaseError as exc:
                self.db.close()
                raise JournalError(f"{self.path}: not a gamebox journal (yet): {exc}") from None
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = self._open()
        except sqlite3.DatabaseError as exc:
            self.moved_aside = self._move_aside(str(exc))
            self.db = self._open()

    # -- opening ---------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not fresh and (app_id != APPLICATION_ID or "games" not in tables):
                raise sqlite3.DatabaseError(
                    f"not a gamebox journal (application id {app_id:#x}, tables {sorted(tables)})"
                )
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("integrity check failed")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.executescript(SCHEMA)
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _move_aside(self, why: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self.wall()))
        target = self.path.with_name(f"{self.path.name}.bad-{stamp}")
        n = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.bad-{stamp}-{n}")
            n += 1
        self.path.rename(target)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
        log.error("journal %s: %s; moved aside to %s, starting a new journal", self.path, why, target)
        return target

    def close(self) -> None:
        self.db.close()

    # -- games -----------------------------------------------------------------
    def start_game(self, game: str, players: int, options: dict[str, Any], seed: int) -> int:
        """Record a new game; any unfinished game before it is marked abandoned."""
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1 WHERE ended IS NULL")
            cur = self.db.execute(
                "INSERT INTO games (game, players, options, seed, started) VALUES (?,?,?,?,?)",
                (game, players, json.dumps(options, sort_keys=True), seed, self.wall()),
            )
        return int(cur.lastrowid)

    def record(self, game_id: int, seq: int, action: dict[str, Any], winners: list[int] | None = None) -> None:
        """Commit one accepted action, and with ``winners`` the game's end, in one transaction."""
        with self._transaction():
            self.db.execute(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (?,?,?,?)",
                (game_id, seq, json.dumps(action, sort_keys=True), self.wall()),
            )
            if winners is not None:
                self.db.execute("UPDATE games SET ended=?, winners=? WHERE id=?",
                                (self.wall(), json.dumps(winners), game_id))

    def sync(self) -> None:
        """Make what was recorded durable (``synchronous=FULL`` already does on every commit)."""

    def abandon(self, game_id: int) -> None:
        """Mark a game abandoned for good: it is never resumed."""
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1 WHERE id=? AND ended IS NULL", (game_id,))

    def undo(self, game_id: int, seq: int) -> dict[str, Any]:
        """Take back the game's last action (``seq``), keeping it in ``undone``; an ended game is open again."""
        with self._transaction():
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS undone (game_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
                " action TEXT NOT NULL, at REAL NOT NULL)"
            )
            row = self.db.execute("SELECT action FROM actions WHERE game_id=? AND seq=?", (game_id, seq)).fetchone()
            last = self.db.execute("SELECT MAX(seq) FROM actions WHERE game_id=?", (game_id,)).fetchone()[0]
            if row is None or last != seq:
                raise JournalError(f"game {game_id} has no last action {seq} to take back")
            self.db.execute("INSERT INTO undone (game_id, seq, action, at) VALUES (?,?,?,?)",
                            (game_id, seq, row[0], self.wall()))
            self.db.execute("DELETE FROM actions WHERE game_id=? AND seq=?", (game_id, seq))
            self.db.execute("UPDATE games SET ended=NULL, winners=NULL WHERE id=?", (game_id,))
        return json.loads(row[0])

    def undone(self, game_id: int) -> list[dict[str, Any]]:
        """The actions taken back in a game, oldest first."""
        try:
            rows = self.db.execute("SELECT action FROM undone WHERE game_id=? ORDER BY rowid", (game_id,))
        except sqlite3.OperationalError:  # nothing was ever taken back
            return []
        return [json.loads(r[0]) for r in rows]

    def finish(self, game_id: int, winners: list[int]) -> None:
        with self._transaction():
            self.db.execute("UPDATE games SET ended=?, winners=? WHERE id=?", (self.wall(), json.dumps(winners), game_id))

    def abandon(self, game_id: int) -> None:
        """Mark a game given up: kept whole, never resumed."""
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1 WHERE id=? AND ended IS NULL", (game_id,))

    def unfinished(self) -> GameRecord | None:
        """The game to resume: the newest one neither ended nor abandoned."""
        row = self.db.execute(
            "SELECT id FROM games WHERE ended IS NULL AND abandoned=0 ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return self.game(row[0]) if row else None

    def latest(self) -> GameRecord | None:
        row = self.db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return self.game(row[0]) if row else None

    def game(self, game_id: int) -> GameRecord | None:
        row = self.db.execute(
            "SELECT g.id, g.game, g.players, g.options, g.seed, g.started, g.ended, g.winners,"
            " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id), g.abandoned FROM games g WHERE g.id=?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        return GameRecord(
            row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6],
            json.loads(row[7]) if row[7] else None, row[8], bool(row[9]),
        )

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT action FROM actions WHERE game_id=? ORDER BY seq", (game_id,))
        return [json.loads(r[0]) for r in rows]

    def history(self, limit: int = 50) -> list[GameRecord]:
        ids = [r[0] for r in self.db.execute("SELECT id FROM games ORDER BY id DESC LIMIT ?", (limit,))]
        return [g for g in map(self.game, ids) if g is not None]

    # -- settings ----------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_setting(self, key: str, value: Any) -> None:
        with self._transaction():
            self.db.execute(
                "INSERT INTO settings (key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, json.dumps(value)),
            )

    # -- helpers -----------------------------------------------------------------
    def _transaction(self) -> "_Transaction":
        return _Transaction(self.db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on error; a write failure becomes a JournalError."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, exc, tb) -> bool:
        if kind is None:
            self.db.execute("COMMIT")
            return False
        if self.db.in_transaction:  # SQLite has already rolled back after a full disk
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise JournalError(f"journal write failed: {exc}") from exc
        return False

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

The journal stands in layers, each one job: :class:`JournalFile`
(:mod:`controller.storage.journalfile`) is the file, its name and its
durability; :class:`GameLog` (:mod:`controller.storage.gamelog`) the games
and their actions; :class:`Journal` adds the acknowledged mark, what a
start recovered and the box's settings.

A journal holds the id of the box that made it (``box-id`` in its state
folder) and its version (``user_version``): one of another box or of a
newer gamebox is refused in one line and never touched
(:func:`check_owner_and_version`, which a restore uses too).

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
import os
import time
from pathlib import Path
from typing import Any, Callable

from controller.storage.gamelog import GameLog, GameRecord
from controller.storage.boxid import box_id, read_box_id
from controller.storage.journalfile import (
    SCHEMA_VERSION, JournalError, NameLost, check_owner_and_version, dumps, journal_owner, journal_version,
    refuse_newer,
)
from controller.storage.walsync import write_mark

__all__ = ["SCHEMA_VERSION", "GameRecord", "Journal", "JournalError", "NameLost", "box_id", "check_owner_and_version",
           "journal_owner", "journal_version", "read_box_id", "refuse_newer"]

log = logging.getLogger("gamebox.journal")


class Journal(GameLog):
    """One SQLite file of games, their actions and the box's settings."""

    def __init__(self, path: str | Path, wall: Callable[[], float] = time.time, read_only: bool = False,
                 fsync: Callable[[int], None] = os.fsync) -> None:
        """Open the journal (:class:`JournalFile` says what ``read_only`` and ``fsync`` do); a writable one then
        says once what acknowledged actions it lost."""
        super().__init__(path, wall, read_only, fsync)
        self._before: tuple[int, int] | None = None  # (game, actions written before it) for the mark
        if not read_only:
            self._check_acknowledged(self.log_before)

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
    def mark(self, game_id: int | None) -> str | None:
        """The acknowledged mark for everything written so far: "GAME WRITTEN BEFORE" (:meth:`written` in this game
        and in all the games before it), so a new game's mark still covers the end of the one before."""
        return None if game_id is None else f"{game_id} {self.written(game_id)} {self._written_before(game_id)}"

    def written(self, game_id: int, before: bool = False) -> int:
        """How many actions were ever recorded in this game (with ``before``: in all the games before it): their logs
        and what was taken back, which never goes down."""
        which = "game_id<?" if before else "game_id=?"
        return self._read(f"SELECT (SELECT count(*) FROM actions WHERE {which})"
                          f" + (SELECT count(*) FROM undone WHERE {which})", (game_id, game_id))[0][0]

    def _written_before(self, game_id: int) -> int:
        """:meth:`written` before this game, counted once per game: the games before it no longer change."""
        if self._before is None or self._before[0] != game_id:
            self._before = (game_id, self.written(game_id, before=True))
        return self._before[1]

    def _check_acknowledged(self, log_before: int | None) -> None:
        """At start: a journal holding fewer actions than the mark says were acknowledged lost them; say so once."""
        try:
            words = self.mark_path.read_text().split()
            game_id, acknowledged = int(words[0]), int(words[1])
            earlier = int(words[2]) if len(words) > 2 else 0  # a mark written before it counted the earlier games
        except FileNotFoundError:
            return
        except (OSError, ValueError, IndexError):
            log.warning("journal %s: the acknowledged mark %s does not parse; it is written afresh",
                        self.path, self.mark_path)
            return
        have, had = self.written(game_id), self.written(game_id, before=True)
        lost, lost_before = max(0, acknowledged - have), max(0, earlier - had)
        if not lost and not lost_before:
            return
        record = self.game(game_id)
        where = ""  # a -wal is also missing after a clean stop: named only where it explains the loss
        if self.moved_aside is not None:
            where = f" with the damaged journal, moved aside to {self.moved_aside}"
        elif log_before == 0:
            where = " with its write-ahead log, which was empty"
        elif log_before is None and self.latest() is None:
            where = " with its write-ahead log, which was missing"
        if lost_before:
            where += f" ({lost_before} of the games before game {game_id}, {lost} of game {game_id})"
        now = f"game {game_id} is gone" if record is None else f"game {game_id} resumes at action {self._good(record)}"
        previous = self._read("SELECT id FROM games WHERE id<? AND ended IS NULL AND abandoned=0"
                              " ORDER BY id DESC LIMIT 1", (game_id,))
        if lost_before and record is None and previous:  # its end was lost with the new game's start: it resumes
            now += f", game {previous[0][0]} resumes at action {self._good(self.game(previous[0][0]))}"
        after_gap = 0 if record is None else record.actions - self._good(record)  # kept, no longer played
        if after_gap:  # rows lost in the middle of the game: every action after them leaves play too
            now += f", so {lost + after_gap} acknowledged actions left play"
        which = "" if after_gap else "the last "
        self.losses.append(f"the SD card lost {which}{lost + lost_before} acknowledged actions{where}: {now}")
        self._guard(lambda: write_mark(self.mark_path, f"{game_id} {have} {had}", self._fsync))  # said once

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
        text = dumps(value, self.path)
        with self._transaction():
            self.db.execute(
                "INSERT INTO settings (key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, text),
            )

"""The games a journal holds: a new game, its accepted actions, what was taken back, and the game to resume.

Every write is one transaction of :class:`JournalFile`; every stored value
is read so that none can crash a reader: a game whose options or actions
do not parse is set aside with a note, the other games are kept, and a
game whose action numbers skip one resumes at its last good action.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, replace
from typing import Any

from controller.storage.journalfile import JournalError, JournalFile, dumps

log = logging.getLogger("gamebox.journal")


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


class GameLog(JournalFile):
    """The games, their actions and what was taken back, in a journal's file."""

    def start_game(self, game: str, players: int, options: dict[str, Any], seed: int) -> int:
        """Record a new game; any unfinished game before it is marked abandoned."""
        with self._transaction():
            self.db.execute("UPDATE games SET abandoned=1 WHERE ended IS NULL")
            cur = self.db.execute(
                "INSERT INTO games (game, players, options, seed, started) VALUES (?,?,?,?,?)",
                (game, players, dumps(options, self.path), seed, self.wall()),
            )
        return int(cur.lastrowid)

    def record(self, game_id: int, seq: int, action: dict[str, Any], winners: list[int] | None = None) -> None:
        """Commit one accepted action and, with ``winners``, the game's end, in one transaction.

        Written when this returns, durable after the next :meth:`sync`.
        Raises :class:`JournalError` with nothing written: a full disk, an
        I/O error, a seq already used in this game's log, a value JSON
        cannot hold (NaN).
        """
        text = dumps(action, self.path)
        result = None if winners is None else dumps(list(winners), self.path)
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

    def undo(self, game_id: int, seq: int, count: int = 1) -> dict[str, Any]:
        """Take the game's last ``count`` actions (the last must be ``seq``) out of its log, keeping them in
        ``undone``, all or none (a play and the hang its penalty asked for go together); the earliest is returned."""
        with self._transaction():
            for at in range(seq, seq - count, -1):
                row = self.db.execute(
                    "SELECT seq, action FROM actions WHERE game_id=? ORDER BY seq DESC LIMIT 1", (game_id,)
                ).fetchone()
                if row is None or row[0] != at:
                    raise JournalError(f"{self.path}: cannot undo seq {at} of game {game_id}: "
                                       f"its last action is {None if row is None else row[0]}")
                self.db.execute("DELETE FROM actions WHERE game_id=? AND seq=?", (game_id, at))
                self.db.execute("INSERT INTO undone (game_id, seq, action, at) VALUES (?,?,?,?)",
                                (game_id, at, row[1], self.wall()))
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
        gap = self.gap(record, good)
        if gap is None or self.read_only:
            return record
        with self._transaction():
            self.db.execute("INSERT INTO undone (game_id, seq, action, at) SELECT game_id, seq, action, at"
                            " FROM actions WHERE game_id=? AND seq>=? ORDER BY seq", (record.id, good))
            self.db.execute("DELETE FROM actions WHERE game_id=? AND seq>=?", (record.id, good))
        self.losses.append(gap)
        return self.game(record.id) or record

    def gap(self, record: GameRecord, good: int) -> str | None:
        """The skip in the game's action numbers after its ``good`` first actions, in words (``status`` says it
        too); None when there is none."""
        if good == record.actions:
            return None
        after = self._read("SELECT min(seq) FROM actions WHERE game_id=? AND seq>=?", (record.id, good))[0][0]
        return (f"game {record.id}'s action numbers jump from {good - 1} to {after}: the game resumes at action "
                f"{good}, the {record.actions - good} actions after the gap are left out")

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

    def action_times(self, game_id: int) -> list[float]:
        """When each action of the game's log was recorded (wall clock), in order: a station tells it when catching up."""
        return [at for (at,) in self._read("SELECT at FROM actions WHERE game_id=? ORDER BY seq", (game_id,))]

    def history(self, limit: int = 50) -> list[GameRecord]:
        """The newest games, each counting the actions the box replays: a gap read here (a reader does not close
        it) is not counted past."""
        ids = [r[0] for r in self._read("SELECT id FROM games ORDER BY id DESC LIMIT ?", (limit,))]
        if not ids:
            return []
        numbered = dict(self._read(  # the actions numbered 0, 1, 2, ... with none missing, per game, in one pass
            "SELECT game_id, COUNT(*) FROM (SELECT game_id, seq, ROW_NUMBER() OVER (PARTITION BY game_id ORDER BY seq)"
            " - 1 AS n FROM actions WHERE game_id >= ?) WHERE seq = n GROUP BY game_id", (min(ids),)))
        return [replace(g, actions=numbered.get(g.id, 0)) for g in map(self.game, ids) if g is not None]


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

"""The tag registry: which card or control command each NFC tag stands for.

A tag is known by its UID (hex) or, when it carries one, by the NDEF text
record written onto it (``gamebox tags write``): a card id in text needs no
enrolment at all. The registry is its own SQLite file, so a journal moved
aside never takes the enrolled decks with it. Like the journal, it is moved
aside only when SQLite says it is damaged (the cards are then enrolled
again); a full disk or a read-only file is one line, and the file is kept.
Like the journal, it follows its name: a folder deleted or unmounted under
a running box is said once, and once the folder is back the registry at the
path is read again (made there anew, or the one an ``enroll`` made there),
keeping the cards the open one knew.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from controller.decks import deck_of, enrollable
from controller.storage.store import Damaged, HeldName, StoreError, cause, move_aside, open_checked, usable_dir

log = logging.getLogger("gamebox.tags")


def uid_key(uid: bytes | str) -> str:
    """A tag's uid as the registry and the tap filter key it: lower-case hex (or the text typed)."""
    return uid.hex() if isinstance(uid, bytes) else str(uid).lower()


def _foreign(db: sqlite3.Connection) -> str | None:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return None if "tags" in tables else f"not a gamebox tag registry (tables {sorted(tables)})"


def _prepare(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS tags (uid TEXT PRIMARY KEY, card TEXT NOT NULL UNIQUE, deck TEXT NOT NULL)")


class TagTaken(ValueError):
    """The tag is already enrolled as another card."""


class RegistryError(StoreError):
    """The tag registry cannot be opened, read or written; one line naming the file and the cause."""


class Registry:
    """UID -> card id, per deck; the same file serves the box, ``enroll`` and ``tags write``."""

    def __init__(self, path: str | Path, wall: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.wall = wall
        self.moved_aside: Path | None = None
        self._gone = False  # its name was lost and it was said
        usable_dir(self.path.parent, RegistryError, create=True)
        self.db, self._name = self._open_named()

    def _open_named(self) -> tuple[sqlite3.Connection, HeldName]:
        """The registry at the path (moved aside first when SQLite says it is damaged), and its file held."""
        try:
            db = self._open()
        except Damaged as exc:
            try:
                self.moved_aside = move_aside(self.path, str(exc), self.wall, "tag registry")
            except OSError as err:
                raise RegistryError(f"{self.path}: {cause(err)}") from None
            db = self._open()
        try:
            return db, HeldName(self.path, "tag registry")
        except OSError as exc:
            db.close()
            raise RegistryError(f"{self.path}: {cause(exc)}") from None

    def _open(self) -> sqlite3.Connection:
        return open_checked(self.path, "tag registry", RegistryError, _foreign, _prepare)

    def close(self) -> None:
        self._name.close()
        self.db.close()

    def _follow_name(self) -> None:
        """Read and write the registry its path names. A name lost (its folder deleted or unmounted) is one
        :class:`RegistryError`, raised once (the fault show and a log line); meanwhile the open file answers with
        the cards it knows. Once the folder is back the registry there is opened, and given those cards."""
        why = self._name.lost()
        if why is None:
            return
        try:
            self._name.folder_back(RegistryError)
            db, name = self._open_named()
        except RegistryError:
            if self._gone:
                return
            self._gone = True
            raise RegistryError(f"{self.path}: {why}; the cards enrolled so far are still known, a card enrolled "
                                "now is known once it is back") from None
        try:
            rows = self.db.execute("SELECT uid, card, deck FROM tags").fetchall()
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR IGNORE INTO tags (uid, card, deck) VALUES (?,?,?)", rows)  # new enrolments win
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            name.close()
            db.close()
            raise RegistryError(f"{self.path}: cannot write the tag registry again: {cause(exc)}") from None
        self.close()
        self.db, self._name, self._gone = db, name, False
        log.warning("tag registry %s: the file at its path is read again, with the %d cards the open one knew",
                    self.path, len(rows))

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise RegistryError(f"{self.path}: cannot read the tag registry: {cause(exc)}") from None

    def resolve(self, uid: bytes | str, text: str | None = None) -> str | None:
        """The card id a tag stands for, or None for an unknown tag.

        An NDEF text that is a card id wins; then the enrolled UID; then, so
        that the simulator and scripts can type ``tap red-3``, a UID string
        that is itself a card id.
        """
        if text and deck_of(text.strip()):
            return text.strip()
        self._follow_name()
        key = uid_key(uid)
        rows = self._query("SELECT card FROM tags WHERE uid=?", (key,))
        if rows:
            return rows[0][0]
        if isinstance(uid, str) and deck_of(uid):
            return uid
        return None

    def enroll(self, uid: bytes | str, card: str) -> None:
        """Bind a tag to a card; re-binding the same pair is harmless, another card's tag is refused."""
        deck = deck_of(card)
        if deck is None:
            raise ValueError(f"no card {card!r}")
        self._follow_name()
        if self._gone:  # written into a file with no name, it would be lost
            raise RegistryError(f"{self.path}: not enrolled: the tag registry's folder is gone")
        key = uid_key(uid)
        rows = self._query("SELECT card FROM tags WHERE uid=?", (key,))
        if rows and rows[0][0] != card:
            raise TagTaken(f"tag {key} is already {rows[0][0]}")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM tags WHERE card=?", (card,))
            self.db.execute("INSERT OR REPLACE INTO tags (uid, card, deck) VALUES (?,?,?)", (key, card, deck))
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise RegistryError(f"{self.path}: cannot write the tag registry: {cause(exc)}") from None

    def forget(self, card: str) -> None:
        """Unbind a card's tag (a lost or swapped sticker): the card is enrolled again like a new one."""
        self._follow_name()
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM tags WHERE card=?", (card,))
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise RegistryError(f"{self.path}: cannot write the tag registry: {cause(exc)}") from None

    def enrolled(self, deck: str) -> set[str]:
        return {r[0] for r in self._query("SELECT card FROM tags WHERE deck=?", (deck,))}

    def remaining(self, deck: str) -> list[str]:
        """The cards of a deck still to enrol, in order: an interrupted enrolment resumes here."""
        done = self.enrolled(deck)
        return [card for card in enrollable(deck) if card not in done]

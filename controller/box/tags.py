"""The tag registry: which card or control command each NFC tag stands for.

A tag is known by its UID (hex) or, when it carries one, by the NDEF text
record written onto it (``gamebox tags write``): a card id in text needs no
enrolment at all. The registry is its own SQLite file, so a journal moved
aside never takes the enrolled decks with it. Like the journal, it is moved
aside only when SQLite says it is damaged (the cards are then enrolled
again); a full disk or a read-only file is one line, and the file is kept.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from controller.decks import deck_of, enrollable
from controller.storage.store import Damaged, StoreError, cause, move_aside, open_checked, usable_dir

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
        self.moved_aside: Path | None = None
        usable_dir(self.path.parent, RegistryError, create=True)
        try:
            self.db = self._open()
        except Damaged as exc:
            try:
                self.moved_aside = move_aside(self.path, str(exc), wall, "tag registry")
            except OSError as err:
                raise RegistryError(f"{self.path}: {cause(err)}") from None
            self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        return open_checked(self.path, "tag registry", RegistryError, _foreign, _prepare)

    def close(self) -> None:
        self.db.close()

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

    def enrolled(self, deck: str) -> set[str]:
        return {r[0] for r in self._query("SELECT card FROM tags WHERE deck=?", (deck,))}

    def remaining(self, deck: str) -> list[str]:
        """The cards of a deck still to enrol, in order: an interrupted enrolment resumes here."""
        done = self.enrolled(deck)
        return [card for card in enrollable(deck) if card not in done]

"""The tag registry: which card or control command each NFC tag stands for.

A tag is known by its UID (hex) or, when it carries one, by the NDEF text
record written onto it (``gamebox tags write``): a card id in text needs no
enrolment at all. The registry is its own SQLite file, so a journal moved
aside never takes the enrolled decks with it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.decks import deck_of, enrollable


def uid_key(uid: bytes | str) -> str:
    """A tag's uid as the registry and the tap filter key it: lower-case hex (or the text typed)."""
    return uid.hex() if isinstance(uid, bytes) else str(uid).lower()


class TagTaken(ValueError):
    """The tag is already enrolled as another card."""


class Registry:
    """UID -> card id, per deck; the same file serves the box, ``enroll`` and ``tags write``."""

    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS tags (uid TEXT PRIMARY KEY, card TEXT NOT NULL UNIQUE, deck TEXT NOT NULL)"
        )

    def close(self) -> None:
        self.db.close()

    def resolve(self, uid: bytes | str, text: str | None = None) -> str | None:
        """The card id a tag stands for, or None for an unknown tag.

        An NDEF text that is a card id wins; then the enrolled UID; then, so
        that the simulator and scripts can type ``tap red-3``, a UID string
        that is itself a card id.
        """
        if text and deck_of(text.strip()):
            return text.strip()
        key = uid_key(uid)
        row = self.db.execute("SELECT card FROM tags WHERE uid=?", (key,)).fetchone()
        if row:
            return row[0]
        if isinstance(uid, str) and deck_of(uid):
            return uid
        return None

    def enroll(self, uid: bytes | str, card: str) -> None:
        """Bind a tag to a card; re-binding the same pair is harmless, another card's tag is refused."""
        deck = deck_of(card)
        if deck is None:
            raise ValueError(f"no card {card!r}")
        key = uid_key(uid)
        row = self.db.execute("SELECT card FROM tags WHERE uid=?", (key,)).fetchone()
        if row and row[0] != card:
            raise TagTaken(f"tag {key} is already {row[0]}")
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("DELETE FROM tags WHERE card=?", (card,))
        self.db.execute("INSERT OR REPLACE INTO tags (uid, card, deck) VALUES (?,?,?)", (key, card, deck))
        self.db.execute("COMMIT")

    def enrolled(self, deck: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT card FROM tags WHERE deck=?", (deck,))}

    def remaining(self, deck: str) -> list[str]:
        """The cards of a deck still to enrol, in order: an interrupted enrolment resumes here."""
        done = self.enrolled(deck)
        return [card for card in enrollable(deck) if card not in done]

"""The paired phones: sessions that outlive a restart of the page and of the box, and can be forgotten.

A phone pairs once (the box says a code) and stays paired until its
session ends, even across an update or a power cut: each session is kept
in a file of the page's state folder. The file holds only a SHA-256 of each
session's secret (whoever reads it cannot be a phone), the address it was
paired from and when it ends, in wall-clock seconds (a reboot resets the
monotonic clock). It is written whole to a temporary file, mode 0600, and
renamed over the old one. A file that is not the page's, or cannot be read,
is set aside (``.bad``) with one log line, and every phone pairs again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import time
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("gamebox.home")

FILE_NAME = "home-sessions.json"
KIND = "gamebox-home-sessions"
VERSION = 1
MAX_SESSIONS = 100


def _hash(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


class Sessions:
    """The live sessions by the hash of their secret; ``path`` None keeps them in memory only."""

    def __init__(self, path: Path | None, wall: Callable[[], float] = time.time) -> None:
        self.path, self.wall = path, wall
        self._kept: dict[str, tuple[str, float]] = {}  # hash -> (client, when it ends on the wall clock)
        if path is not None:
            self._kept = self._load(path)

    def open(self, client: str, seconds: float) -> str:
        """A new session's secret (for the cookie); only its hash is kept."""
        session = secrets.token_urlsafe(24)
        self._drop_ended()
        self._kept[_hash(session)] = (client, self.wall() + seconds)
        while len(self._kept) > MAX_SESSIONS:
            self._kept.pop(min(self._kept, key=lambda h: self._kept[h][1]))
        self._save()
        return session

    def live(self, session: str | None) -> bool:
        """The cookie's session is one of these and has not ended (looked up by its hash: the secret is never kept)."""
        _, ends = self._kept.get(_hash(session), ("", 0.0)) if session else ("", 0.0)
        return self.wall() < ends

    def from_client(self, client: str) -> bool:
        now = self.wall()
        return any(who == client and now < ends for who, ends in self._kept.values())

    def forget(self, session: str | None = None) -> int:
        """Forget one phone (its session), or every phone (None); how many were forgotten."""
        if session is None:
            forgotten, self._kept = len(self._kept), {}
        else:
            forgotten = int(self._kept.pop(_hash(session), None) is not None)
        self._save()
        return forgotten

    def _drop_ended(self) -> None:
        now = self.wall()
        self._kept = {h: (who, ends) for h, (who, ends) in self._kept.items() if now < ends}

    def _load(self, path: Path) -> dict[str, tuple[str, float]]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("kind") != KIND or data.get("version") != VERSION:
                raise ValueError(f"not a {KIND} file of version {VERSION}")
            kept = {str(s["hash"]): (str(s["client"]), float(s["ends"])) for s in data["sessions"]}
            if not all(len(h) == 64 for h in kept):
                raise ValueError("a session's hash is not SHA-256")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            aside = path.with_name(path.name + ".bad")
            try:
                os.replace(path, aside)
            except OSError:
                aside = path
            log.warning("paired phones: %s cannot be read (%s); it is kept as %s and every phone pairs again",
                        path, str(exc)[:200], aside.name)
            return {}
        now = self.wall()
        return {h: (who, ends) for h, (who, ends) in kept.items() if now < ends}

    def _save(self) -> None:
        """Write the file whole, atomically, readable by the page only; a disk that refuses costs a log line: the
        sessions stay live in memory (and phones pair again after a restart)."""
        if self.path is None:
            return
        sessions: list[dict[str, Any]] = [{"hash": h, "client": who, "ends": ends} for h, (who, ends) in self._kept.items()]
        data = json.dumps({"kind": KIND, "version": VERSION, "sessions": sessions}, indent=1).encode()
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
            folder = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            log.warning("paired phones: %s not written (%s); they stay paired until the page restarts", self.path, exc)

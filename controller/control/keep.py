"""A backup of the box (its journal and its tag registry) and the check before one is restored.

A backup is a zip of two SQLite files copied with SQLite's backup API from
their own read connections: each copy is one committed moment, taken while
the box plays on. ``manifest.json`` says which box made it and which journal
version it holds. A restore is checked here (a zip of ours, two gamebox
files, a journal version this box can read, this very box), then put in
place by the daemon once it has closed its files (:func:`put_in_place`).
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import tempfile
import time
import zipfile
from contextlib import closing, suppress
from pathlib import Path
from typing import Any

from controller.storage.boxid import read_box_id
from controller.storage.journalfile import APPLICATION_ID, OWNER_KEY, SCHEMA_VERSION
from controller.storage.walsync import mark_path

JOURNAL, TAGS, MANIFEST = "journal.sqlite", "tags.sqlite", "manifest.json"
FORMAT = 1
MAX_BACKUP = 3 * 1024 * 1024  # bytes of zip a restore may bring (a journal of years is well under 1 MB)
MAX_FILE = 64 * 1024 * 1024  # bytes a file of it may unpack to: no zip bomb fills the card


class RestoreRefused(ValueError):
    """A backup this box will not restore; the message says why, in one line, and ``key`` (with ``fields``) names the
    reason for the family's page, which says it in its own language."""

    def __init__(self, why: str, key: str, **fields: Any) -> None:
        super().__init__(why)
        self.key, self.fields = key, fields


def owner_id(journal: sqlite3.Connection) -> str | None:
    """The id of the box that made a journal (written at its creation), or None for one made before boxes had ids;
    a backup from another box is refused by :func:`check_backup`."""
    tables = {r[0] for r in journal.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "settings" not in tables:
        return None
    row = journal.execute("SELECT value FROM settings WHERE key=?", (OWNER_KEY,)).fetchone()
    return json.loads(row[0]) if row else None


def _copy(path: Path, into: Path) -> None:
    """One committed moment of the SQLite file at ``path``, written to ``into`` by the backup API."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as source, closing(sqlite3.connect(into)) as copy:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it


def make_backup(state_dir: Path, wall: float | None = None) -> bytes:
    """The zip of the journal and the tag registry of a running box (read connections only: it never waits for play)."""
    with tempfile.TemporaryDirectory(prefix="gamebox-backup-") as folder:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
            for name in (JOURNAL, TAGS):
                copy = Path(folder) / name
                if (state_dir / name).exists():
                    _copy(state_dir / name, copy)
                    zipped.write(copy, name)
            with closing(sqlite3.connect(Path(folder) / JOURNAL)) as journal:
                version = journal.execute("PRAGMA user_version").fetchone()[0]
                owner = owner_id(journal)
            manifest = {"format": FORMAT, "journal_version": version, "owner": owner, "made": wall or time.time()}
            zipped.writestr(MANIFEST, json.dumps(manifest))
        return out.getvalue()


def check_backup(data: bytes, state_dir: Path, folder: Path) -> dict[str, Any]:
    """Unpack a backup into ``folder`` and check it can be this box's; its manifest, or :class:`RestoreRefused`."""
    if len(data) > MAX_BACKUP:
        raise RestoreRefused(f"a backup is at most {MAX_BACKUP // 1024 // 1024} MB; this one is {len(data) // 1024} kB",
                             "restore_too_big", mb=MAX_BACKUP // 1024 // 1024)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zipped:
            names = set(zipped.namelist())
            if not {JOURNAL, MANIFEST} <= names or names - {JOURNAL, TAGS, MANIFEST}:
                raise RestoreRefused("not a gamebox backup (it must hold journal.sqlite and manifest.json only)",
                                     "restore_not_backup")
            for info in zipped.infolist():
                if info.file_size > MAX_FILE:
                    raise RestoreRefused(f"{info.filename} would unpack to {info.file_size} bytes: refused",
                                         "restore_not_backup")
                (folder / info.filename).write_bytes(zipped.read(info))
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise RestoreRefused(f"not a gamebox backup: {exc}", "restore_not_backup") from None
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        if not isinstance(manifest, dict):
            raise ValueError
    except ValueError:
        raise RestoreRefused("not a gamebox backup: its manifest does not parse", "restore_not_backup") from None
    journal = _checked(folder / JOURNAL, "journal", APPLICATION_ID)
    version = journal["user_version"]
    if version > SCHEMA_VERSION:
        raise RestoreRefused(f"this backup's journal is version {version}, newer than this box's "
                             f"({SCHEMA_VERSION}): update the box first", "restore_newer")
    if (folder / TAGS).exists():
        _checked(folder / TAGS, "tag registry", None)
    ours = _current_owner(state_dir)
    if journal["owner"] is not None and ours is not None and journal["owner"] != ours:
        raise RestoreRefused("this backup is from another box: it is restored only on the box that made it",
                             "restore_other_box")
    return manifest


def _checked(path: Path, what: str, application_id: int | None) -> dict[str, Any]:
    """An SQLite file that opens, passes its integrity check and is a gamebox one."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise RestoreRefused(f"the backup's {what} is damaged", "restore_damaged")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if application_id is not None and db.execute("PRAGMA application_id").fetchone()[0] != application_id:
                raise RestoreRefused(f"the backup's {what} is not a gamebox {what}", "restore_damaged")
            if application_id is None and "tags" not in tables:
                raise RestoreRefused(f"the backup's {what} is not a gamebox {what}", "restore_damaged")
            return {"user_version": db.execute("PRAGMA user_version").fetchone()[0],
                    "owner": owner_id(db) if application_id is not None else None}
    except sqlite3.Error as exc:
        raise RestoreRefused(f"the backup's {what} is not an SQLite file: {exc}", "restore_damaged") from None


def _current_owner(state_dir: Path) -> str | None:
    """This box's id: the one its state folder keeps, else its journal's."""
    kept = read_box_id(state_dir)
    if kept is not None:
        return kept
    path = state_dir / JOURNAL
    if not path.exists():
        return None
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return owner_id(db)


def put_in_place(folder: Path, state_dir: Path) -> None:
    """Replace the state folder's journal and registry by the checked backup's (the box has closed them).

    The journal's -wal and -shm and its acknowledged mark belong to the file
    replaced, so they go with it: the backup's moment is what the box resumes.
    """
    for name in (JOURNAL, TAGS):
        source, target = folder / name, state_dir / name
        if not source.exists():
            continue
        staged = state_dir / f".{name}.restore"
        staged.write_bytes(source.read_bytes())
        with open(staged, "rb") as f:
            os.fsync(f.fileno())
        for extra in (Path(f"{target}-wal"), Path(f"{target}-shm"), mark_path(Path(f"{target}-wal"))):
            with suppress(FileNotFoundError):
                extra.unlink()
        os.replace(staged, target)
    fd = os.open(state_dir, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

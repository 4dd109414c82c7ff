"""The box's storage as ``gamebox doctor`` shows it: the state directory and the journal in it.

A box whose journal cannot be written loses games silently only if nobody
looks; the log and the fault show name the file while it plays, and this
is the same answer before it plays. Nothing here moves, creates or
repairs anything: the journal is opened read-only, as ``status`` does.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import NamedTuple

from controller.storage.boxid import BOX_ID_NAME, read_box_id
from controller.storage.journal import Journal, JournalError
from controller.storage.journalfile import journal_owner
from controller.storage.store import cause
from hardware.doctor import Row

#: Below this much free space the next games may not fit (SQLite's -wal grows before a checkpoint).
FREE_FLOOR = 5 * 1024 * 1024

MOUNTINFO = Path("/proc/self/mountinfo")


class Mount(NamedTuple):
    point: Path
    fstype: str


def mount_of(path: Path, mountinfo: Path = MOUNTINFO) -> Mount:
    """The mount ``path`` lies on (the longest mount point above it), from ``mountinfo`` when there is one."""
    best = Mount(Path("/"), "?")
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        return best
    for line in lines:
        fields, _, after = line.partition(" - ")
        point = Path(_unescape(fields.split()[4]))
        if path.is_relative_to(point) and len(point.parts) >= len(best.point.parts):
            best = Mount(point, after.split()[0])  # later lines mount over earlier ones
    return best


def _unescape(field: str) -> str:
    """mountinfo writes a space as \\040 (and tab, newline, backslash likewise)."""
    return field.encode().decode("unicode_escape")


def check_storage(state_dir: Path, floor: int = FREE_FLOOR) -> list[Row]:
    """Doctor's rows for ``state_dir``: where it is, whether this user can write there, free space, the journal."""
    folder = Path(os.path.abspath(state_dir))
    existing = next(p for p in [folder, *folder.parents] if p.exists())
    mount = mount_of(existing.resolve())
    where = f"{folder} on {mount.point} ({mount.fstype})"
    storage = _folder_row(folder, existing, mount, where, floor)
    return [storage, _journal_row(folder / "journal.sqlite", storage.fix)]


def _folder_row(folder: Path, existing: Path, mount: Mount, where: str, floor: int) -> Row:
    if not existing.is_dir():
        return Row("storage", mount.fstype, "FAULT", f"{where}: {existing} is not a directory",
                   f"move {existing} away, or set another state_dir in the config")
    stat = os.statvfs(existing)
    free = stat.f_bavail * stat.f_frsize
    if not os.access(existing, os.W_OK | os.X_OK):
        made = "" if existing == folder else f" (it does not exist, and cannot be made in {existing})"
        if stat.f_flag & os.ST_RDONLY:
            return Row("storage", mount.fstype, "FAULT", f"{where}: read-only filesystem{made}",
                       f"{mount.point} is mounted read-only: mount -o remount,rw {mount.point}")
        return Row("storage", mount.fstype, "FAULT", f"{where}: not writable by this user (uid {os.getuid()}){made}",
                   _ownership_fix(folder))
    if free < floor:
        return Row("storage", mount.fstype, "FAULT", f"{where}: only {_size(free)} free (needs {_size(floor)})",
                   f"free space on {mount.point}")
    made = "" if existing == folder else ", made at first start"
    return Row("storage", mount.fstype, "ok", f"{where}: writable, {_size(free)} free{made}")


def _ownership_fix(folder: Path) -> str:
    """Hand the box its own folder and nothing above it: a chown of /var/lib would break the system."""
    if len(folder.parts) <= 3:  # /, /var, /var/lib, /home/pi: a folder the system or a person owns
        return f"set state_dir to a folder of the box's own (such as {folder / 'gamebox'}), not {folder}"
    if not folder.exists():
        return f"make it for this user: sudo install -d -o $USER {folder}"
    return f"let this user write there: sudo chown -R $USER {folder}"


def _journal_row(path: Path, storage_fix: str) -> Row:
    """``storage_fix`` is the fix for a journal that cannot be opened: a full disk cannot hold even SQLite's -shm."""
    if not path.exists():
        return Row("journal", "sqlite", "ok", f"{path}: none yet, made at first start")
    try:
        journal = Journal(path, read_only=True)  # never creates, moves or repairs anything
    except JournalError as exc:
        damaged = any(words in str(exc) for words in ("not a database", "malformed"))
        fix = _DAMAGED if damaged else storage_fix or f"let this user read it: ls -l {path}"
        return Row("journal", "sqlite", "FAULT", str(exc), "update gamebox" if "newer gamebox" in str(exc) else fix)
    try:
        check = journal.db.execute("PRAGMA quick_check").fetchone()[0]
        games = journal.db.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.Error as exc:  # the check itself can fail on a damaged page
        check, games = cause(exc), 0
    finally:
        journal.close()
    if check != "ok":
        return Row("journal", "sqlite", "FAULT", f"{path}: damaged: {check}", _DAMAGED)
    owner, mine = journal_owner(path), read_box_id(path.parent)
    if owner is not None and mine is not None and owner != mine:  # a start refuses it (a box never writes there)
        return Row("journal", "sqlite", "FAULT", f"{path}: another box's journal (made by box {owner}; this box is "
                   f"{mine}), {games} game{'' if games == 1 else 's'}",
                   f"move it out of {path.parent} to start a new journal here, or copy that box's {BOX_ID_NAME} "
                   "file along with it to play it on this box")
    return Row("journal", "sqlite", "ok", f"{path}: quick_check ok, {games} game{'' if games == 1 else 's'}")


_DAMAGED = "start the box (gamebox run): it sets a damaged journal aside and starts a new one"


def _size(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size // 1024} kB"
    return f"{size / 1024 ** 2:.0f} MB" if size < 1024 ** 3 else f"{size / 1024 ** 3:.1f} GB"

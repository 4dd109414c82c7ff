"""Real storage faults for tests: a small full filesystem, a read-only one, a damaged file or write-ahead log.

A full disk is a real tmpfs of a few kilobytes where the test may mount one
(root in a container or CI); elsewhere SQLite's own ``max_page_count``
gives the same SQLITE_FULL through the same code path. A read-only file is
a read-only mount (root ignores file modes), else a file mode.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest


def _mount(args: list[str]) -> bool:
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextmanager
def small_disk(where: Path, kilobytes: int) -> Iterator[Path]:
    """A tmpfs of ``kilobytes`` mounted at ``where`` (skipped, with the reason, where mount(2) is not allowed)."""
    where.mkdir(parents=True, exist_ok=True)
    if not _mount(["-t", "tmpfs", "-o", f"size={kilobytes}k", "tmpfs", str(where)]):
        pytest.skip("a real full disk needs a tmpfs mount (root); the max_page_count tests cover SQLITE_FULL here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> int:
    """Fill the filesystem of ``folder`` to the last byte; return the bytes written."""
    total = 0
    fd = os.open(folder / "ballast", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 512, 64, 1):
            while True:
                try:
                    total += os.write(fd, b"\0" * size)
                except OSError:
                    break
    finally:
        os.close(fd)
    return total


def make_room(folder: Path) -> None:
    for path in folder.glob("ballast*"):
        path.unlink()


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` (and every file in it) read-only for this process: a read-only bind mount as root, else modes."""
    if os.geteuid() == 0:
        if not _mount(["--bind", "-o", "ro", str(folder), str(folder)]):
            pytest.skip("a read-only folder for root needs a bind mount")
        try:
            yield
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    for path in modes:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def cap_pages(db: sqlite3.Connection) -> None:
    """Cap a connection's database at its current size: SQLite answers the next growth with SQLITE_FULL."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")


def corrupt(path: Path) -> None:
    """Overwrite every page after the first (the schema stays readable) with noise: SQLITE_CORRUPT on reading."""
    data = bytearray(path.read_bytes())
    for at in range(4096, len(data)):
        data[at] = (at * 7 + 13) & 0xFF
    path.write_bytes(bytes(data))

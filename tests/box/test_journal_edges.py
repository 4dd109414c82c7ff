"""The journal's last edges (issue 32), each through real files, a real SQLite and the running daemon.

1. a deleted write-ahead log is never acknowledged into: the journal is written again first, said once; a deleted
   acknowledged mark is written again;
3. a journal of a newer version is refused in one line naming both versions and the update, and left as it was;
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

from controller.autoplay import Autoplayer
from controller.cli import main
from controller.storage.diskcheck import check_storage
from controller.storage.journal import SCHEMA_VERSION, Journal, journal_version
from tests.box.daemon_helpers import started, stopped
from tests.box.test_journal_truth import accepted, errors, play, start_after_the_cut, until
from tests.sim.test_commands import record_game


def journal_files(state: Path) -> dict[str, bytes]:
    """The journal's files as they lie: what a refusal must leave exactly as it was."""
    return {p.name: p.read_bytes() for p in sorted(state.glob("journal.sqlite*"))}


# -- 1. a deleted write-ahead log ----------------------------------------------------------------
def test_a_deleted_write_ahead_log_is_never_acknowledged_into(tmp_path: Path, caplog) -> None:
    """``rm journal.sqlite-wal`` mid-game: SQLite goes on writing into the log that lost its name, which the next
    start never sees. Nothing is acknowledged until the journal is written again; a kill at the moment of the next
    ``accepted`` (the files copied as they lie) must resume with every acknowledged action."""
    state, cut = tmp_path / "box", tmp_path / "cut"

    async def scenario() -> None:
        daemon, task, clock, lines = await started(state)
        daemon.box.new_game("pirates", 2)
        auto = Autoplayer(daemon.box, 3)
        await play(daemon, clock, auto, 5)
        await daemon.durable()
        (state / "journal.sqlite-wal").unlink()
        await play(daemon, clock, auto, 1)
        await until(lambda: 5 in accepted(lines), clock)
        shutil.copytree(state, cut)  # kill -9 the instant action 5 is acknowledged
        await play(daemon, clock, auto, 2)
        await daemon.durable()
        assert accepted(lines)[-1] == 7
        await stopped(daemon, task)

    asyncio.run(scenario())
    said = [e for e in errors(caplog) if "write-ahead log" in e]
    assert len(said) == 1 and "journal.sqlite-wal" in said[0], said
    caplog.clear()
    lines, _shows = start_after_the_cut(cut)
    assert "resumed 1 6 " in "\n".join(lines), f"the restart lost acknowledged actions: {lines}"
    assert not [e for e in errors(caplog) if "lost" in e]


def test_a_deleted_acknowledged_mark_is_written_again_at_the_next_sync(tmp_path: Path) -> None:
    """The mark is how a start tells that the card lost acknowledged actions: deleted while the box is idle, the
    next sync (the idle one that folds the log in) writes it again, though the mark itself did not change."""

    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path)
        daemon.box.new_game("pirates", 2)
        await play(daemon, clock, Autoplayer(daemon.box, 3), 5)
        await daemon.durable()
        mark = tmp_path / "journal.sqlite-acked"
        written = mark.read_text()
        mark.unlink()
        await until(lambda: mark.exists(), clock)  # the idle sync, IDLE_CHECKPOINT seconds later
        assert mark.read_text() == written == "1 5 0\n"
        await stopped(daemon, task)

    asyncio.run(scenario())


# -- 3. a journal of a newer version ---------------------------------------------------------------
def test_a_journal_of_a_newer_version_is_refused_in_one_line_and_left_as_it_was(tmp_path: Path, capsys) -> None:
    """An update written into the journal, then the program taken back to this version: it must not resume into
    the newer journal nor set its version back, and ``status``/``history`` say the same line."""
    journal = Journal(tmp_path / "journal.sqlite")
    record_game(journal, "pirates", 2, seed=3, actions=6)
    journal.close()
    newer = SCHEMA_VERSION + 1
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute(f"PRAGMA user_version={newer}")  # what a newer gamebox leaves
    db.close()
    before = journal_files(tmp_path)
    said = (f"gamebox: {tmp_path}/journal.sqlite: this journal was written by a newer gamebox (journal version "
            f"{newer}; this one reads up to version {SCHEMA_VERSION}): update gamebox to play it; nothing was changed\n")
    for command in (["run", "--profile", "sim"], ["status"], ["status", "--json"], ["history"]):
        assert main([*command, "--state-dir", str(tmp_path)]) == 2, command
        out, err = capsys.readouterr()
        assert err == said and "ready" not in out, command
        assert journal_files(tmp_path) == before, f"{command} changed the newer journal"
    assert journal_version(tmp_path / "journal.sqlite") == newer
    row = check_storage(tmp_path)[1]  # gamebox doctor
    assert (row.status, row.detail, row.fix) == ("FAULT", said.removeprefix("gamebox: ").strip(), "update gamebox")
    assert not list(tmp_path.glob("journal.sqlite.bad-*"))

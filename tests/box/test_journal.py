"""The SQLite journal never lies: durable when synced, atomic, refusing what it cannot keep (issues 4, 10, 11).

Storage faults are real ones where the machine allows (a tmpfs of a few
kilobytes, a read-only mount, bytes overwritten in the file or its
write-ahead log), else SQLite's own ``max_page_count``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main
from controller.storage.journal import Journal, JournalError
from controller.storage.syncer import SyncProcess
from tests.box.storage_faults import cap_pages, corrupt, fill, make_room, read_only, small_disk

PLAY = {"type": "start_card", "card": "red-pirate-2"}


def test_commits_write_and_sync_fsyncs_the_write_ahead_log(tmp_path: Path) -> None:
    """record() never fsyncs (the show does not wait for the SD card); sync() fsyncs the -wal (issue 10)."""
    synced: list[str] = []
    journal = Journal(tmp_path / "j.sqlite", fsync=lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")))
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: no fsync in a commit
    gid = journal.start_game("pirates", 3, {"wins_needed": 2}, seed=42)
    journal.record(gid, 0, PLAY)
    assert synced == []
    journal.sync()
    assert synced[0] == str(tmp_path / "j.sqlite-wal") and synced[1] == str(tmp_path)
    # a second connection, as after a power cut, sees it without any close or checkpoint
    other = Journal(tmp_path / "j.sqlite")
    assert other.actions(gid) == [PLAY]
    assert other.unfinished().seed == 42 and other.unfinished().options == {"wins_needed": 2}


def test_a_failing_fsync_is_one_line_naming_the_file(tmp_path: Path) -> None:
    def broken(_fd: int) -> None:
        raise OSError(5, "Input/output error")

    journal = Journal(tmp_path / "j.sqlite", fsync=broken)
    journal.record(journal.start_game("pirates", 2, {}, 0), 0, PLAY)
    with pytest.raises(JournalError) as failed:
        journal.sync()
    assert str(failed.value) == f"{tmp_path / 'j.sqlite-wal'}: fsync failed: Input/output error"


def test_the_sync_process_fsyncs_in_a_child_and_answers_a_refusal_in_one_line(tmp_path: Path) -> None:
    """The daemon's fsync runs in a child (issue 10) with the journal's own code; a disk that refuses is one line."""
    journal = Journal(tmp_path / "j.sqlite")
    journal.record(journal.start_game("pirates", 2, {}, 0), 0, PLAY)
    refusing = tmp_path / "refusing.sqlite"
    (tmp_path / "refusing.sqlite-wal").symlink_to("/dev/null")  # fsync on a character device: EINVAL

    async def run() -> str:
        good, bad = SyncProcess(journal.path), SyncProcess(refusing)
        try:
            await good.sync()
            await good.sync()  # the same child answers again
            with pytest.raises(JournalError) as failed:
                await bad.sync()
            return str(failed.value)
        finally:
            await good.close()
            await bad.close()

    assert asyncio.run(run()) == f"{refusing}-wal: fsync failed: Invalid argument"


def test_the_last_action_and_the_result_commit_together(tmp_path: Path) -> None:
    """Finding 3: a won game is never left "(playing)": both or neither."""
    journal = Journal(tmp_path / "j.sqlite")
    gid = journal.start_game("policecats", 2, {}, 0)
    journal.record(gid, 0, {"type": "roll", "player": 0, "face": "cat"})
    cap_pages(journal.db)
    with pytest.raises(JournalError, match="full"):
        journal.record(gid, 1, {"type": "catch", "player": 0, "note": "x" * 20000}, winners=[0])
    assert journal.game(gid).ended is None and journal.game(gid).winners is None and journal.game(gid).actions == 1
    journal.db.execute("PRAGMA max_page_count=1000000")
    journal.record(gid, 1, {"type": "catch", "player": 0}, winners=[0])
    record = journal.game(gid)
    assert record.winners == [0] and record.ended is not None and record.actions == 2
    assert journal.unfinished() is None


def test_a_seq_is_never_reused_and_a_failed_record_writes_nothing(tmp_path: Path) -> None:
    """Finding 1: an action written into another's slot splits the game from its record."""
    journal = Journal(tmp_path / "j.sqlite")
    gid = journal.start_game("pirates", 2, {}, 0)
    journal.record(gid, 0, PLAY)
    with pytest.raises(JournalError, match="seq 0 of game 1 is already used"):
        journal.record(gid, 0, {"type": "draw", "player": 0})
    with pytest.raises(JournalError, match="cannot be stored"):
        journal.record(gid, 1, {"type": "draw", "player": 0, "x": float("nan")})
    assert journal.actions(gid) == [PLAY]


def test_a_full_disk_refuses_the_write_and_keeps_the_journal(tmp_path: Path) -> None:
    """A real full filesystem: record raises, nothing is written, and once there is room it writes again."""
    with small_disk(tmp_path / "disk", 256) as disk:
        journal = Journal(disk / "journal.sqlite")
        gid = journal.start_game("pirates", 2, {}, 0)
        journal.record(gid, 0, PLAY)
        journal.sync()
        fill(disk)
        written = 1
        with pytest.raises(JournalError, match=r"journal\.sqlite: journal write failed: database or disk is full"):
            for seq in range(1, 5000):  # until the -wal needs a block the disk does not have
                journal.record(gid, seq, {"type": "draw", "player": seq % 2, "pad": "p" * 500})
                written += 1
        assert len(journal.actions(gid)) == written
        make_room(disk)
        journal.record(gid, written, {"type": "draw", "player": 0})
        journal.close()
        again = Journal(disk / "journal.sqlite")
        assert again.moved_aside is None and len(again.actions(gid)) == written + 1


def test_a_full_disk_at_start_is_one_line_and_never_moves_the_journal(tmp_path: Path) -> None:
    """Finding 2: "database or disk is full" at open is not damage."""
    with small_disk(tmp_path / "disk", 256) as disk:
        journal = Journal(disk / "journal.sqlite")
        journal.record(journal.start_game("pirates", 2, {}, 0), 0, PLAY)
        journal.close()  # checkpointed, the -wal removed: the next open must create it
        fill(disk)
        with pytest.raises(JournalError) as failed:
            Journal(disk / "journal.sqlite")
        assert "\n" not in str(failed.value) and str(disk / "journal.sqlite") in str(failed.value)
        assert not [p for p in disk.iterdir() if ".bad-" in p.name] and (disk / "journal.sqlite").stat().st_size
        make_room(disk)
        assert Journal(disk / "journal.sqlite").actions(1) == [PLAY]


def test_a_read_only_journal_is_never_moved_aside(tmp_path: Path) -> None:
    state = tmp_path / "state"
    journal = Journal(state / "journal.sqlite")
    journal.record(journal.start_game("pirates", 2, {}, 0), 0, PLAY)
    journal.close()
    with read_only(state):
        with pytest.raises(JournalError) as failed:
            Journal(state / "journal.sqlite")
        assert "\n" not in str(failed.value)
        assert sorted(p.name for p in state.iterdir()) == ["box-id", "journal.sqlite"]
        assert Journal(state / "journal.sqlite", read_only=True).actions(1) == [PLAY]  # status still reads it


def test_read_only_opening_never_creates_moves_or_repairs(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal yet"):
        Journal(tmp_path / "missing" / "journal.sqlite", read_only=True)
    assert not (tmp_path / "missing").exists()
    bad = tmp_path / "journal.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError):
        Journal(bad, read_only=True)
    assert [p.name for p in tmp_path.iterdir()] == ["journal.sqlite"]
    assert main(["status", "--state-dir", str(tmp_path)]) == 2
    assert main(["history", "--state-dir", str(tmp_path)]) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["journal.sqlite"], "a read-only command moved the journal"


def test_a_corrupt_file_is_moved_aside_with_one_log_line(tmp_path: Path, caplog) -> None:
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    journal = Journal(path)
    assert journal.moved_aside is not None and journal.moved_aside.read_bytes().startswith(b"this is not")
    assert journal.latest() is None
    lines = [r for r in caplog.records if "moved aside" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0].getMessage()


def test_damaged_pages_are_moved_aside(tmp_path: Path) -> None:
    """SQLITE_CORRUPT from quick_check: the one case beside a foreign file where a journal is moved."""
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    gid = journal.start_game("pirates", 2, {}, 0)
    for seq in range(300):
        journal.record(gid, seq, {"type": "draw", "player": seq % 2, "pad": "p" * 100})
    journal.close()
    corrupt(path)
    again = Journal(path)
    assert again.moved_aside is not None and again.latest() is None


def test_a_foreign_database_is_moved_aside_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE recipes (name TEXT)")
    other.execute("INSERT INTO recipes VALUES ('pancakes')")
    other.commit()
    other.close()
    journal = Journal(path)
    kept = sqlite3.connect(journal.moved_aside)
    assert kept.execute("SELECT name FROM recipes").fetchall() == [("pancakes",)]
    assert journal.start_game("pirates", 2, {}, 0) == 1


def test_a_damaged_write_ahead_log_is_loud_and_kept(tmp_path: Path, caplog) -> None:
    """Finding 5: SQLite silently drops every frame after a bad checksum; the journal says so and keeps a copy."""
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    gid = journal.start_game("pirates", 2, {}, 0)
    for seq in range(40):
        journal.record(gid, seq, {"type": "draw", "player": seq % 2})
    wal = path.with_name("j.sqlite-wal")
    data = bytearray(wal.read_bytes())
    frame = 24 + 4096
    data[32 + 29 * frame + 24 + 200] ^= 0xFF  # one byte in the 30th frame's page
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("j.sqlite", "j.sqlite-wal"):  # as after a power cut: the files, no clean close
        (copy / name).write_bytes(bytes(data) if name.endswith("-wal") else (tmp_path / name).read_bytes())
    damaged = Journal(copy / "j.sqlite")
    [line] = damaged.report_recovery()
    assert "frame 30 of" in line and "fails its checksum" in line
    assert f"recovered game {gid} with" in line
    assert any(p.name.startswith("j.sqlite-wal.bad-") for p in copy.iterdir())
    assert [r.levelname for r in caplog.records if "write-ahead log is damaged" in r.getMessage()] == ["ERROR"]
    # a log cut short at its last frame (a power cut mid-write) is not damage
    healthy = Journal(path)
    assert healthy.report_recovery() == []


def test_the_new_game_card_abandons_for_good_and_durably(tmp_path: Path) -> None:
    """Finding 9 / issue 15 mutation 5: an abandoned game is never resumed."""
    synced: list[int] = []
    journal = Journal(tmp_path / "j.sqlite", fsync=synced.append)
    gid = journal.start_game("pirates", 2, {}, 0)
    journal.record(gid, 0, PLAY)
    assert journal.unfinished().id == gid
    journal.abandon(gid)
    assert synced, "abandon() returned before it was durable"
    assert journal.unfinished() is None
    assert Journal(tmp_path / "j.sqlite").unfinished() is None
    assert journal.game(gid).abandoned


def test_a_new_game_abandons_the_unfinished_one(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    first = journal.start_game("pirates", 2, {}, 1)
    second = journal.start_game("policecats", 3, {}, 2)
    assert journal.unfinished().id == second
    assert journal.game(first).abandoned


def test_undo_takes_back_the_last_action_and_keeps_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    gid = journal.start_game("policecats", 2, {}, 0)
    roll = {"type": "roll", "player": 0, "face": "dog"}
    journal.record(gid, 0, roll, winners=[1])
    with pytest.raises(JournalError, match="cannot undo seq 1"):
        journal.undo(gid, 1)
    assert journal.undo(gid, 0) == roll
    assert journal.actions(gid) == [] and journal.undone(gid) == [roll]
    assert journal.game(gid).ended is None, "an undone winning action un-ends the game"
    assert journal.unfinished().id == gid


def test_undo_of_a_play_and_the_hang_it_forced_takes_both_or_neither(tmp_path: Path) -> None:
    """One undo may take back two actions (a play whose penalty card was hung, ruling F8): in one transaction."""
    journal = Journal(tmp_path / "j.sqlite")
    gid = journal.start_game("floppy-ears", 2, {}, 0)
    actions = [{"type": "draw", "player": 0}, {"type": "play", "player": 1, "card": "red-1"},
               {"type": "hang", "player": 1, "ear": "left", "card": "red-2"}]
    for seq, action in enumerate(actions):
        journal.record(gid, seq, action)
    with pytest.raises(JournalError, match="cannot undo seq 3"):
        journal.undo(gid, 3, count=2)
    assert journal.actions(gid) == actions and journal.undone(gid) == []
    assert journal.undo(gid, 2, count=2) == actions[1]
    assert journal.actions(gid) == actions[:1] and journal.undone(gid) == [actions[2], actions[1]]
    with pytest.raises(JournalError, match="cannot undo seq -1"):
        journal.undo(gid, 0, count=2)  # only one is left: nothing is taken
    assert journal.actions(gid) == actions[:1]


def test_rows_that_do_not_parse_set_that_game_aside_and_keep_the_rest(tmp_path: Path, capsys) -> None:
    """Finding 4: options or an action that is not JSON crash neither status, history nor a start."""
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    done = journal.start_game("pirates", 2, {}, 0)
    journal.record(done, 0, PLAY, winners=[0])
    broken = journal.start_game("pirates", 2, {}, 0)
    journal.record(broken, 0, PLAY)
    journal.db.execute("UPDATE games SET options='{not json' WHERE id=?", (broken,))
    journal.set_setting("menu", {"game": "pirates", "players": 2, "variants": {}})
    journal.close()
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["game_id"] == broken and "cannot be replayed" in status["problem"]
    assert main(["history", "--state-dir", str(tmp_path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    writer = Journal(path)
    assert writer.unfinished() is None  # set aside, with a note
    assert writer.game(broken).abandoned and "options do not parse" in writer.game(broken).problem
    assert writer.game(done).winners == [0]
    writer.db.execute("UPDATE actions SET action='[1,' WHERE game_id=?", (done,))
    with pytest.raises(JournalError, match="action 0 of game 1 does not parse"):
        writer.actions(done)


def test_history_lists_date_game_players_winner_duration_actions(tmp_path: Path, capsys) -> None:
    clock = iter([1_700_000_000.0 + 60 * n for n in range(100)])
    journal = Journal(tmp_path / "journal.sqlite", wall=lambda: next(clock))
    gid = journal.start_game("floppy-ears", 3, {}, 0)
    for seq in range(3):
        journal.record(gid, seq, {"type": "draw", "player": 0})
    journal.record(gid, 3, {"type": "draw", "player": 0}, winners=[2])
    journal.start_game("pirates", 2, {}, 0)
    journal.close()
    assert main(["history", "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["date", "game", "players", "winner", "duration", "actions"]
    assert out[1].split()[2:] == ["pirates", "2", "(playing)", "-", "0"]
    assert out[2].split()[2:] == ["floppy-ears", "3", "Player", "3", "4:00", "4"], "people count players from 1"


def test_status_prints_the_game_the_last_roll_and_the_menu(tmp_path: Path, capsys) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    gid = journal.start_game("policecats", 3, {}, 0)
    journal.record(gid, 0, {"type": "roll", "player": 0, "face": "mouse"})
    journal.set_setting("menu", {"game": "policecats", "players": 3, "variants": {"alarm": False}})
    journal.close()
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["game"] == "policecats" and status["last_roll"] == "mouse" and status["actions"] == 1
    assert status["menu"] == {"game": "policecats", "players": 3, "variants": {"alarm": False}}


def test_status_reads_one_moment_of_a_journal_being_written(tmp_path: Path, monkeypatch) -> None:
    """Finding 7: the action count and the log come from one read transaction."""
    from controller import report

    path = tmp_path / "journal.sqlite"
    writer = Journal(path)
    gid = writer.start_game("pirates", 2, {}, 0)
    writer.record(gid, 0, PLAY)
    reader = Journal(path, read_only=True)
    real_actions = Journal.actions

    def actions_while_the_box_plays(self: Journal, game_id: int):
        writer.record(gid, len(real_actions(writer, gid)), {"type": "draw", "player": 0})
        return real_actions(self, game_id)

    monkeypatch.setattr(Journal, "actions", actions_while_the_box_plays)
    status = report.game_status(reader)
    assert status["actions"] == 1 and status["hand_sizes"] == [5, 5]


def test_status_without_any_journal_names_where_it_looked(tmp_path: Path, capsys) -> None:
    """Found in the virtual Pi: status run by hand read another folder than the service's, and said only
    "no game yet" while a game was being played; the path shows where it looked."""
    journal = tmp_path / "journal.sqlite"
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"game": None, "menu": None, "message": f"no journal at {journal} yet"}
    assert main(["status", "--state-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"no journal at {journal} yet\n"
    assert main(["history", "--state-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"no journal at {journal} yet\n"
    assert list(tmp_path.iterdir()) == []


def test_status_of_a_journal_without_a_game_says_so(tmp_path: Path, capsys) -> None:
    Journal(tmp_path / "journal.sqlite").close()
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"game": None, "menu": None, "message": "no game in the journal yet"}


@pytest.mark.parametrize("command", ["status", "history", "run"])
@pytest.mark.parametrize("problem", ["file", "read-only", "missing-parent-in-file"])
def test_a_state_dir_that_cannot_be_used_is_one_line(tmp_path: Path, capsys, command: str, problem: str) -> None:
    """Finding 4, issue 12 bug 1: a file, a read-only folder, a parent that is a file."""
    if problem == "file":
        state = tmp_path / "state"
        state.write_text("not a folder")
    elif problem == "missing-parent-in-file":
        (tmp_path / "plain").write_text("x")
        state = tmp_path / "plain" / "state"
    else:
        state = tmp_path / "state"
        state.mkdir()
    if problem == "read-only":
        with read_only(state):
            code = main([command, "--state-dir", str(state)])
        expected = 0 if command != "run" else 2  # nothing to read is no game yet; run needs to write
    else:
        code = main([command, "--state-dir", str(state)])
        expected = 0 if (command != "run" and problem == "missing-parent-in-file") else 2
    err = capsys.readouterr().err
    assert code == expected, err
    if expected == 2:
        assert err.startswith("gamebox: ") and err.count("\n") == 1 and str(state) in err

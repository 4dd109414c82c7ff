"""The journal's last edges (issue 32), each through real files, a real SQLite and the running daemon.

1. a deleted write-ahead log is never acknowledged into: the journal is written again first, said once; a deleted
   acknowledged mark is written again;
2. a box never moves aside, overwrites or plays into another box's journal, and says so in one line;
3. a journal of a newer version is refused in one line naming both versions and the update, and left as it was;
4. a kept copy of a damaged write-ahead log is never overwritten by a later one;
5. the smaller ones: a stop with the folder still gone, an unreadable journal, a damaged journal's loss, a gap's
   count, a clock set back, a journal killed while it was made.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench.power_cut import SEED, daemon, piped_config
from controller.autoplay import Autoplayer, run_inputs
from controller.cli import main
from controller.daemon import IDLE_CHECKPOINT
from controller.storage.diskcheck import check_storage
from controller.storage.journal import (
    SCHEMA_VERSION, Journal, JournalError, box_id, check_owner_and_version, journal_owner, journal_version,
)
from tests.box.daemon_helpers import started, stopped
from tests.box.helpers import make_box
from tests.box.storage_faults import corrupt
from tests.box.test_journal_truth import (
    PATIENCE, ROOT, a_pirates_game, accepted, assert_not_said_again, errors, play, start_after_the_cut, until,
)
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
        auto = await a_pirates_game(daemon, clock, 5)
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


def action_lines(where: Path, game: str, players: int, seed: int, actions: int) -> list[list[str]]:
    """The lines ``gamebox run`` is fed for the menu, then for each of the game's first ``actions`` actions."""
    box, _stage, clock = make_box(where, seed=SEED, handover=0.0)
    box.new_game(game, players)
    auto = Autoplayer(box, seed)
    groups = [[f"tap control-game-{game}", f"tap control-players-{players}"]]
    for _ in range(actions):
        inputs = auto.inputs(auto.choose()[1])
        groups.append([f"tap {i.value}" if i.kind == "tap" else f"{i.kind} {i.value}"
                       for i in inputs if i.kind != "wait"])
        run_inputs(box, inputs, clock.advance)
    return groups


def test_a_write_ahead_log_deleted_under_gamebox_run_costs_nothing_acknowledged_at_a_kill(tmp_path: Path) -> None:
    """The steps as a person takes them: ``gamebox run`` fed through a pipe, ``rm journal.sqlite-wal`` after the
    first acknowledged actions, more actions, ``kill -9`` the instant the last one is acknowledged, a restart."""
    groups = action_lines(tmp_path / "reference", "pirates", 2, seed=2, actions=8)
    state, config = tmp_path / "state", piped_config(tmp_path)
    config.write_text(config.read_text() + "call_window = 0.5\n")  # a card with no call plays sooner
    proc = daemon(state, config, stderr=subprocess.PIPE)
    out: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [out.put(line.strip()) for line in proc.stdout], daemon=True).start()

    def play_until_accepted(group: list[str], seq: int) -> None:
        proc.stdin.write("\n".join(group) + "\n")
        proc.stdin.flush()
        while (line := out.get(timeout=PATIENCE)) != f"accepted {seq}":
            assert not line.startswith("accepted "), f"{line} before accepted {seq}"

    try:
        proc.stdin.write("\n".join(groups[0]) + "\n")
        for seq, group in enumerate(groups[1:5]):
            play_until_accepted(group, seq)
        (state / "journal.sqlite-wal").unlink()
        for seq, group in enumerate(groups[5:], start=4):
            play_until_accepted(group, seq)
    finally:
        proc.send_signal(signal.SIGKILL)  # the instant action 7 is acknowledged
        proc.wait(timeout=PATIENCE)
    said = [line for line in proc.stderr.read().splitlines() if "write-ahead log" in line]
    assert len(said) == 1 and "was deleted or replaced" in said[0], said
    again = daemon(state, config, stderr=subprocess.PIPE)
    lines, err = again.communicate("", timeout=PATIENCE)
    assert "resumed 1 8 " in lines, f"the restart lost acknowledged actions: {lines} {err}"
    assert "lost" not in err, err


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
        await clock.run_for(IDLE_CHECKPOINT + 1)  # the idle sync that folds the log in
        await until(lambda: mark.exists(), clock)
        assert mark.read_text() == written == "1 5 0\n"
        await stopped(daemon, task)

    asyncio.run(scenario())


# -- 2. another box's journal ---------------------------------------------------------------------
def box_with_a_game(state: Path, actions: int) -> str:
    """A box that played ``actions`` acknowledged actions of a game and stopped; the box's id."""

    async def scenario() -> None:
        daemon, task, clock, lines = await started(state)
        daemon.box.new_game("pirates", 2)
        await play(daemon, clock, Autoplayer(daemon.box, 5), actions)
        await daemon.durable()
        assert accepted(lines)[-1] == actions - 1
        await stopped(daemon, task)

    asyncio.run(scenario())
    return box_id(state)


def folder_as_it_lies(state: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(state.iterdir())}


def test_a_box_whose_folder_becomes_another_boxs_never_touches_that_boxs_journal(tmp_path: Path, caplog) -> None:
    """Box A plays; its state folder is replaced by a link to stopped box B's folder. A must not take B's lock,
    move B's healthy journal aside, overwrite B's acknowledged mark or play into it; it says so in one line, and
    B's next start resumes B's own game."""
    a, b, a_moved = tmp_path / "a", tmp_path / "b", tmp_path / "a-moved"
    b_id = box_with_a_game(b, 10)
    b_files = folder_as_it_lies(b)

    async def scenario() -> None:
        daemon, task, clock, lines = await started(a)
        a_id = box_id(a)
        assert a_id != b_id and journal_owner(a / "journal.sqlite") == a_id
        auto = await a_pirates_game(daemon, clock, 3)
        a.rename(a_moved)
        a.symlink_to(b)  # the folder replaced under the running box
        await play(daemon, clock, auto, 1)
        await until(lambda: daemon.storage_fault is not None)
        for _ in range(5):  # five more tries of the journal
            await clock.run_for(1.1)
            await asyncio.sleep(0.05)
        assert daemon.storage_fault is not None and accepted(lines)[-1] == 2, "A played into B's journal"
        await stopped(daemon, task)

    asyncio.run(scenario())
    assert folder_as_it_lies(b) == b_files, "A changed B's files"
    said = [e for e in errors(caplog) if b_id in e]
    assert len(said) == 1 and "another box" in said[0], errors(caplog)
    caplog.clear()
    lines, _shows = start_after_the_cut(b)
    assert "resumed 1 10 " in "\n".join(lines), f"B does not resume its own game: {lines}"
    assert not [e for e in errors(caplog) if "lost" in e]


def test_a_start_on_another_boxs_journal_refuses_in_one_line_and_changes_nothing(tmp_path: Path, capsys) -> None:
    """Box B's journal copied into box A's folder: A's start must not resume it, move it aside or claim it."""
    a, b = tmp_path / "a", tmp_path / "b"
    b_id = box_with_a_game(b, 4)
    a_id = box_with_a_game(a, 2)
    for name in ("journal.sqlite", "journal.sqlite-acked"):
        shutil.copyfile(b / name, a / name)
    before = journal_files(a)
    assert main(["run", "--state-dir", str(a), "--profile", "sim"]) == 2
    out, err = capsys.readouterr()
    assert "ready" not in out and err.count("\n") == 1, err
    assert f"box {b_id}" in err and f"this box ({a_id})" in err, err
    assert journal_files(a) == before and journal_owner(a / "journal.sqlite") == b_id
    assert main(["status", "--state-dir", str(a)]) == 0, "a read-only command reads any box's journal"


def test_a_journal_brought_back_from_elsewhere_is_checked_as_a_start_checks_it(tmp_path: Path) -> None:
    """What a restore asks before it puts a kept journal back: from another box, or of a newer version, it is
    refused in the start's own line; onto a wiped card (no ``box-id``) it is that box's journal again."""
    a, b, wiped = tmp_path / "a", tmp_path / "b", tmp_path / "wiped"
    b_id, a_id = box_with_a_game(b, 3), box_with_a_game(a, 2)
    kept = tmp_path / "kept.sqlite"
    shutil.copyfile(b / "journal.sqlite", kept)
    with pytest.raises(JournalError, match=f"another box's journal \\(made by box {b_id}; this box \\({a_id}\\)"):
        check_owner_and_version(kept, a)
    wiped.mkdir()
    assert check_owner_and_version(kept, wiped) == b_id == box_id(wiped)
    db = sqlite3.connect(kept)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(JournalError, match="newer gamebox"):
        check_owner_and_version(kept, b)
    assert journal_version(kept) == SCHEMA_VERSION + 1 and journal_owner(kept) == b_id


def test_a_box_whose_id_file_was_lost_keeps_its_journal_and_an_older_journal_is_claimed(tmp_path: Path) -> None:
    """The id must never cost a box its own games: a lost ``box-id`` is taken back from the journal beside it, and
    a journal made before boxes had ids is claimed by the first box that writes it."""
    made_by = box_with_a_game(tmp_path, 4)
    (tmp_path / "box-id").unlink()
    lines, _shows = start_after_the_cut(tmp_path)
    assert "resumed 1 4 " in "\n".join(lines) and box_id(tmp_path) == made_by
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute("DELETE FROM settings WHERE key='box'")  # a journal as an earlier gamebox made it
    db.commit()
    db.close()
    (tmp_path / "box-id").unlink()
    assert journal_owner(tmp_path / "journal.sqlite") is None
    lines, _shows = start_after_the_cut(tmp_path)
    assert "resumed 1 4 " in "\n".join(lines)
    assert journal_owner(tmp_path / "journal.sqlite") == box_id(tmp_path) != made_by


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
            f"{newer}; this one reads up to version {SCHEMA_VERSION}): update gamebox to play it; "
            "nothing was changed\n")
    for command in (["run", "--profile", "sim"], ["status"], ["status", "--json"], ["history"]):
        assert main([*command, "--state-dir", str(tmp_path)]) == 2, command
        out, err = capsys.readouterr()
        assert err == said and "ready" not in out, command
        assert journal_files(tmp_path) == before, f"{command} changed the newer journal"
    assert journal_version(tmp_path / "journal.sqlite") == newer
    row = check_storage(tmp_path)[1]  # gamebox doctor
    assert (row.status, row.detail, row.fix) == ("FAULT", said.removeprefix("gamebox: ").strip(), "update gamebox")


def test_a_newer_version_still_only_in_the_write_ahead_log_is_refused_too(tmp_path: Path, capsys) -> None:
    """The newer gamebox was cut off before a checkpoint: its version is only in the -wal, which a start replays."""
    box, cut = tmp_path / "box", tmp_path / "cut"
    journal = Journal(box / "journal.sqlite")
    record_game(journal, "pirates", 2, seed=3, actions=6)
    journal.db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")  # written, not checkpointed
    shutil.copytree(box, cut)  # the power goes
    journal.close()
    (cut / "journal.sqlite-shm").unlink()
    assert journal_version(cut / "journal.sqlite") == SCHEMA_VERSION + 1
    before = journal_files(cut)
    assert main(["run", "--state-dir", str(cut), "--profile", "sim"]) == 2
    said = f"newer gamebox (journal version {SCHEMA_VERSION + 1}; this one reads up to version {SCHEMA_VERSION})"
    assert said in capsys.readouterr().err
    assert journal_files(cut) == before
    assert not list(tmp_path.glob("journal.sqlite.bad-*"))


# -- 4. kept copies ----------------------------------------------------------------------------------
def damaged_wal(folder: Path, actions: int) -> bytes:
    """A journal whose write-ahead log breaks in the middle (one byte of its 10th frame), as a failing card leaves
    it: the journal's files, no clean close; the damaged log's bytes."""
    journal = Journal(folder / "journal.sqlite")
    gid = journal.start_game("pirates", 2, {}, 0)
    for seq in range(actions):
        journal.record(gid, seq, {"type": "draw", "player": seq % 2, "pad": "x" * 300})
    data = bytearray((folder / "journal.sqlite-wal").read_bytes())
    journal.db.close()  # a kill: no checkpoint
    data[32 + 9 * (24 + 4096) + 24 + 100] ^= 0x55
    (folder / "journal.sqlite-wal").write_bytes(bytes(data))
    return bytes(data)


def test_a_kept_copy_of_a_damaged_write_ahead_log_is_never_overwritten(tmp_path: Path) -> None:
    """Two starts in the same second (a Pi without a real-time clock), each finding a damaged log: the copy the
    first one named must still hold what it held."""
    kept = {}
    for actions in (40, 60):  # the second start finds a longer damaged log, as the card did
        log = damaged_wal(tmp_path, actions)
        journal = Journal(tmp_path / "journal.sqlite", wall=lambda: 1_000_000.0)
        [line] = journal.report_recovery()
        journal.close()
        copy = Path(line.split("a copy is kept at ")[1].split(";")[0])
        assert copy.read_bytes() == log, "the copy named is not the damaged log"
        kept[copy] = log
    assert len(kept) == 2, "the second copy took the first one's name"
    for copy, data in kept.items():
        assert copy.read_bytes() == data, f"{copy.name} was overwritten"


# -- 5. the smaller ones ----------------------------------------------------------------------------
def test_a_box_stopped_while_its_folder_is_still_gone_says_the_game_is_not_saved(tmp_path: Path, caplog) -> None:
    state = tmp_path / "state"

    async def scenario() -> int:
        daemon, task, clock, lines = await started(state)
        auto = await a_pirates_game(daemon, clock, 4)
        shutil.rmtree(state)
        await play(daemon, clock, auto, 1)
        await until(lambda: daemon.storage_fault is not None)
        daemon.stopping.set()  # systemctl stop, the folder still gone
        return await task

    assert asyncio.run(scenario()) == 1, "a stop that loses the game must not look like a clean one"
    said = [e for e in errors(caplog) if "not saved" in e]
    assert said == [f"{state}/journal.sqlite: the journal's file is gone (No such file or directory): its folder was "
                    "deleted or unmounted; nothing is acknowledged until it is back; the box stops without it: game 1 "
                    "(5 actions) is not saved"], errors(caplog)


def as_a_user_who_may_not_read(*command: str) -> subprocess.CompletedProcess:
    """``gamebox COMMAND`` as a user the journal's mode keeps out: root reads any file, so as root it runs without
    the capabilities that let it (setpriv drops them from what the child may have)."""
    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("an unreadable file for root needs setpriv (util-linux), which is not installed")
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
    return subprocess.run([*prefix, sys.executable, "-m", "controller.cli", *command], cwd=ROOT, capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=PATIENCE, text=True)


def test_an_unreadable_journal_names_the_permission_and_its_fix(tmp_path: Path) -> None:
    box_with_a_game(tmp_path, 3)
    journal = tmp_path / "journal.sqlite"
    before = journal_files(tmp_path)
    journal.chmod(0o000)
    try:
        for command in ("run", "status"):
            done = as_a_user_who_may_not_read(command, "--state-dir", str(tmp_path))
            assert done.returncode == 2 and done.stderr.count("\n") == 1, (command, done.stderr)
            said = f"gamebox: {journal}: cannot read the journal: Permission denied (owned by "
            assert done.stderr.startswith(said), command
            assert "mode 000" in done.stderr and "unable to open" not in done.stderr, done.stderr
            assert done.stderr.strip().endswith(f"let its owner read and write it: chmod u+rw {journal}")  # its own
        if os.geteuid() == 0:  # another user's file (copied with sudo): the box takes it, a reader reads as its owner
            os.chown(journal, 65534, 65534)
            journal.chmod(0o600)
            me, owner = pwd.getpwuid(0).pw_name, pwd.getpwuid(65534).pw_name
            said = as_a_user_who_may_not_read("run", "--state-dir", str(tmp_path)).stderr.strip()
            assert said.endswith(f"sudo chown {me} {journal} && sudo chmod u+rw {journal}"), said
            said = as_a_user_who_may_not_read("status", "--state-dir", str(tmp_path)).stderr.strip()
            assert said.endswith(f"read it as its owner: sudo -u {owner} gamebox ..."), said
    finally:
        os.chown(journal, os.getuid(), os.getgid())
        journal.chmod(0o644)
    assert journal_files(tmp_path) == before and not list(tmp_path.glob("*.bad-*"))
    lines, _shows = start_after_the_cut(tmp_path)  # the fix made: the game goes on
    assert "resumed 1 3 " in "\n".join(lines)


def test_status_on_a_journal_killed_while_it_was_made_says_what_a_start_would_do(tmp_path: Path, capsys) -> None:
    """Killed during the very first start: the file holds no table (its schema was still in the -wal, or not even
    written); a start makes it a new journal, so ``status`` and ``history`` read it as the empty journal it becomes."""
    made = tmp_path / "made"
    journal = Journal(made / "journal.sqlite")  # the schema is in its -wal until the first checkpoint
    for folder, data in (("header", (made / "journal.sqlite").read_bytes()), ("empty", b"")):
        state = tmp_path / folder
        state.mkdir()
        (state / "journal.sqlite").write_bytes(data)  # the kill: no -wal beside it
        assert main(["status", "--state-dir", str(state)]) == 0, folder
        assert capsys.readouterr().out == "no game in the journal yet\n", folder
        assert main(["history", "--state-dir", str(state)]) == 0, folder
        assert capsys.readouterr().out.splitlines()[1:] == ["(no games yet)"], folder
        assert journal_files(state) == {"journal.sqlite": data}, "a read-only command changed the file"
        again = Journal(state / "journal.sqlite")  # what run does with it
        assert again.latest() is None and again.moved_aside is None, folder
        again.close()
    journal.close()


def test_a_damaged_journal_moved_aside_is_named_as_the_loss_not_its_write_ahead_log(tmp_path: Path, caplog) -> None:
    box_with_a_game(tmp_path, 30)  # stopped cleanly: the log folded into the file and removed
    corrupt(tmp_path / "journal.sqlite")  # the card damages the file itself
    caplog.clear()
    lines, shows = start_after_the_cut(tmp_path)
    [aside] = tmp_path.glob("journal.sqlite.bad-*")
    assert "journal_lost" in shows and not [line for line in lines if line.startswith("resumed")]
    assert [e for e in errors(caplog) if "lost" in e] == [
        f"journal {tmp_path}/journal.sqlite: the SD card lost the last 30 acknowledged actions with the damaged "
        f"journal, moved aside to {aside}: game 1 is gone"]


def test_a_gap_counts_every_acknowledged_action_that_left_play(tmp_path: Path, caplog) -> None:
    """One damaged row (action 7 of 37): the game resumes at action 7, so 30 acknowledged actions left play, not 1."""
    box_with_a_game(tmp_path, 37)
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute("DELETE FROM actions WHERE game_id=1 AND seq=7")
    db.commit()
    db.close()
    caplog.clear()
    lines, _shows = start_after_the_cut(tmp_path)
    assert "resumed 1 7 " in "\n".join(lines)
    assert [e for e in errors(caplog) if "lost" in e or "jump" in e] == [
        f"journal {tmp_path}/journal.sqlite: the SD card lost 1 acknowledged actions: game 1 resumes at action 7, so "
        "30 acknowledged actions left play",
        f"journal {tmp_path}/journal.sqlite: game 1's action numbers jump from 6 to 8: the game resumes at action 7, "
        "the 29 actions after the gap are left out"]
    assert_not_said_again(tmp_path, caplog)


def test_history_never_shows_a_negative_duration_after_the_clock_went_back(tmp_path: Path, capsys) -> None:
    """A Pi without a real-time clock sets its clock back (a time server's answer, a hand): a game that ended
    "before" it started has no duration the box can tell."""
    now = [1_700_000_000.0]
    journal = Journal(tmp_path / "journal.sqlite", wall=lambda: now[0])
    for length in (-100.0, 95.0):  # the clock set back during the first game; the second as usual
        game = journal.start_game("pirates", 2, {}, 0)
        now[0] += length
        journal.record(game, 0, {"type": "start_card", "card": "red-pirate-2"}, winners=[0])
    journal.close()
    assert main(["history", "--state-dir", str(tmp_path)]) == 0
    durations = [line.split()[-2] for line in capsys.readouterr().out.splitlines()[1:]]
    assert durations == ["1:35", "?"]

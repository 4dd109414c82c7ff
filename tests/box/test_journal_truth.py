"""The journal tells the truth about what it has (issue 22), each case through real files and real processes.

1. two boxes on one state directory: the second stops at once, naming the first;
2. the state directory deleted mid-game: nothing more is acknowledged until the journal is written again;
3. a gap in the action numbers: the game resumes at the last good action, said so, and play goes on;
4. a write-ahead log cut short, emptied or deleted: the loss of acknowledged actions is said aloud and logged;
5. read-only commands answer on a full disk or a damaged page, leave no file, and name a journal that is a folder;
6. the right cause in every line: a full disk, a read-only mount, a sync process whose daemon died;
and a card waiting for its call after a restart is announced, a press plays it with its call, a re-tap is the same card.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import select
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pygame
import pytest

from controller.autoplay import Autoplayer, perform
from controller.box.box import Box
from controller.box.tags import Registry, RegistryError
from controller.cli import main
from controller.games import engine_class
from controller.stage.shows import ShowBook
from controller.storage import walsync
from controller.storage.journal import Journal
from controller.window.display import DisplayApp
from controller.window.screen import OffScreen
from tests.box.daemon_helpers import started, stopped
from tests.box.helpers import RecordingStage
from tests.box.storage_faults import fill, make_room, read_only, small_disk
from tests.box.test_table_children import call_window_open
from tests.sim.test_commands import record_game

ROOT = Path(__file__).resolve().parents[2]
PATIENCE = 30.0  # seconds a real child process may take to answer on a loaded machine


def gamebox(*args: str, **kwargs: Any) -> subprocess.Popen:
    env = dict(os.environ, GAMEBOX_LOG="INFO")
    return subprocess.Popen([sys.executable, "-m", "controller.cli", *args], cwd=ROOT, env=env, bufsize=0,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def read_line_until(proc: subprocess.Popen, wanted: str) -> list[str]:
    """Lines of ``proc``'s stdout up to ``wanted`` (within PATIENCE seconds of real time)."""
    assert proc.stdout is not None
    lines: list[str] = []
    end = time.monotonic() + PATIENCE
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            break
        line = proc.stdout.readline().decode()
        if not line:
            break
        lines.append(line.strip())
        if line.strip() == wanted:
            return lines
    raise AssertionError(f"no {wanted!r} from the box: {lines}")


async def until(condition: Callable[[], bool], clock: Any = None) -> None:
    """Wait (real time, for the sync process's answers) until ``condition`` holds, moving a fake clock along."""
    end = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < end, "the box never got there"
        if clock is not None:
            await clock.run_for(0.1)
        await asyncio.sleep(0.01)


async def play(daemon: Any, clock: Any, auto: Autoplayer, count: int) -> None:
    for _ in range(count):
        await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)


async def a_pirates_game(daemon: Any, clock: Any, count: int) -> Autoplayer:
    """A two-player Pirate & Co. game begun on the box and played ``count`` actions in, every one of them durable."""
    daemon.box.new_game("pirates", 2)
    auto = Autoplayer(daemon.box, 3)
    await play(daemon, clock, auto, count)
    await daemon.durable()
    return auto


def accepted(lines: list[str]) -> list[int]:
    return [int(line.split()[1]) for line in lines if line.startswith("accepted ")]


def errors(caplog: Any) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]


# -- 1. one box per state directory ------------------------------------------------------------
def test_a_second_box_on_the_same_state_directory_stops_at_once_naming_the_first(tmp_path: Path) -> None:
    first = gamebox("run", "--state-dir", str(tmp_path), "--profile", "sim", stdin=subprocess.PIPE)
    try:
        read_line_until(first, "ready")
        for args in (["run"], ["enroll", "pirates"], ["tags", "write", "pirates"]):
            second = gamebox(*args, "--state-dir", str(tmp_path), "--profile", "sim", stdin=subprocess.DEVNULL)
            out, err = second.communicate(timeout=PATIENCE)
            assert second.returncode != 0, f"{args}: a second writer ran beside the box"
            assert b"ready" not in out
            assert err.decode().strip().splitlines() == [
                f"gamebox: state directory {tmp_path} is in use by another gamebox (pid {first.pid}, gamebox run); "
                "only one box may use it: stop that one first"]
        assert main(["status", "--state-dir", str(tmp_path)]) == 0, "a read-only command needs no lock"
    finally:
        first.stdin.close()
        first.wait(timeout=PATIENCE)
    assert first.returncode == 0
    again = gamebox("run", "--state-dir", str(tmp_path), "--profile", "sim", stdin=subprocess.DEVNULL)
    out, _err = again.communicate(timeout=PATIENCE)
    assert again.returncode == 0 and b"ready" in out, "the lock goes with the box that held it"


# -- 2. the state directory deleted mid-game ---------------------------------------------------
def test_nothing_is_acknowledged_into_a_deleted_state_directory_and_play_resumes_when_it_is_back(
        tmp_path: Path, caplog) -> None:
    state = tmp_path / "state"

    async def scenario() -> None:
        daemon, task, clock, lines = await started(state)
        auto = await a_pirates_game(daemon, clock, 5)
        assert accepted(lines)[-1] == 4
        shutil.rmtree(state)  # rm -rf, a card pulled, a mount gone
        await play(daemon, clock, auto, 1)
        await until(lambda: daemon.storage_fault is not None)
        assert accepted(lines)[-1] == 4, "an action was acknowledged into a file with no name"
        before = daemon.box.engine.to_json()
        await play(daemon, clock, auto, 1)
        assert daemon.box.engine.to_json() == before, "play went on while nothing could be acknowledged"
        state.mkdir()  # the folder is back (a new, empty one)
        await until(lambda: daemon.storage_fault is None, clock)
        await daemon.durable()
        assert accepted(lines)[-1] == 5
        await play(daemon, clock, auto, 2)
        await daemon.durable()
        assert accepted(lines)[-1] == 7
        reference = daemon.box.engine.to_json()
        await stopped(daemon, task)
        journal = Journal(state / "journal.sqlite", read_only=True)
        record = journal.latest()
        replayed = engine_class(record.game).replay(record.players, record.options, journal.actions(record.id))
        assert replayed.to_json() == reference, "the journal the next start reads is not the game acknowledged"

    asyncio.run(scenario())
    assert any("the journal's file is gone" in line for line in errors(caplog))


def test_a_state_directory_whose_mount_is_gone_is_never_written_underneath(tmp_path: Path) -> None:
    """A mount gone leaves its empty mount point on the file system below: a journal written there would be hidden
    by the mount at the next boot, so the box keeps refusing instead."""
    with small_disk(tmp_path / "card", 4096) as card:

        async def scenario() -> None:
            daemon, task, clock, lines = await started(card)
            auto = await a_pirates_game(daemon, clock, 3)
            subprocess.run(["umount", "-l", str(card)], check=True)  # the card pulled out
            await play(daemon, clock, auto, 1)
            await until(lambda: daemon.storage_fault is not None)
            for _ in range(5):  # five more tries: the mount point is there, but on another file system
                await clock.run_for(1.1)
                await asyncio.sleep(0.05)
            assert daemon.storage_fault is not None and accepted(lines)[-1] == 2
            await stopped(daemon, task)
            assert list(card.iterdir()) == [], "the box wrote into the empty mount point"

        asyncio.run(scenario())


# -- 3. a gap in the action numbers -------------------------------------------------------------
def test_a_gap_in_the_action_numbers_resumes_at_the_last_good_action(tmp_path: Path, caplog) -> None:
    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path)
        daemon.box.new_game("pirates", 2)
        await play(daemon, clock, Autoplayer(daemon.box, 3), 12)
        await daemon.durable()
        log = list(daemon.box.engine.log)
        await stopped(daemon, task)
        db = sqlite3.connect(tmp_path / "journal.sqlite")
        db.execute("DELETE FROM actions WHERE game_id=1 AND seq=7")  # a damaged row
        db.commit()
        db.close()

        daemon, task, clock, lines = await started(tmp_path)
        good = engine_class("pirates").replay(2, daemon.box.engine.options, log[:7])
        assert daemon.box.engine.to_json() == good.to_json()
        assert f"resumed 1 7 {hashlib.sha1(good.to_json().encode()).hexdigest()}" in lines
        assert "journal_lost" in [name for _t, kind, name in daemon.stage.transcript if kind == "show"]
        auto = Autoplayer(daemon.box, 3)
        auto.taken_back({})  # the players' cards as the resumed referee has them
        await play(daemon, clock, auto, 2)
        await daemon.durable()
        assert accepted(lines) == [7, 8], "the next action's number does not follow the last good one"
        await stopped(daemon, task)

    asyncio.run(scenario())
    assert any("action numbers jump from 6 to 8: the game resumes at action 7" in e for e in errors(caplog))
    assert not [e for e in errors(caplog) if "already used" in e]


# -- 4. a write-ahead log cut short, emptied or deleted -----------------------------------------
def power_cut_copy(tmp_path: Path, actions: int) -> tuple[Path, list[dict[str, Any]]]:
    """A box that acknowledged ``actions`` actions, its files copied as they lie at that moment (a power cut)."""
    state, cut = tmp_path / "box", tmp_path / "cut"

    async def scenario() -> list[dict[str, Any]]:
        daemon, task, clock, lines = await started(state)
        daemon.box.new_game("pirates", 2)
        await play(daemon, clock, Autoplayer(daemon.box, 3), actions)
        await daemon.durable()
        assert accepted(lines)[-1] == actions - 1
        shutil.copytree(state, cut)
        log = list(daemon.box.engine.log)
        await stopped(daemon, task)
        return log

    log = asyncio.run(scenario())
    for name in ("gamebox.lock", "journal.sqlite-shm"):
        (cut / name).unlink(missing_ok=True)
    assert (cut / "journal.sqlite-wal").stat().st_size > 0, "the acknowledged actions are in the log"
    return cut, log


def kept_actions(state: Path) -> int:
    """What SQLite itself recovers from the files (on a copy, so the files under test are not touched)."""
    probe = state.with_name(state.name + "-probe")
    shutil.copytree(state, probe)
    db = sqlite3.connect(probe / "journal.sqlite")
    try:
        return db.execute("SELECT count(*) FROM actions").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        db.close()
        shutil.rmtree(probe)


def start_after_the_cut(state: Path) -> tuple[list[str], list[str]]:
    async def scenario() -> tuple[list[str], list[str]]:
        daemon, task, clock, lines = await started(state)
        await clock.run_for(15)  # what the box says at start, said to its end
        shows = [name for _t, kind, name in daemon.stage.transcript if kind in ("show", "say")]
        await stopped(daemon, task)
        return lines, shows

    return asyncio.run(scenario())


def assert_loss_said_once(state: Path, caplog: Any, resumes_at: int, said: str) -> None:
    """The next start resumes game 1 at the last action the files kept, shows and logs the loss (one line,
    ``said``), and the start after it says nothing of it."""
    lines, shows = start_after_the_cut(state)
    assert f"resumed 1 {resumes_at} " in "\n".join(lines), "the box does not resume game 1 where the files end"
    assert "journal_lost" in shows and "moves-lost" in shows
    assert [e for e in errors(caplog) if "lost" in e] == [said]
    assert_not_said_again(state, caplog)


def assert_not_said_again(state: Path, caplog: Any) -> None:
    """A loss is said once: the next start says nothing of it."""
    caplog.clear()
    start_after_the_cut(state)
    assert not [e for e in errors(caplog) if "lost" in e], "a loss is said once, not at every start"


WAL_HEADER, WAL_FRAME = 32, 24 + 4096  # SQLite's write-ahead log: a header, then a frame header and a page a frame


def wal_frames(wal: Path) -> int:
    return (wal.stat().st_size - WAL_HEADER) // WAL_FRAME


def cut_wal(wal: Path, frames: int) -> None:
    """The log ends after its first ``frames`` frames, as a failing SD card leaves it."""
    os.truncate(wal, WAL_HEADER + frames * WAL_FRAME)


def test_a_write_ahead_log_cut_short_is_said_aloud_with_what_was_lost(tmp_path: Path, caplog) -> None:
    state, log = power_cut_copy(tmp_path, 40)
    wal = state / "journal.sqlite-wal"
    cut_wal(wal, wal_frames(wal) // 3)  # what a failing SD card does: the log simply ends early
    kept = kept_actions(state)
    assert 0 < kept < 40
    assert_loss_said_once(state, caplog, kept, f"journal {state}/journal.sqlite: the SD card lost the last {40 - kept} "
                          f"acknowledged actions: game 1 resumes at action {kept}")


def test_an_empty_or_missing_write_ahead_log_is_said_aloud_not_taken_for_another_program(
        tmp_path: Path, caplog) -> None:
    for how in ("empty", "missing"):
        caplog.clear()
        state, _log = power_cut_copy(tmp_path / how, 40)
        wal = state / "journal.sqlite-wal"
        if how == "empty":
            os.truncate(wal, 0)
        else:
            wal.unlink()
        kept = kept_actions(state)
        lines, shows = start_after_the_cut(state)
        said = [e for e in errors(caplog) if "lost" in e]
        assert len(said) == 1 and f"lost the last {40 - kept} acknowledged actions with its write-ahead log, " \
            f"which was {how}" in said[0], how
        assert "journal_lost" in shows and "moves-lost" in shows
        assert not [e for e in errors(caplog) if "not a gamebox journal" in e], how
        assert not list(state.glob("journal.sqlite.bad-*")), "an empty journal of ours is not another program's"


# -- 5. read-only commands --------------------------------------------------------------------
def leftovers(folder: Path, before: set[str]) -> set[str]:
    return {p.name for p in folder.iterdir()} - before


def test_status_reads_a_running_boxs_journal_on_a_full_disk_and_leaves_nothing(tmp_path: Path, capsys) -> None:
    with small_disk(tmp_path / "disk", 512) as disk:
        state = disk / "state"
        closed = Journal(state / "journal.sqlite")
        gid = closed.start_game("pirates", 2, {}, 0)
        closed.record(gid, 0, {"type": "start_card", "card": "red-pirate-2"})
        closed.close()  # a clean stop: no -wal, no -shm
        fill(disk)
        before = {p.name for p in state.iterdir()}
        assert main(["status", "--state-dir", str(state), "--json"]) == 0
        assert '"actions": 1' in capsys.readouterr().out
        assert main(["history", "--state-dir", str(state)]) == 0
        assert leftovers(state, before) == set(), "a read-only command left files behind"
        make_room(disk)
        running = Journal(state / "journal.sqlite")  # a box writing: its newest actions are only in its -wal
        for seq in range(1, 6):
            running.record(gid, seq, {"type": "draw", "player": seq % 2})
        fill(disk)
        assert main(["status", "--state-dir", str(state), "--json"]) == 0
        assert '"actions": 6' in capsys.readouterr().out, "status missed what the running box has in its -wal"
        running.close()


def test_status_on_a_read_only_mount_answers(tmp_path: Path, capsys) -> None:
    state = tmp_path / "state"
    journal = Journal(tmp_path / "box" / "journal.sqlite")
    journal.record(journal.start_game("pirates", 2, {}, 0), 0, {"type": "start_card", "card": "red-pirate-2"})
    state.mkdir()
    for name in ("journal.sqlite", "journal.sqlite-wal"):  # a power cut: the action is only in the -wal, no -shm
        shutil.copyfile(tmp_path / "box" / name, state / name)
    journal.close()
    with read_only(state):
        before = {p.name for p in state.iterdir()}
        assert main(["status", "--state-dir", str(state), "--json"]) == 0
        assert leftovers(state, before) == set()
    assert '"actions": 1' in capsys.readouterr().out


def test_status_on_a_damaged_page_is_one_line_not_a_traceback(tmp_path: Path, capsys) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    gid = journal.start_game("pirates", 2, {}, 0)
    for seq in range(300):
        journal.record(gid, seq, {"type": "draw", "player": seq % 2, "pad": "x" * 200})
    journal.close()
    with open(tmp_path / "journal.sqlite", "r+b") as file:  # the header of one b-tree page, damaged
        file.seek(2 * 4096 + 8)
        file.write(bytes(range(64)))
    for command in (["status"], ["status", "--json"]):
        assert main([*command, "--state-dir", str(tmp_path)]) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"gamebox: {tmp_path}/journal.sqlite: cannot read the journal")
    assert main(["history", "--state-dir", str(tmp_path)]) == 0  # the games' rows are not on the damaged page
    assert "(playing)" in capsys.readouterr().out


def test_a_journal_that_is_a_directory_is_named_so(tmp_path: Path, capsys) -> None:
    (tmp_path / "journal.sqlite").mkdir()
    for command in (["status"], ["history"], ["run"]):
        assert main([*command, "--state-dir", str(tmp_path)]) == 2, command
        assert capsys.readouterr().err == f"gamebox: {tmp_path}/journal.sqlite: the journal is a directory, not a file\n"


# -- 6. the right cause in every line --------------------------------------------------------------
def test_a_full_disk_at_start_says_so_and_leaves_no_registry_to_move_aside(tmp_path: Path, capsys) -> None:
    with small_disk(tmp_path / "disk", 256) as disk:
        state = disk / "state"
        state.mkdir()
        fill(disk)
        assert main(["run", "--state-dir", str(state), "--profile", "sim"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the disk is full: 0 bytes free" in err, err
        assert "disk I/O error" not in err
        assert not (state / "tags.sqlite").exists() and not (state / "journal.sqlite").exists()
        make_room(disk)
        registry = Registry(state / "tags.sqlite")
        assert registry.moved_aside is None
        registry.close()


def test_the_sync_process_ends_quietly_when_its_daemon_is_gone(tmp_path: Path) -> None:
    wal = tmp_path / "journal.sqlite-wal"
    wal.write_bytes(b"")
    child = subprocess.Popen([sys.executable, "-I", walsync.__file__, str(wal), "0"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the daemon was killed mid-sync: nobody reads the answer
    _out, err = child.communicate(b"sync 1 3\nsync 1 4\n", timeout=PATIENCE)
    assert err == b"", err.decode()
    assert child.returncode == 0


# -- a card waiting for its call after a restart ------------------------------------------------------
def test_after_a_restart_the_waiting_card_is_announced_and_a_re_tap_is_the_same_card(tmp_path: Path) -> None:
    box, _stage, clock = call_window_open(tmp_path)
    held, state = box.pending.action, box.engine.to_json()
    box.journal.close()  # the plug is pulled inside the call window
    stage = RecordingStage()
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), stage, clock)
    assert again.start() and again.engine.to_json() == state
    announced = ("call-waiting", {"seat": held["player"], "call": again.pending.call})
    assert stage.prompts[-1] == announced, "the resumed box does not say whose card waits for which call"
    cue = ShowBook.load().prompt(*announced)
    assert cue.say == (f"turn-{held['player'] + 1}", f"press-for-{again.pending.call}")
    call = again.pending.call
    clock.advance(1)
    again.tap("table", held["card"])  # the child taps the waiting card again
    assert again.engine.to_json() == state and "mau_penalty" not in stage.show_names, "a re-tap cost the penalty"
    assert again.pending is not None and stage.prompts[-1] == announced
    again.press("die")
    assert again.engine.log[-1] == dict(held, call=call) and "mau_penalty" not in stage.show_names


# -- the rest of issue 22 --------------------------------------------------------------------------------
def journal_with_a_gap(folder: Path, later_games: int = 0) -> Path:
    """Game 1 of 12 actions with its action 7 gone (a damaged row), then ``later_games`` games of 5 actions."""
    path = folder / "journal.sqlite"
    journal = Journal(path)
    record_game(journal, "pirates", 2, seed=3, actions=12)
    for seed in range(later_games):
        record_game(journal, "pirates", 2, seed=4 + seed, actions=5)
    journal.close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM actions WHERE game_id=1 AND seq=7")
    db.commit()
    db.close()
    return path


def test_status_on_a_gap_says_the_action_the_box_resumes_at_and_the_gap(tmp_path: Path, capsys) -> None:
    path = journal_with_a_gap(tmp_path)
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert main(["status", "--state-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    box = Journal(path)  # what the box resumes
    resumes_at = box.unfinished().actions
    box.close()
    assert resumes_at == 7 and status["actions"] == 7, "status counts rows the box does not replay"
    said = "game 1's action numbers jump from 6 to 8: the game resumes at action 7, the 4 actions after the gap are left out"
    assert status["gap"] == said
    assert [line for line in lines if "jump" in line] == [f"gap: {json.dumps(said)}"]


def test_history_counts_a_game_with_a_gap_up_to_the_action_the_box_resumes_at(tmp_path: Path, capsys) -> None:
    """``history`` reads without closing the gap (as ``status`` does): it must not count the 4 actions after it."""
    journal_with_a_gap(tmp_path, later_games=1)
    assert main(["history", "--state-dir", str(tmp_path)]) == 0
    counts = [int(line.split()[-1]) for line in capsys.readouterr().out.splitlines()[1:]]
    assert counts == [5, 7], "history counts rows the box does not replay"


def kept_per_game(state: Path) -> dict[int, int]:
    """What SQLite itself recovers of each game (on a copy, so the files under test are not touched)."""
    probe = state.with_name(state.name + "-probe")
    shutil.copytree(state, probe)
    db = sqlite3.connect(probe / "journal.sqlite")
    try:
        return dict(db.execute("SELECT game_id, count(*) FROM actions GROUP BY game_id").fetchall())
    finally:
        db.close()
        shutil.rmtree(probe)


def test_the_end_of_the_previous_game_lost_after_a_new_game_began_is_said_aloud(tmp_path: Path, caplog) -> None:
    """The acknowledged mark covers every game: a new game's mark must not hide that the game before it lost its
    last actions (a write-ahead log cut short holds the end of the one and the start of the other)."""
    state, cut = tmp_path / "box", tmp_path / "cut"

    async def scenario() -> None:
        daemon, task, clock, lines = await started(state)
        daemon.box.new_game("pirates", 2)
        await play(daemon, clock, Autoplayer(daemon.box, 3), 30)
        await daemon.durable()
        assert daemon.box.abandon_game() and daemon.box.new_game("pirates", 2)  # the new-game card
        await play(daemon, clock, Autoplayer(daemon.box, 4), 5)
        await daemon.durable()
        assert accepted(lines)[-1] == 4 and daemon.box.game_id == 2
        shutil.copytree(state, cut)  # the power goes
        await stopped(daemon, task)

    asyncio.run(scenario())
    (cut / "journal.sqlite-shm").unlink(missing_ok=True)
    wal = cut / "journal.sqlite-wal"
    cut_wal(wal, wal_frames(wal) // 2)  # the log ends early: in game 1's last actions
    kept = kept_per_game(cut)
    assert 0 < kept.get(1, 0) < 30 and kept.get(2, 0) == 0, kept
    assert_loss_said_once(  # game 1 resumes: its abandonment was lost too
        cut, caplog, kept[1], f"journal {cut}/journal.sqlite: the SD card lost the last {35 - kept[1]} acknowledged "
        f"actions ({30 - kept[1]} of the games before game 2, 5 of game 2): game 2 is gone, game 1 resumes at action "
        f"{kept[1]}")


def test_a_card_enrolled_after_the_state_directory_was_deleted_is_known_to_the_running_box(
        tmp_path: Path, caplog) -> None:
    """The tag registry follows its name as the journal does: gone is said once and shown, and once the folder is
    back (here with a new registry an ``enroll`` made there) the running box reads the file at the path again."""
    state = tmp_path / "state"
    old, new = b"\x04\x01\x02\x03\x04\x05\x06", b"\x04\x0a\x0b\x0c\x0d\x0e\x0f"
    registry = Registry(state / "tags.sqlite")
    registry.enroll(old, "red-pirate-2")
    registry.close()

    async def scenario() -> None:
        daemon, task, clock, _lines = await started(state)
        reader = next(iter(daemon.devices.readers.values()))

        async def tap(uid: bytes) -> str:
            """What the box shows for the tag: ``not_now`` for a known card (no game yet), ``unknown_card``..."""
            count = len(daemon.stage.transcript)
            reader.tap(uid)
            await clock.run_for(0.3)
            reader.remove()
            await clock.run_for(5)  # past the tap filter's window: the same card again is a new tap
            return [name for _t, kind, name in daemon.stage.transcript[count:] if kind == "show"][0]

        assert await tap(old) == "not_now"
        shutil.rmtree(state)  # rm -rf, a card pulled
        assert await tap(old) == "device_fault"
        assert await tap(old) == "not_now", "the cards enrolled so far are still known meanwhile"
        state.mkdir()
        enrolled = Registry(state / "tags.sqlite")  # `gamebox enroll` in the folder that is back
        enrolled.enroll(new, "yellow-pirate-7")
        enrolled.close()
        assert await tap(new) == "not_now", "a card enrolled after the folder came back is unknown to the box"
        assert await tap(old) == "not_now"
        await stopped(daemon, task)

    asyncio.run(scenario())
    said = [e for e in errors(caplog) if "tags.sqlite" in e]
    assert len(said) == 1 and "the tag registry's file is gone" in said[0], said
    kept = Registry(state / "tags.sqlite")
    assert (kept.resolve(old), kept.resolve(new)) == ("red-pirate-2", "yellow-pirate-7"), "the registry at the path"
    kept.close()


def test_enrolling_into_a_registry_whose_folder_is_gone_is_refused_until_it_is_back(tmp_path: Path) -> None:
    state = tmp_path / "state"
    registry = Registry(state / "tags.sqlite")
    registry.enroll(b"\x04\x01", "red-pirate-2")
    shutil.rmtree(state)
    for _ in range(2):  # said every time: an enrolment written into a file with no name would be lost
        with pytest.raises(RegistryError, match="folder is gone|file is gone"):
            registry.enroll(b"\x04\x02", "red-pirate-3")
    state.mkdir()
    registry.enroll(b"\x04\x02", "red-pirate-3")
    registry.close()
    kept = Registry(state / "tags.sqlite")
    assert (kept.resolve(b"\x04\x01"), kept.resolve(b"\x04\x02")) == ("red-pirate-2", "red-pirate-3")
    kept.close()


def test_the_kiosk_display_answers_on_a_full_disk_and_a_read_only_mount_and_leaves_nothing(tmp_path: Path) -> None:
    """A box's files as a power cut left them (its last actions only in the -wal, no -shm): the display reads them
    as status does, where SQLite's own read-only connection would have to make a -shm."""
    pygame.font.init()
    box = tmp_path / "box"
    journal = Journal(box / "journal.sqlite")
    record_game(journal, "pirates", 2, seed=3, actions=6)
    power_cut = {name: (box / name).read_bytes() for name in ("journal.sqlite", "journal.sqlite-wal")}
    journal.close()

    def shows_the_game(state: Path) -> None:
        before = {p.name for p in state.iterdir()}
        app = DisplayApp(state / "journal.sqlite", OffScreen())
        try:
            assert app.check() and app.refresh()
            view = app.view()
            assert view.game == "pirates" and view.answer == "game 1  ·  6 actions", view.answer
            assert not app.check(), "nothing new: no second read"
        finally:
            app.close()
        assert leftovers(state, before) == set(), "the display left files behind"

    with small_disk(tmp_path / "disk", 512) as disk:
        for name, data in power_cut.items():
            (disk / name).write_bytes(data)
        fill(disk)
        shows_the_game(disk)
    state = tmp_path / "ro"
    state.mkdir()
    for name, data in power_cut.items():
        (state / name).write_bytes(data)
    with read_only(state):
        shows_the_game(state)


def test_a_second_read_of_the_journal_checks_only_what_was_added_and_sees_what_a_fresh_read_sees(
        tmp_path: Path) -> None:
    """The display reads the journal again after each commit of the box; what it sees must be what ``status`` sees,
    through appended frames, a checkpoint, a log that restarted from its start and one cut short."""
    path = tmp_path / "journal.sqlite"
    writer = Journal(path)
    game_id = writer.start_game("pirates", 2, {}, 0)
    display = Journal(path, read_only=True)
    seq = 0

    def both_see(count: int | None = None) -> int:
        """The actions the display, read again, and a fresh read both see (``count`` when given)."""
        display.reread()
        fresh = Journal(path, read_only=True)
        seen = len(fresh.actions(game_id))
        fresh.close()
        assert len(display.actions(game_id)) == seen and seen == (count if count is not None else seen)
        return seen

    for step in ("appended", "checkpointed", "restarted"):
        for _ in range(20):
            writer.record(game_id, seq, {"type": "draw", "player": seq % 2, "pad": "x" * 300})
            seq += 1
        both_see(seq)
        if step == "appended":
            writer.checkpoint(force=True)  # the log's frames are copied into the file: the next write restarts it
    wal = tmp_path / "journal.sqlite-wal"
    kept = wal.read_bytes()
    cut_wal(wal, 10)  # the log cut short under the reader (a failing card, read again)
    assert 20 < both_see() < seq
    wal.write_bytes(kept)
    both_see(seq)
    writer.close()  # a clean stop folds the log in and removes it
    assert not wal.exists()
    both_see(seq)
    display.close()

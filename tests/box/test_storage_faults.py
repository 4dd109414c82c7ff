"""Storage faults during play and at start, through the running daemon (issue 11, issue 10's fsync).

Each fault is a real one where the machine allows: a tmpfs filled to the
last byte, a read-only mount, bytes overwritten in a file; an fsync that
fails or hangs is the journal's injectable fsync, as an SD card's would.
No acknowledged action is lost, the referee never runs ahead of its
journal, and nothing ends in a traceback.
"""

from __future__ import annotations

import asyncio
import io
import os
import threading
import tracemalloc
from pathlib import Path
from typing import Any

from controller.autoplay import Autoplayer, perform
from controller.box.tags import Registry
from controller.cli import main
from controller.config import load_config
from controller.daemon import Daemon
from controller.games import engine_class
from controller.siminput import MAX_LINE, SimInput, card_uid, lines_of
from controller.storage.journal import Journal
from hardware.clock import FakeClock
from tests.box.daemon_helpers import stopped
from tests.box.storage_faults import corrupt, fill, make_room, read_only, small_disk


async def start(state: Path, fsync: Any = None) -> tuple[Daemon, asyncio.Task, FakeClock, list[str]]:
    clock, lines = FakeClock(1000.0), []
    config = load_config(None, state_dir=str(state), seed=1)
    extra = {"fsync": fsync} if fsync is not None else {}
    daemon = Daemon(config, clock=clock, stdin=False, out=lines.append, notify=lambda _m: None, **extra)
    task = asyncio.create_task(daemon.run())
    await daemon.ready.wait()
    return daemon, task, clock, lines


def faults(daemon: Daemon) -> int:
    return sum(1 for _t, kind, name in daemon.stage.transcript if (kind, name) == ("show", "device_fault"))


def last_accepted(lines: list[str]) -> int:
    return [int(line.split()[1]) for line in lines if line.startswith("accepted ")][-1]


def journalled(state: Path) -> str:
    """The newest game as its journal replays it: what a restart would resume."""
    journal = Journal(state / "journal.sqlite", read_only=True)
    record = journal.latest()
    engine = engine_class(record.game).replay(record.players, record.options, journal.actions(record.id))
    journal.close()
    return engine.to_json()


async def tap(daemon: Daemon, clock: FakeClock, card: str) -> None:
    reader = daemon.devices.readers["table"]
    reader.tap(card_uid(card), card)
    await clock.run_for(0.3)
    reader.remove()
    await clock.run_for(0.3)


def test_the_show_never_waits_for_fsync_and_accepted_waits_for_it(tmp_path: Path) -> None:
    """Issue 10: an SD card's slow fsync must not delay the answer; "accepted N" still means on the disk."""
    gate = threading.Event()

    def slow_fsync(_fd: int) -> None:
        gate.wait(10)

    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path, slow_fsync)
        daemon.box.new_game("pirates", 2)
        shows = len(daemon.stage.transcript)
        await tap(daemon, clock, "red-pirate-2")
        assert len(daemon.box.engine.log) == 1
        assert ("show", "accepted") in [(k, n) for _t, k, n in daemon.stage.transcript[shows:]]
        assert "accepted 0" not in lines, "acknowledged before the fsync returned"
        gate.set()
        await daemon.durable()
        assert last_accepted(lines) == 0
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_a_failing_fsync_pauses_play_until_the_disk_works_again(tmp_path: Path, caplog) -> None:
    broken = threading.Event()

    def fsync(fd: int) -> None:
        if broken.is_set():
            raise OSError(5, "Input/output error")

    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path, fsync)
        daemon.box.new_game("pirates", 2)
        auto = Autoplayer(daemon.box, 3)
        await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
        await daemon.durable()
        broken.set()
        await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
        await asyncio.sleep(0.05)  # the disk worker's answer
        await clock.run_for(0.1)
        assert daemon.storage_fault is not None and faults(daemon) >= 1
        assert "accepted 1" not in lines
        state = daemon.box.engine.to_json()
        await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
        assert daemon.box.engine.to_json() == state, "play went on while nothing could be made durable"
        broken.clear()
        await clock.run_for(1.5)
        await daemon.durable()
        assert daemon.storage_fault is None and "accepted 1" in lines
        await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
        await daemon.durable()
        assert last_accepted(lines) == 2
        assert journalled(tmp_path) == daemon.box.engine.to_json()
        await stopped(daemon, task)

    asyncio.run(scenario())
    lines = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("journal.sqlite-wal: fsync failed: Input/output error" in line for line in lines)


def test_a_full_disk_during_play_leaves_the_referee_with_its_journal(tmp_path: Path) -> None:
    """Finding 1 on a real full filesystem: the refused action is not played, play resumes once there is room."""
    with small_disk(tmp_path / "disk", 384) as disk:

        async def scenario() -> None:
            daemon, task, clock, lines = await start(disk)
            box = daemon.box
            box.new_game("floppy-ears", 2)
            auto = Autoplayer(box, 7)
            for _ in range(4):
                await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
            await daemon.durable()
            fill(disk)
            refused = False
            for _ in range(400):
                before, count = box.engine.to_json(), len(box.engine.log)
                await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
                if len(box.engine.log) == count and faults(daemon):
                    assert box.engine.to_json() == before
                    refused = True
                    break
            assert refused, "the disk never filled"
            await daemon.durable()
            assert journalled(disk) == box.engine.to_json(), "the referee ran ahead of its journal"
            acked = last_accepted(lines)
            make_room(disk)
            for _ in range(3):
                await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
            await daemon.durable()
            assert last_accepted(lines) > acked
            assert journalled(disk) == box.engine.to_json()
            await stopped(daemon, task)

        asyncio.run(scenario())


def test_a_damaged_write_ahead_log_at_start_is_a_fault_show_and_a_log_line(tmp_path: Path, caplog) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    gid = journal.start_game("pirates", 2, {}, 0)
    journal.record(gid, 0, {"type": "start_card", "card": "red-pirate-2"})
    for seq in range(1, 30):
        journal.record(gid, seq, {"type": "draw", "player": seq % 2} if seq % 2 else {"type": "pass", "player": 0})
    wal = (tmp_path / "journal.sqlite-wal").read_bytes()
    journal.db.close()  # a kill: no checkpoint
    damaged = bytearray(wal)
    damaged[32 + 25 * (24 + 4096) + 24 + 100] ^= 0x55
    (tmp_path / "journal.sqlite-wal").write_bytes(bytes(damaged))

    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path)
        assert faults(daemon) == 1
        await stopped(daemon, task)

    asyncio.run(scenario())
    assert [r.getMessage() for r in caplog.records if "write-ahead log is damaged" in r.getMessage()]


def test_a_corrupt_tag_registry_is_moved_aside_and_the_box_starts(tmp_path: Path) -> None:
    """Finding 4: no recovery at all before; now like the journal (the cards are enrolled again)."""
    registry = Registry(tmp_path / "tags.sqlite")
    for n in range(200):
        registry.enroll(f"04aa{n:04x}", "red-pirate-1" if n == 0 else "red-pirate-2")
    registry.close()
    corrupt(tmp_path / "tags.sqlite")

    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path)
        assert daemon.registry.moved_aside is not None
        assert daemon.registry.resolve("04aa0000") is None
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_a_read_only_state_dir_at_start_is_one_line_for_run(tmp_path: Path, capsys) -> None:
    state = tmp_path / "state"
    Registry(state / "tags.sqlite").close()
    with read_only(state):
        assert main(["run", "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err
    # issue 22: a read-only mount (what root meets) is named as one, not as permissions
    cause = "is on a read-only file system" if os.geteuid() == 0 else "not writable by this user"
    assert err.count("\n") == 1 and cause in err and not list(state.glob("*.bad-*"))


def test_a_tag_registry_that_cannot_be_read_during_play_is_a_fault_not_a_crash(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path)
        daemon.box.new_game("pirates", 2)
        daemon.registry.db.close()  # every read now fails, as on a card pulled out
        await tap(daemon, clock, "04bbccddeeff00")
        assert faults(daemon) == 1 and not task.done()
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_invalid_utf8_and_overlong_lines_are_refused_one_by_one(tmp_path: Path) -> None:
    """Finding 6: a bad byte or a 50 MB line costs its own line only, and is never held in memory."""

    class Endless(io.RawIOBase):
        """50 MB without a newline, then one good line."""

        def __init__(self) -> None:
            self.left = 50_000_000
            self.tail = b"\ntap red-pirate-2\n"

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            if self.left:
                n = min(len(buffer), self.left)
                buffer[:n] = b"x" * n
                self.left -= n
                return n
            n = min(len(buffer), len(self.tail))
            buffer[:n], self.tail = self.tail[:n], self.tail[n:]
            return n

    tracemalloc.start()
    got = list(lines_of(io.BufferedReader(Endless())))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [str(g) for g in got] == [f"line of 50000000 bytes refused (at most {MAX_LINE})", "tap red-pirate-2"]
    assert peak < 2_000_000

    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path)
        stream = io.BytesIO(b"tap control-game-pirates\npress \xff\xfe\ntap control-players-2\n")
        await SimInput(daemon.devices, clock, lines.append).read(stream)
        await clock.run_for(1)
        assert [line for line in lines if line.startswith("error")] == [
            "error: line refused: not UTF-8 (invalid start byte at byte 6)"]
        assert daemon.box.engine is not None and daemon.box.engine.players == 2
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_an_unknown_game_or_player_count_in_the_journal_is_set_aside_at_start(tmp_path: Path, capsys) -> None:
    """Finding 4: ``run`` used to crash (a restart loop under systemd); now the game is set aside with a note."""
    journal = Journal(tmp_path / "journal.sqlite")
    journal.record(journal.start_game("pirates", 2, {}, 0), 0, {"type": "start_card", "card": "red-pirate-2"},
                   winners=[])
    chess = journal.start_game("pirates", 2, {}, 0)
    journal.db.execute("UPDATE games SET game='chess', players=9 WHERE id=?", (chess,))
    journal.close()
    assert main(["status", "--state-dir", str(tmp_path)]) == 0
    assert "problem: \"game 2 cannot be replayed" in capsys.readouterr().out

    async def scenario() -> None:
        daemon, task, clock, lines = await start(tmp_path)
        assert daemon.box.engine is None and not [line for line in lines if line.startswith("resumed")]
        await stopped(daemon, task)

    asyncio.run(scenario())
    after = Journal(tmp_path / "journal.sqlite", read_only=True)
    assert after.game(chess).abandoned and "does not replay" in after.game(chess).problem
    assert after.game(1).winners == []

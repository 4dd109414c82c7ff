"""``gamebox doctor`` names the box's storage: a full disk, a read-only one, a damaged journal (issue 11, finding 1).

Each is real where the machine allows (a tmpfs filled to the last byte, a
read-only mount, bytes overwritten in the journal), checked through the
command a person types, and doctor itself changes nothing on the disk.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from controller.cli import main
from controller.storage.journal import Journal
import hardware.doctor
from tests.box.storage_faults import corrupt, fill, read_only, small_disk


@pytest.fixture(autouse=True)
def no_settling(monkeypatch):
    """Doctor watches for presses for a second; these tests look only at storage."""
    monkeypatch.setattr(hardware.doctor, "run_doctor", functools.partial(hardware.doctor.run_doctor, settle=0))


def doctor(state: Path, capsys) -> tuple[int, dict[str, list[str]], list[str]]:
    code = main(["doctor", "--state-dir", str(state)])
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split(None, 3) for line in lines if line.startswith(("storage ", "journal "))}
    return code, rows, lines


def journal_with_a_game(state: Path) -> Path:
    journal = Journal(state / "journal.sqlite")
    journal.record(journal.start_game("pirates", 2, {}, 0), 0, {"type": "roll", "player": 0})
    journal.close()
    return state / "journal.sqlite"


def test_a_healthy_state_directory_and_journal_are_ok(tmp_path, capsys):
    code, rows, lines = doctor(tmp_path / "state", capsys)
    assert code == 0
    assert rows["storage"][2] == "ok" and "writable" in rows["storage"][3] and "made at first start" in rows["storage"][3]
    assert rows["journal"][2:] == ["ok", f"{tmp_path}/state/journal.sqlite: none yet, made at first start"]
    assert not (tmp_path / "state").exists()  # doctor makes nothing

    journal_with_a_game(tmp_path / "state")
    code, rows, lines = doctor(tmp_path / "state", capsys)
    assert code == 0
    assert rows["storage"][3].startswith(f"{tmp_path}/state on ")
    assert rows["journal"][2:] == ["ok", f"{tmp_path}/state/journal.sqlite: quick_check ok, 1 game"]
    assert lines[-1] == "All devices work."


def test_a_full_disk_is_a_fault_with_the_mount_to_free(tmp_path, capsys):
    with small_disk(tmp_path / "disk", 1024) as disk:
        state = disk / "state"
        journal_with_a_game(state)
        fill(disk)
        before = sorted(p.name for p in state.iterdir())
        code, rows, lines = doctor(state, capsys)
        after = sorted(p.name for p in state.iterdir())
    assert code == 1
    device, driver, status, detail = rows["storage"]
    assert (driver, status) == ("tmpfs", "FAULT")
    assert detail == f"{state} on {disk} (tmpfs): only 0 kB free (needs 5 MB)"
    assert f"fix storage: free space on {disk}" in lines
    # the journal is still read (issue 22: no -shm needed), and nothing was left beside it
    assert rows["journal"][2:] == ["ok", f"{state}/journal.sqlite: quick_check ok, 1 game"]
    assert after == before


def test_a_read_only_state_directory_is_a_fault_and_its_journal_is_still_read(tmp_path, capsys):
    state = tmp_path / "state"
    journal_with_a_game(state)
    with read_only(state):
        code, rows, lines = doctor(state, capsys)
    assert code == 1
    assert rows["storage"][2] == "FAULT"
    assert "read-only filesystem" in rows["storage"][3] or "not writable by this user" in rows["storage"][3]
    assert any(line.startswith("fix storage: ") for line in lines)
    assert rows["journal"][2:] == ["ok", f"{state}/journal.sqlite: quick_check ok, 1 game"]


def test_a_damaged_journal_is_a_fault_and_is_left_where_it_is(tmp_path, capsys):
    path = journal_with_a_game(tmp_path)
    for _ in range(20):  # pages beyond the first, for corrupt() to overwrite
        journal = Journal(path)
        journal.record(journal.start_game("pirates", 2, {}, 0), 0, {"type": "roll", "note": "x" * 4000})
        journal.close()
    corrupt(path)
    damaged = path.read_bytes()
    code, rows, lines = doctor(tmp_path, capsys)
    assert code == 1
    assert rows["storage"][2] == "ok"
    assert rows["journal"][2] == "FAULT" and "damaged" in rows["journal"][3]
    assert "fix journal: start the box (gamebox run): it sets a damaged journal aside and starts a new one" in lines
    assert path.read_bytes() == damaged and not list(tmp_path.glob("*.bad-*"))  # not repaired, not moved aside


def test_a_file_that_is_no_journal_is_a_fault(tmp_path, capsys):
    (tmp_path / "journal.sqlite").write_bytes(b"not a database, a photo of a cat" * 100)
    code, rows, lines = doctor(tmp_path, capsys)
    assert code == 1
    assert rows["journal"][2] == "FAULT" and "file is not a database" in rows["journal"][3]


def test_an_unwritable_state_folder_is_fixed_in_that_folder_never_above_it(tmp_path, capsys, monkeypatch):
    """Issue 19: doctor without the service's state directory advised `sudo chown -R $USER /var/lib`."""
    import controller.storage.diskcheck as diskcheck

    monkeypatch.setattr(diskcheck.os, "access", lambda path, mode: False)  # as a user who may not write here
    state = tmp_path / "lib" / "gamebox"
    (tmp_path / "lib").mkdir()
    _code, _rows, lines = doctor(state, capsys)
    fix = next(line for line in lines if line.startswith("fix storage:"))
    assert fix == f"fix storage: make it for this user: sudo install -d -o $USER {state}"
    state.mkdir()
    _code, _rows, lines = doctor(state, capsys)
    assert f"sudo chown -R $USER {state}" in next(line for line in lines if line.startswith("fix storage:"))
    for system_folder in ("/var/lib", "/var", "/"):
        assert "chown" not in diskcheck._ownership_fix(Path(system_folder))


def test_another_box_s_journal_and_a_newer_one_are_faults_with_their_fix(tmp_path, capsys):
    """Issue 32: a start refuses a journal another box made, or a newer gamebox wrote; doctor says so before it."""
    import shutil
    import sqlite3

    from controller.storage.boxid import box_id
    from controller.storage.journalfile import SCHEMA_VERSION, journal_owner

    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir()
    box_id(mine)
    journal_with_a_game(theirs)
    box_id(theirs, None)
    shutil.copyfile(theirs / "journal.sqlite", mine / "journal.sqlite")  # another box's card contents copied over
    code, rows, lines = doctor(mine, capsys)
    assert code != 0 and rows["journal"][2] == "FAULT"
    assert f"another box's journal (made by box {box_id(theirs)}; this box is {box_id(mine)})" in rows["journal"][3]
    assert any("copy that box's box-id file along with it" in line for line in lines)
    assert journal_owner(mine / "journal.sqlite") == box_id(theirs), "doctor changed nothing"
    db = sqlite3.connect(theirs / "journal.sqlite")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    code, rows, lines = doctor(theirs, capsys)
    assert code != 0 and rows["journal"][2] == "FAULT" and "newer gamebox" in rows["journal"][3]
    assert any("update gamebox" in line for line in lines)

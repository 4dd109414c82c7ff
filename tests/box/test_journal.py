"""The SQLite journal: durable, resumable, and never overwriting a file it does not own (issue 4)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.cli import main
from controller.journal import Journal


def test_journal_is_write_ahead_and_synchronous_full(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_an_action_is_on_disk_when_record_returns(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    gid = journal.start_game("pirates", 3, {"wins_needed": 2}, seed=42)
    journal.record(gid, 0, {"type": "start_card", "card": "red-pirate-2"})
    # a second connection, as after a power cut, sees it without any close or checkpoint
    other = Journal(tmp_path / "j.sqlite")
    assert other.actions(gid) == [{"type": "start_card", "card": "red-pirate-2"}]
    assert other.unfinished().seed == 42 and other.unfinished().options == {"wins_needed": 2}


def test_a_new_game_abandons_the_unfinished_one(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    first = journal.start_game("pirates", 2, {}, 1)
    second = journal.start_game("policecats", 3, {}, 2)
    assert journal.unfinished().id == second
    assert journal.game(first).abandoned


def test_a_corrupt_file_is_moved_aside_with_one_log_line(tmp_path: Path, caplog) -> None:
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    journal = Journal(path)
    assert journal.moved_aside is not None and journal.moved_aside.read_bytes().startswith(b"this is not")
    assert journal.latest() is None
    lines = [r for r in caplog.records if "moved aside" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0].getMessage()


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


def test_history_lists_date_game_players_winner_duration_actions(tmp_path: Path, capsys) -> None:
    clock = iter([1_700_000_000.0 + 60 * n for n in range(100)])
    journal = Journal(tmp_path / "journal.sqlite", wall=lambda: next(clock))
    gid = journal.start_game("floppy-ears", 3, {}, 0)
    for seq in range(4):
        journal.record(gid, seq, {"type": "draw", "player": 0})
    journal.finish(gid, [2])
    journal.start_game("pirates", 2, {}, 0)
    journal.close()
    assert main(["history", "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["date", "game", "players", "winner", "duration", "actions"]
    assert out[1].split()[2:] == ["pirates", "2", "(playing)", "-", "0"]
    assert out[2].split()[2:] == ["floppy-ears", "3", "seat", "3", "5:00", "4"]


def test_status_prints_the_scenario_keys_of_the_current_game(tmp_path: Path, capsys) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    gid = journal.start_game("pirates", 2, {}, 0)
    journal.record(gid, 0, {"type": "start_card", "card": "red-pirate-2"})
    journal.close()
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    import json

    status = json.loads(capsys.readouterr().out)
    assert status["game"] == "pirates" and status["top"] == "red-pirate-2" and status["awaiting"] == "play"
    assert status["hand_sizes"] == [5, 5] and status["current"] == 0


def test_status_without_any_game_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["status", "--state-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "gamebox: no game in the journal yet\n"

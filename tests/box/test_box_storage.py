"""An action counts once it is in the journal (issue 11 item 1), played through the box on real SQLite.

The disk fills up through SQLite's own limit (``PRAGMA max_page_count``):
the write fails inside SQLite exactly as on a full SD card ("database or
disk is full").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.box.box import Box
from controller.box.tags import Registry
from controller.storage.journal import Journal
from tests.box.helpers import RecordingStage, make_box


def fill_the_disk(box: Box) -> None:
    """No page more for the journal, and every table's last page filled to the brim."""
    db = box.journal.db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    fillers = (
        "INSERT INTO settings (key, value) VALUES ('fill' || ?, ?)",
        "INSERT INTO actions (game_id, seq, action, at) VALUES (-1, ?, ?, 0)",
        "INSERT INTO games (game, players, options, seed, started, ended) VALUES (? || ?, 0, '{}', 0, 0, 0)",
    )
    n = 0
    for sql in fillers:
        for size in (400, 100, 20, 1):
            while True:
                n += 1
                try:
                    db.execute(sql, (n, "x" * size))
                except sqlite3.OperationalError:
                    break


def free_the_disk(box: Box) -> None:
    box.journal.db.execute("PRAGMA max_page_count = 1073741823")


def test_a_play_the_journal_cannot_write_changes_nothing_and_play_resumes_later(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    box.new_game("pirates", 2)
    heard: list[dict] = []
    box.listeners.append(lambda action, _outcome: heard.append(action))
    box.tap("table", "red-pirate-2")
    state, journalled = box.engine.to_json(), box.journal.game(box.game_id).actions
    fill_the_disk(box)
    for card in ("red-pirate-5", "red-pirate-6", "red-pirate-7"):
        clock.advance(3)
        box.tap("table", card)
    assert box.engine.to_json() == state, "the referee is left as it was"
    assert box.journal.game(box.game_id).actions == journalled and box.seq == journalled
    assert heard == [{"type": "start_card", "card": "red-pirate-2"}], "no listener heard of the failed plays"
    assert stage.shows[-1] == ("device_fault", {"device": "journal"}) and box.storage_fault
    free_the_disk(box)
    clock.advance(3)
    box.tap("table", "red-pirate-5")
    assert box.engine.log[-1]["card"] == "red-pirate-5" and box.journal.game(box.game_id).actions == journalled + 1
    assert not box.storage_fault
    box.journal.close()
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    assert again.start() and again.engine.to_json() == box.engine.to_json(), "the journal is the game as played"


def test_a_game_that_cannot_start_for_a_full_disk_says_so(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    fill_the_disk(box)
    assert not box.new_game("pirates", 2)
    assert box.engine is None and stage.shows[-1] == ("device_fault", {"device": "journal"})


def test_the_last_action_and_the_result_are_written_together(tmp_path: Path) -> None:
    """Issue 11 item 3: a power cut between them left a won game "(playing)"."""
    from tests.box.helpers import play_to_the_end

    box, stage, clock = make_box(tmp_path, seed=4)
    box.new_game("floppy-ears", 2)
    writes: list[tuple] = []
    record = box.journal.record
    box.journal.record = lambda *args, **kw: (writes.append((args, kw)), record(*args, **kw))[1]
    play_to_the_end(box, clock, 4)
    assert writes[-1][1]["winners"] == box.engine.view()["winners"]
    assert all(kw.get("winners") is None for _, kw in writes[:-1])
    assert box.journal.latest().winners == box.engine.view()["winners"]


def test_an_unreplayable_journal_game_is_abandoned_and_the_menu_opens(tmp_path: Path, caplog) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    game = journal.start_game("pirates", 2, {}, 1)
    journal.record(game, 0, {"type": "play", "player": 0, "card": "no-such-card"})
    journal.close()
    box, stage, clock = make_box(tmp_path)
    assert box.engine is None and "cannot be replayed" in caplog.text
    assert box.journal.game(game).abandoned and stage.prompts[-1][0] == "choose-game"



def test_the_journal_keeps_only_the_fields_the_referee_logged(tmp_path: Path) -> None:
    """Issue 11 item 9: a key beyond the action contract (docs/scenarios.md), even NaN, never reaches the journal."""
    box, _stage, _clock = make_box(tmp_path)
    assert box.new_game("pirates", 2)
    card = box.engine.view()["pile"][-1] if box.engine.awaiting != "start_card" else "red-pirate-1"
    assert box.play.act({"type": "start_card", "card": card, "note": float("nan")})
    assert Journal(tmp_path / "journal.sqlite").actions(box.game_id) == [{"type": "start_card", "card": card}]

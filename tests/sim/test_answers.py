"""Every view names what really happened: a stop-ear play puts no card down (issue 12; docs/rulings.md F4, F5)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.siminput import SimInput
from controller.window.box_view import last_answer
from controller.window.display import DisplayApp
from controller.window.screen import OffScreen
from tests.box.daemon_helpers import started, stopped

# tests/scenarios/floppy-ears-stop-ear.json as taps: four ears hung, red-5 turned up, then Player 1 plays
# green-6 from the hand while the red-1 ear matches (F5), and Player 2 plays the green-3 ear, which does not (F4)
SETUP = ["tap control-game-floppy-ears", "tap control-players-2", "tap red-1", "tap blue-2", "tap green-3",
         "tap yellow-4", "tap red-5"]


def test_after_a_stop_ear_the_panel_and_the_display_say_the_card_went_back(tmp_path: Path) -> None:
    answers: list[str] = []

    async def scenario() -> None:
        daemon, task, clock, _lines = await started(tmp_path, games={"floppy-ears": {"bark_rule": False}})
        typed = SimInput(daemon.devices, clock, lambda line: None)
        for line in SETUP + ["tap green-6", "tap green-3"]:
            await typed.command(line)
            await clock.run_for(3.0)
            answers.append(last_answer(daemon, you=0))
            if line == "tap green-6":
                display = DisplayApp(tmp_path / "journal.sqlite", OffScreen())
                answers.append(display.view().prompt)
                display.close()
        await stopped(daemon, task)

    asyncio.run(scenario())
    assert answers[6] == "took it: first card: red 5"
    assert answers[7] == "stop ear: you took green 6 back and a penalty card"
    assert answers[8] == "Stop ear: Player 1 took green 6 back and a penalty card", "the kiosk display"
    assert answers[9] == "ear penalty: green 3 stays on Player 2's ear, and Player 2 took a penalty card"

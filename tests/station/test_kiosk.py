"""A kiosk box nobody watches: "still playing?", then the game is given up and the invitation comes back (issue 14).

An in-process daemon on the sim profile with a fake clock: minutes pass in
microseconds, and every input goes through the simulated devices.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.siminput import SimInput
from tests.box.daemon_helpers import started, stopped

KIOSK = {"enabled": True, "idle_minutes": 2, "answer_seconds": 30}


def sounds(daemon) -> list[str]:
    return [p.name for p in daemon.devices.speaker.played]


def test_an_idle_game_is_asked_about_then_abandoned_and_the_box_invites_again(tmp_path: Path) -> None:
    async def main() -> None:
        daemon, task, clock, lines = await started(tmp_path, kiosk=KIOSK)
        typed = SimInput(daemon.devices, clock, lines.append)
        for line in ("tap control-game-pirates", "tap control-players-2"):
            await typed.command(line)
        await clock.run_for(1)
        game_id = daemon.box.game_id
        assert game_id is not None

        await clock.run_for(118)  # not yet two minutes
        assert "still_playing" not in [name for _, _, name in daemon.stage.transcript]
        await clock.run_for(2)
        asked = [t for t, kind, name in daemon.stage.transcript if name == "still_playing"]
        assert len(asked) == 1 and "attract-jingle" in sounds(daemon)

        pressing = asyncio.create_task(typed.command("press blue"))  # any input answers: the game goes on
        await clock.run_for(60)
        await pressing
        assert daemon.box.game_id == game_id and daemon.box.engine is not None

        await clock.run_for(60 + 31)  # asked again, and this time nobody answers
        assert [name for _, _, name in daemon.stage.transcript].count("still_playing") == 2
        assert daemon.box.engine is None and daemon.box.menu.attracting  # the menu, inviting at once
        record = daemon.box.journal.game(game_id)
        assert record.abandoned and record.ended is None  # kept, never resumed
        assert daemon.box.journal.unfinished() is None
        await stopped(daemon, task)

    asyncio.run(main())


def test_a_finished_game_left_on_the_table_goes_back_to_the_invitation(tmp_path: Path) -> None:
    async def main() -> None:
        from tests.box.daemon_helpers import play_game_on_devices

        daemon, task, clock, lines = await started(tmp_path, kiosk=KIOSK)
        daemon.box.new_game("pirates", 2)
        await play_game_on_devices(daemon, clock, seed=3)
        assert daemon.box.engine.over
        await clock.run_for(121)
        assert daemon.box.engine is None and daemon.box.menu.attracting
        assert "still_playing" not in [name for _, _, name in daemon.stage.transcript]  # nothing to ask about
        await stopped(daemon, task)

    asyncio.run(main())


def test_without_kiosk_mode_an_idle_game_waits_forever(tmp_path: Path) -> None:
    async def main() -> None:
        daemon, task, clock, lines = await started(tmp_path)
        daemon.box.new_game("pirates", 2)
        await clock.run_for(600)  # five times the kiosk's idle time
        assert daemon.box.engine is not None and not daemon.box.engine.over
        await stopped(daemon, task)

    asyncio.run(main())


def test_the_display_beside_a_kiosk_invites_and_explains_once_a_game_is_given_up(tmp_path: Path) -> None:
    import pygame

    from controller.storage.journal import Journal
    from controller.window.display import HOW_TO_PLAY, INVITATION, DisplayApp
    from controller.window.screen import OffScreen

    pygame.font.init()
    journal = Journal(tmp_path / "journal.sqlite")
    game_id = journal.start_game("pirates", 2, {}, seed=1)
    app = DisplayApp(tmp_path / "journal.sqlite", OffScreen())
    assert app.check() and app.view().game == "pirates"
    journal.abandon(game_id)  # what the kiosk does to a forgotten game
    assert app.check() and app.refresh()
    assert app.view().game is None and (app.view().prompt, app.view().hint) == (INVITATION, HOW_TO_PLAY)
    app.close()
    journal.close()

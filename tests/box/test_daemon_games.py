"""Whole games through the simulated drivers and the daemon's loop, with sound and light (issue 4)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.autoplay import Autoplayer, perform
from controller.stage.lights import SEAT_COLORS
from tests.box.daemon_helpers import play_game_on_devices, started, stopped

VARIANTS = [
    ("floppy-ears", 3, {}),
    ("floppy-ears", 2, {"edition": "reveal"}),
    ("floppy-ears", 2, {"bark_rule": False}),
    ("pirates", 3, {"wins_needed": 2}),
    ("pirates", 2, {"mau_calls": True, "wins_needed": 1}),
    ("pirates", 4, {"leave_out": ["ship", "sleeper"], "wins_needed": 1}),
    ("policecats", 3, {}),
    ("policecats", 2, {"variant": "alarm"}),
]


@pytest.mark.parametrize("game, players, options", VARIANTS, ids=[f"{g}-{p}-{o}" for g, p, o in VARIANTS])
def test_whole_game_on_simulated_devices(tmp_path: Path, game, players, options) -> None:
    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path, games={game: options})
        daemon.box.new_game(game, players)
        auto = await play_game_on_devices(daemon, clock, seed=11)
        box = daemon.box
        assert auto.table.referee.to_json() == box.engine.to_json()
        winners = box.engine.view()["winners"]
        assert winners
        await daemon.durable()  # "accepted N" is printed once N is on the disk
        assert lines.count(f"accepted {len(box.engine.log) - 1}") == 1
        played = [p.name for p in daemon.devices.speaker.played]
        assert "card-ok" in played and any(name.startswith("voice/en/") for name in played)
        assert played.count("card-rejected") == 0
        await clock.run_for(5)
        ring = daemon.devices.leds.shown("turn-ring")
        assert SEAT_COLORS[winners[0]] in ring, "the turn ring shows the winner's colour"
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_round_won_sails_the_ship_on_the_sea_route(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path, games={"pirates": {"wins_needed": 3}})
        daemon.box.new_game("pirates", 2)
        leds = daemon.devices.leds
        await clock.run_for(2)
        empty_route = leds.shown("sea-route")
        auto = Autoplayer(daemon.box, 3)
        while daemon.box.engine.view()["round"] == 1:
            await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
        await clock.run_for(5)
        winner = daemon.box.engine.view()["ships"].index(1)
        route = leds.shown("sea-route")
        assert route != empty_route
        assert SEAT_COLORS[winner] in route
        assert "round-fanfare" in [p.name for p in daemon.devices.speaker.played]
        await stopped(daemon, task)

    asyncio.run(scenario())

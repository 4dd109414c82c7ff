"""A whole game of each game played at the window: your seat by mouse and keyboard, the bots at theirs (issue 6)."""

from __future__ import annotations

import asyncio

import pygame
import pytest

from controller.stage.lights import SEAT_COLORS
from tests.sim.helpers import key, pixel, play_your_turns, sim_app, until


@pytest.mark.parametrize("game, players, seed, kinds", [
    # deals where seat 0 gets to do every kind of thing its game has
    ("floppy-ears", 3, 5, {"hang", "play", "choose_color"}),  # with "woof" and "woof woof" calls: SPACE in time
    ("pirates", 2, 3, {"play", "draw", "pass", "choose_color"}),
    ("policecats", 3, 2, {"roll", "reveal", "give", "lure", "send_kittens"}),  # S, and clicks on others' cats
], ids=["floppy-ears", "pirates", "policecats"])
def test_a_whole_game_through_the_window_to_its_winner(tmp_path, game, players, seed, kinds) -> None:
    async def scenario():
        async with sim_app(tmp_path, game, players, seed=seed) as (app, clock):
            box = app.daemon.box
            yours = await play_your_turns(app, clock, lambda: box.engine is not None and box.engine.over)
            await clock.run_for(3.0)
            app.refresh()
            view = app.view()
            winners = box.engine.view()["winners"]
            assert winners and view.winners == tuple(winners)
            assert view.awaiting == "over" and view.hint.startswith("Game over")
            mine = [a["type"] for a in box.engine.log if a.get("player") == 0]
            assert len(yours) >= 5 and kinds <= set(yours), yours
            assert len(mine) >= len(yours), "seat 0's turns went through the window to the box"
            if game == "floppy-ears":
                calls = {a.get("call") for a in box.engine.log if a.get("player") == 0}
                assert {"woof", "woof-woof"} <= calls
            assert app.seats.auto.table.violations() == [], "the virtual table and the box agree to the end"
            # the turn ring shows the winner's colour
            ring = app.daemon.devices.leds.shown("turn-ring")
            assert SEAT_COLORS[winners[0]] in ring
            lit = [p for p, rgb in zip(app.drawn.leds["turn-ring"], ring) if rgb == SEAT_COLORS[winners[0]]]
            assert pixel(app, lit[0]) == SEAT_COLORS[winners[0]]

            finished = box.game_id  # held, the die button deals the same game again
            key(app, pygame.K_h)
            await until(clock, app, lambda: box.game_id != finished and app.view().awaiting not in (None, "over"))
            assert box.engine.game == game and box.engine.players == players
            assert app.seats.auto.game_id == box.game_id, "a fresh virtual table for the new deal"

    asyncio.run(scenario())

"""`gamebox sim`: the window shows the real box and its inputs reach the box as taps and presses (issue 6)."""

from __future__ import annotations

import asyncio

import pygame

from controller.stage.lights import CARD_COLORS, SEAT_COLORS
from controller.window.cards import card_look
from tests.sim.helpers import click, key, pixel, sim_app, space, until


def quiet(app) -> bool:
    stage = app.daemon.stage
    return not stage.voice and app.clock.monotonic() >= stage.voice_free + 1.0


def your_turn(app, awaiting: str = "play") -> bool:
    engine = app.daemon.box.engine
    return engine is not None and engine.awaiting == awaiting and app.seats.awaited() == 0 and quiet(app)


ARC_STARTS = {2: (0, 6), 3: (0, 4, 8), 4: (0, 3, 6, 9)}
"""Where each seat's arc starts on the twelve-pixel turn ring, counted by hand: even arcs, seat 1 first."""


def ring_shows(app, seat: int) -> bool:
    """The first pixel of ``seat``'s arc is lit in its colour, on the strip and in the window."""
    first = ARC_STARTS[app.daemon.box.engine.players][seat]
    app.refresh()
    lit = app.daemon.devices.leds.shown("turn-ring")[first] == SEAT_COLORS[seat]
    return lit and pixel(app, app.drawn.leds["turn-ring"][first]) == SEAT_COLORS[seat]


def assert_leds_drawn_as_shown(app) -> None:
    leds = app.daemon.devices.leds
    assert set(app.drawn.leds) <= set(leds.segments) and "turn-ring" in app.drawn.leds
    for segment in app.drawn.leds:
        for index, (point, rgb) in enumerate(zip(app.drawn.leds[segment], leds.shown(segment))):
            assert pixel(app, point) == rgb, f"{segment}[{index}]"


def test_a_click_on_a_card_taps_it_and_the_box_takes_it(tmp_path) -> None:
    async def scenario():
        async with sim_app(tmp_path, "pirates", 3, seed=1) as (app, clock):
            await until(clock, app, lambda: your_turn(app))
            box = app.daemon.box
            assert box.engine.view()["top"] == "yellow-pirate-7"
            assert pixel(app, app.drawn.spots["pile"]) == CARD_COLORS["yellow"]
            await until(clock, app, lambda: ring_shows(app, 0))
            assert_leds_drawn_as_shown(app)
            assert "Your turn" in app.view().hint
            before = len(box.engine.log)

            click(app, "card:yellow-pirate-4")
            await clock.run_for(0.5)
            app.refresh()

            assert box.engine.log[before:] == [{"type": "play", "player": 0, "card": "yellow-pirate-4"}]
            assert "yellow-pirate-4" not in app.view().hand
            assert pixel(app, app.drawn.spots["pile"]) == CARD_COLORS["yellow"]
            assert app.view().answer == "took it: you played yellow 4"
            await until(clock, app, lambda: ring_shows(app, 1), limit=10)  # player 2's turn, in green
            assert_leds_drawn_as_shown(app)

    asyncio.run(scenario())


def test_space_is_the_die_button_and_out_of_turn_inputs_are_held_back(tmp_path) -> None:
    async def scenario():
        async with sim_app(tmp_path, "pirates", 3, seed=1) as (app, clock):
            await until(clock, app, lambda: your_turn(app))
            box = app.daemon.box
            hand = len(app.view().hand)
            await space(app, clock)
            await clock.run_for(0.3)
            assert box.engine.log[-1] == {"type": "draw", "player": 0}
            app.refresh()
            assert len(app.view().hand) == hand + 1
            assert app.view().awaiting == "after_draw"
            await space(app, clock)  # pass
            await clock.run_for(0.3)
            assert box.engine.log[-1] == {"type": "pass", "player": 0}

            # now the bots play: a click or a press of yours must not be taken as theirs
            await until(clock, app, lambda: app.seats.acting)
            log = list(box.engine.log)
            card = app.view().hand[0]
            click(app, f"card:{card}")
            await space(app, clock)
            app.refresh()
            assert app.view().hint.startswith("Wait: it is Player 2's (green) turn")
            await clock.run_for(0.3)
            assert all(a.get("player") != 0 for a in box.engine.log[len(log):])
            assert card in app.view().hand

    asyncio.run(scenario())


def test_colour_keys_and_the_held_die_button_choose_the_wish(tmp_path) -> None:
    async def scenario():
        async with sim_app(tmp_path, "pirates", 3, seed=4) as (app, clock):
            await until(clock, app, lambda: your_turn(app))
            box = app.daemon.box
            key(app, pygame.K_5)  # the fifth card of the hand, held as a child holds it: the parrot, last
            await clock.run_for(0.5)
            app.refresh()
            assert box.engine.log[-1] == {"type": "play", "player": 0, "card": "parrot-1"}
            assert app.view().choosing_color
            key(app, pygame.K_b)
            await clock.run_for(0.5)
            assert box.engine.log[-1] == {"type": "choose_color", "player": 0, "color": "blue"}
            app.refresh()
            assert pixel(app, app.drawn.spots["match"]) == CARD_COLORS["blue"]

        async with sim_app(tmp_path / "again", "pirates", 3, seed=9) as (app, clock):
            await until(clock, app, lambda: your_turn(app))
            box = app.daemon.box
            click(app, "card:parrot-1")
            await clock.run_for(0.5)
            start = app.view().color
            await space(app, clock)  # the die button steps the wish on, the turn ring shows it
            await clock.run_for(0.5)
            app.refresh()
            stepped = app.view().color
            assert stepped != start and box.engine.awaiting == "choose_color"
            assert pixel(app, app.drawn.leds["turn-ring"][0]) == CARD_COLORS[stepped]
            key(app, pygame.K_SPACE)  # held down for the hold time: chosen
            await clock.run_for(app.daemon.devices.buttons["die"].hold_time + 0.1)
            key(app, pygame.K_SPACE, up=True)
            await clock.run_for(0.5)
            assert box.engine.log[-1] == {"type": "choose_color", "player": 0, "color": stepped}

        async with sim_app(tmp_path / "once-more", "pirates", 3, seed=11) as (app, clock):
            await until(clock, app, lambda: your_turn(app))
            box = app.daemon.box
            click(app, "card:parrot-3")
            await clock.run_for(0.5)
            wish = app.view().color
            key(app, pygame.K_h)  # H: a hold at once
            await clock.run_for(0.5)
            assert box.engine.log[-1] == {"type": "choose_color", "player": 0, "color": wish}

    asyncio.run(scenario())


def test_an_idle_table_is_not_redrawn_until_something_changes(tmp_path) -> None:
    async def scenario():
        async with sim_app(tmp_path, "floppy-ears", 2, seed=2) as (app, clock):
            await until(clock, app, lambda: your_turn(app, "setup"))
            await clock.run_for(3.0)
            app.refresh()
            frames = app.frames
            for _ in range(40):  # ten seconds of table time waiting for you
                await clock.run_for(0.25)
                assert not app.refresh()
            assert app.frames == frames

            pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(900, 600), w=900, h=600))
            app.handle(pygame.event.get())
            assert app.refresh() and app.frames == frames + 1

            key(app, pygame.K_TAB)  # the keyboard's frame moves onto the first target, and Enter taps it
            assert app.refresh()
            assert app.view().focus == app.drawn.targets[0]
            while not app.view().focus.startswith("card:"):
                key(app, pygame.K_TAB)
                app.refresh()
            card = app.view().focus.removeprefix("card:")
            key(app, pygame.K_RETURN)
            await clock.run_for(0.5)
            hung = app.daemon.box.engine.log[-1]
            assert hung["type"] == "hang" and hung["card"] == card and hung["player"] == 0
            app.refresh()
            assert app.view().own_ears[0] == card, "your first ear, now face down"
            assert pixel(app, app.drawn.spots["ear:0:0"]) != card_look(card).fill

    asyncio.run(scenario())


def test_without_a_game_you_choose_one_with_the_control_cards(tmp_path) -> None:
    async def scenario():
        async with sim_app(tmp_path, None) as (app, clock):
            await clock.run_for(1.0)
            app.refresh()
            assert app.view().game is None
            assert "card:control-game-policecats" in app.drawn.targets
            click(app, "card:control-game-policecats")
            await clock.run_for(2.5)  # past the box's repeat window for the reader
            click(app, "card:control-players-3")
            await until(clock, app, lambda: your_turn(app, "roll"))
            assert app.view().game == "policecats" and app.view().players == 3
            assert "press the die button to roll" in app.view().hint
            await space(app, clock)
            await clock.run_for(0.5)
            assert app.daemon.box.engine.log[-1]["type"] == "roll"
            key(app, pygame.K_q)
            assert not app.running

    asyncio.run(scenario())


def test_a_press_as_a_bot_finishes_is_told_to_wait_for_its_move_not_for_your_own_turn(tmp_path) -> None:
    """Issue 12, bug 4: "Wait: it is Player 1's (yellow) turn" was shown to Player 1 under "Your turn"."""

    async def scenario():
        async with sim_app(tmp_path, "pirates", 3, seed=1) as (app, clock):
            await until(clock, app, lambda: your_turn(app))
            await space(app, clock)  # draw
            await clock.run_for(0.3)
            await space(app, clock)  # pass: the bots play until it is your turn again
            # the instant the last bot's input made it your turn, while its hand is still on the table
            for _ in range(4000):
                if app.seats.acting and app.seats.awaited() == 0:
                    break
                await clock.run_for(0.02)
            else:
                raise AssertionError("the bots never handed the turn back")
            log = list(app.daemon.box.engine.log)
            await space(app, clock)
            app.refresh()
            view = app.view()
            assert "Player 1" not in view.hint and "Wait" in view.hint, view.hint
            assert app.daemon.box.engine.log == log, "the press was held back, not taken"

    asyncio.run(scenario())

"""`gamebox sim --screenshot` and `gamebox display`: PNGs of the right size, and a kiosk that follows the journal (issue 6)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pygame

from controller.cli import main
from controller.stage.lights import CARD_COLORS, SEAT_COLORS
from controller.storage.journal import Journal
from controller.table import new_table
from controller.table.bots import make_bot
from controller.window.display import HOW_TO_PLAY, DisplayApp, status_view
from controller.window.render import BACK
from controller.window.screen import SIZE, OffScreen
from controller.window.view import describe_action
from tests.sim.helpers import box_quiet, sim_app, until


def record_game(journal: Journal, game: str, players: int, seed: int, actions: int) -> tuple[int, object]:
    """A game as a box would journal it: greedy players at a virtual table."""
    table = new_table(game, players, {}, seed)
    rng = random.Random(seed)
    bot = make_bot("greedy", rng, game)
    game_id = journal.start_game(game, players, {}, seed)
    for seq in range(actions):
        decision = table.decision()
        action = rng.choice(decision.actions) if decision.chance or decision.seat is None else bot.choose(table, decision)
        table.act(action)
        journal.record(game_id, seq, action)
    return game_id, table


def png_size(path: Path) -> tuple[int, int]:
    return pygame.image.load(str(path)).get_size()


def test_sim_screenshot_saves_the_set_up_table_as_a_png(tmp_path, capsys) -> None:
    shot = tmp_path / "shots" / "pirates.png"
    assert main(["sim", "--game", "pirates", "--seed", "1", "--screenshot", str(shot)]) == 0
    assert capsys.readouterr().out.strip() == f"saved {shot}"
    assert png_size(shot) == SIZE
    image = pygame.image.load(str(shot))
    # the first card (yellow-pirate-7 with seed 1) lies on the pile: its colour fills the pile's corner
    assert tuple(image.get_at((180 + 88, 262 + 134)))[:3] == CARD_COLORS["yellow"]


def test_sim_arguments_a_person_can_fix_are_one_line(tmp_path, capsys) -> None:
    assert main(["sim", "--players", "3"]) == 2
    assert capsys.readouterr().err == "gamebox: --players needs --game\n"
    assert main(["sim", "--game", "policecats", "--players", "2", "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "3 to 5 players" in err and err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_display_renders_the_journals_game(tmp_path, capsys) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    _game_id, table = record_game(journal, "pirates", 3, seed=4, actions=12)
    shot = tmp_path / "display.png"
    assert main(["display", "--state-dir", str(tmp_path), "--screenshot", str(shot)]) == 0
    assert png_size(shot) == SIZE
    capsys.readouterr()

    pygame.font.init()
    app = DisplayApp(tmp_path / "journal.sqlite", OffScreen())
    assert app.refresh()
    view, surface, drawn = app.view(), app.screen.surface(), app.drawn
    state = table.referee.view()
    assert view.top == state["top"] and view.current == state["current"]
    if state["color"]:
        assert tuple(surface.get_at(drawn.spots["match"]))[:3] == CARD_COLORS[state["color"]]
    first = (0, 4, 8)[state["current"]]  # twelve ring pixels, three arcs of four: where each seat's arc starts
    assert tuple(surface.get_at(drawn.leds["turn-ring"][first]))[:3] == SEAT_COLORS[state["current"]]
    assert not [t for t in drawn.targets if t.startswith("card:")], "a status screen, no virtual table"
    assert view.prompt.lower() == describe_action(journal.actions(1)[-1]).lower()
    assert view.hint.startswith(f"Player {state['current'] + 1} (")
    app.close()
    journal.close()


def test_display_redraws_when_the_box_writes_and_only_then(tmp_path) -> None:
    pygame.font.init()
    path = tmp_path / "journal.sqlite"
    app = DisplayApp(path, OffScreen())
    assert app.check() and app.refresh()
    assert app.view().game is None and app.view().hint == HOW_TO_PLAY

    writer = Journal(path)  # the box, in another connection
    game_id, table = record_game(writer, "floppy-ears", 3, seed=6, actions=7)  # ears hung, first card up
    assert app.check() and app.refresh()
    view = app.view()
    assert view.game == "floppy-ears" and view.top == table.referee.view()["top"]
    for seat in range(3):  # nobody's ears are shown beside the box: each player must remember their own
        assert tuple(app.screen.surface().get_at(app.drawn.spots[f"ear:{seat}:0"]))[:3] == BACK
    assert not app.check() and not app.refresh(), "nothing new: no redraw"

    decision = table.decision()
    action = decision.actions[0]
    table.act(action)
    writer.record(game_id, 7, action)
    assert app.check() and app.refresh()
    assert app.view().prompt.lower() == describe_action(action).lower()
    assert not app.check() and not app.refresh()
    writer.close()
    app.close()


async def at_rest_after(app, clock, actions: int) -> None:
    """Let the bots play ``actions`` actions, stop them and let every show and line end."""
    box = app.daemon.box
    await until(clock, app, lambda: box.engine is not None and len(box.engine.log) >= actions)
    app.seats.stop_when = lambda: True
    await until(clock, app, lambda: app.seats.stopped and box_quiet(app))
    await clock.run_for(5.0)


def assert_the_display_shows_the_box_lights(tmp_path, app) -> None:
    """The kiosk display, reading only the journal, draws every segment as the box lights it."""
    pygame.font.init()
    display = DisplayApp(tmp_path / "journal.sqlite", OffScreen())
    leds = app.daemon.devices.leds
    try:
        assert dict(display.view().leds) == {name: tuple(leds.shown(name)) for name in leds.segments}
    finally:
        display.close()


def test_the_display_shows_the_lights_the_box_shows(tmp_path) -> None:
    async def scenario():
        async with sim_app(tmp_path, "pirates", 3, seed=2, human=None) as (app, clock):
            await at_rest_after(app, clock, 6)
            assert_the_display_shows_the_box_lights(tmp_path, app)

    asyncio.run(scenario())


def test_the_display_lights_whose_ear_to_hang_as_the_box_does(tmp_path) -> None:
    """Floppy Ears' setup (F1): the box's turn ring lights the half-arc of the ear awaited; the kiosk's too."""
    async def scenario():
        async with sim_app(tmp_path, "floppy-ears", 3, seed=2, human=None) as (app, clock):
            await at_rest_after(app, clock, 2)
            assert app.daemon.box.engine.next_hang() is not None, "still hanging ears"
            assert any(any(p) for p in app.daemon.devices.leds.shown("turn-ring")), "the box lights whose ear it is"
            assert_the_display_shows_the_box_lights(tmp_path, app)

    asyncio.run(scenario())


def test_status_view_of_no_game_invites_to_start_one() -> None:
    view = status_view(None, None, {"turn-ring": 12})
    assert view.game is None and not view.table and len(view.led("turn-ring")) == 12

"""`gamebox demo`: bots play each game to its end on the simulated box, readable in any terminal (issue 6)."""

from __future__ import annotations

import asyncio
import io
import re

from controller.cli import main
from controller.demo import Demo, pixels_text, plan
from hardware.clock import FakeClock


def play(games, colour: bool) -> tuple[list, str]:
    async def scenario():
        clock = FakeClock(0)
        out = io.StringIO()
        demo = Demo(clock, clock.run_for, out, colour=colour)
        return await demo.play(games, seed=3), out.getvalue()

    return asyncio.run(scenario())


def test_the_demo_plays_a_whole_game_of_each_game_to_its_winners() -> None:
    results, text = play([("floppy-ears", 3), ("pirates", 2), ("policecats", 4)], colour=False)
    assert [game for game, _ in results] == ["floppy-ears", "pirates", "policecats"]
    for game, winners in results:
        assert winners, game
        assert f"== {game}: " + ", ".join(f"Player {w + 1}" for w in winners) + " won ==" in text
    assert "box says: Player one, yellow: your turn!" in text
    assert "Player 2 taps" in text and "presses the die button" in text
    assert "\x1b[" not in text, "a plain terminal gets no escape codes"
    assert re.search(r"turn-ring [YGBRP.]{12}", text)


def test_colour_terminals_see_the_leds_in_colour() -> None:
    _results, text = play([("floppy-ears", 2)], colour=True)
    assert "\x1b[38;2;255;170;0m█" in text  # seat 1's yellow on the turn ring


def test_pixels_as_letters_name_the_nearest_colour() -> None:
    assert pixels_text([(255, 170, 0), (0, 0, 0), (250, 5, 5), (0, 60, 255)], colour=False) == "Y.RB"


def test_bad_demo_arguments_are_one_line(capsys) -> None:
    assert main(["demo", "--game", "policecats", "--players", "2"]) == 2
    err = capsys.readouterr().err
    assert "3 to 5 players" in err and err.count("\n") == 1
    assert main(["demo", "--speed", "0"]) == 2


def test_players_wait_until_the_box_has_said_what_it_awaits() -> None:
    _results, text = play([("policecats", 3)], colour=False)
    lines = text.splitlines()
    setup = lines.index("    box says: Shuffle all the cards and put them face down in a stack in the middle.")
    first_roll = next(i for i, line in enumerate(lines) if line.startswith("Player 1 presses"))
    assert setup < lines.index("    box says: Roll the die!") < first_roll


def test_ctrl_c_stops_the_demo_at_once(tmp_path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_RUNTIME_DIR=str(tmp_path), GAMEBOX_LOG="ERROR")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--game", "pirates"],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert "Ctrl-C stops it" in proc.stdout.readline()
    assert proc.stdout.readline().startswith("== pirates")
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)  # a guard against a hang, not a measure: bench/ times things
    assert proc.returncode == 130 and out.splitlines()[-1] == "stopped"


def test_a_stop_ends_the_demo_before_the_next_move() -> None:
    """Ctrl-C (the daemon's stop) is obeyed once the move in hand is done, not at the game's end."""

    async def scenario() -> tuple[int, int, list]:
        clock = FakeClock(0)
        demo = Demo(clock, clock.run_for, io.StringIO(), colour=False)
        playing = asyncio.create_task(demo.play([("pirates", 3)], seed=3))
        while not demo.daemon.ready.is_set() or demo.daemon.box.engine is None:
            await clock.run_for(0.5)
        await clock.run_for(20.0)  # a few moves into the game
        moves_at_stop = demo.daemon.box.seq
        demo.daemon.stopping.set()
        while not playing.done():
            await clock.run_for(0.1)
        return moves_at_stop, demo.daemon.box.seq, playing.result()

    moves_at_stop, moves_at_end, results = asyncio.run(scenario())
    assert results == [], "the game was not played to its end"
    assert moves_at_end - moves_at_stop <= 1, "only the move in hand is finished after the stop"


def test_the_demo_alone_is_a_short_show_and_says_how_to_stop_and_to_watch_more() -> None:
    games, speed = plan(None, None, False, None)
    assert games == [("floppy-ears", 2)] and speed == 2.0
    assert plan("pirates", None, False, None) == ([("pirates", 3)], 1.0), "a whole game goes at a person's pace"
    assert plan(None, None, True, None)[0] == [("floppy-ears", 3), ("pirates", 3), ("policecats", 4)]

    async def scenario() -> float:
        clock = FakeClock(0)
        demo = Demo(clock, clock.run_for, io.StringIO(), colour=False)
        await demo.play(games, seed=1)
        return clock.monotonic()

    watched = asyncio.run(scenario()) / speed  # box seconds at the show's speed: what a person sits through
    assert 40 <= watched <= 75, f"the show takes {watched:.0f} s to watch"


def test_the_demo_explains_its_lights_shows_only_the_game_s_strips_and_explains_a_call_once() -> None:
    """Issue 21: the demo for someone who does not know the rules."""
    _results, text = play([("pirates", 2), ("floppy-ears", 3)], colour=False)
    pirates, floppy = text.split("== floppy-ears, 3 players ==")
    assert "legend: turn-ring: whose turn" in pirates and "legend: sea-route:" in pirates
    assert "police-track" not in pirates, "Pirate & Co. never lights the police track"
    assert "sea-route" not in floppy and "police-track" not in floppy
    assert re.search(r"lights: sea-route \S+  turn-ring [YGBRP.W]{12}$", pirates, re.M)
    assert floppy.count('to bark "woof" (F8)') == 1, "a call is explained the first time only"
    lines = text.splitlines()
    assert [a for a, b in zip(lines, lines[1:]) if a == b] == [], "no line is printed twice in a row"

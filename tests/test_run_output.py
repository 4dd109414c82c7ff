"""What ``gamebox run --profile sim`` prints besides ``ready`` and ``accepted N`` (issue 12, "Saying what it does")."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from controller.siminput import SimInput
from controller.stage.narration import show_lines
from tests.box.daemon_helpers import started, stopped


def run_lines(tmp_path: Path, inputs: list[str], **config) -> list[str]:
    """Type ``inputs`` into a sim box on a fake clock, as into ``gamebox run``'s standard input; return its lines."""

    async def scenario() -> list[str]:
        daemon, task, clock, lines = await started(tmp_path, **config)
        typed = SimInput(daemon.devices, clock, lines.append)
        for line in inputs:
            typing = asyncio.create_task(typed.command(line))
            while not typing.done():  # a press waits on the clock: move it on
                await clock.run_for(0.05)
            await clock.run_for(3.0)
        await stopped(daemon, task)
        return lines

    return asyncio.run(scenario())


def test_the_sim_box_prints_what_it_says_refuses_and_rolls(tmp_path: Path) -> None:
    lines = run_lines(tmp_path, ["tap control-game-policecats", "tap control-players-3", "tap family-1-mother",
                                 "press die", "tap red-3"])
    assert "ready" in lines and "accepted 0" in lines and "stopped" == lines[-1]
    assert "say: Which game shall we play? Tap a game card on the box." in lines
    assert "say: Player one, yellow: your turn!" in lines
    refused = next(line for line in lines if line.startswith("refused: "))
    assert refused.startswith("refused: wrong_action: "), "a card while the die is awaited: the code, then why"
    roll = next(line for line in lines if line.startswith("roll: "))
    assert re.fullmatch(r"roll: Player 1 rolled (cat|dog|mouse|whistle)", roll)
    assert "refused: other_game: red-3 belongs to floppy-ears" in lines
    assert "say: This card belongs to another game." in lines


def test_the_box_speaks_its_own_language_in_the_printed_lines(tmp_path: Path) -> None:
    lines = run_lines(tmp_path, ["tap control-game-pirates", "tap control-players-2"], language="de")
    assert "say: Gebt jedem Spieler fünf Karten." in lines


def test_a_refusal_gives_the_referees_reason_and_seats_are_numbered_from_one() -> None:
    assert show_lines("show", "rejected", {"code": "not_your_turn", "reason": "it is player 2's turn"}) == [
        "refused: not_your_turn: it is player 2's turn"]
    assert show_lines("show", "stop_ear", {"player": 0, "card": "joker-3"}) == ["show: stop_ear: Player 1, joker-3"]
    assert show_lines("show", "winner", {"winners": [1, 2], "game": "pirates"}) == [
        "show: winner: Player 2 and Player 3, pirates"]
    assert show_lines("show", "accepted", {"action": "play"}) == [], "the daemon's own 'accepted N' says it"

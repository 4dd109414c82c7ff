"""Switching the box off safely from the box: the power-off card, or the die button held 10 s in the menu."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.box.box import GOODBYE_SECONDS, Box
from controller.box.tags import Registry
from controller.storage.journal import Journal
from tests.box.daemon_helpers import started, stopped
from tests.box.helpers import RecordingStage, make_box


def box_that_can_switch_off(tmp_path: Path) -> tuple[Box, RecordingStage, object, list[str]]:
    box, _stage, clock = make_box(tmp_path)
    calls: list[str] = []
    stage = RecordingStage()
    box = Box(box.config, box.journal, box.registry, stage, clock, power_off=lambda: calls.append("off"))
    box.start()
    return box, stage, clock, calls


def test_the_power_off_card_says_goodbye_then_switches_off(tmp_path: Path) -> None:
    box, stage, clock, calls = box_that_can_switch_off(tmp_path)
    box.tap("table", "control-power-off")
    assert stage.shows[-1] == ("goodbye", {}) and calls == [], "the goodbye show plays first"
    assert box.next_deadline() == clock.t + GOODBYE_SECONDS
    clock.advance(GOODBYE_SECONDS)
    box.poll()
    assert calls == ["off"]


def test_a_game_switched_off_resumes_where_it_stopped(tmp_path: Path) -> None:
    box, stage, clock, calls = box_that_can_switch_off(tmp_path)
    box.new_game("pirates", 2)
    box.tap("table", "red-pirate-2")
    clock.advance(3)
    box.tap("table", "control-power-off")
    clock.advance(GOODBYE_SECONDS)
    box.poll()
    assert calls == ["off"]
    box.journal.close()
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    assert again.start() and again.engine.log == [{"type": "start_card", "card": "red-pirate-2"}]


def test_holding_the_die_button_ten_seconds_in_the_menu_switches_off(tmp_path: Path) -> None:
    box, stage, clock, calls = box_that_can_switch_off(tmp_path)
    box.down("die")
    clock.advance(2)
    box.hold("die")  # the 2-s hold chooses the game shown, as always
    clock.advance(7.9)
    box.poll()
    assert "goodbye" not in stage.show_names
    clock.advance(0.1)
    box.poll()
    assert stage.shows[-1] == ("goodbye", {})
    clock.advance(GOODBYE_SECONDS)
    box.poll()
    assert calls == ["off"]


def test_letting_go_before_ten_seconds_or_holding_during_a_game_does_not_switch_off(tmp_path: Path) -> None:
    box, stage, clock, calls = box_that_can_switch_off(tmp_path)
    box.down("die")
    clock.advance(9)
    box.up("die")
    clock.advance(5)
    box.poll()
    box.new_game("pirates", 2)
    box.down("die")
    clock.advance(20)
    box.poll()
    assert "goodbye" not in stage.show_names and calls == []


def test_without_a_way_to_switch_off_the_card_answers_not_available(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path)
    box.tap("table", "control-power-off")
    name, context = stage.shows[-1]
    assert (name, context["code"]) == ("rejected", "not_available") and "cannot switch itself off" in context["reason"]


def test_the_daemon_tells_the_box_how_long_the_die_button_is_held(tmp_path: Path) -> None:
    """Through the simulated button and the loop: a 10-s hold in the menu reaches the box's power-off."""

    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path)
        box = daemon.box
        box.power_off = lambda: lines.append("switched off")
        die = daemon.devices.buttons["die"]
        die.press()
        await clock.run_for(box.config.power_off_hold + 0.5)
        assert "goodbye" in [name for _, kind, name in daemon.stage.transcript if kind == "show"]
        await clock.run_for(GOODBYE_SECONDS)
        die.release()
        await clock.run_for(0.1)
        assert lines[-1] == "switched off"
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_a_script_waits_out_the_handover_with_a_wait_line(tmp_path: Path) -> None:
    """The sim's standard input: a press straight after the turn passed is refused, after `wait 2` it counts."""
    from controller.siminput import SimInput

    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path, seed=5)
        sim = SimInput(daemon.devices, clock, lines.append)

        async def run(line: str, seconds: float = 0.1) -> None:
            await asyncio.gather(sim.command(line), clock.run_for(seconds))

        for line in ("tap control-game-policecats", "tap control-players-3"):
            await run(line)
        await run("wait 2", 2.1)
        await run("press die")
        assert [a["type"] for a in daemon.box.engine.log] == ["roll"]
        assert daemon.box.engine.current == 1, "seed 5 rolls the mouse with no cat out to take: the turn passes at once"
        said = len(lines)
        await run("press die")
        assert any(line.startswith("refused: wait: too soon: Player 2's turn starts in") for line in lines[said:])
        assert len(daemon.box.engine.log) == 1
        await run("wait 2", 2.1)
        await run("press die")
        assert daemon.box.engine.log[-1]["player"] == 1
        said = len(lines)  # an "accepted N" may land among these lines whenever its fsync returns
        await run("wait x")
        assert any(line.startswith("error: cannot wait 'x'") and "0 to 60 seconds" in line for line in lines[said:])
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_a_refused_power_off_is_said_and_the_box_plays_on(tmp_path: Path) -> None:
    box, _stage, clock = make_box(tmp_path)
    stage = RecordingStage()

    def refuse() -> None:
        raise RuntimeError("power off refused: Call to PowerOff failed: Access denied")

    box = Box(box.config, box.journal, box.registry, stage, clock, power_off=refuse)
    box.start()
    box.tap("table", "control-power-off")
    clock.advance(GOODBYE_SECONDS)
    box.poll()
    assert stage.shows[-1] == ("rejected", {"code": "not_available",
                                            "reason": "power off refused: Call to PowerOff failed: Access denied"})
    assert box.new_game("pirates", 2), "the box plays on"


def test_only_the_service_may_switch_the_machine_off(monkeypatch) -> None:
    """Run by hand (the simulator on a PC) the card cannot power anything off; as the systemd service it can."""
    import controller.box.power
    from controller.daemon import _power_off

    monkeypatch.delenv("INVOCATION_ID", raising=False)
    assert _power_off() is None
    monkeypatch.setenv("INVOCATION_ID", "0123456789abcdef")
    assert _power_off() is controller.box.power.power_off

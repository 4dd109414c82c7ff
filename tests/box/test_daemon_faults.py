"""Bad input and broken devices at every awaited state: the game stays consistent, the box keeps answering (issue 4)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from controller.autoplay import Autoplayer, perform
from controller.siminput import card_uid
from tests.box.daemon_helpers import started, stopped

GAMES = [("floppy-ears", 2), ("pirates", 3), ("policecats", 3)]


def test_junk_between_every_move_changes_nothing_the_referee_did_not_accept(tmp_path: Path) -> None:
    """Unknown tags, another deck's cards, double taps, a tag left lying, button spam, presses during shows."""

    async def scenario(game: str, players: int, where: Path) -> None:
        daemon, task, clock, lines = await started(where)
        box, devices = daemon.box, daemon.devices
        box.new_game(game, players)
        auto = Autoplayer(box, 5)
        reader = devices.readers["table"]
        rng = random.Random(5)
        other = {"floppy-ears": "red-pirate-1", "pirates": "family-1-mother", "policecats": "joker-2"}[game]
        for _ in range(60):
            if box.engine.over:
                break
            before = box.engine.to_json()
            junk = rng.choice(["unknown", "other", "spam", "colour"])
            if junk == "colour" and box.engine.awaiting == "choose_color":
                junk = "spam"  # there a colour button is the answer, not junk
            if junk == "unknown":
                reader.tap(bytes([4, rng.randrange(256), 1, 2, 3, 4, 5]))
                await clock.run_for(0.3)
                reader.remove()
            elif junk == "other":
                reader.tap(card_uid(other), other)
                await clock.run_for(0.3)
                reader.remove()
            elif junk == "colour":
                devices.buttons["red"].press()
                await clock.run_for(0.1)
                devices.buttons["red"].release()
            await clock.run_for(0.5)
            if junk != "spam":
                assert box.engine.to_json() == before, f"{junk} changed the game"
            _seat, action = auto.choose()
            inputs = auto.inputs(action)
            await perform(devices, inputs, clock.run_for, pace=0.4)
            if action["type"] in ("play", "hang", "reveal", "give", "lure", "start_card"):
                # the same card again at once, then left lying on the reader: one tap
                reader.tap(card_uid(action["card"]), action["card"])
                await clock.run_for(0.3)
                reader.tap(card_uid(action["card"]), action["card"])
                await clock.run_for(0.3)
                reader.remove()
            assert auto.table.referee.to_json() == box.engine.to_json()
        shows = [name for _t, kind, name in daemon.stage.transcript if kind == "show"]
        assert "unknown_card" in shows and "other_game" in shows
        assert auto.table.violations() == []
        await stopped(daemon, task)

    for n, (game, players) in enumerate(GAMES):
        where = tmp_path / str(n)
        asyncio.run(scenario(game, players, where))


def test_a_reader_fault_mid_game_is_shown_and_play_goes_on_after_it_recovers(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path)
        box, devices = daemon.box, daemon.devices
        box.new_game("pirates", 2)
        auto = Autoplayer(box, 2)
        for _ in range(5):
            await perform(devices, auto.inputs(auto.choose()[1]), clock.run_for)
        reader = devices.readers["table"]
        reader.fail("SPI read timed out")
        await clock.run_for(0.5)
        assert ("show", "device_fault") in [(k, n) for _t, k, n in daemon.stage.transcript]
        state = box.engine.to_json()
        reader.tap(card_uid("red-pirate-1"), "red-pirate-1")  # a broken reader reads nothing
        await clock.run_for(0.5)
        assert box.engine.to_json() == state
        reader.recover()
        await clock.run_for(0.5)
        for _ in range(5):
            await perform(devices, auto.inputs(auto.choose()[1]), clock.run_for)
        assert len(box.engine.log) >= 10
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_no_audio_device_and_a_failing_led_strip_never_stop_the_game(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path)
        box, devices = daemon.box, daemon.devices
        devices.speaker.unplug()
        devices.leds.fail_writes()
        already = len(devices.speaker.played)  # the menu's first prompt, before the card was pulled
        box.new_game("floppy-ears", 2)
        auto = Autoplayer(box, 4)
        while not box.engine.over:
            await perform(devices, auto.inputs(auto.choose()[1]), clock.run_for, pace=0.5)
        assert box.engine.view()["winners"]
        assert len(devices.speaker.played) == already
        devices.leds.repair()
        devices.speaker.plug()
        await clock.run_for(1)
        assert not task.done()
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_the_config_tunes_the_hold_time_of_the_buttons(tmp_path: Path) -> None:
    """A shorter hold for small hands: held 0.6 s, the die button chooses in the menu."""

    async def scenario() -> None:
        daemon, task, clock, lines = await started(tmp_path, hold_seconds=0.5, debounce_ms=10)
        die = daemon.devices.buttons["die"]
        assert die.hold_time == 0.5 and die.bounce_time == 0.01
        die.press()
        await clock.run_for(0.6)
        die.release()
        await clock.run_for(0.1)
        assert daemon.box.menu.players is not None, "the hold chose the game"
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_a_task_that_dies_stops_the_box_with_its_traceback_and_the_next_start_resumes(tmp_path: Path, caplog) -> None:
    """Seen in the virtual Pi: the box played on and its watchdog was fed while no action was acknowledged any
    more. A task that dies now ends the daemon with an error (systemd starts it again: ``Restart=on-failure``)."""

    async def first() -> tuple[int, list[str]]:
        daemon, task, clock, lines = await started(tmp_path)
        daemon.box.new_game("pirates", 2)

        def broken(game_id: int | None) -> str:
            raise RuntimeError("a bug in the syncer")

        daemon.journal.mark = broken  # type: ignore[method-assign]
        auto = Autoplayer(daemon.box, 1)
        await perform(daemon.devices, auto.inputs(auto.choose()[1]), clock.run_for)
        await clock.run_for(1.0)
        assert task.done(), "the daemon went on without its syncer"
        return task.result(), lines

    code, lines = asyncio.run(first())
    assert code == 1 and not any(line.startswith("accepted") for line in lines)
    assert "the journal's syncer stopped on an error" in caplog.text and "RuntimeError: a bug in the syncer" in caplog.text

    async def again() -> list[str]:
        daemon, task, _clock, lines = await started(tmp_path)
        await stopped(daemon, task)
        return lines

    resumed = [line for line in asyncio.run(again()) if line.startswith("resumed")]
    assert resumed and resumed[0].startswith("resumed 1 1 ")  # game 1, its one action

"""The firmware's main loop on one end of a pseudo-terminal, the box's real serial_puck driver on the other.

The box is the whole daemon on the sim profile plus a serial puck, on a
fake clock; the firmware's loop is a task on the same clock, so button
debouncing, the spin and the heartbeat all run in fake time. Only the
bytes on the line and the driver's reader thread are real, and the tests
wait for them by condition, never by sleeping.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.autoplay import Autoplayer, perform
import controller.daemon
from hardware.clock import FakeClock
from hardware.drivers.serial_puck import SerialPuck
from hardware.factory import build_devices
from hardware.faults import Backoff
from tests.box.daemon_helpers import started, stopped
from tests.conftest import ROOT
from tests.firmware.usb import Pico, UsbCable

TIMEOUT = 10.0
PACE = 0.4  # fake seconds between a bot's inputs (each costs the daemon's loop work)...
REPEAT = 0.3  # ...so the same card tapped twice (revealed, then used) is two taps


@pytest.fixture
def cable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> UsbCable:
    """A puck's cable under a by-id folder of its own; the daemon's profile (``cable.profile``) has a serial puck found there."""
    cable = UsbCable(tmp_path / "by-id")
    profile = tmp_path / "puck.toml"
    sim = (ROOT / "hardware" / "profiles" / "sim.toml").read_text()
    profile.write_text(sim + '\n[puck]\ndriver = "serial"\ndevice = "/dev/serial/by-id/usb-MicroPython*"\n')

    def build(*args: Any) -> Any:
        devices = build_devices(*args)
        _profile, sink, clock = args
        devices.puck = SerialPuck("die", sink, clock, device=cable.pattern, backoff=Backoff(0.005, 2, 0.02))
        return devices

    monkeypatch.setattr(controller.daemon, "build_devices", build)
    cable.profile = str(profile)
    cable.plug()  # before the box starts: the puck is part of the box
    return cable


async def until(
    condition: Callable[[], bool], clock: FakeClock, cable: UsbCable, what: str, step: float = 0.05
) -> None:
    """Run the fake clock in small steps until ``condition`` holds, giving the driver's thread real turns between.

    Time moves on only once the box has read what the puck said: a box
    that lags a second behind is a frozen box, whose presses it drops.
    """
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        while cable.master >= 0 and not cable.box_has_read() and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        await clock.run_for(step)
        if not condition():
            await asyncio.sleep(0.001)  # the reader thread's turn: a poll interval, not a wait for time


def lit(pixels: list[tuple[int, int, int]]) -> list[bool]:
    return [rgb != (0, 0, 0) for rgb in pixels]


class Table:
    """The daemon, the puck's firmware and bots who roll on the puck and tap cards on the box's reader."""

    def __init__(self, daemon: Any, clock: FakeClock, cable: UsbCable) -> None:
        self.daemon, self.clock, self.cable = daemon, clock, cable
        self.pico: Pico | None = None
        self.settled: set[str] = set()  # faces already seen to settle on the ring

    def shown(self, name: str) -> int:
        """How often the box has played the show ``name``."""
        return sum(1 for _at, kind, shown in self.daemon.stage.transcript if (kind, shown) == ("show", name))

    async def plug_in(self) -> None:
        """Plug the puck in (if the cable is not yet) and let it boot; done once the box has its HELLO."""
        if self.cable.master < 0:
            self.cable.plug()
        self.pico = Pico(self.cable, self.clock)
        self.pico.power_on()
        puck = self.daemon.devices.puck
        await until(lambda: puck.info is not None and puck.fault is None, self.clock, self.cable, "the puck's HELLO")

    def unplug(self) -> None:
        assert self.pico is not None
        self.pico.power_off()
        self.cable.unplug()
        self.pico = None

    async def roll(self) -> str:
        """Press the puck's button; the face the box rolled, once the puck has it.

        The ring is watched until it settles the first time each face comes
        up; after that the spin runs on while the bots play, as at a table.
        """
        pico = self.pico
        assert pico is not None
        log = self.daemon.box.engine.log
        before, faces_heard = len(log), pico.heard.count(b"FACE ")
        box = self.daemon.box
        await self.clock.run_for(box.handover.left(box.now()))  # a player waits for "your turn" before rolling
        await pico.press()
        await until(lambda: len(log) > before, self.clock, self.cable, "the box to take the puck's press")
        action = log[-1]
        assert action["type"] == "roll", action
        face = action["face"]
        await until(lambda: pico.heard.count(b"FACE ") > faces_heard, self.clock, self.cable,
                    f"FACE {face} to reach the puck")
        assert pico.heard.rsplit(b"FACE ", 1)[1].startswith(f"{face}\n".encode())
        if face not in self.settled:
            await self.shows(face)
            self.settled.add(face)
        return face

    async def shows(self, face: str) -> None:
        """Wait until the puck's ring shows ``face``'s pattern (the whistle's only while it is lit)."""
        from puck.faces import pattern

        pico = self.pico
        assert pico is not None
        await self.clock.run_for(pico.settings.MIN_SPIN_MS / 1000)  # the FACE line is on its way: let the spin run
        size = len(pico.ring.shown)
        await until(lambda: pico.app.puck.face == face and lit(pico.ring.shown) == pattern(face, size),
                    self.clock, self.cable, f"the ring to settle on {face}")

    async def play(self, auto: Autoplayer, until_over: Callable[[], bool], limit: int = 3000) -> list[str]:
        """Bots play until ``until_over()``: every roll on the puck, every card on the reader."""
        rolled = []
        box = self.daemon.box
        for _ in range(limit):
            if until_over():
                return rolled
            before = len(box.engine.log)
            _seat, action = auto.choose()
            if action["type"] == "roll":
                rolled.append(await self.roll())
            else:
                await perform(self.daemon.devices, auto.inputs(action), self.clock.run_for, pace=PACE)
            assert len(box.engine.log) > before or box.engine.over, f"{action} was not taken"
        raise AssertionError(f"not over after {limit} actions")


@asynccontextmanager
async def policecats_on_the_puck(tmp_path: Path, cable: UsbCable, seed: int) -> AsyncIterator[tuple[Table, Autoplayer]]:
    """The daemon running a 3-player Policecats game with the puck plugged in and booted; bots to play it."""
    daemon, task, clock, _lines = await started(tmp_path, profile=cable.profile, repeat_window=REPEAT)
    try:
        table = Table(daemon, clock, cable)
        await table.plug_in()
        daemon.box.new_game("policecats", 3)
        yield table, Autoplayer(daemon.box, seed)
    finally:
        await stopped(daemon, task)


def test_a_whole_policecats_game_rolled_on_the_puck_with_an_unplug_in_the_middle(tmp_path: Path, cable):
    async def scenario() -> None:
        async with policecats_on_the_puck(tmp_path, cable, seed=5) as (table, auto):
            daemon, clock, box = table.daemon, table.clock, table.daemon.box
            first = await table.play(auto, lambda: sum(a["type"] == "roll" for a in box.engine.log) >= 6)

            assert table.shown("device_fault") == 0
            table.unplug()  # mid-game: a fault, and the game waits
            await until(lambda: daemon.devices.puck.fault is not None, clock, cable, "the unplugged puck's fault")
            await until(lambda: table.shown("device_fault") == 1, clock, cable, "the box to show the fault")
            await table.plug_in()  # the puck boots again; the box shows it the last roll
            await table.shows(first[-1])
            rest = await table.play(auto, lambda: box.engine.over)

            assert box.engine.view()["winners"]
            assert auto.table.referee.to_json() == box.engine.to_json()
            assert len(first) == 6 and len(rest) > 6
            assert set(first + rest) >= {"cat", "dog"}
            assert daemon.devices.puck.fault is None

    asyncio.run(scenario())


def test_garbage_from_either_end_is_answered_and_the_game_goes_on(tmp_path: Path, cable):
    async def scenario() -> None:
        async with policecats_on_the_puck(tmp_path, cable, seed=3) as (table, auto):
            box, clock, pico = table.daemon.box, table.clock, table.pico
            assert pico is not None
            await table.play(auto, lambda: box.engine.awaiting == "roll")
            cable.box_says(b"\x00\xffWOOF\n")  # noise towards the puck
            cable.puck_says(b"MEOW \x07\n")  # and towards the box
            await until(lambda: b"ERR unknown ??WOOF\n" in pico.said, clock, cable, "the puck's answer")
            await until(lambda: b"ERR unknown MEOW ?\n" in pico.heard, clock, cable, "the box's answer")
            await table.roll()
            assert table.daemon.devices.puck.fault is None

    asyncio.run(scenario())

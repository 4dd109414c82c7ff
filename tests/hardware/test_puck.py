"""The die puck driver through real pyserial on a pseudo-terminal, the puck's end scripted line by line.

The firmware itself on the other end is in tests/firmware/test_end_to_end.py.
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hardware.clock import FakeClock
from hardware.doctor import likely_fix, run_doctor
from hardware.drivers.serial_puck import HEARTBEAT, MISSED, PROTOCOL, SerialPuck, parse_hello
from hardware.events import DeviceFault, DeviceRecovered, EventSink, PuckPressed
from hardware.factory import build_devices
from hardware.faults import Backoff
from hardware.profile import PROFILES_DIR
from tests.firmware.usb import UsbCable
from tests.hardware.support import events_until, kinds, next_event, wait_until

HELLO = "HELLO 1.0.0 proto=1 leds=12 caps=button,ring,shake"
SIM = (PROFILES_DIR / "sim.toml").read_text()


def puck(sink: EventSink, cable: UsbCable, clock: FakeClock | None = None) -> SerialPuck:
    return SerialPuck("die", sink, clock or FakeClock(), device=cable.pattern, backoff=Backoff(0.001, 2, 0.01))


@dataclass
class Link:
    sink: EventSink
    cable: UsbCable
    clock: FakeClock
    die: SerialPuck


@contextmanager
def connected(tmp_path: Path, hello: str | None = HELLO) -> Iterator[Link]:
    """A started driver, a puck plugged in, the box's HELLO heard and (unless None) ``hello`` answered and taken in."""
    sink, cable, clock = EventSink(), UsbCable(tmp_path), FakeClock()
    cable.plug()
    die = puck(sink, cable, clock)
    die.start()
    try:
        assert cable.wait_for(f"HELLO gamebox proto={PROTOCOL}"), "the box introduces itself"
        if hello is not None:
            cable.puck_says(hello)
            assert wait_until(lambda: die.info is not None)
        yield Link(sink, cable, clock, die)
    finally:
        die.stop()


def test_the_puck_is_found_by_usb_id_says_hello_and_its_presses_are_rolls(tmp_path: Path):
    async def scenario():
        with connected(tmp_path) as link:
            assert await asyncio.to_thread(link.die.wait_started, 5)
            link.cable.puck_says("PRESS")
            pressed = (await events_until(link.sink, lambda e: isinstance(e, PuckPressed)))[-1]
            link.die.show("cat")
            assert link.cable.wait_for("FACE cat")
            description = link.die.describe()
        assert isinstance(pressed, PuckPressed) and pressed.puck == "die"
        assert description == f"die puck firmware 1.0.0, protocol 1, 12 LEDs, button+ring+shake on {link.cable.link}"
        assert link.die.fault is None
        assert not [t for t in threading.enumerate() if t.name == "puck:die"]

    asyncio.run(scenario())


def test_no_puck_plugged_in_is_a_fault_with_a_fix_and_plugging_it_in_recovers(tmp_path: Path):
    async def scenario():
        sink, cable = EventSink(), UsbCable(tmp_path)
        die = puck(sink, cable)
        die.start()
        try:
            fault = await next_event(sink)
            cable.plug()
            assert cable.wait_for(f"HELLO gamebox proto={PROTOCOL}")
            cable.puck_says(HELLO)
            back = await next_event(sink)
        finally:
            die.stop()
        assert isinstance(fault, DeviceFault) and "not plugged in" in fault.message
        assert "die puck is not plugged in" in likely_fix(fault.message)
        assert isinstance(back, DeviceRecovered)

    asyncio.run(scenario())


def test_unplugging_is_a_fault_and_a_replugged_puck_gets_the_last_face_again(tmp_path: Path):
    async def scenario():
        with connected(tmp_path) as link:
            sink, cable, die = link.sink, link.cable, link.die
            die.show("whistle")
            assert cable.wait_for("FACE whistle")
            cable.unplug()
            fault = await events_until(sink, lambda e: isinstance(e, DeviceFault))
            die.show("dog")  # nowhere to show it: remembered, not raised
            cable.plug()
            assert cable.wait_for("FACE dog"), "the replugged puck is told the face it missed"
            cable.puck_says(HELLO)
            cable.puck_says("PRESS")
            back = await events_until(sink, lambda e: isinstance(e, PuckPressed))
        assert fault[-1].message.startswith(f"die puck at {cable.link}: ")
        assert kinds(back) == ["DeviceRecovered", "PuckPressed"]

    asyncio.run(scenario())


def test_a_puck_that_stops_answering_is_a_fault_within_a_few_seconds(tmp_path: Path):
    async def scenario():
        with connected(tmp_path) as link:
            sink, cable, clock, die = link.sink, link.cable, link.clock, link.die
            for ping in range(1, 4):  # a live puck answers every heartbeat
                clock.advance(HEARTBEAT)
                assert wait_until(lambda n=ping: cable.lines().count("PING") == n)
                cable.puck_says("PONG")
            cable.puck_says("PRESS")  # once it is heard, every PONG before it has been
            await events_until(sink, lambda e: isinstance(e, PuckPressed))
            assert die.fault is None
            silent = 0.0
            while die.fault is None and silent < 10:  # now it hangs
                clock.advance(HEARTBEAT)
                silent += HEARTBEAT
                wait_until(lambda: die.fault is not None, timeout=0.2)
            fault = await events_until(sink, lambda e: isinstance(e, DeviceFault))
        assert silent <= (MISSED + 1) * HEARTBEAT <= 4
        assert "stopped answering" in fault[-1].message

    asyncio.run(scenario())


def test_a_pico_at_its_repl_echoing_everything_is_no_puck(tmp_path: Path):
    async def scenario():
        with connected(tmp_path, hello=None) as link:
            for _ in range(MISSED + 1):  # no firmware: MicroPython's prompt echoes each line and complains
                link.cable.puck_says(f"HELLO gamebox proto={PROTOCOL}")
                link.cable.puck_says("NameError: name 'HELLO' isn't defined")
                link.cable.puck_says(">>> ")
                link.clock.advance(HEARTBEAT)
                wait_until(lambda: link.die.fault is not None, timeout=0.2)
            fault = await events_until(link.sink, lambda e: isinstance(e, DeviceFault))
        assert link.die.info is None, "its own HELLO echoed is not the puck's"
        assert "stopped answering" in fault[-1].message

    asyncio.run(scenario())


def test_garbage_from_the_puck_is_answered_and_the_link_goes_on(tmp_path: Path):
    async def scenario():
        with connected(tmp_path) as link:
            cable = link.cable
            cable.puck_says(b"\xff\xfe\x00garbage\r\n")
            assert cable.wait_for("ERR unknown ???garbage")
            link.clock.advance(1.0)
            cable.puck_says(b"z" * 5000 + b"\n")
            assert cable.wait_for("ERR too-long")
            cable.puck_says("ERR bad-face purple")  # the puck's own answer: never answered back
            for _ in range(20):  # a puck at its REPL echoing: one answer a second, no flood
                cable.puck_says("SyntaxError: invalid syntax")
            cable.puck_says("PRESS")
            pressed = await events_until(link.sink, lambda e: isinstance(e, PuckPressed))
        errs = [line for line in cable.lines() if line.startswith("ERR")]
        assert errs == ["ERR unknown ???garbage", "ERR too-long"]
        assert kinds(pressed)[-1] == "PuckPressed"

    asyncio.run(scenario())


def test_an_older_puck_is_played_without_the_heartbeat_and_a_newer_one_as_this_box(tmp_path: Path):
    async def scenario():
        with connected(tmp_path, hello="HELLO 0.1") as link:  # the placeholder protocol: PRESS and FACE, no PONG
            die = link.die
            older = die.describe()
            for ping in range(1, 2 * MISSED + 1):  # unanswered, and still pinged: the link stays up
                link.clock.advance(HEARTBEAT)
                assert wait_until(lambda n=ping: link.cable.lines().count("PING") == n)
            link.cable.puck_says("HELLO 2.3.0 proto=2 leds=16 caps=button,ring,sound")
            assert wait_until(lambda: die.info is not None and die.info.protocol == 2)
            newer = die.describe()
        assert "protocol 0 (older than this box's: flash the puck" in older
        assert "protocol 2 (newer than this box's 1: spoken as 1), 16 LEDs" in newer
        assert die.fault is None

    asyncio.run(scenario())


def test_hello_lines_are_read_whatever_they_carry():
    assert parse_hello("1.0.0 proto=1 leds=12 caps=button,ring") is not None
    assert parse_hello("0.1").protocol == 0
    assert parse_hello("1.0 proto=x") is None
    assert parse_hello("") is None
    assert parse_hello("1.2 proto=3 colour=blue").caps == ()


def test_doctor_shows_the_puck_s_firmware_version(tmp_path: Path):
    cable = UsbCable(tmp_path / "by-id")
    cable.plug()
    profile = tmp_path / "puck.toml"
    profile.write_text(SIM + '\n[puck]\ndriver = "serial"\ndevice = "/dev/serial/by-id/usb-MicroPython*"\n')

    def build(loaded, sink, clock):
        devices = build_devices(loaded, sink, clock)
        devices.puck = SerialPuck("die", sink, clock, device=cable.pattern)
        return devices

    done = threading.Event()

    def firmware() -> None:  # answers the box's HELLO as a puck does
        while not done.is_set():
            if wait_until(lambda: "HELLO gamebox proto=1" in cable.lines(), timeout=0.05):
                cable.puck_says(HELLO)
                return

    answering = threading.Thread(target=firmware)
    answering.start()
    out = io.StringIO()
    try:
        code = run_doctor(str(profile), build=build, settle=0, out=out)
    finally:
        done.set()
        answering.join()
    (line,) = [line for line in out.getvalue().splitlines() if line.startswith("puck:die ")]
    assert code == 0
    assert line.split(None, 3)[1:] == ["serial", "ok", f"die puck firmware 1.0.0, protocol 1, 12 LEDs, "
                                       f"button+ring+shake on {cable.link}"]

"""The die puck driver through real pyserial on a pseudo-terminal, the puck's end scripted line by line.

The firmware itself on the other end is in tests/firmware/test_end_to_end.py.
"""

from __future__ import annotations

import asyncio
import io
import logging
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
        assert wait_until(lambda: cable.box_link() is not None), "the box introduces itself"
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
            assert wait_until(lambda: cable.box_link() is not None)
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
            for _ in range(2 * MISSED):  # that protocol has no PING: none is sent, and the link stays up
                link.clock.advance(HEARTBEAT)
                wait_until(lambda: "PING" in link.cable.lines(), timeout=0.1)
            link.cable.puck_says("PRESS")
            await events_until(link.sink, lambda e: isinstance(e, PuckPressed))
            assert "PING" not in link.cable.lines()
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
            if wait_until(lambda: cable.box_link() is not None, timeout=0.05):
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


def test_lines_the_puck_wrote_before_it_answered_this_opening_never_roll(tmp_path: Path):
    """A Pico delivers what it wrote while nobody read once the port opens again (PROTOCOL.md, "Links")."""
    async def scenario():
        with connected(tmp_path, hello=None) as link:
            cable, box_link = link.cable, link.cable.box_link()
            cable.puck_says("ELLO 1.1.0 proto=1 leds=12 caps=button,ring link=-")  # cut as the port opened
            cable.puck_says(b"z" * 200 + b"\n")
            cable.puck_says("PRESS")  # pressed while the box was away
            cable.puck_says("HELLO 1.1.0 proto=1 leds=12 caps=button,ring link=-")  # its HELLO at power-on
            cable.puck_says("PONG")
            cable.puck_says("HELLO 1.1.0 proto=1 leds=12 caps=button,ring link=0badf00d")  # an answer to an earlier box
            cable.puck_says("PRESS")
            cable.puck_says(f"HELLO 1.1.0 proto=1 leds=12 caps=button,ring link={box_link}")  # the answer to this box
            assert wait_until(lambda: link.die.info is not None)
            cable.puck_says("PRESS")  # a press made now
            cable.puck_says("WIBBLE")  # once this is answered, every line before it has been heard
            assert cable.wait_for("ERR unknown WIBBLE")
            events = await events_until(link.sink, lambda e: isinstance(e, PuckPressed))
            await asyncio.sleep(0)  # the loop's turn to take in whatever else the reader posted
            events += link.sink.drain()
            info = link.die.info
        assert kinds(events).count("PuckPressed") == 1
        assert [line for line in cable.lines() if line.startswith("ERR")] == ["ERR unknown WIBBLE"], "nothing old answered"
        assert info is not None and info.link == box_link

    asyncio.run(scenario())


def test_each_opening_of_the_port_names_a_new_link(tmp_path: Path):
    with connected(tmp_path) as link:
        first = link.cable.box_link()
        link.cable.unplug()
        link.cable.plug()
        assert wait_until(lambda: link.cable.box_link() not in (None, first))


def test_a_line_of_80_characters_may_end_in_crlf_and_only_that_cr_is_the_ending(tmp_path: Path, caplog):
    with connected(tmp_path) as link:
        cable = link.cable
        cable.puck_says(b"LOG " + b"x" * 76 + b"\r")  # an 80-character line, its CR and LF read apart
        assert wait_until(cable.box_has_read)
        cable.puck_says(b"\n")
        cable.puck_says(b"PRESS\r\r\n")  # a CR inside the line is not part of the ending
        assert cable.wait_for("ERR unknown PRESS?")
    assert "ERR too-long" not in cable.lines()
    assert any(r.getMessage() == "puck:die says: " + "x" * 76 for r in caplog.records)


def test_after_an_outage_the_next_reconnect_waits_briefly_again(tmp_path: Path):
    class Recorded(Backoff):
        waits: list[float] = []

        def next(self) -> float:
            wait = super().next()
            self.waits.append(wait)
            return wait

    sink, cable, backoff = EventSink(), UsbCable(tmp_path), Recorded(0.01, 2, 0.04)
    die = SerialPuck("die", sink, FakeClock(), device=cable.pattern, backoff=backoff)
    die.start()
    try:
        for outage in range(3):
            assert wait_until(lambda: len(backoff.waits) >= 4), "unplugged: retried with growing waits"
            if outage:
                assert backoff.waits[0] == 0.01, f"outage {outage + 1} starts with the short wait again"
            cable.plug()
            assert wait_until(lambda: cable.box_link() is not None)
            cable.puck_says(HELLO)
            assert wait_until(lambda: die.info is not None and die.fault is None)
            backoff.waits.clear()
            cable.unplug()
    finally:
        die.stop()


def test_the_box_sends_again_a_face_the_puck_refused_at_most_once_a_second_and_each_line_after_a_newline(tmp_path: Path):
    with connected(tmp_path) as link:
        cable, clock, die = link.cable, link.clock, link.die

        def heard_all(probe: str) -> None:
            """Once the box has answered ``probe``, it has heard every line before it; then a second passes."""
            cable.puck_says(probe)
            assert cable.wait_for(f"ERR unknown {probe}")
            clock.advance(1.0)

        die.show("cat")
        assert cable.wait_for("FACE cat")
        assert cable.heard.endswith(b"\nFACE cat\n"), "a stray byte before it ends as a line of its own"
        cable.puck_says("ERR unknown ?FACE cat")  # a stray byte swallowed the line's start
        assert wait_until(lambda: cable.lines().count("FACE cat") == 2), "sent again"
        cable.puck_says("ERR too-long")  # within the second: not again, so a puck at its REPL is no flood
        heard_all("WIBBLE")
        cable.puck_says("ERR bad-face cat")  # it has no such face: sending it again changes nothing
        heard_all("WOBBLE")
        assert cable.lines().count("FACE cat") == 2
        cable.puck_says("ERR unknown FACFACE cat")  # a partial line glued onto it
        assert wait_until(lambda: cable.lines().count("FACE cat") == 3)


def test_presses_a_frozen_box_reads_late_are_dropped_by_the_puck_s_ticks_and_a_new_one_rolls(tmp_path: Path, caplog):
    """The box frozen 10 s with the port open: what the puck said meanwhile arrives at once when it wakes."""
    caplog.set_level(logging.INFO)

    async def scenario():
        with connected(tmp_path) as link:
            cable, clock = link.cable, link.clock
            wrap = 2**30
            before = wrap - 3000  # the puck's ticks, 3 s before they wrap
            cable.puck_says(f"PONG t={before}")
            cable.puck_says("WIBBLE")  # once this is answered, the PONG has been read on time
            assert cable.wait_for("ERR unknown WIBBLE")
            clock.advance(10.0)  # frozen
            cable.puck_says(f"PONG t={before + 1000}")  # what it said in the first 3.5 s, read only now
            cable.puck_says(f"PRESS t={before + 2000}")
            cable.puck_says(f"PRESS t={(before + 3500) % wrap}")
            cable.puck_says(f"PRESS t={(before + 10000) % wrap}")  # pressed as the box woke
            pressed = await events_until(link.sink, lambda e: isinstance(e, PuckPressed))
            clock.advance(1.0)
            cable.puck_says(f"PRESS t={(before + 11000) % wrap}")  # the next roll, on time again
            pressed += await events_until(link.sink, lambda e: isinstance(e, PuckPressed))
            await asyncio.sleep(0)  # the loop's turn to take in whatever else the reader posted
            pressed += link.sink.drain()
        assert kinds(pressed).count("PuckPressed") == 2
        dropped = [r.getMessage() for r in caplog.records if "dropped (the box could not read" in r.getMessage()]
        assert dropped == ["puck:die: a press from 8.0 s ago, dropped (the box could not read meanwhile)",
                           "puck:die: a press from 6.5 s ago, dropped (the box could not read meanwhile)"]

    asyncio.run(scenario())

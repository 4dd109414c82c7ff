"""A puck's USB cable as a pseudo-terminal pair, and stand-ins for the Pico beneath the firmware's board layer.

The box side is the real thing: pyserial opens the pseudo-terminal's
slave through a ``/dev/serial/by-id``-style symlink, as udev makes for a
Pico. The puck side holds the master: either the test writes and reads
protocol lines there itself, or the firmware's own board layer and main
loop run on it (:class:`Pico`), on the stand-ins of rp2_standins and the
ticks of a fake clock.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import os
import pty
import select
import subprocess
import termios
import threading
import time
import tty
from pathlib import Path
from typing import Any

from tests.firmware import rp2_standins
from tests.hardware.support import wait_until

PUCK_ID = "usb-MicroPython_Board_in_FS_mode_e6614c311b7b6a2b-if00"
HERE = Path(__file__).parent
FIRMWARE = HERE.parents[1] / "firmware"
PWRON_RESET, WDT_RESET = 1, 3  # machine.reset_cause() after power-on and after a reset


class UsbCable:
    """Plug and unplug a puck under ``by_id``; say and hear lines on its end."""

    def __init__(self, by_id: Path) -> None:
        by_id.mkdir(parents=True, exist_ok=True)
        self.link = by_id / PUCK_ID
        self.pattern = str(by_id / "usb-MicroPython_Board_in_FS_mode_*-if00")
        self.master = self._slave = -1
        self.heard = b""
        self.profile = ""  # a hardware profile whose puck is found here, where a test writes one

    def plug(self) -> None:
        self.master, self._slave = pty.openpty()
        tty.setraw(self._slave)  # a USB CDC line: no echo, no line editing
        self.link.symlink_to(os.ttyname(self._slave))
        self.heard = b""

    def unplug(self) -> None:
        self.link.unlink()
        os.close(self.master)
        os.close(self._slave)
        self.master = self._slave = -1

    # -- the puck's end, scripted by a test -------------------------------------------
    def puck_says(self, data: bytes | str) -> None:
        os.write(self.master, data if isinstance(data, bytes) else f"{data}\n".encode())

    def box_says(self, data: bytes) -> None:
        """Bytes as if the box had written them (they arrive at the puck's end)."""
        os.write(self._slave, data)

    def lines(self) -> list[str]:
        """Every line the box has sent since plugging in."""
        while select.select([self.master], [], [], 0)[0]:
            self.heard += os.read(self.master, 4096)
        return self.heard.decode(errors="replace").splitlines()

    def wait_for(self, line: str) -> bool:
        return wait_until(lambda: line in self.lines())

    def box_has_read(self) -> bool:
        """Has the box's side read everything the puck said so far?"""
        waiting = array.array("i", [0])
        fcntl.ioctl(self._slave, termios.FIONREAD, waiting)
        return waiting[0] == 0

    def box_link(self) -> str | None:
        """The link named in the box's latest HELLO, once it has said one (the puck's answer must name it)."""
        hellos = [line for line in self.lines() if line.startswith("HELLO gamebox proto=") and " link=" in line]
        return hellos[-1].rsplit(" link=", 1)[1] if hellos else None

    def streams(self) -> tuple[Recorded, Recorded]:
        """The puck end as the byte streams MicroPython's sys.stdin.buffer and sys.stdout.buffer are."""
        return Recorded(open(self.master, "rb", buffering=0, closefd=False)), Recorded(
            open(self.master, "wb", buffering=0, closefd=False)
        )


class Recorded:
    """A byte stream that keeps what went through it."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.data = b""

    def fileno(self) -> int:
        return self.stream.fileno()

    def read(self, n: int) -> bytes:
        data = self.stream.read(n)
        self.data += data or b""
        return data

    def write(self, data: bytes) -> int:
        self.data += data
        return self.stream.write(data)


class Pico:
    """The firmware's board layer and main loop on the puck's end of ``cable``, stepped on ``clock``."""

    def __init__(self, cable: UsbCable, clock: Any, poll_ms: int = 40) -> None:
        rp2_standins.install()
        from puck import settings, ticks
        from puck.app import App
        from puck.board import Board

        self.settings = settings
        self.poll_ms = poll_ms  # the loop's pass interval: the Pico's 10 ms would only slow the tests

        self.clock = clock
        stdin, stdout = self._in, self._out = cable.streams()
        board = Board(stdin=stdin, stdout=stdout, ticks_ms=lambda: int(clock.monotonic() * 1000) % ticks.PERIOD)
        self.app = App(board)
        self.ring = rp2_standins.NeoPixel.last
        self.button = rp2_standins.Pin.wired[settings.BUTTON_PIN]
        self._task: asyncio.Task | None = None

    @property
    def heard(self) -> bytes:
        """What the firmware has read from the box."""
        return self._in.data

    @property
    def said(self) -> bytes:
        """What the firmware has written to the box."""
        return self._out.data

    def power_on(self) -> None:
        """Run the main loop as a task that takes one pass per poll interval of the clock."""
        self._task = asyncio.get_running_loop().create_task(self._loop())

    def power_off(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        while True:
            self.app.step()
            await self.clock.sleep(self.poll_ms / 1000)

    async def press(self) -> None:
        self.button.level = 0
        await self.clock.run_for(0.1)
        self.button.level = 1
        await self.clock.run_for(0.1)


class FlashedPico:
    """firmware/main.py, unchanged, under MicroPython's unix port (tests/firmware/unix_pico.py) on ``cable``'s puck end.

    Each boot is a process of its own on a pseudo-terminal of its own,
    bridged to the cable by a thread, because only bytes written into a
    terminal's far end reach its interrupt character, as a 0x03 from the box
    reaches a Pico's. The thread is also the Pico's watchdog (a feed later
    than the firmware asked for resets it) and its reset: the process ends,
    the cable is unplugged and plugged in again (the Pico's USB goes away and
    comes back), and the next boot starts. The board's pins, ring and events
    are files in ``board``; ``firmware`` is what was flashed (firmware/build.sh's
    output). Its clock is real: tests wait for what it does by condition.
    """

    def __init__(self, cable: UsbCable, board: Path, micropython: str, firmware: Path, heap: str = "",
                 wrap_in_ms: int = 1000, ctrl_c: int = 0) -> None:
        self.cable, self.board, self.firmware = cable, board, firmware
        board.mkdir(parents=True, exist_ok=True)
        self._command = [micropython, *(["-X", f"heapsize={heap}"] if heap else []), str(HERE / "unix_pico.py"),
                         str(firmware), str(board)]
        self._ticks_at_boot = (1 << 30) - wrap_in_ms  # the ticks wrap this long into each boot
        self._stderr = open(board / "stderr", "ab")
        self.mode = "carry"  # or "stall": the box reads nothing; or "hold": nobody reads, as with the port closed
        self.kept = b""  # what the puck wrote while held: a Pico's USB buffer keeps the last 256 bytes
        self.from_box = b""  # what the box wrote while held (it never reaches the puck)
        self.ctrl_c = ctrl_c  # 0x03 bytes still to send just as the firmware imports with Ctrl-C on (unix_pico.py)
        self.process: subprocess.Popen[bytes] | None = None
        self._line = -1
        self._line_name = ""
        self._turns = 0  # passes of the bridge: a new mode holds once a pass has begun with it
        self._stop = threading.Event()
        self._bridge = threading.Thread(target=self._run, name="usb-bridge", daemon=True)
        self._bridge.start()

    def _run(self) -> None:
        cause = PWRON_RESET
        while not self._stop.is_set():
            told = self._boot(cause)
            try:
                ended = self._carry(told)
            finally:
                self._shut_down(told)
            if ended != "reset":
                return  # at its REPL, or the test is over
            self.kept = b""  # the Pico's RAM, its USB buffer included, is gone
            self.cable.unplug()  # its USB goes away as it resets, and comes back
            self.cable.plug()
            cause = WDT_RESET  # the rp2 port's machine.reset() resets through the watchdog too

    def _boot(self, cause: int) -> int:
        self._line, line = pty.openpty()
        self._line_name = os.ttyname(line)
        tty.setraw(line)  # no interrupt character until the firmware's MicroPython turns Ctrl-C on
        os.set_blocking(line, False)  # unix_pico.py's writes give up as a Pico's do, not wait for ever
        told, tells = os.pipe()
        self.process = subprocess.Popen(
            ["setsid", "--ctty", *self._command, str(cause), str(tells), str(self._ticks_at_boot), str(self.ctrl_c)],
            stdin=line, stdout=line, stderr=self._stderr, close_fds=True, pass_fds=(tells,),
        )
        os.close(line)
        os.close(tells)
        return told

    def _carry(self, told: int) -> str:
        """Carry bytes until the Pico resets ("reset") or stops ("stopped"), or the test ends ("over").

        ``told`` is what unix_pico.py tells: W<ms> (the watchdog started), F (fed), R (reset), I (0x03, please).
        """
        timeout: float | None = None  # the watchdog's, once the firmware starts it
        due = 0.0
        heard = b""
        while not self._stop.is_set():
            mode = self.mode
            self._turns += 1
            ends = [told] + ([self.cable.master] if mode == "stall" else [self.cable.master, self._line])
            try:
                for end in select.select(ends, [], [], 0.02)[0]:
                    data = os.read(end, 4096)
                    if end == told:
                        heard += data
                    elif not data:
                        return "stopped"
                    elif mode == "hold" and end == self._line:
                        self.kept = (self.kept + data)[-256:]
                    elif mode == "hold":
                        self.from_box += data
                    else:
                        os.write(self._line if end == self.cable.master else self.cable.master, data)
            except (OSError, ValueError):  # the firmware stopped (its end closed), or the cable is out
                return "stopped" if self.process is None or self.process.poll() is not None else "over"
            if b"I" in heard:  # the firmware imports with Ctrl-C on: the box's 0x03 comes now
                heard = heard.replace(b"I", b"")
                self.ctrl_c -= 1
                os.write(self._line, b"\x03")
            if b"R" in heard:
                return "reset"
            while b"W" in heard and b"\n" in heard[heard.index(b"W"):]:  # the firmware started the watchdog
                start = heard.index(b"W")
                end = heard.index(b"\n", start)
                timeout, heard = int(heard[start + 1 : end]) / 1000, heard[:start] + heard[end + 1 :]
                due = time.monotonic() + timeout
            if b"F" in heard:
                heard = b""
                if timeout is not None:
                    due = time.monotonic() + timeout
            if timeout is not None and time.monotonic() > due:
                with open(self.board / "events", "a") as events:
                    events.write("watchdog reset\n")
                return "reset"
        return "over"

    def _shut_down(self, told: int) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            process.kill()
        if process is not None:
            process.wait(5)
        os.close(self._line)
        os.close(told)

    def switch(self, mode: str) -> None:
        """``carry``, ``stall`` or ``hold``, in force once this returns."""
        self.mode, turns = mode, self._turns
        assert wait_until(lambda: self._turns >= turns + 2 or not self._bridge.is_alive())

    def release(self) -> None:
        """Carry again, first delivering to the box what the puck wrote while held."""
        os.write(self.cable.master, self.kept)
        self.kept, self.from_box, self.mode = b"", b"", "carry"

    def fill_line(self) -> None:
        """Fill the firmware's line towards the box, so its next write finds no room (the box reads nothing)."""
        end = os.open(self._line_name, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            while select.select([], [end], [], 0.05)[1]:
                for size in (3000, 1):  # big writes, then single bytes into the room the last one left
                    with contextlib.suppress(BlockingIOError):
                        while True:
                            os.write(end, b"o" * size)
        finally:
            os.close(end)

    def press(self, down: bool = True) -> None:
        (self.board / "pin15").write_text("0" if down else "1")

    def fail_once(self) -> None:
        """The ring's next write fails: a fault inside the firmware's loop."""
        (self.board / "fault").write_text("EIO")

    def hang_once(self) -> None:
        """The ring's next write never returns: a loop that hangs."""
        (self.board / "hang").write_text("")

    def ready(self) -> bool:
        """Does the ring show the box there, with no roll yet (one white dot)?"""
        frames = self.frames()
        lit = [p for p in frames[-1].split(" ") if p != "0,0,0"] if frames else []
        return len(lit) == 1 and len(set(lit[0].split(","))) == 1

    def events(self) -> list[str]:
        path = self.board / "events"
        return path.read_text().splitlines() if path.exists() else []

    def frames(self) -> list[str]:
        path = self.board / "ring"
        return path.read_text().splitlines() if path.exists() else []

    def close(self) -> None:
        self._stop.set()
        self._bridge.join(5)
        self._stderr.close()

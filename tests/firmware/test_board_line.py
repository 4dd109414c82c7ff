"""The board layer's USB line when the box stops reading: a pseudo-terminal whose box end reads nothing (CPython only).

On a Pico a write into a full USB buffer waits up to 500 ms and one into a
full pseudo-terminal for ever; either way the button goes unpolled and the
ring freezes. The board writes only while the line has room.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import threading
import tty
from collections.abc import Iterator

from tests.firmware import rp2_standins

rp2_standins.install()

from puck import settings  # noqa: E402  (after the stand-ins, as on a Pico after its modules)
from puck.app import App  # noqa: E402
from puck.board import Board  # noqa: E402


@contextlib.contextmanager
def stalled_line() -> Iterator[tuple[int, int]]:
    """A puck end and a box end whose buffer towards the box is already full: the box holds the port and reads nothing."""
    puck_end, box_end = pty.openpty()
    tty.setraw(box_end)
    flags = fcntl.fcntl(puck_end, fcntl.F_GETFL)
    fcntl.fcntl(puck_end, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    while select.select([], [puck_end], [], 0.05)[1]:  # until the kernel has moved all it will towards the box
        for size in (3000, 1):  # big writes, then single bytes into the room the last one left
            with contextlib.suppress(BlockingIOError):
                while True:
                    os.write(puck_end, b"o" * size)
    fcntl.fcntl(puck_end, fcntl.F_SETFL, flags)
    try:
        yield puck_end, box_end
    finally:
        os.close(puck_end)
        os.close(box_end)


def drain(box_end: int) -> bytes:
    data = b""
    while select.select([box_end], [], [], 0)[0]:
        data += os.read(box_end, 65536)
    return data


def test_a_box_that_stops_reading_never_stops_the_loop_and_its_hello_drops_what_waited():
    with stalled_line() as (puck_end, box_end):
        now = [0]
        board = Board(stdin=open(puck_end, "rb", buffering=0, closefd=False),
                      stdout=open(puck_end, "wb", buffering=0, closefd=False), ticks_ms=lambda: now[0])
        ring = rp2_standins.NeoPixel.last
        button = rp2_standins.Pin.wired[settings.BUTTON_PIN]
        spun = []
        apps: list[App] = []
        passes = threading.Event()

        def play() -> None:  # a second of the loop: the box pings, a child presses, the ring spins
            apps.append(App(board))  # says HELLO at power-on, into the full line
            os.write(box_end, b"PING\n")
            for step in range(100):
                now[0] += 10
                button.level = 0 if 10 <= step < 20 else 1
                apps[0].step()
                spun.append(ring.shown)
            passes.set()

        player = threading.Thread(target=play, daemon=True)
        player.start()
        try:
            assert passes.wait(5), "the loop stopped at a write to a box that does not read"
        finally:
            while player.is_alive():  # a loop stuck in a write: let it out before the line closes
                drain(box_end)
                player.join(0.05)
        assert len({tuple(frame) for frame in spun}) > 5, "the ring went on spinning"

        os.write(box_end, b"HELLO gamebox proto=1 link=5e\n")  # the box opens the port anew and greets the puck
        assert drain(box_end).strip(b"o") == b"", "what the old box left unread, and nothing else"
        for _ in range(3):
            now[0] += 10
            apps[0].step()
        heard = drain(box_end).decode()
    assert heard.startswith("HELLO ") and heard.endswith(" link=5e\n"), heard
    assert "PRESS" not in heard and "PONG" not in heard, "the press and the answer the old box never read are gone"

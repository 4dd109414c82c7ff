"""The die puck's main loop: how long one pass takes, under CPython and MicroPython's unix port.

    .venv/bin/python bench/puck.py
    .venv/bin/micropython bench/puck.py

One pass (puck.app.App.step) reads the line, the button and the shake
switch, answers, and draws the ring. The loop polls every 10 ms, so a pass
must stay far below that on the Pico. Measured here on the tests' stand-in
board (nothing is read from a line or written to one), over three pictures: a face at rest,
the spin (a new frame each pass) and the flashing whistle. Prints the mean
microseconds per pass for each. A PC's figure is not a Pico's: the Pico
(133 MHz Cortex-M0+) is slower by one to two orders of magnitude.
"""

import sys
import time

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, HERE + "/../firmware")
sys.path.insert(0, HERE + "/../tests/firmware")

from puck import settings  # noqa: E402
from puck.app import App  # noqa: E402
from rp2_standins import StandInBoard  # noqa: E402

PASSES = 6000
ROUND = 300  # passes of 10 ms: one roll's 3 s


class QuietBoard(StandInBoard):
    """The stand-in board keeping nothing, so thousands of passes do not fill the heap."""

    has_shake = True

    def write(self, data, press=False):
        pass

    def show(self, pixels):
        pass


def clock_us():
    return time.ticks_us() if hasattr(time, "ticks_us") else int(time.perf_counter() * 1e6)


def per_pass(app, board, setup):
    """Mean microseconds per pass over PASSES passes; ``setup`` (a PING, and the picture) every 3 s of ticks."""
    total = 0
    for _ in range(PASSES // ROUND):
        setup(app)
        app.step()
        start = clock_us()
        for _ in range(ROUND):
            board.now += settings.POLL_MS
            app.step()
        total += clock_us() - start
    return total / (PASSES // ROUND * ROUND)


def main():
    board = QuietBoard()
    app = App(board)

    def face(app):
        board.incoming = b"PING\nFACE cat\n"

    def spin(app):
        board.incoming = b"PING\n"
        app.puck.spinning_since = app.puck.last_touch = board.now

    def whistle(app):
        app.puck.spinning_since = None
        board.incoming = b"PING\nFACE whistle\n"

    print("%s %s" % (sys.implementation.name, ".".join(str(n) for n in sys.implementation.version[:3])))
    per_pass(app, board, face)  # warm up
    for name, setup in (("face at rest", face), ("spinning", spin), ("whistle flashing", whistle)):
        print("%-18s %7.1f us per pass" % (name, per_pass(app, board, setup)))


main()

"""The board layer on the stand-ins, under CPython and MicroPython: the pins, the ring, and the line as byte streams.

MicroPython-compatible like test_puck_logic (mp_run.py runs both); the
line is a pair of files, which both interpreters can poll.
"""

import sys

try:
    from tests.firmware import rp2_standins  # CPython, in the suite
except ImportError:
    import rp2_standins  # MicroPython, from mp_run.py

rp2_standins.install()

from puck import faces, settings  # noqa: E402  (after the stand-ins, as on a Pico after its modules)
from puck.app import App  # noqa: E402
from puck.board import Board  # noqa: E402

BASE = "/tmp/gamebox-puck-" + sys.implementation.name


def test_the_board_reads_the_line_writes_answers_and_drives_the_pins_and_ring():
    with open(BASE + ".in", "wb") as line:
        line.write(b"PING\nFACE dog\n")
    now = [0]
    with open(BASE + ".in", "rb") as stdin, open(BASE + ".out", "wb") as stdout:
        board = Board(stdin=stdin, stdout=stdout, ticks_ms=lambda: now[0])
        app = App(board)
        app.step()
        ring = rp2_standins.NeoPixel.last
        assert [rgb != (0, 0, 0) for rgb in ring.shown] == faces.pattern("dog", settings.LEDS)
        assert not board.button_down() and not board.shaken()
        rp2_standins.Pin.wired[settings.BUTTON_PIN].level = 0  # pressed: the pull-up pin goes low
        for _ in range(3):
            now[0] += settings.DEBOUNCE_MS
            app.step()
        assert board.button_down()
        board.wait(0)
    with open(BASE + ".out", "rb") as said:
        lines = said.read().decode().split("\n")
    assert lines[0].startswith("HELLO ") and lines[1:] == ["PONG t=0", "PRESS t=%d" % (2 * settings.DEBOUNCE_MS), ""]


def test_the_board_feeds_the_watchdog_each_pass_once_main_py_starts_it():
    with open(BASE + ".in", "wb"):
        pass
    with open(BASE + ".in", "rb") as stdin, open(BASE + ".out", "wb") as stdout:
        board = Board(stdin=stdin, stdout=stdout, ticks_ms=lambda: 0)
        rp2_standins.WDT.last = None
        board.wait(0)
        assert rp2_standins.WDT.last is None, "no watchdog until asked: the REPL stays usable"
        board.start_watchdog(8000)
        for _ in range(3):
            board.wait(0)
        assert rp2_standins.WDT.last.timeout == 8000 and rp2_standins.WDT.last.feeds == 3


def flooded(flood, presses):
    """Two seconds of the loop while the box sends ``flood`` flat out and a child presses ``presses`` times: what the puck said."""
    passes = 200
    with open(BASE + ".in", "wb") as line:
        line.write(b"PING\n")
        line.write(flood * (passes * 64 // len(flood) + 1))  # more than the loop reads, 64 bytes a pass
    now = [0]
    with open(BASE + ".in", "rb") as stdin, open(BASE + ".out", "wb") as stdout:
        board = Board(stdin=stdin, stdout=stdout, ticks_ms=lambda: now[0])
        app = App(board)
        button = rp2_standins.Pin.wired[settings.BUTTON_PIN]
        every = passes // presses
        for step in range(passes):
            button.level = 0 if step % every < every // 2 else 1  # down half the time: a press every 100 ms
            now[0] += settings.POLL_MS
            app.step()
    with open(BASE + ".out", "rb") as said:
        return said.read().split(b"\n")


def test_a_press_is_never_dropped_for_an_answer_however_the_box_floods_the_line():
    for flood, answer in ((b"WIBBLE\n", b"ERR unknown WIBBLE"), (b"PING\n", b"PONG")):
        said = flooded(flood, 20)
        assert sum(1 for line in said if line.startswith(b"PRESS")) == 20, flood
        assert any(line.startswith(answer) for line in said), "answers still go out, in the room the presses leave"


def test_the_line_on_its_way_when_the_box_says_hello_is_finished_so_the_answer_is_a_line_of_its_own():
    with open(BASE + ".in", "wb") as line:
        line.write(b"PING\nPING\n")
    with open(BASE + ".in", "rb") as stdin, open(BASE + ".out", "wb") as stdout:
        board = Board(stdin=stdin, stdout=stdout, ticks_ms=lambda: 0)
        app = App(board)
        app.step()  # its HELLO and the PONGs: more than a pass writes, so a PONG is on its way
        with open(BASE + ".in", "ab") as line:
            line.write(b"HELLO gamebox proto=1 link=ab\n")
        app.step()
        app.step()
    with open(BASE + ".out", "rb") as said:
        lines = said.read().decode().split("\n")
    assert lines[-2].startswith("HELLO ") and lines[-2].endswith(" link=ab"), lines
    assert [line.split(" ")[0] for line in lines[:-1]] == ["HELLO", "PONG", "HELLO"], "whole lines, the PONG on its way too"

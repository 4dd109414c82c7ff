"""The die puck's firmware: MicroPython runs this file at power-on (firmware/README.md).

Nothing on the line and nothing in the loop leaves the puck at its REPL
for good: a 0x03 byte is a byte like any other, not Ctrl-C; whatever
escapes the loop is one ``LOG`` line, then a reset; and a watchdog resets
a loop that hangs. To reach the REPL (mpremote), hold the button while
plugging the puck in.
"""

import sys
import time

import machine
import micropython

from puck.app import App
from puck.board import Board

WATCHDOG_MS = 8000  # the RP2040's longest is 8388 ms; a loop pass takes milliseconds


def log_line(error: BaseException) -> str:
    """``LOG reset: <what escaped>`` in printable ASCII, short enough for one protocol line."""
    text = "LOG reset: %s %s" % (type(error).__name__, error)
    return "".join(c if " " <= c <= "~" else "?" for c in text[:80]) + "\n"


def main() -> None:
    micropython.kbd_intr(-1)  # before anything else: from now on 0x03 from the box is data
    try:
        board = Board()
        if machine.reset_cause() == machine.PWRON_RESET and board.button_down():  # held while plugged in:
            # stay stopped, at the REPL, for mpremote. Not after a reset of the firmware's own (or the
            # watchdog's), which a child may be pressing through.
            micropython.kbd_intr(3)
            print("the button was held at power-on: the puck stays stopped; unplug it to start it")
            return
        board.start_watchdog(WATCHDOG_MS)
        App(board).run()
    except BaseException as error:  # whatever it is, a puck at its REPL is a dead die at the table
        try:
            sys.stdout.write(log_line(error))
            time.sleep_ms(100)  # let the line leave the USB buffer
        except BaseException:  # noqa: S110  (the reset below matters more than the log line)
            pass
    machine.reset()


main()

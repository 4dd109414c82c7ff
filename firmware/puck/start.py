"""What main.py starts once Ctrl-C is off: the main loop on the board, or the REPL for flashing."""

import micropython

from puck.app import App
from puck.board import Board

WATCHDOG_MS = 8000  # the RP2040's longest is 8388 ms; a loop pass takes milliseconds


def start() -> None:
    """Run the puck for good; return only to leave the REPL to mpremote.

    That is when the button is held while the puck is plugged in, not after
    a reset of the firmware's own (or the watchdog's), which a child may be
    pressing through.
    """
    board = Board()
    if board.powered_on() and board.button_down():
        micropython.kbd_intr(3)
        print("the button was held at power-on: the puck stays stopped; unplug it to start it")
        return
    board.start_watchdog(WATCHDOG_MS)
    App(board).run()

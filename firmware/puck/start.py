"""What main.py starts once Ctrl-C is off: the main loop on the board, or the REPL for flashing."""

import micropython

from puck import settings
from puck.app import App
from puck.board import Board
from puck.hold import REPL, PowerOnHold

WATCHDOG_MS = 8000  # the RP2040's longest is 8388 ms; a loop pass takes milliseconds


def start() -> None:
    """Run the puck for good; return only to leave the REPL to mpremote.

    That is when the button, down at power-on, is held until the ring has
    filled and then let go (puck.hold); never after a reset of the
    firmware's own (or the watchdog's), which a child may be pressing through.
    """
    board = Board()
    if board.powered_on() and board.button_down() and held_to_stop(board):
        micropython.kbd_intr(3)
        print("the button was held at power-on: the puck stays stopped; unplug it to start it")
        return
    board.start_watchdog(WATCHDOG_MS)
    App(board).run()


def held_to_stop(board) -> bool:
    """Watch the button held from power-on, the ring filling as it is; was it let go to stop the puck?"""
    hold = PowerOnHold(board.ticks_ms(), board.leds)
    shown: list | None = None
    while True:
        now = board.ticks_ms()
        choice = hold.update(board.button_down(), now)
        pixels = hold.frame(now)
        if pixels != shown:
            board.show(pixels)
            shown = pixels
        if choice is not None:
            return choice == REPL
        board.pause(settings.POLL_MS)

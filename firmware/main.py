"""The die puck's firmware: MicroPython runs this file at power-on (firmware/README.md).

Ctrl-C on the USB line still stops it, so ``mpremote`` can copy a new
version over this one.
"""

from puck.app import App
from puck.board import Board

App(Board()).run()

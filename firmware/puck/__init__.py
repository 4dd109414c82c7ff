"""The die puck's firmware: logic modules that import no hardware, and the one module that does (board).

Everything but :mod:`puck.board` runs unchanged under CPython, so the
puck's behaviour is tested on a PC; ``board`` is the thin layer over
``machine.Pin``, ``neopixel`` and the USB serial line.
"""

#: The firmware's own version, sent in HELLO; doctor shows it.
VERSION = "1.2.0"
#: The protocol this firmware speaks (firmware/PROTOCOL.md).
PROTOCOL = 1

"""The die puck's firmware: MicroPython runs this file at power-on (firmware/README.md).

Nothing on the line and nothing in the puck leaves it at its REPL for
good. Ctrl-C goes off before anything else, inside the guard, so a 0x03
from the box, even one that came during the very first instructions, is
data or a reset, never the REPL; everything else is imported inside the
guard too, so a MemoryError while importing is a reset as well. Whatever
escapes is one ``LOG`` line, then a reset; a watchdog resets a loop that
hangs. The rest of the firmware (puck/) is shipped compiled (build.sh), so
the boot is quick and needs little memory. To reach the REPL (mpremote),
see puck/start.py.
"""

try:
    import micropython

    micropython.kbd_intr(-1)  # first of all: from now on 0x03 from the box is data
    from puck.start import start

    start()  # returns only to leave the REPL to mpremote
except BaseException as error:  # whatever it is, a puck at its REPL is a dead die at the table
    try:
        import micropython

        micropython.kbd_intr(-1)  # (if what escaped came before the first)
        import sys
        import time

        try:
            text = "LOG reset: %s %s" % (type(error).__name__, error)  # printable ASCII, one protocol line
            sys.stdout.write("".join(c if " " <= c <= "~" else "?" for c in text[:80]) + "\n")
        except MemoryError:  # no room left to build the line: one that needs none
            sys.stdout.write("LOG reset: MemoryError\n")
        time.sleep_ms(100)  # let the line leave the USB buffer
    except BaseException:  # noqa: S110  (the reset below matters more than the log line)
        pass
    import machine

    machine.reset()

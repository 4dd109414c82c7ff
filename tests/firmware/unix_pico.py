"""A Pico for MicroPython's unix port: stand-ins beneath the firmware, then firmware/main.py as flashed.

    micropython unix_pico.py FIRMWARE_DIR BOARD_DIR

Run by tests/firmware/usb.py's FlashedPico with the USB line (a
pseudo-terminal) as standard input and output and as its controlling
terminal, so a 0x03 byte from the box interrupts it exactly when
MicroPython's interrupt character is Ctrl-C, as a Pico's USB does. The
rest of the board is files in BOARD_DIR:

- ``pin<n>``: the level of GPIO n ("0": the button is pressed); absent: 1, pulled up
- ``ring``: one line per frame the ring was sent
- ``fault``: if present, the ring's next write removes it and fails (a fault inside the loop)
- ``events``: ``boot``, ``kbd_intr <char>``, ``watchdog <ms>``, ``reset``, ``repl``

``machine.reset()`` starts the firmware again from main.py, with every
module it imported forgotten, as a reset does.
"""

import sys

import micropython as _micropython
import termios

FIRMWARE, BOARD = sys.argv[1], sys.argv[2]
ISIG = 1  # termios c_lflag: the terminal turns 0x03 into an interrupt


def note(event):
    with open(BOARD + "/events", "a") as events:
        events.write(event + "\n")


class Reset(Exception):
    pass


class Pin:
    IN, OUT, PULL_UP = 0, 1, 1

    def __init__(self, pin, mode=-1, pull=-1):
        self.pin = pin

    def value(self):
        try:
            with open(BOARD + "/pin%d" % self.pin) as level:
                return int(level.read().strip())
        except (OSError, ValueError):
            return 1


class NeoPixel:
    def __init__(self, pin, n):
        self.buffer = [(0, 0, 0)] * n

    def __setitem__(self, index, rgb):
        self.buffer[index] = rgb

    def write(self):
        try:
            with open(BOARD + "/fault"):
                pass
        except OSError:
            with open(BOARD + "/ring", "a") as ring:
                ring.write(" ".join("%d,%d,%d" % rgb for rgb in self.buffer) + "\n")
            return
        import os

        os.remove(BOARD + "/fault")
        raise OSError(5)  # EIO: the ring's stand-in fails once


class WDT:
    def __init__(self, id=0, timeout=5000):
        note("watchdog %d" % timeout)

    def feed(self):
        pass


PWRON_RESET, WDT_RESET = 1, 3
cause = PWRON_RESET


def reset():
    global cause
    note("reset")
    cause = WDT_RESET  # machine.reset() on the rp2 port resets through the watchdog
    raise Reset()


def reset_cause():
    return cause


def kbd_intr(char):
    """MicroPython's own, and the terminal told whether 0x03 interrupts, as a Pico's USB checks the interrupt character."""
    _micropython.kbd_intr(char)
    attrs = termios.tcgetattr(0)
    attrs[3] = attrs[3] | ISIG if char == 3 else attrs[3] & ~ISIG
    termios.tcsetattr(0, termios.TCSANOW, attrs)
    note("kbd_intr %d" % char)


class _Module:
    pass


machine, neopixel, micropython = _Module(), _Module(), _Module()
machine.Pin, machine.WDT, machine.reset, machine.reset_cause = Pin, WDT, reset, reset_cause
machine.PWRON_RESET, machine.WDT_RESET = PWRON_RESET, WDT_RESET
neopixel.NeoPixel = NeoPixel
micropython.kbd_intr = kbd_intr
sys.path.insert(0, FIRMWARE)

while True:
    for name in list(sys.modules):
        if name == "main" or name == "puck" or name.startswith("puck."):
            del sys.modules[name]
    sys.modules["machine"], sys.modules["neopixel"], sys.modules["micropython"] = machine, neopixel, micropython
    kbd_intr(3)  # as after a reset
    note("boot")
    try:
        import main  # noqa: F401  (runs the firmware)
    except Reset:
        continue
    except BaseException as error:  # out to the REPL, as on a Pico: the traceback goes down the line
        sys.print_exception(error, sys.stdout)
    note("repl")  # a Pico would sit at its prompt now; this one stops
    break

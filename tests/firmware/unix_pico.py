"""A Pico for MicroPython's unix port: stand-ins beneath the firmware, then firmware/main.py as flashed.

    micropython unix_pico.py FIRMWARE_DIR BOARD_DIR CAUSE TELL_FD TICKS_AT_BOOT CTRL_C

One process is one boot of the Pico, run by tests/firmware/usb.py's
FlashedPico with the USB line (a pseudo-terminal, non-blocking) as standard
input and output and as its controlling terminal, so a 0x03 byte from the
box interrupts it exactly when MicroPython's interrupt character is Ctrl-C,
as a Pico's USB does. The stand-ins are as strict as the board:

- ``time``: the rp2 port's 30-bit ticks, starting at TICKS_AT_BOOT (near the wrap)
- ``sys.stdin``/``sys.stdout``: the line; a write into a full line waits at most
  500 ms for room, then gives up on the rest (a Pico's USB CDC timeout)
- ``machine.WDT``: told, feed by feed, through TELL_FD to FlashedPico, which
  resets the Pico when a feed is late; ``machine.reset()`` stops here and FlashedPico
  resets it: the USB line goes away and comes back, and the next boot's CAUSE is
  ``3`` (WDT_RESET), where power-on's is ``1``
- the box's stray 0x03 bytes at the worst moment: while CTRL_C is more than 0 and
  Ctrl-C is on, each import the firmware begins asks FlashedPico for one, and
  waits until it has interrupted (or not)

The rest of the board is files in BOARD_DIR:

- ``pin<n>``: the level of GPIO n ("0": the button is pressed); absent: 1, pulled up
- ``ring``: one line per frame the ring was sent
- ``fault``: if present, the ring's next write removes it and fails (a fault inside the loop)
- ``hang``: if present, the ring's next write removes it and never returns (a hung loop)
- ``events``: ``boot``, ``kbd_intr <char>``, ``watchdog <ms>``, ``reset``, ``repl``
"""

import builtins
import io
import os
import select as _select
import sys
import termios
import time as _time

import micropython as _micropython

FIRMWARE, BOARD = sys.argv[1], sys.argv[2]
CAUSE, TELL, TICKS_AT_BOOT, CTRL_C = int(sys.argv[3]), open(int(sys.argv[4]), "wb"), int(sys.argv[5]), int(sys.argv[6])
ISIG = 1  # termios c_lflag: the terminal turns 0x03 into an interrupt
PERIOD = 1 << 30  # the rp2 port's ticks (MICROPY_PY_TIME_TICKS_PERIOD)
TX_TIMEOUT_MS = 500  # MICROPY_HW_USB_CDC_TX_TIMEOUT


def note(event):
    with open(BOARD + "/events", "a") as events:
        events.write(event + "\n")


def board_file(name):
    """Remove BOARD/name if it is there; was it?"""
    try:
        os.remove(BOARD + "/" + name)
        return True
    except OSError:
        return False


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
        if board_file("fault"):
            raise OSError(5)  # EIO: the ring's stand-in fails once
        if board_file("hang"):
            while True:  # stuck, as a loop waiting for what never comes: only the watchdog ends it
                _time.sleep(1)
        with open(BOARD + "/ring", "a") as ring:
            ring.write(" ".join("%d,%d,%d" % rgb for rgb in self.buffer) + "\n")


def tell(what):
    TELL.write(what)


class WDT:
    def __init__(self, id=0, timeout=5000):
        note("watchdog %d" % timeout)
        tell(("W%d\n" % timeout).encode())

    def feed(self):
        tell(b"F")


PWRON_RESET, WDT_RESET = 1, 3


def reset():
    note("reset")
    tell(b"R")
    while True:  # a reset never returns: FlashedPico ends this process
        _time.sleep(1)


def reset_cause():
    return CAUSE


def kbd_intr(char):
    """MicroPython's own, and the terminal told whether 0x03 interrupts, as a Pico's USB checks the interrupt character.

    Ordered so that no 0x03 falls between the two: the handler is there
    before the terminal interrupts, and the terminal stops before it goes.
    """
    attrs = termios.tcgetattr(0)
    if char == 3:
        note("kbd_intr 3")
        _micropython.kbd_intr(3)
        attrs[3] = attrs[3] | ISIG
        termios.tcsetattr(0, termios.TCSANOW, attrs)
    else:
        attrs[3] = attrs[3] & ~ISIG
        termios.tcsetattr(0, termios.TCSANOW, attrs)
        _micropython.kbd_intr(char)
        note("kbd_intr %d" % char)


def interrupts():
    return bool(termios.tcgetattr(0)[3] & ISIG)


_import = builtins.__import__


def importing(name, *args):
    """An import statement of the firmware's; the box's 0x03 arrives just then, if one is due and Ctrl-C is on."""
    global CTRL_C
    if CTRL_C > 0 and interrupts():
        CTRL_C -= 1
        tell(b"I")
        for _ in range(2000):  # a KeyboardInterrupt ends this as soon as the byte is there
            _time.sleep_ms(1)
    return _import(name, *args)


_BOOTED = _time.ticks_ms()


def ticks_ms():
    return (TICKS_AT_BOOT + _time.ticks_diff(_time.ticks_ms(), _BOOTED)) & (PERIOD - 1)


def ticks_add(ticks, delta):
    return (ticks + delta) & (PERIOD - 1)


def ticks_diff(new, old):
    return ((new - old + PERIOD // 2) & (PERIOD - 1)) - PERIOD // 2


class Line(io.IOBase):
    """The USB line: one end of the pseudo-terminal, as ``sys.stdin`` or ``sys.stdout`` and their ``buffer``."""

    def __init__(self, fd, mode):
        self._fd = fd
        self._file = open(fd, mode)
        self._room = _select.poll()
        self._room.register(self._file, _select.POLLOUT)
        self.buffer = self

    def ioctl(self, request, arg):
        return self._fd if request == 10 else 0  # MP_STREAM_GET_FILENO: select.poll polls the line itself

    def read(self, n=-1):
        return self._file.read(n) or b""

    def write(self, data):
        data = data.encode() if isinstance(data, str) else bytes(data)
        sent, began = 0, _time.ticks_ms()
        while sent < len(data):
            count = self._file.write(data[sent:])  # None: no room
            if count:
                sent += count
                continue
            left = TX_TIMEOUT_MS - _time.ticks_diff(_time.ticks_ms(), began)
            if left <= 0 or not self._room.poll(left):
                break  # the rest is lost, as on a Pico
        return sent


class _Module:
    pass


machine, neopixel, micropython, time, pico_sys = _Module(), _Module(), _Module(), _Module(), _Module()
machine.Pin, machine.WDT, machine.reset, machine.reset_cause = Pin, WDT, reset, reset_cause
machine.PWRON_RESET, machine.WDT_RESET = PWRON_RESET, WDT_RESET
neopixel.NeoPixel = NeoPixel
micropython.kbd_intr = kbd_intr
time.ticks_ms, time.ticks_add, time.ticks_diff = ticks_ms, ticks_add, ticks_diff
time.sleep, time.sleep_ms, time.sleep_us = _time.sleep, _time.sleep_ms, _time.sleep_us
pico_sys.stdin, pico_sys.stdout = Line(0, "rb"), Line(1, "wb")
for name in ("path", "modules", "implementation", "print_exception", "exit", "argv", "version", "platform"):
    setattr(pico_sys, name, getattr(sys, name))
sys.path.insert(0, FIRMWARE)
sys.modules["machine"], sys.modules["neopixel"], sys.modules["micropython"] = machine, neopixel, micropython
sys.modules["time"], sys.modules["sys"] = time, pico_sys
builtins.__import__ = importing

with open(FIRMWARE + "/main.py") as source:
    MAIN = source.read()  # read before Ctrl-C is on, as a Pico's flash is no system call to interrupt
note("boot")
try:
    kbd_intr(3)  # as after a reset
    exec(MAIN, {"__name__": "__main__"})  # runs the firmware
except BaseException as error:  # out to the REPL, as on a Pico: the traceback goes down the line
    try:
        try:
            kbd_intr(-1)  # a Pico at its prompt takes a further 0x03 in its stride; this one stops listening
        except KeyboardInterrupt:  # one that came before the terminal stopped
            kbd_intr(-1)
    except KeyboardInterrupt:
        pass
    sys.print_exception(error, pico_sys.stdout)
note("repl")  # a Pico would sit at its prompt now; this one stops

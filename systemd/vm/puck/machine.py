# The Pico's `machine` for the die puck's firmware under MicroPython's unix port, in the virtual Pi test.
# A pin reads its level from the file $PUCK_PINS/<pin> ("0" or "1", pulled up when absent),
# so the host presses the puck's button by writing "0" there.
import os

_PINS = os.getenv("PUCK_PINS") or "."


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, pin, mode=-1, pull=None):
        self._path = _PINS + "/" + str(pin)

    def value(self, level=None):
        if level is not None:
            return None
        try:
            with open(self._path) as level_file:
                return 0 if level_file.read(1) == "0" else 1
        except OSError:
            return 1


class WDT:
    def __init__(self, id=0, timeout=5000):
        pass

    def feed(self):
        pass


def reset():
    raise SystemExit(3)  # the host sees the puck reset by its exit status


def unique_id():
    return b"\xe6\x61\x4c\x31\x1b\x7b\x6a\x2b"

"""Millisecond ticks that wrap, as MicroPython's ``time.ticks_ms`` does.

The logic takes the time as a number (tests pass their own) and takes
every interval with :func:`diff`, never with a plain subtraction. On the
Pico these are MicroPython's own ``time.ticks_diff``/``ticks_add`` (small
integers only: no allocation); under CPython, in the tests, the same
arithmetic as the rp2 port's, whose ticks wrap at 2**30 (about 12.4 days).
A difference is only right for intervals shorter than half that (about
6.2 days), so the puck keeps no tick that long (puck.core, puck.inputs).
"""

import time

_PERIOD = 1 << 30  # the rp2 port's (MICROPY_PY_TIME_TICKS_PERIOD), for the CPython stand-ins below
_HALF = _PERIOD >> 1


def _diff(new: int, old: int) -> int:
    """Milliseconds from ``old`` to ``new`` (negative if ``new`` is earlier), across a wrap."""
    return ((new - old + _HALF) & (_PERIOD - 1)) - _HALF


def _add(ticks: int, ms: int) -> int:
    """``ticks`` moved on by ``ms``, wrapped like ``time.ticks_add``."""
    return (ticks + ms) & (_PERIOD - 1)


diff = getattr(time, "ticks_diff", _diff)
add = getattr(time, "ticks_add", _add)
#: Where the ticks wrap: 2**30 on the rp2 port and under CPython (computed once, at import).
PERIOD = add(0, -1) + 1

"""Millisecond ticks that wrap, as MicroPython's ``time.ticks_ms`` does.

The logic takes the time as a number (tests pass their own); on the rp2
port ``ticks_ms`` wraps at 2**30 (about 12 days), so every interval is
taken with :func:`diff`, never with a plain subtraction.
"""

PERIOD = 1 << 30
_HALF = PERIOD // 2


def diff(new: int, old: int) -> int:
    """Milliseconds from ``old`` to ``new`` (negative if ``new`` is earlier), across a wrap."""
    return ((new - old + _HALF) % PERIOD) - _HALF


def add(ticks: int, ms: int) -> int:
    """``ticks`` moved on by ``ms``, wrapped like ``time.ticks_add``."""
    return (ticks + ms) % PERIOD

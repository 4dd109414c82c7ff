"""Standard output for the ``gamebox`` command: quiet when its reader goes away.

``gamebox status | head -3``: once ``head`` has its lines it quits, and the
next write meets a broken pipe. A Unix tool then stops without a word; so
does every ``gamebox`` command, handled once, here, for all of them.
"""

from __future__ import annotations

import os
import signal
from typing import Any, TextIO


class ReaderGone(Exception):
    """Standard output's reader has gone (``gamebox status | head -3`` after ``head`` quit)."""


class GuardedStdout:
    """Standard output that notices its reader going away, once, for every command.

    The first broken pipe sends what is still written to /dev/null. A
    command that stops gracefully on SIGTERM (the box's loop: ``run``,
    ``demo``, ``sim``) is asked to, and its write returns as if done, so the
    box never stops half-way through an answer; any other command ends at
    once through :class:`ReaderGone`. Either way nothing more is printed.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        return self._guard(self.stream.write, text)

    def flush(self) -> None:
        self._guard(self.stream.flush)

    def _guard(self, call: Any, *args: Any) -> Any:
        if self.gone:
            return len(args[0]) if args else None
        try:
            return call(*args)
        except BrokenPipeError:
            self.gone = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())  # the exit's flush has nowhere to fail
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                raise ReaderGone from None
            signal.raise_signal(signal.SIGTERM)  # the loop's handler: stop when this answer is done
            return len(args[0]) if args else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

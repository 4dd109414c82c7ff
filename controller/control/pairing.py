"""The pairing code: spoken and shown by the box, typed once on a phone.

A page may ask for a code, but only someone at the box gets one: the ask
arms the box for :data:`ARM_SECONDS`, and the next hold of the die button
makes the code (so does the pairing control card, at any time), which the
box says digit by digit while its ring lights. The code
is good for :data:`CODE_SECONDS` and :data:`TRIES` wrong tries in all,
from every address together (the page adds its own back-off per
address); then it is gone and a new one needs the box again. So a guesser
gets at most ``TRIES`` guesses in 10**DIGITS per hold of the die.

A page's ask cannot be stretched: asking while armed keeps the minute it
had, and all pages together may arm the box :data:`ARM_BURST` times, then
once per :data:`ARM_REFILL` seconds (the daemon refuses it mid-game, and
the page limits each address), so nobody on the network keeps the die
armed to catch a family's hold.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Callable

DIGITS = 6
ARM_SECONDS = 60.0
CODE_SECONDS = 300.0
TRIES = 5
ARM_BURST = 3  # a page's asks in a row (a family's phone that missed the minute asks again)
ARM_REFILL = 600.0  # seconds per ask past the burst


class Pairing:
    def __init__(self, now: Callable[[], float], arm_seconds: float = ARM_SECONDS) -> None:
        self.now, self.arm_seconds = now, arm_seconds
        self._armed_until = 0.0
        self._code: str | None = None
        self._until = 0.0
        self._tries = 0
        self._asks = float(ARM_BURST)
        self._asked_at = now()

    def arm(self) -> None:
        """Someone at the box (the pairing card): armed at once, whatever a page asked."""
        self._armed_until = self.now() + self.arm_seconds

    def asked(self) -> float | None:
        """A page's ask: the seconds the box stays armed (an ask while armed does not renew it), or None when pages
        asked too often and the box waits (:meth:`ask_wait` says how long)."""
        if self.armed():
            return self.armed_left()
        self._refill()
        if self._asks < 1:
            return None
        self._asks -= 1
        self.arm()
        return self.arm_seconds

    def ask_wait(self) -> float:
        self._refill()
        return max(0.0, (1 - self._asks) * ARM_REFILL)

    def disarm(self) -> None:
        self._armed_until = 0.0

    def _refill(self) -> None:
        now = self.now()
        self._asks = min(float(ARM_BURST), self._asks + (now - self._asked_at) / ARM_REFILL)
        self._asked_at = now

    def armed(self) -> bool:
        """A page asked for a code: the next hold of the die makes it."""
        return self.now() < self._armed_until

    def armed_left(self) -> float:
        return max(0.0, self._armed_until - self.now())

    def held(self) -> str:
        """A new code (the old one is gone); the box is no longer armed."""
        self._armed_until = 0.0
        self._code = "".join(secrets.choice("0123456789") for _ in range(DIGITS))
        self._until, self._tries = self.now() + CODE_SECONDS, 0
        return self._code

    def tries_left(self) -> int:
        return 0 if self._code is None else TRIES - self._tries

    def check(self, typed: str) -> bool:
        """True once for the right code in time; any try past the limit or the time finds no code at all."""
        code = self._code
        if code is None or self.now() >= self._until:
            self._code = None
            return False
        if hmac.compare_digest(typed.strip().encode(), code.encode()):
            self._code = None  # one phone per code
            return True
        self._tries += 1
        if self._tries >= TRIES:
            self._code = None
        return False

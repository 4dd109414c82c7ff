"""The button held from power-on: start the puck, or stop it at the REPL for flashing.

A child pressing while the puck is plugged in, a puck lying on its button,
a brown-out while the button is down: none of them may leave a dark, dead
die. So the REPL is chosen only on purpose: the button held until the
ring has filled (STOP_HOLD_MS), then let go within STOP_LET_GO_MS. Let go
sooner, or still held after that, the puck starts as usual. Time is passed
in, as in puck.core, so the tests walk through it in microseconds.
"""

from puck import ring, settings, ticks

RUN = "run"
REPL = "repl"


class PowerOnHold:
    """Watches the button from ``now`` (power-on, the button down) until it decides RUN or REPL."""

    def __init__(self, now: int, leds: int = settings.LEDS, s=settings) -> None:
        self.leds = leds
        self.s = s
        self.since = now
        self.up_since: int | None = None  # the button is up (let go) since these ticks; None while down
        self.choice: str | None = None
        self.budget_ma = s.USB_MA - s.PICO_MA - leds * s.LED_IDLE_MA

    def update(self, down: bool, now: int) -> str | None:
        """The button's level at ``now``; RUN or REPL once decided, None until then."""
        if self.choice is not None:
            return self.choice
        held = ticks.diff(now, self.since)
        up = None if down else (now if self.up_since is None else self.up_since)
        self.up_since = up
        if up is not None and ticks.diff(now, up) >= self.s.DEBOUNCE_MS:  # let go, not a bounce
            self.choice = REPL if ticks.diff(up, self.since) >= self.s.STOP_HOLD_MS else RUN
        elif down and held >= self.s.STOP_HOLD_MS + self.s.STOP_LET_GO_MS:
            self.choice = RUN  # never let go: lying on its button
        return self.choice

    def frame(self, now: int) -> list:
        """The ring while the button is held (filling, a pixel at a time), and once stopped for flashing."""
        if self.choice == REPL:
            pixels = ring.stopped(self.leds)
        else:
            held = ticks.diff(now, self.since)
            pixels = ring.filling(self.leds, min(self.leds, 1 + held * (self.leds - 1) // self.s.STOP_HOLD_MS))  # full: let go
        return ring.limit(pixels, self.s.MAX_LEVEL, self.budget_ma)

"""The puck's behaviour, with time passed in: what it says to the box and what its ring shows.

:class:`Puck` knows nothing of pins or ports. The main loop (puck.app)
feeds it the button's and the switch's levels, the lines from the box and
the time in ticks_ms; it keeps the lines to send in :attr:`Puck.outbox` and
draws each frame on request. Because time is a parameter, a test can walk
through a minute of play in microseconds.
"""

from puck import PROTOCOL, VERSION, faces, ring, settings, ticks
from puck.inputs import Debouncer, ShakeDetector
from puck.protocol import FACES, NO_LINK, TOO_LONG, err, hello, link_of, split


class Puck:
    """One die puck: a button, an optional shake switch and a ring of ``leds`` pixels."""

    def __init__(self, now: int, leds: int = settings.LEDS, shake: bool = True, s=settings) -> None:
        if leds < faces.MIN_LEDS:
            raise ValueError("the ring needs %d pixels or more" % faces.MIN_LEDS)
        self.leds = leds
        self.s = s
        self.caps = ("button", "ring", "shake") if shake else ("button", "ring")
        self.outbox: list = []  # lines for the box, oldest first, without "\n"
        self.face: str | None = None  # the face shown, once the box has sent one
        self.face_since = now
        self.spinning_since: int | None = None  # ticks of the press while the ring spins
        self.pending_face: str | None = None  # a face that came while the spin has not run its minimum
        # Ticks kept no longer than their interval needs (see tick): a difference is only
        # right under half the ticks' period, about 6.2 days on a Pico.
        self.last_heard: int | None = None  # ticks of the box's last line; None while it is silent
        self.last_touch: int | None = now  # ticks of the last press or face; None once idle
        self.box_hello = False  # the box has said HELLO: what the board has not sent yet is stale
        self.budget_ma = s.USB_MA - s.PICO_MA - leds * s.LED_IDLE_MA  # for the lit channels
        if self.budget_ma <= 0:
            raise ValueError("%d pixels draw the whole USB budget dark" % leds)
        self._picture: tuple = ()  # what the last frame drew, and the frame
        self._pixels: list = []
        self._button = Debouncer(s.DEBOUNCE_MS)
        self._shake = ShakeDetector(s.SHAKE_EDGES, s.SHAKE_WINDOW_MS, s.SHAKE_REST_MS)
        self._say(self._hello(NO_LINK))

    # -- inputs --------------------------------------------------------------------
    def button(self, down: bool, now: int) -> None:
        """The button pin's level at ``now`` (True: pressed)."""
        if self._button.update(down, now):
            self._roll(now)

    def shake(self, closed: bool, now: int) -> None:
        """The shake switch's level at ``now``."""
        if self._shake.update(closed, now):
            self._roll(now)

    def received(self, line, now: int) -> None:
        """One line from the box (``TOO_LONG`` for one that overflowed); each is answered or used."""
        self.last_heard = now
        if line is TOO_LONG:
            self._say(err("too-long"))
            return
        verb, rest = split(line)
        if verb == "PING":
            self._say("PONG t=%d" % now)  # the box sets its reckoning of the puck's ticks by it
        elif verb == "FACE":
            if rest in FACES:
                self._show(rest, now)
            else:
                self._say(err("bad-face", rest))
        elif verb == "HELLO":  # the box (re)opened the line: nothing said before counts any more
            self.outbox = []
            self.box_hello = True
            self._say(self._hello(link_of(rest)))
        elif verb in ("ERR", ""):
            pass  # never answer an answer: two sides that disagree must not chatter forever
        else:
            self._say(err("unknown", line))

    def tick(self, now: int) -> None:
        """Let time pass: a spin that ran its course ends, with the face that came or without one.

        Also forgets each tick once its interval is over (the box silent, the
        ring idle, the whistle's flash a whole number of flashes on), so no
        tick grows older than half the ticks' period however long the puck
        sits untouched.
        """
        if self.last_heard is not None and not self.linked(now):
            self.last_heard = None
        if self.last_touch is not None and self.idle(now):
            self.last_touch = None
        shown = ticks.diff(now, self.face_since)
        if shown >= faces.FLASH_REBASE_MS:
            self.face_since = ticks.add(self.face_since, shown - shown % (2 * faces.FLASH_MS))
        if self.spinning_since is None:
            return
        spun = ticks.diff(now, self.spinning_since)
        if self.pending_face is not None and spun >= self.s.MIN_SPIN_MS:
            face, self.pending_face = self.pending_face, None
            self._settle(face, now)
        elif spun >= self.s.MAX_SPIN_MS:
            self.spinning_since = None

    # -- outputs -------------------------------------------------------------------
    def linked(self, now: int) -> bool:
        """Has the box spoken within the link timeout?"""
        return self.last_heard is not None and ticks.diff(now, self.last_heard) < self.s.LINK_TIMEOUT_MS

    def idle(self, now: int) -> bool:
        """No press and no face for IDLE_MS: the ring dims."""
        return self.last_touch is None or ticks.diff(now, self.last_touch) >= self.s.IDLE_MS

    def frame(self, now: int) -> list:
        """The ring's pixels at ``now``, dimmed when idle and held within the power budget.

        Drawn only when the picture changes (a new spin step, a flash, a
        breath), so a pass of the main loop with nothing new costs next to
        nothing on the Pico; the same list comes back until then.
        """
        picture = self.picture(now)
        if picture != self._picture:
            self._picture = picture
            self._pixels = ring.limit(self._draw(picture), picture[-1], self.budget_ma)
        return self._pixels

    def picture(self, now: int) -> tuple:
        """What the ring shows at ``now``: (kind, what of it, level)."""
        level = self.s.MAX_LEVEL * (self.s.IDLE_LEVEL if self.idle(now) else 1.0)
        if self.spinning_since is not None:
            return ("spin", ring.spin_step(ticks.diff(now, self.spinning_since)), level)
        if not self.linked(now):
            return ("waiting", now - now % ring.FRAME_MS, level)
        if self.face is not None:
            return ("face", self.face, faces.dark(self.face, ticks.diff(now, self.face_since)), level)
        return ("ready", ring.ready_position(self.leds, now), level)

    def _draw(self, picture: tuple) -> list:
        kind = picture[0]
        if kind == "spin":
            return ring.spin(self.leds, picture[1])
        if kind == "waiting":
            return ring.waiting(self.leds, picture[1])
        if kind == "ready":
            return ring.ready(self.leds, picture[1])
        if kind == "face" and not picture[2]:
            return faces.frame(picture[1], self.leds)
        return [(0, 0, 0)] * self.leds

    def take_lines(self) -> list:
        """The lines to send now, emptying the outbox."""
        lines, self.outbox = self.outbox, []
        return lines

    def take_box_hello(self) -> bool:
        """Has the box said HELLO since the last call? (Then the board drops what it has not sent.)"""
        heard, self.box_hello = self.box_hello, False
        return heard

    # -- inside --------------------------------------------------------------------
    def _roll(self, now: int) -> None:
        self.last_touch = now
        if not self.linked(now):  # no box listening: a PRESS would wait in the USB buffer and roll later
            return
        self.spinning_since = now
        self.pending_face = None
        self._say("PRESS t=%d" % now)  # when: a box that could not read for a while drops an old one

    def _show(self, face: str, now: int) -> None:
        self.last_touch = now
        if self.spinning_since is not None and ticks.diff(now, self.spinning_since) < self.s.MIN_SPIN_MS:
            self.pending_face = face
        else:
            self._settle(face, now)

    def _settle(self, face: str, now: int) -> None:
        self.face, self.face_since, self.spinning_since = face, now, None

    def _hello(self, link: str) -> str:
        return hello(VERSION, PROTOCOL, self.leds, self.caps, link)

    def _say(self, line: str) -> None:
        self.outbox.append(line)

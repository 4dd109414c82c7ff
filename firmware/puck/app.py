"""The main loop: read the line and the pins, let the puck decide, write lines, draw the ring."""

from puck import settings
from puck.core import Puck
from puck.protocol import LineReader


class App:
    """The puck on a board (puck.board.Board on a Pico, a stand-in in tests)."""

    def __init__(self, board, s=settings) -> None:
        self.board = board
        self.s = s
        self.puck = Puck(board.ticks_ms(), board.leds, board.has_shake, s)
        self.lines = LineReader()
        self._shown: list | None = None

    def step(self) -> None:
        """One pass of the loop; never blocks."""
        board, puck = self.board, self.puck
        now = board.ticks_ms()
        for line in self.lines.feed(board.read()):
            puck.received(line, now)
        if puck.take_box_hello():  # the box opened the line anew: what waited for the old one is stale
            board.discard()
        puck.button(board.button_down(), now)
        if board.has_shake:
            puck.shake(board.shaken(), now)
        puck.tick(now)
        for line in puck.take_lines():
            board.write(line.encode() + b"\n", line.startswith("PRESS"))
        board.flush()
        pixels = puck.frame(now)
        if pixels is not self._shown:
            board.show(pixels)
            self._shown = pixels

    def run(self) -> None:
        """Forever: a pass, then wait for the line or the next poll of the pins."""
        while True:
            self.step()
            self.board.wait(self.s.POLL_MS)

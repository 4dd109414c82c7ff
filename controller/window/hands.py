"""Your hands at the simulated table: the window's commands carried out on the simulated devices.

A click on a card lays it on the reader and lifts it; SPACE or the mouse
pushes the die button down and lets it go, so a long press is a hold, as
on the box. Nothing here calls the box: it hears these inputs through its
loop, like any other. An input the box could not tell from another seat's
(see :meth:`~controller.window.seats.Seats.human_may_act`) is held back,
with a notice saying why.
"""

from __future__ import annotations

from typing import Any

from controller.daemon import Daemon
from controller.siminput import card_uid
from controller.window.controls import Command
from controller.window.seats import Seats
from controller.window.view import seat_colour_name, seat_name


def wait_reason(seat: int | None, you: int | None) -> str:
    """Why an input of yours is held back, when the table waits for ``seat``.

    When the table already waits for you, a bot's hand is still on the
    table (its last card being lifted): that move is what you wait for.
    """
    if seat is None:
        return "Wait: the table is being set up"
    if seat == you:
        return "Wait: the last move is still being made"
    return f"Wait: it is {seat_name(seat)}'s ({seat_colour_name(seat)}) turn"


class Hands:
    """What the player at the window does, and what they are told when it cannot be done now."""

    def __init__(self, daemon: Daemon, seats: Seats) -> None:
        self.daemon, self.seats = daemon, seats
        self.focus: str | None = None  # what Enter taps
        self.die_by: str | None = None  # "mouse" or "key" while the die button is held down
        self._notice: tuple[str, Any] | None = None  # (text, the state it is about)

    # -- notices -------------------------------------------------------------------------
    def _state(self) -> Any:
        box = self.daemon.box
        return box.game_id, len(box.engine.log) if box.engine else -1, len(self.daemon.stage.transcript)

    def notice(self) -> str | None:
        """Why your last input was held back, until anything happens at the table."""
        if self._notice is not None and self._notice[1] != self._state():
            self._notice = None
        return self._notice[0] if self._notice else None

    def _refuse(self, text: str) -> None:
        self._notice = (text, self._state())

    # -- commands --------------------------------------------------------------------------
    def do(self, command: Command, targets: list[str]) -> None:
        """Carry out one command; ``targets`` are the clickable things on screen, in Tab order."""
        kind, value = command.kind, command.value
        if kind == "focus":
            self._move_focus(int(value or "1"), targets)
        elif kind == "activate":
            self._activate()
        elif kind == "tap" and value:
            self._tap(value)
        elif kind == "die-down":
            self._die_down(value or "key")
        elif kind == "die-up":
            if self.die_by == value:
                self.die_by = None
                self.daemon.devices.buttons["die"].release()
        elif kind == "hold":
            if self._may_act():
                die = self.daemon.devices.buttons["die"]
                die.hold()
                die.release()
        elif kind == "color" and value:
            self._colour(value)
        elif kind == "new-game":
            if self.seats.acting:
                self._refuse("Wait until the bot has finished its move")
            else:
                self.lay("control-new-game")

    def _may_act(self) -> bool:
        if self.seats.human_may_act():
            return True
        self._refuse(wait_reason(self.seats.awaited(), self.seats.human))
        return False

    def _tap(self, target: str) -> None:
        box = self.daemon.box
        if not self._may_act():
            return
        if box.pending is not None:
            self._refuse("Make your call with the die button, or wait")
            return
        if target == "stack":
            card = self.stack_top()
            if card is None:
                self._refuse("Press the die button to draw a card" if box.engine else "Choose a game first")
                return
        else:
            card = target.removeprefix("card:")
        self.lay(card)

    def stack_top(self) -> str | None:
        """The stack's top card, when what the referee awaits is to turn it up (else it stays put)."""
        box = self.daemon.box
        auto = self.seats.sync()
        if auto is None or box.engine is None or box.engine.awaiting not in ("reveal", "start_card"):
            return None
        stack = [card for card, place in auto.table.placements() if place == "stack"]
        return stack[-1] if stack else None

    def lay(self, card: str) -> None:
        """Lay a card on the reader and lift it, as a hand does."""
        reader = next(iter(self.daemon.devices.readers.values()))
        reader.tap(card_uid(card), card)
        reader.remove()

    def _die_down(self, source: str) -> None:
        if self.die_by is not None or not self._may_act():
            return
        self.die_by = source
        self.daemon.devices.buttons["die"].press()

    def _colour(self, name: str) -> None:
        buttons = self.daemon.devices.buttons
        if name in buttons and self._may_act():
            buttons[name].press()
            buttons[name].release()

    def _move_focus(self, step: int, targets: list[str]) -> None:
        if not targets:
            self.focus = None
            return
        index = targets.index(self.focus) if self.focus in targets else (-1 if step > 0 else 0)
        self.focus = targets[(index + step) % len(targets)]

    def _activate(self) -> None:
        target = self.focus
        if target is None:
            return
        if target == "die":
            if self._may_act():
                die = self.daemon.devices.buttons["die"]
                die.press()
                die.release()
        elif target.startswith("color:"):
            self._colour(target.removeprefix("color:"))
        else:
            self._tap(target)

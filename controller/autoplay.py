"""Bots at the real box: a virtual table's decisions turned into taps and presses.

The box never sees the bots' choices, only what a person would do: lay a
card on the reader, press or hold the die button, wait. This is how the
end-to-end tests, the demo and the simulator's other seats play, so they
exercise exactly the path a family does.

The virtual table follows the box: every action the box's referee accepts
is replayed on the table (:meth:`Autoplayer.follow`), including die rolls,
which the box makes from its own journalled generator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from controller.box.box import DIE, Box
from controller.games.base import COLORS, Outcome
from controller.siminput import PRESS_SECONDS, card_uid
from controller.table import VirtualTable, new_table
from controller.table.base import Decision
from controller.table.bots import Bot, make_bot


@dataclass(frozen=True, slots=True)
class Input:
    """One physical input: ``tap`` a card, ``press``/``hold`` a button, or ``wait`` seconds."""

    kind: str
    value: Any


class Autoplayer:
    """Plays the seats of the box's current game through a virtual table (the window plays one seat itself)."""

    def __init__(self, box: Box, seed: int, bots: list[str] | None = None) -> None:
        engine = box.engine
        assert engine is not None, "start a game on the box first"
        self.box = box
        self.game_id = box.game_id
        self.seed = seed
        self.table: VirtualTable = new_table(engine.game, engine.players, engine.options, seed)
        kinds = bots or ["greedy"]
        self.bots: list[Bot] = [
            make_bot(kinds[s % len(kinds)], random.Random(seed * 7 + s), engine.game) for s in range(engine.players)
        ]
        box.listeners.append(self.follow)
        box.undo_listeners.append(self.taken_back)

    def follow(self, action: dict[str, Any], outcome: Outcome) -> None:
        """Replay on the table what the box accepted, so the physical cards move."""
        if self.box.game_id != self.game_id:  # a new game: this table is cleared away
            self.box.listeners.remove(self.follow)
            return
        result = self.table.act(action)
        if not isinstance(result, Outcome):
            raise AssertionError(f"the virtual table refused {action} that the box accepted: {result}")

    def taken_back(self, _action: dict[str, Any]) -> None:
        """The box took an action back: the cards go back where the box's referee says they are."""
        engine = self.box.engine
        if self.box.game_id != self.game_id or engine is None:
            self.box.undo_listeners.remove(self.taken_back)
            return
        self.table = new_table(engine.game, engine.players, engine.options, self.seed)
        for action in engine.log:
            self.table.act(action)

    def decision(self) -> Decision:
        """The table's next decision, narrowed to what the box asks for now."""
        decision = self.table.decision()
        engine = self.box.engine
        hang = engine.next_hang() if engine is not None else None
        if hang is not None:
            seat, ear = hang
            actions = [a for a in decision.actions if a["player"] == seat and a["ear"] == ear]
            decision = Decision(seat, actions, decision.chance)
        return decision

    def choose(self) -> tuple[int | None, dict[str, Any]]:
        """Who acts next and the action they mean."""
        decision = self.decision()
        if decision.seat is None or decision.chance:  # the table turns up a card, or the box rolls
            return decision.seat, decision.actions[0]
        return decision.seat, self.bots[decision.seat].choose(self.table, decision)

    def inputs(self, action: dict[str, Any]) -> list[Input]:
        """The physical inputs that make the box take ``action``."""
        kind = action["type"]
        box = self.box
        if kind in ("start_card", "hang", "reveal", "give", "lure"):
            return [Input("tap", action["card"])]
        if kind == "play":
            taps = [Input("tap", action["card"])]
            needed = box.engine.call_needed({k: v for k, v in action.items() if k != "call"})
            if needed is None:
                return taps
            if action.get("call"):
                return [*taps, Input("press", DIE)]
            return [*taps, Input("wait", box.config.call_window)]
        if kind in ("draw", "pass", "roll"):
            return self._after_handover([Input("press", DIE)])
        if kind == "choose_color":
            presses = (COLORS.index(action["color"]) - COLORS.index(box.wish)) % len(COLORS)
            return self._after_handover([Input("press", DIE)] * presses + [Input("hold", DIE)])
        if kind == "send_kittens":
            return [Input("tap", self.parent_at(action["to"]))]
        raise ValueError(f"no inputs for {action}")

    def _after_handover(self, presses: list[Input]) -> list[Input]:
        """Presses wait out the handover, as a player waits for "your turn" before pressing."""
        left = self.box.handover.left(self.box.now())
        return [Input("wait", left), *presses] if left > 0 else presses

    def parent_at(self, seat: int) -> str:
        """A face-up parent of the kittens waiting to run, lying in front of ``seat``."""
        engine = self.box.engine
        family = engine.view()["pending_kittens"]
        for card in engine.view()["tableau"][seat]:
            if card.startswith(f"family-{family}-") and not card.endswith("kittens"):
                return card
        raise ValueError(f"no parent of family {family} at seat {seat}")


def run_inputs(box: Box, inputs: list[Input], advance: Callable[[float], None], reader: str = "table",
               pace: float = 1.5) -> None:
    """Perform inputs straight on the box (no devices, no loop), moving a fake clock at a person's pace."""
    for step in inputs:
        advance(pace)
        box.poll()
        if step.kind == "tap":
            box.tap(reader, step.value)
            box.removed(reader, step.value)
        elif step.kind == "press":
            box.press(step.value)
        elif step.kind == "hold":
            box.hold(step.value)
        elif step.kind == "wait":
            advance(step.value)
            box.poll()


async def perform(devices: Any, inputs: list[Input], wait: Callable[[float], Awaitable[None]],
                  pace: float = 1.5) -> None:
    """Perform inputs on simulated devices, as fingers would: the box hears them through its loop.

    ``wait`` passes time: the real clock's sleep in the demo, a fake clock's
    ``run_for`` in tests.
    """
    reader = next(iter(devices.readers.values()))
    for step in inputs:
        await wait(pace)
        if step.kind == "tap":
            reader.tap(card_uid(step.value), step.value)
            await wait(0.2)
            reader.remove()
        elif step.kind in ("press", "hold"):
            button = devices.buttons[step.value]
            if step.kind == "hold":
                button.hold()
            else:
                button.press()
            await wait(PRESS_SECONDS)
            button.release()
        elif step.kind == "wait":
            await wait(step.value)
    await wait(0.1)

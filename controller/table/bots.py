"""Bots that play through a virtual table, as a person at the table would."""

from __future__ import annotations

import random
from typing import Any, Protocol

from controller.table.base import Decision, VirtualTable


class Bot(Protocol):
    def choose(self, table: VirtualTable, decision: Decision) -> dict[str, Any]:
        """One of the decision's actions (or, for a bot that errs, another action the referee accepts)."""


class RandomBot:
    """Picks uniformly among the sensible actions: the floor every other bot must beat."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, table: VirtualTable, decision: Decision) -> dict[str, Any]:
        return self.rng.choice(decision.actions)


class GreedyBot:
    """Picks the action the table's one-move heuristic likes best; ties broken at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, table: VirtualTable, decision: Decision) -> dict[str, Any]:
        actions = decision.actions
        if len(actions) == 1:
            return actions[0]
        scores = [table.preference(a) for a in actions]
        best = max(scores)
        return self.rng.choice([a for a, s in zip(actions, scores) if s == best])


def make_bot(kind: str, rng: random.Random, game: str) -> Bot:
    """A bot by name: ``random``, ``greedy``, or (Floppy Ears) ``forgetful``."""
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return GreedyBot(rng)
    if kind == "forgetful" and game == "floppy-ears":
        from controller.table.floppy_ears import ForgettingBot

        return ForgettingBot(rng, memory=0.6, bark_forget=0.2)
    raise ValueError(f"no bot {kind!r} for {game} (bots: random, greedy" + (", forgetful)" if game == "floppy-ears" else ")"))


BOT_KINDS: tuple[str, ...] = ("random", "greedy", "forgetful")

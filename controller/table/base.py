"""The virtual table: every physical card in its place, and the decisions it offers.

The referee (:mod:`controller.games`) only knows what was tapped or rolled.
A virtual table knows everything a camera over the real table would: a deck
shuffled from a seed, hands, ears, the stack, the tableau. It offers each
decision as a list of referee actions, hands the chosen one to the referee
exactly as the box would, and moves the physical cards to follow what the
referee accepted. Bots, self-play, the demo and the end-to-end tests all
play through it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from controller.games.base import Engine, Outcome, Result


@dataclass(slots=True)
class Decision:
    """Who decides next, and what they can sensibly do.

    ``seat`` is the deciding seat, or None when the table itself acts
    (turning up the first card). ``chance`` marks a decision made by chance
    (a die roll): pick uniformly from ``actions``, whose repeats give the
    weights. ``actions`` are referee actions, complete and ready to apply.
    """

    seat: int | None
    actions: list[dict[str, Any]]
    chance: bool = False


class VirtualTable:
    """Base class of the three virtual tables.

    Subclasses build ``self.referee`` and the physical cards in
    :meth:`_deal`, and implement :meth:`decision`, :meth:`_follow` and
    :meth:`places`.
    """

    engine: ClassVar[type[Engine]]

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int | random.Random = 0) -> None:
        """``seed`` is a number, or a generator to draw from (a run of many games can share one)."""
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.referee: Engine = self.engine(players, options)
        self.players = players
        self._deal()

    # -- subclass hooks --------------------------------------------------------
    def _deal(self) -> None:
        """Shuffle the deck with ``self.rng`` and deal it physically."""
        raise NotImplementedError

    def decision(self) -> Decision:
        """The next decision; ``actions`` is empty only when the game is over."""
        raise NotImplementedError

    def _follow(self, action: dict[str, Any], outcome: Outcome) -> None:
        """Move the physical cards as the accepted ``action`` and its events say."""
        raise NotImplementedError

    def placements(self) -> list[tuple[str, str]]:
        """(card id, where it lies) for every physical card: ``stack``, ``pile``, ``hand:2``, ``ear:1:left``, ..."""
        raise NotImplementedError

    def preference(self, action: dict[str, Any]) -> float:
        """How much a greedy player likes ``action`` now (higher is better)."""
        raise NotImplementedError

    def hand(self, seat: int) -> list[str]:
        """The cards a seat holds (what its player can see and play)."""
        raise NotImplementedError

    def counts_disagree(self) -> list[str]:
        """Where the referee's counts differ from the physical table (empty when they agree)."""
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------
    def act(self, action: dict[str, Any]) -> Result:
        """Hand ``action`` to the referee; on acceptance, move the cards to follow it."""
        result = self.referee.apply(action)
        if isinstance(result, Outcome):
            self._follow(action, result)
        return result

    @property
    def over(self) -> bool:
        return self.referee.over

    def violations(self) -> list[str]:
        """Broken invariants: every card in exactly one place, and the referee agreeing."""
        problems = list(self.counts_disagree())
        seen = Counter(card for card, _ in self.placements())
        deck = Counter(self.deck())
        if seen != deck:
            missing = sorted((deck - seen).elements())
            extra = sorted((seen - deck).elements())
            problems.append(f"cards missing {missing[:5]}, twice or foreign {extra[:5]}")
        return problems

    def deck(self) -> list[str]:
        """Every card id of the deck in play."""
        raise NotImplementedError


__all__ = ["Decision", "VirtualTable"]

"""The physical Floppy Ears table, and a player whose memory of their own ears fades.

:class:`FloppyEarsTable` holds every card where it really lies and offers
the moves a player who knows their own cards would sensibly make: a matching
ear card if there is one (ears first), else a matching hand card, else a
draw, always with the right bark. Drawing is offered only when nothing
matches; that is what ends every game even when stack and pile run dry: a
dry stack means every card but the top one is in a hand or on an ear, so
someone holds one of the eight jokers (or, on a joker, a card of the wished
colour) and will play it.

:class:`ForgettingBot` plays like a greedy player but misremembers its own
ears more the longer they hang, which the referee punishes (ear penalty,
"stop ear!", bark penalty) but never refuses.
"""

from __future__ import annotations

import random
from typing import Any

from controller.games.base import COLORS, Outcome
from controller.games.floppy_ears import CARDS, EARS, FACE, FloppyEars, bark_due, is_joker, matches
from controller.table.base import Decision, VirtualTable


class FloppyEarsTable(VirtualTable):
    """Stack (top at the end of the list), discard pile, hands and ears, moved as the referee rules."""

    engine = FloppyEars
    referee: FloppyEars

    def _deal(self) -> None:
        self.stack: list[str] = list(CARDS)
        self.rng.shuffle(self.stack)
        self.hands: list[list[str]] = [[self.stack.pop() for _ in range(5)] for _ in range(self.players)]
        self.ears: list[list[str | None]] = [[None, None] for _ in range(self.players)]
        self.pile: list[str] = []

    # -- decisions -------------------------------------------------------------------
    def decision(self) -> Decision:
        ref = self.referee
        phase, seat = ref.awaiting, ref.current
        if phase == "over":
            return Decision(None, [])
        if phase == "setup":
            seat = next(s for s in range(self.players) if None in self.ears[s])
            return Decision(seat, self._hangs(seat))
        if phase == "start_card":  # F1: jokers on top go under the stack (see _follow)
            card = next(c for c in reversed(self.stack) if not is_joker(c))
            return Decision(None, [{"type": "start_card", "card": card}])
        assert seat is not None
        if phase == "reveal":
            return Decision(seat, [{"type": "reveal", "player": seat, "card": self.stack[-1]}])
        if phase == "choose_color":
            return Decision(seat, [{"type": "choose_color", "player": seat, "color": c} for c in COLORS])
        if phase == "hang":
            return Decision(seat, self._hangs(seat))
        return Decision(seat, self.sensible_plays(seat))

    def _hangs(self, seat: int) -> list[dict[str, Any]]:
        return [{"type": "hang", "player": seat, "ear": EARS[i], "card": c}
                for i in (0, 1) if self.ears[seat][i] is None for c in self.hands[seat]]

    def sensible_plays(self, seat: int) -> list[dict[str, Any]]:
        """Ears first; else a matching hand card; draw only when nothing matches (F3, F5, F6)."""
        top, wish = self.referee.top, self.referee.wish
        assert top is not None
        cards = [e for e in self.ears[seat] if e is not None and matches(e, top, wish)]
        if not cards:
            cards = [c for c in self.hands[seat] if matches(c, top, wish)]
        if not cards:
            return [{"type": "draw", "player": seat}]
        return [self.play_action(seat, c) for c in cards]

    def play_action(self, seat: int, card: str, bark: bool = True) -> dict[str, Any]:
        """A ``play`` of ``card``, with the bark it is due when ``bark`` (F8)."""
        action: dict[str, Any] = {"type": "play", "player": seat, "card": card}
        due = bark_due(self.cards_of(seat))
        if bark and due is not None and self.referee.options["bark_rule"]:
            action["call"] = due
        return action

    def cards_of(self, seat: int) -> int:
        return len(self.hands[seat]) + sum(e is not None for e in self.ears[seat])

    def preference(self, action: dict[str, Any]) -> float:
        """A greedy player's taste: ears before hand, jokers kept for later, wish what you hold most of."""
        kind = action.get("type")
        if kind == "play":
            seat, card = action["player"], action["card"]
            return (2.0 if card in self.ears[seat] else 1.0) + (0.0 if is_joker(card) else 0.5)
        if kind == "hang":
            # keep jokers in hand: there they rescue a turn without being forced out first (F3)
            return -1.0 if is_joker(action["card"]) else 0.0
        if kind == "choose_color":
            seat = action["player"]
            mine = self.hands[seat] + [e for e in self.ears[seat] if e is not None]
            return float(sum(FACE[c][0] == action["color"] for c in mine))
        return 0.0  # draw, start_card, reveal

    # -- following the referee ----------------------------------------------------------
    def _follow(self, action: dict[str, Any], outcome: Outcome) -> None:
        for event in outcome.events:
            name = event["event"]
            if name == "hung":
                seat, card = event["player"], event["card"]
                self._pull(card)
                self.ears[seat][EARS.index(event["ear"])] = card
            elif name == "played":
                self._pull(event["card"])
                self.pile.append(event["card"])
            elif name == "drew":
                for _ in range(event["count"]):
                    self.hands[event["player"]].append(self.stack.pop())
            elif name == "reshuffle":  # F10: all of the pile but its top becomes the stack
                rest = self.pile[:-1]
                self.rng.shuffle(rest)
                self.stack[:0] = rest
                del self.pile[:-1]
            elif name == "revealed":
                self._pull(event["card"])
                self.pile.append(event["card"])
            elif name == "start_card":
                card = event["card"]
                while self.stack and self.stack[-1] != card and is_joker(self.stack[-1]):
                    self.stack.insert(0, self.stack.pop())  # F1: face down under the stack
                self._pull(card)
                self.pile.append(card)

    def _pull(self, card: str) -> None:
        """Take ``card`` from wherever it physically lies."""
        if self.stack and self.stack[-1] == card:
            self.stack.pop()
            return
        for seat in range(self.players):
            if card in self.hands[seat]:
                self.hands[seat].remove(card)
                return
            ears = self.ears[seat]
            if card in ears:
                ears[ears.index(card)] = None
                return
        if card in self.stack:
            self.stack.remove(card)
        elif card in self.pile:
            self.pile.remove(card)

    # -- the physical model ---------------------------------------------------------------
    def placements(self) -> list[tuple[str, str]]:
        places = [(c, "stack") for c in self.stack] + [(c, "pile") for c in self.pile]
        for seat in range(self.players):
            places += [(c, f"hand:{seat}") for c in self.hands[seat]]
            places += [(c, f"ear:{seat}:{EARS[i]}") for i, c in enumerate(self.ears[seat]) if c is not None]
        return places

    def hand(self, seat: int) -> list[str]:
        return list(self.hands[seat])

    def deck(self) -> list[str]:
        return list(CARDS)

    def counts_disagree(self) -> list[str]:
        ref = self.referee
        problems = []
        sizes = [len(h) for h in self.hands]
        if ref.hands != sizes:
            problems.append(f"hand sizes: referee {ref.hands}, table {sizes}")
        if ref.stack != len(self.stack):
            problems.append(f"stack: referee {ref.stack}, table {len(self.stack)}")
        if ref.pile != self.pile:
            top = self.pile[-1] if self.pile else None
            problems.append(f"pile: referee top {ref.top} of {len(ref.pile)}, table top {top} of {len(self.pile)}")
        if ref.ears != self.ears:
            problems.append(f"ears: referee {ref.ears}, table {self.ears}")
        for card, seat in ref.held.items():
            if card not in self.hands[seat]:
                problems.append(f"referee has {card} in seat {seat}'s hand, the table does not")
        return problems


class ForgettingBot:
    """A greedy player whose memory of its own ears fades with the turns since it hung them.

    At each of its turns it recalls an ear with probability
    ``1 - (1 - memory) * age / (age + 2)`` where ``age`` counts its turns since
    that ear was hung: a fresh ear is always remembered, an old one about
    ``memory`` of the time. A forgotten ear is guessed at, as the rulebook
    says a forgetful player must: a coin decides whether it is believed to
    match, so it may be played when it does not (an ear penalty) or passed
    over when it does (then a matching hand card is a "stop ear!"). With
    probability ``bark_forget`` it forgets a due bark. Hand cards it sees,
    so it never plays one the referee would refuse.
    """

    def __init__(self, rng: random.Random, memory: float = 1.0, bark_forget: float = 0.0) -> None:
        self.rng = rng
        self.memory = memory
        self.bark_forget = bark_forget
        self._hung: dict[tuple[int, int], tuple[str | None, int]] = {}  # (seat, ear) -> (card, turns since)
        self._table: FloppyEarsTable | None = None

    def forget_chance(self, age: int) -> float:
        return (1.0 - self.memory) * age / (age + 2)

    def choose(self, table: FloppyEarsTable, decision: Decision) -> dict[str, Any]:
        if decision.chance or decision.seat is None:
            return self.rng.choice(decision.actions)
        if table.referee.awaiting == "play":
            return self._play(table, decision.seat)
        return self._greedy(table, decision.actions)

    def _greedy(self, table: FloppyEarsTable, actions: list[dict[str, Any]]) -> dict[str, Any]:
        scores = [table.preference(a) for a in actions]
        best = max(scores)
        return self.rng.choice([a for a, s in zip(actions, scores) if s == best])

    def _play(self, table: FloppyEarsTable, seat: int) -> dict[str, Any]:
        if table is not self._table:  # a new game: nothing hangs in mind yet
            self._table, self._hung = table, {}
        top, wish = table.referee.top, table.referee.wish
        assert top is not None
        believed = []
        for i, card in enumerate(table.ears[seat]):
            known, age = self._hung.get((seat, i), (None, 0))
            if card != known:  # hung since its last turn: fresh in mind
                age = 0
            self._hung[(seat, i)] = (card, age + 1)
            if card is None:
                continue
            if self.memory < 1.0 and self.rng.random() < self.forget_chance(age):
                hit = self.rng.random() < 0.5  # forgotten: "Notfalls musst du raten" (guess)
            else:
                hit = matches(card, top, wish)
            if hit:
                believed.append(card)
        cards = believed or [c for c in table.hands[seat] if matches(c, top, wish)]
        if not cards:
            return {"type": "draw", "player": seat}
        forget_bark = self.bark_forget > 0.0 and self.rng.random() < self.bark_forget
        return self._greedy(table, [table.play_action(seat, c, bark=not forget_bark) for c in cards])


__all__ = ["FloppyEarsTable", "ForgettingBot"]

"""The Policecats table: the shuffled stack, each player's cats, the figure.

The table works out the sensible choices from the physical cards (not by
asking the referee), so self-play cross-checks the two: an offered action
the referee refuses, or a tableau that differs, is a bug in one of them.
"""

from __future__ import annotations

from typing import Any

from controller.games.base import Outcome
from controller.games.policecats import CAT_CARDS, CATS, MEMBER, POLICE_CARDS, Policecats, kittens, parents
from controller.table.base import Decision, VirtualTable


class PolicecatsTable(VirtualTable):
    """36 cards (27 in the stack and 9 on the track in the alarm variant), one figure."""

    engine = Policecats

    def _deal(self) -> None:
        self.alarm = self.referee.options["variant"] == "alarm"
        self.stack: list[str] = list(CAT_CARDS if self.alarm else CAT_CARDS + POLICE_CARDS)
        self.rng.shuffle(self.stack)  # the top card is the last one
        self.track: list[str] = list(POLICE_CARDS) if self.alarm else []
        self.front: list[set[str]] = [set() for _ in range(self.players)]  # face up
        self.down: list[list[str]] = [[] for _ in range(self.players)]  # complete families
        self.figure: int | None = None
        self.figure_at = 0  # alarm: cards the figure has moved on
        self._last_kittens: str | None = None

    # -- what the players see ------------------------------------------------------
    def _seat_of(self, card: str) -> int | None:
        for seat, cards in enumerate(self.front):
            if card in cards:
                return seat
        return None

    def _movable(self, seat: int) -> list[str]:
        """Cards a dog or mouse may move from ``seat``: parents, and kittens lying without one."""
        if not self.alarm and self.figure == seat:
            return []
        mine = self.front[seat]
        out = []
        for card in sorted(mine):
            family, member = MEMBER[card]
            if member == "police":
                continue
            if member == "kittens" and any(p in mine for p in parents(family)):
                continue
            out.append(card)
        return out

    def decision(self) -> Decision:
        ref = self.referee
        seat = ref.current
        awaiting = ref.awaiting
        if awaiting == "over" or seat is None:
            return Decision(None, [])
        if awaiting == "roll":
            faces = ref.options["die"]  # repeats weigh: three cat faces, three times as likely
            return Decision(seat, [{"player": seat, "type": "roll", "face": f} for f in faces], chance=True)
        if awaiting == "reveal":
            return Decision(seat, [{"player": seat, "type": "reveal", "card": self.stack[-1]}])
        if awaiting == "send_kittens":
            family = MEMBER[self._last_kittens][0] if self._last_kittens else 0
            homes = sorted({s for p in parents(family) if (s := self._seat_of(p)) is not None})
            return Decision(seat, [{"player": seat, "type": "send_kittens", "to": to} for to in homes])
        if awaiting == "give":
            return Decision(seat, [{"player": seat, "type": "give", "card": c} for c in self._movable(seat)])
        cards = [c for other in range(self.players) if other != seat for c in self._movable(other)]
        return Decision(seat, [{"player": seat, "type": "lure", "card": c} for c in cards])

    # -- following the referee ---------------------------------------------------------
    def _follow(self, action: dict[str, Any], outcome: Outcome) -> None:
        for event in outcome.events:
            name = event["event"]
            if name == "revealed":
                card = event["card"]
                self.stack.remove(card)
                self.front[event["player"]].add(card)
                if MEMBER[card][1] == "kittens":
                    self._last_kittens = card
            elif name == "kittens_ran":
                self._move([kittens(event["family"])], event["to"])
            elif name in ("card_given", "card_lured"):
                self._move(event["cards"], event["to"])
            elif name == "family_complete":
                seat, family = event["player"], event["family"]
                for card in (*parents(family), kittens(family)):
                    self.front[seat].discard(card)
                    self.down[seat].append(card)
            elif name == "policecat_moved":
                if self.alarm:
                    self.figure_at = event["track"]
                else:
                    self.figure = event["to"]

    def _move(self, cards: list[str], to: int) -> None:
        for card in cards:
            for mine in self.front:
                mine.discard(card)
            self.front[to].add(card)

    # -- the physical cards ------------------------------------------------------------
    def deck(self) -> list[str]:
        return list(CAT_CARDS + POLICE_CARDS)

    def placements(self) -> list[tuple[str, str]]:
        places = [(c, "stack") for c in self.stack] + [(c, "track") for c in self.track]
        for seat in range(self.players):
            places += [(c, f"tableau:{seat}") for c in self.front[seat]]
            places += [(c, f"family:{seat}") for c in self.down[seat]]
        return places

    def hand(self, seat: int) -> list[str]:
        """Policecats has no hands: a seat's face-up and face-down cards."""
        return sorted(self.front[seat]) + sorted(self.down[seat])

    def scores(self) -> list[int]:
        scores = [sum(CATS[MEMBER[c][1]] for c in self.front[s]) + len(self.down[s]) // 3 * 4
                  for s in range(self.players)]
        if self.figure is not None:
            scores[self.figure] += 1
        return scores

    def counts_disagree(self) -> list[str]:
        view = self.referee.view()
        problems = []
        mine = {
            "stack": len(self.stack),
            "tableau": [sorted(cards) for cards in self.front],
            "families": [sorted({MEMBER[c][0] for c in cards}) for cards in self.down],
            "police": self.figure,
            "track": self.figure_at if self.alarm else None,
            "scores": self.scores(),
        }
        for key, value in mine.items():
            if view[key] != value:
                problems.append(f"{key}: referee {view[key]!r}, table {value!r}")
        return problems

    # -- the greedy heuristic ------------------------------------------------------------
    def _value(self, cards: list[str], to: int) -> float:
        """Cats that ``cards`` are worth to seat ``to``, counting a family they would complete."""
        value = float(sum(CATS[MEMBER[c][1]] for c in cards))
        family = MEMBER[cards[0]][0]
        members = (*parents(family), kittens(family))
        if all(c in cards or c in self.front[to] for c in members):
            value += 1.0  # a complete family is safe from dog and mouse
        return value

    def _carried(self, card: str, seat: int) -> list[str]:
        family, member = MEMBER[card]
        kit = kittens(family)
        if member != "kittens" and kit in self.front[seat]:
            return [card, kit]
        return [card]

    def preference(self, action: dict[str, Any]) -> float:
        """Give away the least, lure the most, keep kittens, and hurt the leader a little."""
        kind = action.get("type")
        seat = action.get("player")
        if not isinstance(seat, int) or kind not in ("give", "lure", "send_kittens"):
            return 0.0
        scores = self.scores()
        if kind == "send_kittens":
            to = action["to"]
            return 10.0 if to == seat else -0.01 * scores[to]
        card = action["card"]
        source = self._seat_of(card)
        if source is None:
            return float("-inf")
        cards = self._carried(card, source)
        if kind == "give":
            to = (seat + 1) % self.players
            return -self._value(cards, to)
        return self._value(cards, seat) + 0.01 * scores[source]


__all__ = ["PolicecatsTable"]

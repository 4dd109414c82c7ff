"""The virtual Pirate & Co. table: a seeded deck, real hands, stack and pile.

It offers what a player who sees their own cards would sensibly do: play a
matching card (with the right call in the Mau variant), draw only when
nothing matches or to pay a bottle-post debt, play the drawn card or keep
it, wish a colour. Self-play runs through here, so hands are bit sets over
the catalogue (``hand & playable`` is one operation), and actions and
decisions are built once and shared between tables: treat them as read
only.

Why every game ends: a seat is offered ``draw`` only when no hand card
matches (or a debt is due). When stack and pile are both dry, every card
but the top discard is in a hand, and each colour has nine pirates that
are never left out, so some seat holds a card of the colour to match.
Seats that cannot play draw nothing and the turn passes (see
docs/rules/pirates.md) until it reaches a seat that must play, which
refills the pile. The tests bound the length of a game.
"""

from __future__ import annotations

from typing import Any

from controller.games.base import COLORS, QUIET, Outcome, Result
from controller.games.pirates import BITS, BOTTLES, CARD_OF_BIT, CARDS, HAND, LEAVABLE, PARROT, Pirates, card_ids
from controller.table.base import Decision, VirtualTable

_SEATS = range(Pirates.max_players)
_COLOUR: dict[str, str | None] = {c: info[0] for c, info in CARDS.items()}
_PICTURE: dict[str, str] = {c: info[1] for c, info in CARDS.items()}
_ALL = sum(BITS.values())
_SPECIAL = sum(b for c, b in BITS.items() if _PICTURE[c] in LEAVABLE)
_OF_COLOUR: dict[str, int] = {col: sum(b for c, b in BITS.items() if _COLOUR[c] == col) for col in COLORS}

#: _PLAY[call][seat][bit]; call 0: none, 1: "mau", 2: "mau-mau".
_PLAY: tuple[list[dict[int, dict[str, Any]]], ...] = tuple(
    [{b: ({"player": s, "type": "play", "card": c} | ({"call": call} if call else {})) for c, b in BITS.items()}
     for s in _SEATS]
    for call in (None, "mau", "mau-mau")
)
_DRAW = [{"player": s, "type": "draw"} for s in _SEATS]
_PASS = [{"player": s, "type": "pass"} for s in _SEATS]
_DRAW_ONLY = [Decision(s, [_DRAW[s]]) for s in _SEATS]
_PASS_ONLY = [Decision(s, [_PASS[s]]) for s in _SEATS]
_CHOOSE = [Decision(s, [{"player": s, "type": "choose_color", "color": c} for c in COLORS]) for s in _SEATS]
_START = {c: Decision(None, [{"type": "start_card", "card": c}]) for c in CARDS}
_OVER = Decision(None, [])


# Flag bits above the 52 card bits, keying the shared decisions.
_DEBT, _AFTER_DRAW, _MAU, _MAU_MAU, _FORGET = (1 << n for n in range(52, 57))
_DECISIONS: list[dict[int, Decision]] = [{} for _ in _SEATS]
_CACHED = 20_000


def _decision(seat: int, key: int) -> Decision:
    """The decision of ``seat`` for a key of card bits and flags (see :meth:`PiratesTable.decision`).

    The first ``_CACHED`` keys of each seat are kept and shared; they are
    the common ones (a hand rarely holds more than two matching cards), and
    the bound keeps memory to a few MB.
    """
    plays = _PLAY[2 if key & _MAU_MAU else 1 if key & _MAU else 0][seat]
    acts = []
    bits = key & _ALL
    while bits:
        low = bits & -bits
        acts.append(plays[low])
        bits ^= low
    if key & _FORGET:
        acts += [_PLAY[0][seat][BITS[a["card"]]] for a in acts]
    if key & _DEBT:
        acts.append(_DRAW[seat])
    if key & _AFTER_DRAW:
        acts.append(_PASS[seat])
    decision = Decision(seat, acts)
    cache = _DECISIONS[seat]
    if len(cache) < _CACHED:
        cache[key] = decision
    return decision


class PiratesTable(VirtualTable):
    """The physical cards of one Pirate & Co. game, following its referee."""

    engine = Pirates
    referee: Pirates

    #: Also offer plays with a forgotten Mau call (to exercise P8 in self-play).
    forgetful: bool = False

    # -- dealing ---------------------------------------------------------------
    def _deal(self) -> None:
        self._deck: list[str] = list(self.referee.deck)
        self._mau: bool = self.referee.options["mau_calls"]
        self._new_round()

    def _new_round(self) -> None:
        """Gather and shuffle every card, deal 5 each; specials go under the stack (P1, P7)."""
        cards = list(self.referee.deck_bits)
        self._shuffle(cards)
        self._hands: list[int] = [sum(cards[i:i + HAND]) for i in range(0, HAND * self.players, HAND)]
        stack = self._stack = cards[HAND * self.players:]  # card bits, bottom first
        while stack[-1] & _SPECIAL:  # the box would answer special_start
            stack.insert(0, stack.pop())
        self._pile: list[str] = []
        self._drawn = 0  # bit of the card the current seat just drew

    def _shuffle(self, cards: list[int]) -> None:
        """Fisher-Yates on ``self.rng.random()``: a third faster than ``rng.shuffle`` (uniform to 2**-53)."""
        rand = self.rng.random
        for i in range(len(cards) - 1, 0, -1):
            j = int(rand() * (i + 1))
            cards[i], cards[j] = cards[j], cards[i]

    # -- decisions ---------------------------------------------------------------
    def decision(self) -> Decision:
        ref = self.referee
        aw = ref.awaiting
        p = ref.current
        if aw == "play":
            hand = self._hands[p]
            key = hand & ref.playable
            if ref.pending_draw:
                key = key & BOTTLES | _DEBT
            elif not key:
                return _DRAW_ONLY[p]
        elif aw == "after_draw":
            key = self._drawn & ref.playable
            if not key:
                return _PASS_ONLY[p]
            key |= _AFTER_DRAW
            hand = self._hands[p]
        elif aw == "choose_color":
            return _CHOOSE[p]
        elif aw == "start_card":
            return _START[CARD_OF_BIT[self._stack[-1]]]
        else:
            return _OVER
        if self._mau:
            key |= self._calls(hand)
        return _DECISIONS[p].get(key) or _decision(p, key)

    def _calls(self, hand: int) -> int:
        """The flag bits of the calls P8 asks for, and of forgotten calls when :attr:`forgetful`."""
        held = hand.bit_count()
        if held > 2:
            return 0
        return (_MAU if held == 2 else _MAU_MAU) | (_FORGET if self.forgetful else 0)

    # -- following the referee -------------------------------------------------------
    def act(self, action: dict[str, Any]) -> Result:
        """As :meth:`VirtualTable.act`, with the commonest moves inline: self-play calls it for every action."""
        result = self.referee.apply(action)
        if result is QUIET:
            if action["type"] == "play":  # a card from the hand onto the pile
                card = action["card"]
                bit = BITS[card]
                p = action["player"]
                if self._hands[p] & bit:
                    self._hands[p] ^= bit
                    self._pile.append(card)
                    return result
            elif action["type"] == "pass":
                return result
        elif type(result) is not Outcome:
            return result
        elif action["type"] == "draw" and len(result.events) == 1:  # one "drew": a plain draw or a debt paid
            self._draw(action["player"], result.events[0]["count"])
            return result
        self._follow(action, result)
        return result

    def _follow(self, action: dict[str, Any], outcome: Outcome) -> None:
        kind = action["type"]
        if kind == "play" or kind == "start_card":
            self._take_out(action["card"], action["player"] if kind == "play" else None)
            self._pile.append(action["card"])
        for event in outcome.events:
            name = event["event"]
            if name == "drew":
                self._draw(event["player"], event["count"])
            elif name == "reshuffle":  # F10: the pile but its top becomes the stack
                rest = [BITS[c] for c in self._pile[:-1]]
                self._shuffle(rest)
                self._stack[:0] = rest
                del self._pile[:-1]
            elif name == "new_round":
                self._new_round()

    def _draw(self, seat: int, count: int) -> None:
        """Move ``count`` cards from the stack's top into ``seat``'s hand."""
        for _ in range(count):
            bit = self._drawn = self._stack.pop()
            self._hands[seat] |= bit

    def _take_out(self, card: str, seat: int | None) -> None:
        """Take ``card`` from ``seat``'s hand, or for ``None`` from the stack's top.

        The referee cannot see where a tapped card lay. When it lay elsewhere
        on this table (a stray tap the box accepted), the card changes place
        with one from where it was expected, so every count stays as the
        referee has it.
        """
        bit = BITS[card]
        stack = self._stack
        if seat is not None and self._hands[seat] & bit:
            self._hands[seat] ^= bit
        elif seat is None and stack and stack[-1] == bit:
            stack.pop()
        elif bit in stack:
            i = stack.index(bit)
            if seat is None:
                del stack[i]
            else:
                low = self._hands[seat] & -self._hands[seat]
                self._hands[seat] ^= low
                stack[i] = low
        else:
            holder = next((s for s, hand in enumerate(self._hands) if hand & bit), None)
            if holder is None:
                return  # nowhere on the table: violations() will say so
            self._hands[holder] ^= bit
            if seat is None:
                self._hands[holder] |= stack.pop()
            else:
                low = self._hands[seat] & -self._hands[seat]
                self._hands[seat] ^= low
                self._hands[holder] |= low

    @property
    def over(self) -> bool:
        return self.referee.awaiting == "over"

    # -- greedy play -------------------------------------------------------------------
    def preference(self, action: dict[str, Any]) -> float:
        """How much a greedy player likes ``action``: shed cards, hit the next seat, keep the parrot."""
        kind = action.get("type")
        if kind == "choose_color":  # wish the colour you hold most of
            return float((self._hands[action["player"]] & _OF_COLOUR[action["color"]]).bit_count())
        if kind != "play":
            return 0.0
        p = action["player"]
        card = action["card"]
        hand = self._hands[p]
        held = hand.bit_count()
        score = 10.0
        if self._mau and held <= 2 and action.get("call") != ("mau" if held == 2 else "mau-mau"):
            score -= 9.5  # a forgotten call costs a card
        if held == 1:
            return score + 100.0
        col, pic = _COLOUR[card], _PICTURE[card]
        nxt = self._hands[(p + self.referee.direction) % self.players].bit_count()
        if pic == "bottle":
            score += 3.0 + (3.0 if nxt <= 2 else 0.0)
        elif pic == "sleeper":
            score += 2.0 + (3.0 if nxt <= 2 else 0.0)
        elif pic == "ship":
            score += 2.0 if self.players == 2 else 0.5
        elif pic == PARROT:
            return score - 4.0  # it matches almost anything: keep it for later
        # keep holding the colour you leave on top
        return score + 0.5 * (hand & ~BITS[card] & _OF_COLOUR[col]).bit_count()

    # -- the physical cards -------------------------------------------------------------
    def placements(self) -> list[tuple[str, str]]:
        where = [(CARD_OF_BIT[b], "stack") for b in self._stack] + [(c, "pile") for c in self._pile]
        for seat, hand in enumerate(self._hands):
            where.extend((c, f"hand:{seat}") for c in card_ids(hand))
        return where

    def hand(self, seat: int) -> list[str]:
        return card_ids(self._hands[seat])

    def stack(self) -> list[str]:
        """The draw stack, bottom first (its last card is turned up or drawn next)."""
        return [CARD_OF_BIT[b] for b in self._stack]

    def pile(self) -> list[str]:
        """The discard pile, bottom first (its last card is the top)."""
        return list(self._pile)

    def deck(self) -> list[str]:
        return list(self._deck)

    def counts_disagree(self) -> list[str]:
        view = self.referee.view()
        problems = []
        sizes = [h.bit_count() for h in self._hands]
        if view["hand_sizes"] != sizes:
            problems.append(f"hand sizes: referee {view['hand_sizes']}, table {sizes}")
        if view["stack"] != len(self._stack):
            problems.append(f"stack: referee {view['stack']}, table {len(self._stack)}")
        top = self._pile[-1] if self._pile else None
        if view["top"] != top:
            problems.append(f"top: referee {view['top']}, table {top}")
        if self.referee.pile != set(self._pile):
            problems.append(f"pile: referee {sorted(self.referee.pile)}, table {sorted(self._pile)}")
        return problems


__all__ = ["PiratesTable"]

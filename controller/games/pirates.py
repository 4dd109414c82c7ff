"""Pirate & Co. Mau Mau: the referee (rulings P1-P10 of docs/rulings.md).

The box sees only tapped cards, so the referee keeps the discard pile card
by card and everything else by count: hand sizes and the stack. The engine
is on the self-play hot path, hence card sets as bits of an int (one
``&`` tells whether a card matches), plain attributes, precomputed tables,
shared outcomes and a validate-then-mutate-in-place shape with no copies.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from controller.games.base import COLORS, QUIET, Engine, OptionsError, Outcome, Rejection, Result, Shape, player_name

SPECIALS: tuple[str, ...] = ("ship", "bottle", "sleeper")  # one of each per colour
LEAVABLE: tuple[str, ...] = ("ship", "bottle", "sleeper", "parrot")  # every special type: no start card (P1)
PARROT = "parrot"
HAND = 5  # cards dealt to each seat (seed 001: "Jedes Kind erhält verdeckt 5 Karten")
CALLS: tuple[str, ...] = ("mau", "mau-mau")  # a tuple: ``in`` answers for any value, a list too
#: The outcomes of a plain draw and of a wish, built once: after QUIET, the commonest.
_DREW_ONE: tuple[Outcome, ...] = tuple(Outcome(({"event": "drew", "player": s, "count": 1},)) for s in range(4))
_WISHED: tuple[dict[str, Outcome], ...] = tuple(
    {c: Outcome(({"event": "color_wished", "player": s, "color": c},)) for c in COLORS} for s in range(4))


def _catalogue() -> dict[str, tuple[str | None, str]]:
    """Every card id -> (colour or None, picture); the picture is what matches "by pirate"."""
    cards: dict[str, tuple[str | None, str]] = {}
    for color in COLORS:
        for n in range(1, 10):
            cards[f"{color}-pirate-{n}"] = (color, str(n))
        for kind in SPECIALS:
            cards[f"{color}-{kind}"] = (color, kind)
    for n in range(1, 5):
        cards[f"parrot-{n}"] = (None, PARROT)
    return cards


#: All 52 cards of the box, in catalogue order.
CARDS: dict[str, tuple[str | None, str]] = _catalogue()
#: Card id -> its bit in the card sets (an int per set, as chess engines keep bitboards).
BITS: dict[str, int] = {c: 1 << i for i, c in enumerate(CARDS)}
CARD_OF_BIT: dict[int, str] = {b: c for c, b in BITS.items()}
#: The card set of the four bottle posts (the only cards that pass a debt on, P5).
BOTTLES = sum(BITS[c] for c, (_, pic) in CARDS.items() if pic == "bottle")
#: The card set of the four parrots (that go on anything but a parrot, P2).
PARROTS = sum(BITS[c] for c, (_, pic) in CARDS.items() if pic == PARROT)


def card_ids(bits: int) -> list[str]:
    """The card ids of a card set, in catalogue order."""
    out = []
    while bits:
        low = bits & -bits
        out.append(CARD_OF_BIT[low])
        bits ^= low
    return out


class DeckTables:
    """One deck in play (P9) with its precomputed match sets, shared between games.

    ``bits`` are the deck's cards as bits, in catalogue order, and
    ``bit_of`` maps each card of the deck to its bit. Match sets
    are card sets (see :data:`BITS`): ``wished[colour]`` holds
    the cards that may go on a parrot whose player wished ``colour`` (P2);
    ``topped[card]`` is (colour, picture, the cards that may go on it),
    what playing ``card`` sets.
    """

    __slots__ = ("cards", "bits", "bit_of", "wished", "topped")

    def __init__(self, leave_out: frozenset[str]) -> None:
        self.cards = {c: info for c, info in CARDS.items() if info[1] not in leave_out}
        self.bits: tuple[int, ...] = tuple(BITS[c] for c in self.cards)
        self.bit_of: dict[str, int] = {c: BITS[c] for c in self.cards}
        self.wished: dict[str, int] = {
            w: sum(BITS[c] for c, (col, _) in self.cards.items() if col == w) for w in COLORS
        }
        self.topped: dict[str, tuple[str | None, str, int]] = {
            top: (tcol, tpic, 0 if tpic == PARROT else sum(
                BITS[c] for c, (col, pic) in self.cards.items() if pic == PARROT or col == tcol or pic == tpic))
            for top, (tcol, tpic) in self.cards.items()
        }


_TABLES: dict[frozenset[str], DeckTables] = {}


def tables_for(leave_out: Any) -> DeckTables:
    """The tables of the deck without the left-out types, built once per combination."""
    key = frozenset(leave_out or ())
    tables = _TABLES.get(key)
    if tables is None:
        tables = _TABLES[key] = DeckTables(key)
    return tables


class Pirates(Engine):
    """The referee of Pirate & Co. Mau Mau for 2-4 players.

    ``top``, ``color``, ``picture``, ``playable`` (the card set of
    :data:`BITS` that may go on the top card now, debt aside),
    ``pending_draw`` and ``direction`` are plain attributes, as
    ``current`` and ``awaiting`` are: read them, never assign them from outside.
    """

    game = "pirates"
    min_players = 2
    max_players = 4
    default_options: ClassVar[dict[str, Any]] = {
        "mau_calls": False, "wins_needed": 3, "leave_out": [],
    }
    shapes: ClassVar[dict[str, Shape]] = {
        "start_card": Shape(("card",)),
        "play": Shape(("player", "card"), ("call",)),
        "draw": Shape(("player",)),
        "pass": Shape(("player",)),
        "choose_color": Shape(("player", "color")),
    }
    accepts: ClassVar[dict[str, frozenset[str]]] = {
        "start_card": frozenset({"start_card"}),
        "play": frozenset({"play", "draw"}),
        "after_draw": frozenset({"play", "pass"}),  # P3: the drawn card, or keep it
        "choose_color": frozenset({"choose_color"}),
        "over": frozenset(),
    }

    __slots__ = (
        "current", "awaiting", "top", "color", "picture", "playable", "pending_draw", "direction",
        "_tables", "_deck", "_bit_of", "_topped", "_mau", "_wins", "_starter", "_hands", "_stack", "_pile", "_wish",
        "_ships", "_round", "_winners",
    )

    # -- options ---------------------------------------------------------------
    @classmethod
    def _check_game_options(cls, players: int, options: dict[str, Any]) -> None:
        if not isinstance(options["mau_calls"], bool):
            raise OptionsError(f"option 'mau_calls' must be true or false, not {options['mau_calls']!r}", "yes_no",
                               option="mau_calls")
        wins = options["wins_needed"]
        if not isinstance(wins, int) or isinstance(wins, bool) or not 1 <= wins <= 99:
            raise OptionsError(f"option 'wins_needed' must be a whole number from 1 to 99, not {wins!r}", "range",
                               option="wins_needed", lo=1, hi=99)
        leave = options["leave_out"]
        if not isinstance(leave, list) or not all(isinstance(x, str) and x in LEAVABLE for x in leave):
            raise OptionsError(f"option 'leave_out' must be a list of {', '.join(LEAVABLE)}, not {leave!r}", "cards",
                               option="leave_out", allowed=", ".join(LEAVABLE))

    # -- setup -----------------------------------------------------------------
    def _setup(self) -> None:
        opts = self.options
        self._tables = tables_for(opts["leave_out"])
        self._deck = self._tables.cards
        self._bit_of = self._tables.bit_of
        self._topped = self._tables.topped
        self._mau: bool = opts["mau_calls"]
        self._wins: int = opts["wins_needed"]
        self._ships = [0] * self.players
        self._round = 1
        self._winners: list[int] = []
        self._deal(opts["first"])

    def _deal(self, starter: int) -> None:
        """Fresh round: 5 cards each, the rest stacked, waiting for the start card (P1, P7)."""
        n = self.players
        self.awaiting = "start_card"
        self.current: int | None = None
        self._starter = starter
        self.direction = 1
        self._hands = [HAND] * n
        self._stack = len(self._deck) - HAND * n
        self._pile = 0  # the card set seen going onto the discard pile
        self.top: str | None = None
        self._wish: str | None = None
        self.color: str | None = None
        self.picture: str | None = None
        self.playable = 0
        self.pending_draw = 0

    # -- what the table may ask ------------------------------------------------------
    @property
    def pile(self) -> set[str]:
        """The cards the referee has seen go onto the discard pile (a copy)."""
        return set(card_ids(self._pile))

    @property
    def deck(self) -> dict[str, tuple[str | None, str]]:
        """Card id -> (colour, picture) for the deck in play (read only)."""
        return self._deck

    @property
    def deck_bits(self) -> tuple[int, ...]:
        """The deck in play as card bits (:data:`BITS`), in catalogue order."""
        return self._tables.bits

    def matches(self, card: str) -> bool:
        """True when ``card`` may go on the top card now (P2), ignoring a bottle-post debt."""
        return bool(BITS.get(card, 0) & self.playable)

    # -- validation ---------------------------------------------------------------
    def _check(self, action: dict[str, Any]) -> Rejection | None:
        kind = action["type"]
        if kind == "play":
            return self._play(self.current, action["card"], action.get("call"), dry_run=True)
        if kind == "choose_color":
            if action["color"] not in COLORS:
                return Rejection("wrong_action", f"wish one of {', '.join(COLORS)}, not {action['color']!r}",
                                 "bad_color")
        elif kind == "start_card":
            card = action["card"]
            info = self._deck.get(card)
            if info is None:
                return _unknown(card)
            if info[1] in LEAVABLE:
                return Rejection("special_start", "a special card goes under the stack; turn up the next card")
        return None  # draw, pass: being awaited is all they need

    # -- carrying out -------------------------------------------------------------
    def apply(self, action: Any) -> Result:
        """As :meth:`Engine.apply`, with a fast lane for the turns of a running round.

        Self-play sends every action through here. A well-formed play, draw,
        pass or wish by the seat whose turn it is, of a type awaited now, is
        judged by the same rule as :meth:`_check` (:meth:`_play`, or nothing
        more for a draw or a pass) and carried out as :meth:`_do` does,
        without the generic checks it has already passed. Everything else
        goes the generic way.
        """
        if type(action) is dict:
            try:  # a missing player or type: the generic way names what is missing
                p = action["player"]
                kind = action["type"]
            except KeyError:
                p = kind = None
            # The very object: a seat (CPython keeps one object per small int), never true or 1.0.
            # Only speed rests on it; whatever misses the lane is judged the generic way.
            if p is self.current:
                aw = self.awaiting
                if kind == "play":
                    n = len(action)
                    card = action.get("card")
                    call = None if n == 3 else action.get("call")
                    if (aw == "play" or aw == "after_draw") and type(card) is str:
                        result = self._play(p, card, call)
                        if type(result) is Outcome:  # accepted
                            self.log.append(action if n == 3 or (n == 4 and call is not None) else self._logged(action))
                        return result
                elif kind == "draw":
                    if aw == "play":
                        outcome = self._draw(p)
                        self.log.append(action if len(action) == 2 else self._logged(action))
                        return outcome
                elif kind == "pass":
                    if aw == "after_draw":
                        self._pass()
                        self.log.append(action if len(action) == 2 else self._logged(action))
                        return QUIET
                elif kind == "choose_color":
                    color = action.get("color")
                    if aw == "choose_color" and color in COLORS:
                        outcome = self._choose(p, color)
                        self.log.append(action if len(action) == 3 else self._logged(action))
                        return outcome
        return Engine.apply(self, action)

    def _do(self, action: dict[str, Any]) -> Sequence[dict[str, Any]]:
        kind = action["type"]
        p = self.current
        if kind == "play":
            return self._play(p, action["card"], action.get("call")).events  # type: ignore[union-attr]
        if kind == "draw":
            return self._draw(p).events
        if kind == "pass":
            self._pass()
        elif kind == "choose_color":
            return self._choose(p, action["color"]).events
        else:  # start_card
            card = action["card"]
            self._pile |= BITS[card]
            self.top = card
            self.color, self.picture, self.playable = self._topped[card]
            self._stack -= 1
            self.current = self._starter
            self.awaiting = "play"
        return ()

    def _pass(self) -> None:
        """The turn goes to the next seat."""
        self.current = (self.current + self.direction) % self.players
        self.awaiting = "play"

    def _choose(self, p: int, color: str) -> Outcome:
        """The parrot's player wishes a colour (P2)."""
        self._wish = self.color = color
        self.playable = self._tables.wished[color]
        self._pass()
        return _WISHED[p][color]

    def _draw(self, p: int) -> Outcome:
        if self.pending_draw:  # P5: pay the whole debt, then a normal turn
            events: list[dict[str, Any]] = []
            self._take(p, self.pending_draw, events)
            self.pending_draw = 0
            return Outcome(events)
        if self._stack > 1:  # the commonest draw: one card, no reshuffle
            self._stack -= 1
            self._hands[p] += 1
            self.awaiting = "after_draw"
            return _DREW_ONE[p]
        events = []
        if self._take(p, 1, events):  # P3: play the drawn card or pass
            self.awaiting = "after_draw"
        else:  # nothing left anywhere to draw: the turn ends (docs/rules/pirates.md)
            events.append({"event": "drew", "player": p, "count": 0})
            self._pass()
        return Outcome(events)

    def _play(self, p: int, card: str, call: str | None, dry_run: bool = False) -> Result | None:
        """Seat ``p`` plays ``card`` from the hand (P2-P8): whether it may, then what it does.

        The one statement of which plays are acceptable, for :meth:`_check`
        (``dry_run``: None when accepted, and nothing changes), :meth:`_do`
        and the fast lane of :meth:`apply`, so a refusal and an acceptance
        can never disagree. The tests run in docs/scenarios.md's order (call,
        identity, debt, match); a card that matches passes them with a few
        ``&``. A refusal is the :class:`Rejection` of the first rule broken.
        """
        if call is not None and call not in CALLS:
            return Rejection("wrong_action", f"the calls are 'mau' and 'mau-mau', not {call!r}", "bad_call")
        if not self._hands[p]:
            return Rejection("wrong_action", f"{player_name(p)} holds no card", "no_cards_left")
        bit = self._bit_of.get(card)
        if bit is None:
            return _unknown(card)
        if bit & self._pile:
            return Rejection("card_elsewhere", f"{card} is already on the discard pile", "card_on_pile")
        if self.pending_draw and not bit & BOTTLES:
            return Rejection("must_draw", f"draw {self.pending_draw} cards or pass the debt on with a bottle post")
        if not bit & self.playable:
            if bit & PARROTS:  # a parrot goes on anything but a parrot, so the top is one
                return Rejection("parrot_on_parrot", "a parrot never goes on a parrot")
            return Rejection("no_match", f"{card} matches neither the colour {self.color} nor the picture of {self.top}")
        if dry_run:
            return None
        self._pile |= bit
        self.top = card
        self.color, pic, self.playable = self._topped[card]
        self.picture = pic
        self._wish = None  # a wish stands until a card is played on it (P2)
        left = self._hands[p] = self._hands[p] - 1
        self.awaiting = "play"
        if left > 1 and pic not in LEAVABLE:  # the commonest play: no call due, the turn passes
            self.current = (p + self.direction) % self.players
            return QUIET
        events: list[dict[str, Any]] = []
        if left < 2 and self._mau and call != ("mau" if left else "mau-mau"):
            # P8: one penalty card; after a forgotten "Mau Mau" the round goes on.
            events.append({"event": "mau_penalty", "player": p, "call": "mau" if left else "mau-mau"})
            left += self._take(p, 1, events)
        if not left:  # P7: the round is won; a special card as last card has no effect
            self._win_round(p, events)
            return Outcome(events)
        if pic not in LEAVABLE:
            self.current = (p + self.direction) % self.players
        elif pic == PARROT:
            self.awaiting = "choose_color"
        elif pic == "bottle":  # P5
            self.pending_draw += 2
            self.current = nxt = (p + self.direction) % self.players
            events.append({"event": "draw_debt", "player": nxt, "count": self.pending_draw})
        elif pic == "ship":  # P4
            d = self.direction = -self.direction
            events.append({"event": "reverse", "direction": d})
            if self.players == 2:  # the other player misses their turn
                events.append({"event": "skip", "player": 1 - p})
            else:
                self.current = (p + d) % self.players
        else:  # sleeper, P6
            d = self.direction
            events.append({"event": "skip", "player": (p + d) % self.players})
            self.current = (p + 2 * d) % self.players
        return Outcome(events) if events else QUIET

    def _take(self, p: int, n: int, events: list[dict[str, Any]]) -> int:
        """Seat ``p`` draws ``n`` cards, reshuffling as F10 says; returns how many it got (P5, P10)."""
        got = 0
        while n:
            if not self._stack and not self._reshuffle(events):
                break
            k = n if n < self._stack else self._stack
            self._stack -= k
            n -= k
            got += k
            events.append({"event": "drew", "player": p, "count": k})
            if not self._stack:
                self._reshuffle(events)
        self._hands[p] += got
        return got

    def _reshuffle(self, events: list[dict[str, Any]]) -> bool:
        """The pile except its top card becomes the new stack (F10); False when it has nothing to give."""
        k = self._pile.bit_count() - 1
        if k < 1:
            return False
        self._pile = BITS[self.top]
        self._stack = k
        events.append({"event": "reshuffle", "count": k})
        return True

    def _win_round(self, p: int, events: list[dict[str, Any]]) -> None:
        self._ships[p] += 1
        events.append({"event": "round_won", "player": p, "round": self._round, "ships": self._ships[p]})
        if self._ships[p] >= self._wins:
            self._winners = [p]
            self.awaiting = "over"
            self.current = None
            events.append({"event": "game_over", "winners": [p]})
            return
        self._round += 1
        self._deal(p)
        events.append({"event": "new_round", "round": self._round, "first": p})

    # -- what the referee knows -------------------------------------------------------
    def view(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "awaiting": self.awaiting,
            "over": self.awaiting == "over",
            "winners": list(self._winners),
            "hand_sizes": list(self._hands),
            "stack": self._stack,
            "top": self.top,
            "color": self.color,
            "direction": self.direction,
            "pending_draw": self.pending_draw,
            "ships": list(self._ships),
            "round": self._round,
            # extras
            "wish": self._wish,
            "pile_size": self._pile.bit_count(),
            "starter": self._starter,
        }

    def legal_actions(self) -> list[dict[str, Any]]:
        aw = self.awaiting
        if aw == "over":
            return []
        if aw == "start_card":
            return [{"type": "start_card", "card": c} for c, (_, pic) in self._deck.items()
                    if pic not in LEAVABLE]
        p = self.current
        if aw == "choose_color":
            return [{"player": p, "type": "choose_color", "color": c} for c in COLORS]
        acts: list[dict[str, Any]] = []
        left = self._hands[p] - 1
        call = ("mau" if left else "mau-mau") if self._mau and left < 2 else None
        for card in self._deck:
            if self._play(p, card, None, dry_run=True) is None:
                acts.append({"player": p, "type": "play", "card": card})
                if call:
                    acts.append({"player": p, "type": "play", "card": card, "call": call})
        acts.append({"player": p, "type": "draw" if aw == "play" else "pass"})
        return acts

    # -- persistence -----------------------------------------------------------------
    def _state(self) -> dict[str, Any]:
        return {
            "awaiting": self.awaiting, "current": self.current, "starter": self._starter,
            "direction": self.direction, "hands": list(self._hands), "stack": self._stack,
            "pile": sorted(card_ids(self._pile)), "top": self.top, "wish": self._wish,
            "pending": self.pending_draw, "ships": list(self._ships), "round": self._round,
            "winners": list(self._winners),
        }

    def _load(self, state: dict[str, Any]) -> None:
        self.awaiting = state["awaiting"]
        self.current = state["current"]
        self._starter = state["starter"]
        self.direction = state["direction"]
        self._hands = list(state["hands"])
        self._stack = state["stack"]
        self._pile = sum(BITS[c] for c in set(state["pile"]))
        self.top = state["top"]
        self._wish = state["wish"]
        self.pending_draw = state["pending"]
        self._ships = list(state["ships"])
        self._round = state["round"]
        self._winners = list(state["winners"])
        self.color = self.picture = None
        self.playable = 0
        if self.top is not None:
            self.color, self.picture, self.playable = self._topped[self.top]
        if self._wish is not None:
            self.color = self._wish
            self.playable = self._tables.wished[self._wish]

    # -- what the box asks of the referee -------------------------------------------
    def call_needed(self, action: dict[str, Any]) -> str | None:
        """The call a play needs (P8: "Mau" with one card left, "Mau Mau" with none), when calls are on."""
        seat = action.get("player")
        if not self._mau or not isinstance(seat, int) or not 0 <= seat < self.players:
            return None
        left = self._hands[seat] - 1
        call = "mau" if left == 1 else "mau-mau" if left == 0 else None
        return call if call is not None and self.would_accept(dict(action, call=call)) else None

    def button_action(self) -> str | None:
        """The action a press of the table's die button stands for now: draw a card (P3), or keep the one drawn."""
        return {"play": "draw", "after_draw": "pass"}.get(self.awaiting)


def _unknown(card: Any) -> Rejection:
    if isinstance(card, str) and card in CARDS:
        return Rejection("unknown_card", f"{card} was left out of this game's deck", "left_out")
    return Rejection("unknown_card", f"{card!r} is no card of Pirate & Co.", "not_in_game")


__all__ = ["BITS", "BOTTLES", "CARDS", "CARD_OF_BIT", "DeckTables", "Pirates", "card_ids", "tables_for"]

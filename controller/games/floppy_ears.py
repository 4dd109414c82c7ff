"""Floppy Ears (Wau Wau, HABA 303270): the referee for the classic and the reveal edition.

The box sees a card only when it is tapped: when it is hung on an ear, played,
turned up or revealed. It therefore knows every ear and the whole discard
pile, and counts the rest (hand sizes, the stack). A hand card it has never
seen is taken on trust as coming from the hand; a card that went back to a
hand after "stop ear!" is remembered there. Rulings F1–F11 of docs/rulings.md;
the gaps it decides are written down in docs/rules/floppy-ears.md.
"""

from __future__ import annotations

from typing import Any

from controller.games.base import COLORS, Engine, OptionsError, Rejection, Shape, player_name

SYMBOLS = 7
JOKERS: tuple[str, ...] = tuple(f"joker-{n}" for n in range(1, 9))
CARDS: tuple[str, ...] = tuple(f"{c}-{n}" for c in COLORS for n in range(1, SYMBOLS + 1)) + JOKERS
HAND = 5
EARS: tuple[str, str] = ("left", "right")
CALLS: tuple[str, str] = ("woof", "woof-woof")
_NO_CALL_OR_CALLS = (None, *CALLS)  # what a play's "call" may be
EDITIONS: tuple[str, str] = ("classic", "reveal")

#: card id -> (colour, symbol); a joker has neither.
FACE: dict[str, tuple[str | None, int | None]] = {
    **{f"{c}-{n}": (c, n) for c in COLORS for n in range(1, SYMBOLS + 1)},
    **{j: (None, None) for j in JOKERS},
}

_ACCEPTS: dict[str, frozenset[str]] = {
    "setup": frozenset({"hang"}),
    "start_card": frozenset({"start_card"}),
    "reveal": frozenset({"reveal"}),
    "play": frozenset({"play", "draw"}),
    "choose_color": frozenset({"choose_color"}),
    "hang": frozenset({"hang"}),
    "over": frozenset(),
}


def is_joker(card: str) -> bool:
    return FACE[card][0] is None


def matches(card: str, top: str, wish: str | None) -> bool:
    """F2/F11: a joker goes on anything; else same colour (the wish replaces the top's) or same symbol."""
    color, symbol = FACE[card]
    if color is None:
        return True
    top_color, top_symbol = FACE[top]
    return color == (wish or top_color) or (top_symbol is not None and symbol == top_symbol)


def bark_due(cards_before: int) -> str | None:
    """F8: the bark a play needs, from the player's cards (hand and ears) before it."""
    return "woof-woof" if cards_before == 1 else "woof" if cards_before == 2 else None


class FloppyEars(Engine):
    """The referee of one game of Floppy Ears: ears first, penalties, barks, reshuffles."""

    game = "floppy-ears"
    min_players = 2
    max_players = 4
    default_options = {"edition": "classic", "bark_rule": True}
    shapes = {
        "start_card": Shape(("card",)),
        "hang": Shape(("player", "ear", "card")),
        "reveal": Shape(("player", "card")),
        "play": Shape(("player", "card"), ("call",)),
        "draw": Shape(("player",)),
        "choose_color": Shape(("player", "color")),
    }
    accepts = _ACCEPTS

    @classmethod
    def _check_game_options(cls, players: int, options: dict[str, Any]) -> None:
        if options["edition"] not in EDITIONS:
            raise OptionsError(f"option 'edition' must be 'classic' or 'reveal', not {options['edition']!r}", "choice",
                               option="edition", allowed="classic, reveal")
        if not isinstance(options["bark_rule"], bool):
            raise OptionsError(f"option 'bark_rule' must be true or false, not {options['bark_rule']!r}", "yes_no",
                               option="bark_rule")

    # -- state -------------------------------------------------------------------
    def _setup(self) -> None:
        n = self.players
        self.hands: list[int] = [HAND] * n  # F1: five dealt to each, ears hung from them
        self.ears: list[list[str | None]] = [[None, None] for _ in range(n)]
        self.pile: list[str] = []
        self.stack: int = len(CARDS) - HAND * n
        self.wish: str | None = None
        self.held: dict[str, int] = {}  # cards known to be back in a hand (after "stop ear!")
        self.winners: list[int] = []
        self.awaiting = "setup"
        self.current = None
        self._then: str | None = None  # after choose_color: "play" (revealed joker) or "settle"

    def _state(self) -> dict[str, Any]:
        return {
            "hands": list(self.hands),
            "ears": [list(e) for e in self.ears],
            "pile": list(self.pile),
            "stack": self.stack,
            "wish": self.wish,
            "held": dict(self.held),
            "winners": list(self.winners),
            "phase": self.awaiting,
            "turn": self.current,
            "then": self._then,
        }

    def _load(self, state: dict[str, Any]) -> None:
        self.hands = list(state["hands"])
        self.ears = [list(e) for e in state["ears"]]
        self.pile = list(state["pile"])
        self.stack = state["stack"]
        self.wish = state["wish"]
        self.held = {card: seat for card, seat in state["held"].items()}
        self.winners = list(state["winners"])
        self.awaiting = state["phase"]
        self.current = state["turn"]
        self._then = state["then"]

    @property
    def top(self) -> str | None:
        """The top card of the discard pile (None before the first card is turned up)."""
        return self.pile[-1] if self.pile else None

    @property
    def color(self) -> str | None:
        """The colour to match now: the wish, else the top card's (None on an unwished joker)."""
        return self.wish or (FACE[self.pile[-1]][0] if self.pile else None)

    def cards_of(self, seat: int) -> int:
        """A seat's cards, hand and ears together: what the bark rule counts."""
        ears = self.ears[seat]
        return self.hands[seat] + (ears[0] is not None) + (ears[1] is not None)

    def view(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "awaiting": self.awaiting,
            "over": self.awaiting == "over",
            "winners": list(self.winners),
            "hand_sizes": list(self.hands),
            "stack": self.stack,
            "top": self.top,
            "color": self.color,
            "ears": [list(e) for e in self.ears],
            # extras
            "pile": list(self.pile),
            "wish": self.wish,
            "edition": self.options["edition"],
        }

    # -- where the referee knows a card to be -------------------------------------
    def _ear_of(self, card: str) -> tuple[int, int] | None:
        for seat, ears in enumerate(self.ears):
            if card in ears:
                return seat, ears.index(card)
        return None

    def _unseen(self, card: str) -> Rejection | None:
        """Refuse a card the referee knows is on an ear, on the pile or in a hand."""
        spot = self._ear_of(card)
        if spot is not None:
            return Rejection("card_elsewhere", f"{card} hangs on {player_name(spot[0])}'s {EARS[spot[1]]} ear",
                             "card_on_ear")
        if card in self.pile:
            return Rejection("card_elsewhere", f"{card} is on the discard pile", "card_on_pile")
        if card in self.held:
            return Rejection("card_elsewhere", f"{card} is in {player_name(self.held[card])}'s hand",
                             "card_in_other_hand")
        return None

    def _from_hand(self, seat: int, card: str) -> Rejection | None:
        """Refuse a card that cannot be in ``seat``'s hand."""
        if self.held.get(card) == seat:
            return None
        refusal = self._unseen(card)
        if refusal is None and self.hands[seat] == 0:
            return Rejection("card_elsewhere", f"{player_name(seat)} holds no hand card, so {card} is not theirs",
                             "no_hand_cards")
        return refusal

    # -- validation ------------------------------------------------------------------
    def _check(self, action: dict[str, Any]) -> Rejection | None:
        kind = action["type"]
        if kind == "draw":
            return None
        if kind == "choose_color":
            color = action["color"]
            if color not in COLORS:
                return Rejection("wrong_action", f"wish one of {', '.join(COLORS)}, not {color!r}", "bad_color")
            return None
        if kind == "hang" and action["ear"] not in EARS:
            return Rejection("wrong_action", f"an ear is 'left' or 'right', not {action['ear']!r}", "bad_ear")
        if kind == "play" and action.get("call") not in _NO_CALL_OR_CALLS:
            return Rejection("wrong_action", f"a bark is 'woof' or 'woof-woof', not {action.get('call')!r}", "bad_call")
        card = action["card"]
        if card not in FACE:
            return Rejection("unknown_card", f"{card!r} is no Floppy Ears card", "not_in_game")
        if kind == "hang":
            return self._check_hang(action["player"], action["ear"], card)
        if kind == "play":
            return self._check_play(action["player"], card)
        refusal = self._unseen(card)  # start_card, reveal: the card comes off the stack
        if refusal is None and kind == "start_card" and is_joker(card):
            return Rejection("joker_start", f"{card} goes face down under the stack; turn up the next card (F1)")
        return refusal

    def _check_hang(self, player: int, ear: str, card: str) -> Rejection | None:
        refusal = self._from_hand(player, card)
        if refusal is not None:
            return refusal
        if self.ears[player][EARS.index(ear)] is not None:
            return Rejection("not_eligible", f"{player_name(player)}'s {ear} ear already holds a card", "ear_taken")
        return None

    def _an_ear_matches(self, seat: int) -> bool:
        """F5: an ear card of ``seat`` matches the pile, so a hand card played now is a "stop ear!"."""
        left, right = self.ears[seat]
        top, wish = self.pile[-1], self.wish
        return (left is not None and matches(left, top, wish)) or (right is not None and matches(right, top, wish))

    def _check_play(self, player: int, card: str) -> Rejection | None:
        ears = self.ears[player]
        if card in ears:
            return None  # an ear card either matches or costs a penalty (F4)
        refusal = self._from_hand(player, card)
        if refusal is not None:
            return refusal
        if self._an_ear_matches(player):
            return None  # "stop ear!" (F5)
        top, wish = self.pile[-1], self.wish
        if not matches(card, top, wish):
            return Rejection("no_match", f"{card} matches neither the colour {self.color} nor the symbol of {top}")
        return None

    # -- carrying out -----------------------------------------------------------------
    def _do(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        kind = action["type"]
        if kind == "play":
            self._play(action["player"], action["card"], action.get("call"), events)
        elif kind == "draw":
            self._take(action["player"], "draw", events)
            self._settle(action["player"], events)
        elif kind == "hang":
            self._hang(action["player"], EARS.index(action["ear"]), action["card"], events)
        elif kind == "choose_color":
            self.wish = action["color"]
            events.append({"event": "color_wished", "player": self.current, "color": self.wish})
            if self._then == "play":
                self.awaiting = "play"
            else:
                self._settle(self.current, events)
            self._then = None
        elif kind == "reveal":
            card = action["card"]
            self._from_stack(card)
            events.append({"event": "revealed", "player": self.current, "card": card})
            self._refill(events)
            if is_joker(card):  # F11: the revealer wishes at once, then plays
                self.wish, self.awaiting, self._then = None, "choose_color", "play"
            else:
                self.awaiting = "play"
        else:  # start_card
            card = action["card"]
            self._from_stack(card)
            events.append({"event": "start_card", "card": card})
            self._begin_turn(self.options["first"], events)
        return events

    def _from_stack(self, card: str) -> None:
        self.stack -= 1
        self.pile.append(card)

    def _hang(self, seat: int, ear: int, card: str, events: list[dict[str, Any]]) -> None:
        self.ears[seat][ear] = card
        self.hands[seat] -= 1
        self.held.pop(card, None)
        events.append({"event": "hung", "player": seat, "ear": EARS[ear], "card": card})
        if self.awaiting == "setup":
            if None not in sum(self.ears, []):  # F1: every ear hung
                self.awaiting = "start_card"
        else:
            self._settle(seat, events)

    def _play(self, seat: int, card: str, call: str | None, events: list[dict[str, Any]]) -> None:
        ears = self.ears[seat]
        top, wish = self.pile[-1], self.wish
        ear = ears.index(card) if card in ears else None
        if ear is not None and not matches(card, top, wish):
            events.append({"event": "ear_penalty", "player": seat, "card": card, "ear": EARS[ear]})
            self._take(seat, "penalty", events)
            self._settle(seat, events)
            return
        if ear is None and self._an_ear_matches(seat):
            self.held[card] = seat
            events.append({"event": "stop_ear", "player": seat, "card": card})
            self._take(seat, "penalty", events)
            self._settle(seat, events)
            return
        due = bark_due(self.cards_of(seat))
        if ear is None:
            self.hands[seat] -= 1
            self.held.pop(card, None)
        else:
            ears[ear] = None
        self.pile.append(card)
        self.wish = None
        events.append({"event": "played", "player": seat, "card": card, "from": "hand" if ear is None else "ear",
                       "ear": None if ear is None else EARS[ear]})
        barked = True
        if due is not None and self.options["bark_rule"]:
            barked = call == due
            if barked:
                events.append({"event": "barked", "player": seat, "call": due})
        if due == "woof-woof" and barked:  # F9
            self.awaiting, self.current, self.winners = "over", None, [seat]
            events.append({"event": "game_over", "winners": [seat]})
            return
        if not barked:  # F8: the penalty card is hung on an ear (the hang is awaited below)
            events.append({"event": "bark_penalty", "player": seat, "missed": due})
            self._take(seat, "bark", events)
        if is_joker(card):
            self.awaiting, self._then = "choose_color", "settle"
            return
        self._settle(seat, events)

    def _take(self, seat: int, why: str, events: list[dict[str, Any]]) -> None:
        """One card from the stack into a hand; nothing when stack and pile are dry (F10)."""
        self._refill(events)
        if self.stack == 0:
            events.append({"event": "drew", "player": seat, "count": 0, "why": why})
            return
        self.stack -= 1
        self.hands[seat] += 1
        events.append({"event": "drew", "player": seat, "count": 1, "why": why})
        self._refill(events)

    def _refill(self, events: list[dict[str, Any]]) -> None:
        """F10: an empty stack becomes the pile except its top card, as soon as the pile has any."""
        if self.stack == 0 and len(self.pile) > 1:
            self.stack = len(self.pile) - 1
            del self.pile[:-1]
            events.append({"event": "reshuffle", "count": self.stack})

    def _settle(self, seat: int, events: list[dict[str, Any]]) -> None:
        """F7: refill an empty ear while there is a hand card; then the turn passes."""
        if self.hands[seat] and None in self.ears[seat]:
            self.awaiting, self.current = "hang", seat
        else:
            self._begin_turn((seat + 1) % self.players, events)

    def _begin_turn(self, seat: int, events: list[dict[str, Any]]) -> None:
        self.current = seat
        self.awaiting = "play"
        if self.options["edition"] == "reveal":  # F11; with stack and pile dry there is nothing to reveal
            self._refill(events)
            if self.stack:
                self.awaiting = "reveal"

    # -- what could be accepted now -----------------------------------------------------
    def _unknown(self) -> list[str]:
        """Cards the referee has not placed: in a hand it cannot see, or in the stack."""
        placed = set(self.pile) | set(self.held)
        for ears in self.ears:
            placed.update(ears)
        return [c for c in CARDS if c not in placed]

    def legal_actions(self) -> list[dict[str, Any]]:
        phase, seat = self.awaiting, self.current
        if phase == "over":
            return []
        if phase == "choose_color":
            return [{"type": "choose_color", "player": seat, "color": c} for c in COLORS]
        unknown = self._unknown()
        if phase == "start_card":
            return [{"type": "start_card", "card": c} for c in unknown if not is_joker(c)]
        if phase == "reveal":
            return [{"type": "reveal", "player": seat, "card": c} for c in unknown]
        if phase in ("setup", "hang"):
            seats = range(self.players) if seat is None else [seat]
            actions = []
            for s in seats:
                if not self.hands[s]:
                    continue
                hand = [c for c, h in self.held.items() if h == s] + unknown
                actions += [{"type": "hang", "player": s, "ear": EARS[i], "card": c}
                            for i in (0, 1) if self.ears[s][i] is None for c in hand]
            return actions
        return self._legal_plays(seat)

    def _legal_plays(self, seat: int) -> list[dict[str, Any]]:
        top, wish = self.pile[-1], self.wish
        ears = self.ears[seat]
        cards = [e for e in ears if e is not None]
        if self.hands[seat]:
            hand = [c for c, h in self.held.items() if h == seat] + self._unknown()
            if self._an_ear_matches(seat):
                cards += hand  # every hand card is a "stop ear!"
            else:
                cards += [c for c in hand if matches(c, top, wish)]
        due = bark_due(self.cards_of(seat)) if self.options["bark_rule"] else None
        actions: list[dict[str, Any]] = []
        for card in cards:
            actions.append({"type": "play", "player": seat, "card": card})
            if due is not None:
                actions.append({"type": "play", "player": seat, "card": card, "call": due})
        actions.append({"type": "draw", "player": seat})
        return actions

    # -- what the box asks of the referee -------------------------------------------
    def call_needed(self, action: dict[str, Any]) -> str | None:
        """The bark a play needs (F8: hand and ears counted), when the bark rule is on and the play is acceptable."""
        if not self.options["bark_rule"] or not isinstance(action.get("player"), int):
            return None
        due = bark_due(self.cards_of(action["player"])) if 0 <= action["player"] < self.players else None
        return due if due is not None and self.would_accept(dict(action, call=due)) else None

    def next_hang(self) -> tuple[int, str] | None:
        """The seat and side of the ear to hang next (F1): the awaited seat's first empty ear, in seat order during setup."""
        if self.awaiting not in ("setup", "hang"):
            return None
        seats = [self.current] if self.current is not None else range(self.players)
        for seat in seats:
            for side, card in zip(EARS, self.ears[seat]):
                if card is None:
                    return seat, side
        return (self.current or 0), EARS[0]

    def button_action(self) -> str | None:
        """The action a press of the table's die button stands for now: draw a card (F4), or keep the one drawn."""
        return {"play": "draw", "after_draw": "pass"}.get(self.awaiting)


__all__ = ["CARDS", "EARS", "FACE", "FloppyEars", "JOKERS", "bark_due", "is_joker", "matches"]

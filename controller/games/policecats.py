"""Policecats (Katzenpolizei, HABA 301291): the referee.

The referee sees every card that is revealed, because a revealed card stays
face up in front of a player; so it knows each tableau exactly and only
counts the face-down stack. Kittens are *with a parent* exactly when their
card lies with a player who also has a parent of their family face up: the
running rules (C3) never leave kittens alone while a parent of theirs lies
face up, so this one fact is all the bookkeeping the families need.

Rulings C1–C10 of docs/rulings.md; the decisions where the rulebook is silent are
in ``docs/rules/policecats.md``.
"""

from __future__ import annotations

from typing import Any

from controller.games.base import Engine, OptionsError, Rejection, Shape, player_name

FACES: tuple[str, ...] = ("cat", "dog", "mouse", "whistle")
DEFAULT_DIE: tuple[str, ...] = ("cat", "cat", "cat", "dog", "mouse", "whistle")
VARIANTS: tuple[str, ...] = ("basic", "alarm")

FAMILY_NUMBERS = range(1, 10)
CAT_CARDS: tuple[str, ...] = tuple(
    f"family-{n}-{member}" for n in FAMILY_NUMBERS for member in ("mother", "father", "kittens")
)
POLICE_CARDS: tuple[str, ...] = tuple(f"police-{n}" for n in range(1, 10))
#: Whistles it takes the figure to reach the last card of the alarm track (C10).
TRACK_END = len(POLICE_CARDS)

#: card id -> (family number, member); police cards have family 0.
MEMBER: dict[str, tuple[int, str]] = {
    **{card: (int(card.split("-")[1]), card.rsplit("-", 1)[1]) for card in CAT_CARDS},
    **{card: (0, "police") for card in POLICE_CARDS},
}
#: Cats depicted on a card (docs/rulings.md, "Cats depicted").
CATS: dict[str, int] = {"mother": 1, "father": 1, "kittens": 2, "police": 1}
FAMILY_CATS = 4
FIGURE_CATS = 1


def parents(family: int) -> tuple[str, str]:
    return f"family-{family}-mother", f"family-{family}-father"


def kittens(family: int) -> str:
    return f"family-{family}-kittens"


class Policecats(Engine):
    """Referee of one game of Policecats, basic or policecat-alarm (C10)."""

    game = "policecats"
    min_players = 2  # the alarm variant; the basic game checks 3 itself
    max_players = 5
    default_options = {"variant": "basic", "die": list(DEFAULT_DIE)}
    shapes = {
        "roll": Shape(("player", "face")),
        "reveal": Shape(("player", "card")),
        "send_kittens": Shape(("player", "to")),
        "give": Shape(("player", "card")),
        "lure": Shape(("player", "card")),
    }
    #: Each step awaits the action of its own name.
    accepts = {**{kind: frozenset({kind}) for kind in shapes}, "over": frozenset()}

    @classmethod
    def _check_game_options(cls, players: int, options: dict[str, Any]) -> None:
        variant = options["variant"]
        if variant not in VARIANTS:
            raise OptionsError(f"option 'variant' must be 'basic' or 'alarm', not {variant!r}", "choice",
                               option="variant", allowed="basic, alarm")
        if variant == "basic" and players < 3:
            raise OptionsError(
                f"policecats is for 3 to 5 players (the alarm variant for 2 to 5), not {players!r}"
            )
        die = options["die"]
        if (not isinstance(die, (list, tuple)) or len(die) != 6
                or not all(isinstance(face, str) and face in FACES for face in die)):
            raise OptionsError(f"option 'die' must list six faces of {', '.join(FACES)}, not {die!r}", "die",
                               option="die", allowed=", ".join(FACES))
        if "cat" not in die:
            raise OptionsError("option 'die' needs a cat face, or the stack never empties", "die_cat", option="die")
        options["die"] = list(die)  # our own copy: the default list is shared

    # -- state -----------------------------------------------------------------
    def _setup(self) -> None:
        self._alarm = self.options["variant"] == "alarm"
        self._faces = frozenset(self.options["die"])
        self._deck_size = len(CAT_CARDS) + (0 if self._alarm else len(POLICE_CARDS))
        self.current = self.options["first"]
        self.awaiting = "roll"
        self._pending: int | None = None  # family whose kittens await send_kittens
        self._seen: set[str] = set()  # every card revealed so far
        self._where: dict[str, int] = {}  # face-up card -> seat
        self._families: list[list[int]] = [[] for _ in range(self.players)]  # laid face down
        self._figure: int | None = None  # basic: seat holding the policecat figure
        self._track = 0  # alarm: cards the figure has moved on
        self._winners: list[int] = []

    def _state(self) -> dict[str, Any]:
        return {
            "turn": self.current, "phase": self.awaiting, "pending": self._pending,
            "seen": sorted(self._seen), "where": dict(self._where),
            "families": [list(f) for f in self._families], "figure": self._figure,
            "track": self._track, "winners": list(self._winners),
        }

    def _load(self, state: dict[str, Any]) -> None:
        self.current = state["turn"]
        self.awaiting = state["phase"]
        self._pending = state["pending"]
        self._seen = set(state["seen"])
        self._where = dict(state["where"])
        self._families = [list(f) for f in state["families"]]
        self._figure = state["figure"]
        self._track = state["track"]
        self._winners = list(state["winners"])

    @property
    def stack(self) -> int:
        return self._deck_size - len(self._seen)

    # -- what the rules allow --------------------------------------------------
    def _protected(self, seat: int) -> bool:
        """C8: the figure's holder keeps their cards (never in the alarm variant, C10)."""
        return not self._alarm and self._figure == seat

    def _has_parent(self, seat: int | None, family: int) -> bool:
        mother, father = parents(family)
        return seat is not None and (self._where.get(mother) == seat or self._where.get(father) == seat)

    def _carried(self, card: str, seat: int) -> list[str] | None:
        """The cards that leave ``seat`` when ``card`` is given or lured (C5, C6); None if it cannot be."""
        family, member = MEMBER[card]
        if member == "police":
            return None
        if member == "kittens":
            return None if self._has_parent(seat, family) else [card]
        kit = kittens(family)
        return [card, kit] if self._where.get(kit) == seat else [card]

    def _movable(self, seat: int) -> list[str]:
        """Cards of ``seat`` a dog or mouse could move, sorted."""
        if self._protected(seat):
            return []
        return sorted(c for c, s in self._where.items() if s == seat and self._carried(c, s) is not None)

    def _lurable(self, seat: int) -> list[str]:
        return sorted(c for other in range(self.players) if other != seat for c in self._movable(other))

    def _kitten_homes(self) -> list[int]:
        """Seats holding a face-up parent of the pending kittens (where send_kittens may send them)."""
        if self._pending is None:
            return []
        return sorted({self._where[p] for p in parents(self._pending) if p in self._where})

    def _family_holder(self, family: int) -> int | None:
        for seat, laid in enumerate(self._families):
            if family in laid:
                return seat
        return None

    # -- validation --------------------------------------------------------------
    def _check(self, action: dict[str, Any]) -> Rejection | None:
        kind = action["type"]
        player = action["player"]
        if kind == "roll":
            face = action["face"]
            if face not in self._faces:
                return Rejection("wrong_action", f"the die has no face {face!r}", "bad_face")
            return None
        if kind == "send_kittens":
            to = action["to"]
            if not 0 <= to < self.players:
                return Rejection("wrong_action", f"no seat {to!r} to send the kittens to", "no_such_seat")
            if to not in self._kitten_homes():
                return Rejection("not_eligible", f"{player_name(to)} has no parent of family {self._pending}",
                                 "no_parent_there")
            return None
        card = action["card"]
        if card not in MEMBER:
            return Rejection("unknown_card", f"{card!r} is no Policecats card", "not_in_game")
        if kind == "reveal":
            if card in self._seen:
                return Rejection("card_elsewhere", f"{card} was revealed already", "already_revealed")
            if self._alarm and card in POLICE_CARDS:
                return Rejection("card_elsewhere", f"{card} lies on the alarm track, not in the stack",
                                 "on_alarm_track")
            return None
        holder = self._where.get(card)
        family = MEMBER[card][0]
        if kind == "give":
            if holder != player:
                if family and self._family_holder(family) == player:
                    return Rejection("not_eligible", f"family {family} is complete and stays together",
                                     "complete_family")
                return Rejection("card_elsewhere", f"{card} does not lie face up in front of {player_name(player)}",
                                 "not_yours")
        else:  # lure
            if holder is None or holder == player:
                if family and self._family_holder(family) not in (None, player):
                    return Rejection("not_eligible", f"family {family} is complete and stays together",
                                     "complete_family")
                if holder == player:
                    return Rejection("card_elsewhere", f"{card} lies in front of {player_name(player)} already",
                                     "own_card")
                return Rejection("card_elsewhere", f"{card} does not lie in front of another player", "not_on_table")
        if self._protected(holder):
            return Rejection("not_eligible", f"{player_name(holder)} holds the policecat: their cats are protected",
                             "protected_by_policecat")
        if self._carried(card, holder) is None:
            if MEMBER[card][1] == "police":
                return Rejection("not_eligible", f"{card} cannot go: policecat cards stay", "policecat_card_stays")
            return Rejection("not_eligible", f"{card} cannot go: kittens go only with their parent",
                             "kittens_need_parent")
        return None

    # -- carrying out --------------------------------------------------------------
    def _do(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        kind = action["type"]
        player: int = action["player"]
        events: list[dict[str, Any]] = []
        if kind == "roll":
            self._roll(player, action["face"], events)
        elif kind == "reveal":
            self._reveal(player, action["card"], events)
        elif kind == "send_kittens":
            family = self._pending
            self._run(family, self._where[kittens(family)], action["to"], events)
            self._pending = None
            self._end_turn(events)
        else:
            card = action["card"]
            source = self._where[card]
            target = (player + 1) % self.players if kind == "give" else player
            moved = self._carried(card, source)
            name = "card_given" if kind == "give" else "card_lured"
            events.append({"event": name, "player": player, "from": source, "to": target, "cards": moved})
            self._transfer(moved, source, target, events)
            self._end_turn(events)
        return events

    def _roll(self, player: int, face: str, events: list[dict[str, Any]]) -> None:
        events.append({"event": "rolled", "player": player, "face": face})
        if face == "cat":
            self.awaiting = "reveal"
            return
        if face == "whistle":
            self._whistle(player, events)
        elif face == "dog":
            if self._movable(player):
                self.awaiting = "give"
                return
            guarded = self._protected(player) and any(seat == player for seat in self._where.values())
            why = "protected by the policecat" if guarded else "no cat card to give"
            events.append({"event": "nothing_happens", "player": player, "face": face, "reason": why,
                           "key": "protected_by_policecat" if guarded else "no_cat"})
        else:  # mouse
            if self._lurable(player):
                self.awaiting = "lure"
                return
            guarded = self._figure is not None and any(
                seat != player and self._protected(seat) for seat in self._where.values())
            why = "protected by the policecat" if guarded else "no cat card to lure"
            events.append({"event": "nothing_happens", "player": player, "face": face, "reason": why,
                           "key": "protected_by_policecat" if guarded else "no_cat"})
        self._end_turn(events)

    def _whistle(self, player: int, events: list[dict[str, Any]]) -> None:
        """C7 (and C2's policecat card): take the figure, or give it back to the centre; C10: move it on."""
        if self._alarm:
            self._track += 1
            events.append({"event": "policecat_moved", "player": player, "track": self._track})
            return
        before = self._figure
        self._figure = None if before == player else player
        events.append({"event": "policecat_moved", "player": player, "from": before, "to": self._figure})

    def _reveal(self, player: int, card: str, events: list[dict[str, Any]]) -> None:
        self._seen.add(card)
        self._where[card] = player
        events.append({"event": "revealed", "player": player, "card": card})
        family, member = MEMBER[card]
        if member == "police":
            self._whistle(player, events)
        elif member == "kittens":
            homes = sorted({self._where[p] for p in parents(family) if p in self._where})
            if len(homes) == 2:
                self._pending = family
                self.awaiting = "send_kittens"
                return
            if homes:
                self._run(family, player, homes[0], events)
        else:
            kit = kittens(family)
            holder = self._where.get(kit)
            if holder is not None and not self._has_parent_besides(holder, family, card):
                self._run(family, holder, player, events)
            else:
                self._settle(player, family, events)
        self._end_turn(events)

    def _has_parent_besides(self, seat: int, family: int, card: str) -> bool:
        return any(self._where.get(p) == seat for p in parents(family) if p != card)

    def _run(self, family: int, source: int, target: int, events: list[dict[str, Any]]) -> None:
        """C3: kittens join a parent (also when they already lie with it: a show may still meow)."""
        self._where[kittens(family)] = target
        events.append({"event": "kittens_ran", "family": family, "from": source, "to": target})
        self._settle(target, family, events)

    def _transfer(self, cards: list[str], source: int, target: int, events: list[dict[str, Any]]) -> None:
        """Dog or mouse moved ``cards``; C3's last sentence: parentless kittens join an arriving parent."""
        family = MEMBER[cards[0]][0]
        kit = kittens(family)
        before = self._where.get(kit)
        joined = self._has_parent(before, family)
        for card in cards:
            self._where[card] = target
        if not joined and self._has_parent(self._where.get(kit), family):
            events.append({"event": "kittens_ran", "family": family, "from": before, "to": target})
        self._settle(target, family, events)

    def _settle(self, seat: int, family: int, events: list[dict[str, Any]]) -> None:
        """C4: a family complete in front of one player is laid face down at once."""
        members = (*parents(family), kittens(family))
        if all(self._where.get(card) == seat for card in members):
            for card in members:
                del self._where[card]
            self._families[seat].append(family)
            events.append({"event": "family_complete", "player": seat, "family": family})

    def _end_turn(self, events: list[dict[str, Any]]) -> None:
        """C9/C10: the game ends when the stack is empty or the figure reached the track's end."""
        if self.stack == 0 or (self._alarm and self._track >= TRACK_END):
            self.awaiting, self.current = "over", None
            scores = self.scores()
            best = max(scores)
            self._winners = [seat for seat, score in enumerate(scores) if score == best]
            events.append({"event": "game_over", "winners": list(self._winners), "scores": scores})
            return
        self.current = (self.current + 1) % self.players
        self.awaiting = "roll"

    # -- what can be seen ------------------------------------------------------------
    def scores(self) -> list[int]:
        """Cats depicted in front of each player, the figure counting one (C9)."""
        scores = [FAMILY_CATS * len(laid) for laid in self._families]
        for card, seat in self._where.items():
            scores[seat] += CATS[MEMBER[card][1]]
        if self._figure is not None:
            scores[self._figure] += FIGURE_CATS
        return scores

    def view(self) -> dict[str, Any]:
        tableau: list[list[str]] = [[] for _ in range(self.players)]
        for card, seat in self._where.items():
            tableau[seat].append(card)
        return {
            "current": self.current,
            "awaiting": self.awaiting,
            "over": self.awaiting == "over",
            "winners": list(self._winners),
            "stack": self.stack,
            "tableau": [sorted(cards) for cards in tableau],
            "families": [sorted(laid) for laid in self._families],
            "police": self._figure,
            "track": self._track if self._alarm else None,
            "scores": self.scores(),
            # extras, under names of our own
            "variant": self.options["variant"],
            "pending_kittens": self._pending,
            "die": list(self.options["die"]),
        }

    def legal_actions(self) -> list[dict[str, Any]]:
        seat = self.current
        phase = self.awaiting
        if phase == "roll":
            return [{"player": seat, "type": "roll", "face": f} for f in FACES if f in self._faces]
        if phase == "reveal":
            cards = CAT_CARDS if self._alarm else CAT_CARDS + POLICE_CARDS
            return [{"player": seat, "type": "reveal", "card": c} for c in cards if c not in self._seen]
        if phase == "send_kittens":
            return [{"player": seat, "type": "send_kittens", "to": to} for to in self._kitten_homes()]
        if phase == "give":
            return [{"player": seat, "type": "give", "card": c} for c in self._movable(seat)]
        if phase == "lure":
            return [{"player": seat, "type": "lure", "card": c} for c in self._lurable(seat)]
        return []

    # -- what the box asks of the referee -------------------------------------------
    def call_needed(self, action: dict[str, Any]) -> str | None:
        """Policecats has no calls."""
        return None

    def button_action(self) -> str | None:
        """The action a press of the table's die button stands for now: the roll (C3), nothing else."""
        return "roll" if self.awaiting == "roll" else None


__all__ = ["CAT_CARDS", "DEFAULT_DIE", "FACES", "POLICE_CARDS", "Policecats", "TRACK_END"]

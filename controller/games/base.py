"""What every rule engine shares: rejections, outcomes, the action log and replay.

An engine is the table's referee. It is a mutable object in the manner of
``chess.Board``: :meth:`Engine.apply` either accepts an action (mutating the
state, appending the action to :attr:`Engine.log`, returning an
:class:`Outcome` with named events) or refuses it with a :class:`Rejection`
and leaves the state exactly as it was. Engines do no I/O, read no clock and
own no random generator: die rolls and reshuffles come in as actions or as
facts the table reports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Container, Iterable, Sequence

COLORS: tuple[str, ...] = ("yellow", "green", "blue", "red")

#: Rejection codes of SCENARIOS.md. Where several apply, the first of
#: ``PRECEDENCE`` that applies wins, then the rule's own code.
REJECTION_CODES: frozenset[str] = frozenset({
    "not_your_turn", "wrong_action", "unknown_card", "card_elsewhere",
    "no_match", "must_draw", "parrot_on_parrot", "special_start",
    "joker_start", "not_eligible", "game_over",
})
PRECEDENCE: tuple[str, ...] = (
    "game_over", "not_your_turn", "wrong_action", "unknown_card", "card_elsewhere",
)

#: Every value ``awaiting`` may take.
AWAITING: frozenset[str] = frozenset({
    "setup", "start_card", "hang", "reveal", "play", "after_draw", "choose_color",
    "roll", "send_kittens", "give", "lure", "over",
})


class OptionsError(ValueError):
    """Players or options a game cannot be set up with; the message is one line for a person."""


@dataclass(frozen=True, slots=True)
class Rejection:
    """An action the referee refused. The state is unchanged."""

    code: str
    message: str

    def __bool__(self) -> bool:  # lets callers write ``if not result:``
        return False


@dataclass(frozen=True, slots=True)
class Outcome:
    """An accepted action and what the referee saw happen because of it.

    Each event is a dict with at least ``"event"`` (a name of SCENARIOS.md);
    other keys carry details (``player``, ``card``, ``count``, ...). Read
    them, never change them: the referees share the commonest outcomes
    (:data:`QUIET` and a few others) between actions and games.
    """

    events: Sequence[dict[str, Any]] = ()

    def __bool__(self) -> bool:
        return True

    @property
    def names(self) -> list[str]:
        return [e["event"] for e in self.events]


Result = Outcome | Rejection

#: The outcome of an action that set off no event (most plays and passes).
QUIET: Outcome = Outcome()


def card_refusal(card: Any, known: Container[str], game: str) -> Rejection | None:
    """The first check of a tapped card: a card id, and one of this game's cards."""
    if not isinstance(card, str):
        return Rejection("wrong_action", f"a card id is a string, not {card!r}")
    if card not in known:
        return Rejection("unknown_card", f"{card!r} is no {game} card")
    return None


class Engine:
    """Base class of the three referees.

    Subclasses set the class attributes, implement :meth:`_setup`,
    :meth:`_check`, :meth:`_do`, :meth:`_state`, :meth:`_load`,
    :meth:`view` and :meth:`legal_actions`, and keep all their state in
    plain attributes that :meth:`_state` turns into JSON-able data.
    """

    game: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_options: ClassVar[dict[str, Any]]

    def __init__(self, players: int, options: dict[str, Any] | None = None) -> None:
        self.players = players
        self.options = self.check_options(players, options or {})
        self.log: list[dict[str, Any]] = []
        self._setup()

    # -- options -----------------------------------------------------------
    @classmethod
    def check_options(cls, players: Any, options: Any) -> dict[str, Any]:
        """Return the full options, or raise :class:`OptionsError` with one clear line."""
        if not isinstance(players, int) or isinstance(players, bool) or not (
            cls.min_players <= players <= cls.max_players
        ):
            raise OptionsError(
                f"{cls.game} is for {cls.min_players} to {cls.max_players} players, not {players!r}"
            )
        if not isinstance(options, dict):
            raise OptionsError(f"options must be a JSON object, not {options!r}")
        unknown = [k for k in options if k not in cls.default_options and k != "first"]
        if unknown:
            allowed = ", ".join(sorted(set(cls.default_options) | {"first"}))
            raise OptionsError(f"{cls.game} has no option {min(unknown)!r} (allowed: {allowed})")
        full = dict(cls.default_options, first=0)
        full.update(options)
        first = full["first"]
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
            raise OptionsError(f"option 'first' must be a seat from 0 to {players - 1}, not {first!r}")
        cls._check_game_options(players, full)
        return full

    @classmethod
    def _check_game_options(cls, players: int, options: dict[str, Any]) -> None:
        """Raise :class:`OptionsError` for a bad game-specific option value."""

    # -- the referee ---------------------------------------------------------
    def apply(self, action: Any) -> Result:
        """Referee one action. Never raises for any input: bad input is a :class:`Rejection`."""
        if not isinstance(action, dict):
            return Rejection("wrong_action", f"an action is a JSON object, not {type(action).__name__}")
        if self.awaiting == "over":
            return Rejection("game_over", "the game is over")
        try:
            refusal = self._check(action)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            return Rejection("wrong_action", f"malformed action {action!r}: {exc}")
        if refusal is not None:
            return refusal
        events = self._do(action)
        self.log.append(action)
        return Outcome(events) if events else QUIET

    def would_accept(self, action: Any) -> bool:
        """True when :meth:`apply` would accept ``action`` now (the state is not touched)."""
        if not isinstance(action, dict) or self.awaiting == "over":
            return False
        try:
            return self._check(action) is None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return False

    def _player_check(self, action: dict[str, Any], allowed: Iterable[str]) -> Rejection | None:
        """The shared first checks: whose turn, and whether this type is awaited now."""
        player = action.get("player")
        kind = action.get("type")
        if "player" in action:
            if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < self.players:
                return Rejection("wrong_action", f"no seat {player!r} at a table of {self.players}")
            if self.current is not None and player != self.current:
                return Rejection("not_your_turn", f"it is seat {self.current}'s turn, not seat {player}'s")
        if kind not in allowed:
            return Rejection("wrong_action", f"{kind!r} is not possible now: awaiting {self.awaiting}")
        return None

    # -- subclass hooks --------------------------------------------------------
    def _setup(self) -> None:
        raise NotImplementedError

    def _check(self, action: dict[str, Any]) -> Rejection | None:
        """Return a Rejection, or None when ``action`` is accepted. Must not mutate."""
        raise NotImplementedError

    def _do(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Carry out an action :meth:`_check` accepted; return its events."""
        raise NotImplementedError

    def _state(self) -> dict[str, Any]:
        """The game-specific state as JSON-able data."""
        raise NotImplementedError

    def _load(self, state: dict[str, Any]) -> None:
        raise NotImplementedError

    @property
    def current(self) -> int | None:
        """The seat whose action is awaited; None when the table (or nobody) acts."""
        raise NotImplementedError

    @property
    def awaiting(self) -> str:
        raise NotImplementedError

    def view(self) -> dict[str, Any]:
        """What the referee knows, under the keys of SCENARIOS.md."""
        raise NotImplementedError

    def legal_actions(self) -> list[dict[str, Any]]:
        """Every action the referee would accept now.

        Cards whose place the referee does not know (a hand or the stack)
        are all candidates, so this lists what *could* be tapped, not what
        a player holds.
        """
        raise NotImplementedError

    # -- persistence -----------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.awaiting == "over"

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "log": self.log,
            "state": self._state(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Engine":
        engine = cls(data["players"], data["options"])
        engine.log = list(data["log"])
        engine._load(data["state"])
        return engine

    @classmethod
    def from_json(cls, text: str) -> "Engine":
        return cls.from_dict(json.loads(text))

    @classmethod
    def replay(cls, players: int, options: dict[str, Any], log: Iterable[dict[str, Any]]) -> "Engine":
        """Rebuild a game from its options and action log; a refused action is a ValueError."""
        engine = cls(players, options)
        for n, action in enumerate(log):
            result = engine.apply(action)
            if isinstance(result, Rejection):
                raise ValueError(f"log step {n}: {result.code}: {result.message}")
        return engine

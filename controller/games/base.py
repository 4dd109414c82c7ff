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
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Sequence

COLORS: tuple[str, ...] = ("yellow", "green", "blue", "red")

#: Rejection codes of docs/scenarios.md. Where several apply, the first of
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


#: The type every field of an action must have (docs/scenarios.md, "Actions"); ``type`` is a string.
FIELD_TYPES: dict[str, type] = {
    "player": int, "card": str, "call": str, "color": str, "ear": str, "face": str, "to": int,
}


@dataclass(frozen=True, slots=True)
class Shape:
    """The fields of one action type as docs/scenarios.md lists them: those it needs and those it may carry.

    An action of another shape is refused as ``wrong_action`` before any rule
    looks at it, and only these fields (and ``type``) go into the log: a stray
    key sent along is not kept, so the journal replays exactly the contract.
    """

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    #: Whether the action names its ``player`` (checked first, for whose turn it is).
    seated: bool = field(init=False)
    #: (name, type) of every other field, for the check.
    typed: tuple[tuple[str, type], ...] = field(init=False)
    #: Every key the log keeps.
    keys: frozenset[str] = field(init=False)
    #: Keys of the action with the fewest: ``type`` and the required fields.
    least: int = field(init=False)

    def __post_init__(self) -> None:
        names = self.required + self.optional
        object.__setattr__(self, "seated", "player" in self.required)
        object.__setattr__(self, "typed", tuple((n, FIELD_TYPES[n]) for n in names if n != "player"))
        object.__setattr__(self, "keys", frozenset(("type", *names)))
        object.__setattr__(self, "least", 1 + len(self.required))


def player_name(seat: int) -> str:
    """A referee seat (from 0) as people count it: seat 0 is ``Player 1``."""
    return f"Player {seat + 1}"


class OptionsError(ValueError):
    """Players or options a game cannot be set up with; the message is one line for a person.

    ``key`` names the kind of problem and ``fields`` what fills it in (the option, what it allows), so a
    page can say it in its own language (``p_option_<key>`` in controller/home/words.toml).
    """

    def __init__(self, message: str, key: str | None = None, **fields: str | int) -> None:
        super().__init__(message)
        self.key, self.fields = key, fields


@dataclass(frozen=True, slots=True)
class Rejection:
    """An action the referee refused. The state is unchanged.

    ``code`` is docs/scenarios.md's; ``reason`` says precisely why (a key of
    :data:`~controller.games.reasons.REASONS`), so what the box says is
    chosen by the true reason, not by the code alone; :attr:`key` is the
    reason, or the code where none was given. ``message`` is one line for a person, players counted from 1.
    """

    code: str
    message: str
    reason: str = ""

    @property
    def key(self) -> str:
        """The precise reason: :attr:`reason`, or the code where the refusal gave none."""
        return self.reason or self.code

    def __bool__(self) -> bool:  # lets callers write ``if not result:``
        return False


@dataclass(frozen=True, slots=True)
class Outcome:
    """An accepted action and what the referee saw happen because of it.

    Each event is a dict with at least ``"event"`` (a name of docs/scenarios.md);
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


class Engine(ABC):
    """Base class of the three referees.

    Subclasses set the class attributes, implement the abstract methods, and
    keep all their state in plain attributes that :meth:`_state` turns into
    JSON-able data. :attr:`current` and :attr:`awaiting` are plain attributes
    too (read on every step of self-play): read them, never assign them from
    outside the engine.
    """

    game: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_options: ClassVar[dict[str, Any]]
    #: Action type -> its fields (the table "Actions" of docs/scenarios.md, this game's rows).
    shapes: ClassVar[dict[str, Shape]]
    #: Each value of :attr:`awaiting` -> the action types it lets through.
    accepts: ClassVar[dict[str, frozenset[str]]]

    current: int | None
    """The seat whose action is awaited; None when the table (or nobody) acts."""
    awaiting: str
    """What the referee waits for: one of :data:`AWAITING`."""

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
            raise OptionsError(f"{cls.game} has no option {min(unknown)!r} (allowed: {allowed})", "unknown",
                               option=min(unknown), allowed=allowed)
        full = dict(cls.default_options, first=0)
        full.update(options)
        first = full["first"]
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
            raise OptionsError(f"option 'first' must be a seat from 0 to {players - 1}, not {first!r}", "range",
                               option="first", lo=0, hi=players - 1)
        cls._check_game_options(players, full)
        return full

    @classmethod
    def _check_game_options(cls, players: int, options: dict[str, Any]) -> None:
        """Raise :class:`OptionsError` for a bad game-specific option value."""

    # -- the referee ---------------------------------------------------------
    def apply(self, action: Any) -> Result:
        """Referee one action. Bad input is a :class:`Rejection`; only a bug in the engine raises."""
        refusal = self._refusal(action)
        if refusal is not None:
            return refusal
        events = self._do(action)
        self.log.append(action if len(action) == self.shapes[action["type"]].least else self._logged(action))
        return Outcome(events) if events else QUIET

    def would_accept(self, action: Any) -> bool:
        """True when :meth:`apply` would accept ``action`` now (the state is not touched)."""
        return self._refusal(action) is None

    def _refusal(self, action: Any) -> Rejection | None:
        """Every check, in docs/scenarios.md's order: the game is on, whose turn, the action's shape, the rules.

        Only :meth:`_check` (the rules) differs between games; it gets an
        action of a type awaited now, with every field of its type present
        and of the right JSON type.
        """
        if not isinstance(action, dict):
            return Rejection("wrong_action", f"an action is a JSON object, not {type(action).__name__}",
                             "not_an_action")
        awaiting = self.awaiting
        if awaiting == "over":
            return Rejection("game_over", "the game is over")
        player = action.get("player")
        if player is not None:
            if type(player) is not int or not 0 <= player < self.players:  # JSON's true is no seat
                return Rejection("wrong_action", f"no seat {player!r} at a table of {self.players} (seats 0 to "
                                 f"{self.players - 1} are Players 1 to {self.players})", "no_such_seat")
            if player != self.current and self.current is not None:
                return Rejection("not_your_turn",
                                 f"it is {player_name(self.current)}'s turn, not {player_name(player)}'s")
        kind = action.get("type")
        shape = self.shapes.get(kind) if type(kind) is str else None
        if shape is None:
            return Rejection("wrong_action", f"{self.game} has no action {kind!r}", "no_such_action")
        if kind not in self.accepts[awaiting]:
            return Rejection("wrong_action", f"{kind!r} is not possible now: awaiting {awaiting}", "not_awaited")
        if player is None and shape.seated:
            return Rejection("wrong_action", f"a {kind} needs its 'player'", "missing_field")
        for name, of_type in shape.typed:
            value = action.get(name)
            if type(value) is not of_type:  # JSON types exactly: 1.0 is no seat, 7 no card
                if value is not None:
                    return Rejection("wrong_action", f"{name!r} is a {of_type.__name__}, not {value!r}", "bad_field")
                if name in shape.required:
                    return Rejection("wrong_action", f"a {kind} needs its {name!r}", "missing_field")
        return self._check(action)

    def _logged(self, action: dict[str, Any]) -> dict[str, Any]:
        """``action`` as the log keeps it: the fields of its type, without any other key that came along."""
        shape = self.shapes[action["type"]]
        beyond = len(action) - shape.least  # keys besides ``type`` and the required fields, all present
        if not beyond or (beyond <= len(shape.optional) and action.keys() <= shape.keys):
            return action
        return {k: v for k, v in action.items() if k in shape.keys}

    # -- subclass hooks --------------------------------------------------------
    @abstractmethod
    def _setup(self) -> None:
        """Deal: set every attribute of a fresh game, :attr:`current` and :attr:`awaiting` included."""

    @abstractmethod
    def _check(self, action: dict[str, Any]) -> Rejection | None:
        """The game's rules for a well-shaped action of an awaited type: a Rejection, or None. Must not mutate."""

    @abstractmethod
    def _do(self, action: dict[str, Any]) -> Sequence[dict[str, Any]]:
        """Carry out an action :meth:`_check` accepted; return its events."""

    @abstractmethod
    def _state(self) -> dict[str, Any]:
        """The game-specific state as JSON-able data."""

    @abstractmethod
    def _load(self, state: dict[str, Any]) -> None:
        """Set the state :meth:`_state` wrote."""

    @abstractmethod
    def view(self) -> dict[str, Any]:
        """What the referee knows, under the keys of docs/scenarios.md."""

    @abstractmethod
    def legal_actions(self) -> list[dict[str, Any]]:
        """Every action the referee would accept now.

        Cards whose place the referee does not know (a hand or the stack)
        are all candidates, so this lists what *could* be tapped, not what
        a player holds.
        """

    # -- what the box asks of the referee ---------------------------------------
    @abstractmethod
    def call_needed(self, action: dict[str, Any]) -> str | None:
        """The call (``woof``, ``mau``, ...) this play needs now, when calls are on and the play is acceptable."""

    @abstractmethod
    def button_action(self) -> str | None:
        """The action type a press of the table's die button stands for now (``draw``, ``pass``, ``roll``), or None."""

    def next_hang(self) -> tuple[int, str] | None:
        """The seat and side of the ear to hang next, or ``None`` when no ear is awaited (every other game)."""
        return None

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

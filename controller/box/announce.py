"""What the box says about the game under way: the set-up, the prompt for what is awaited, and the summaries.

The box asks the referee what it awaits and turns that into the name of a
prompt show (``controller/stage/shows.toml``); after a round or a game it
adds what a family needs to hear that no single event carries: where every
ship is (Pirate & Co., P7) and how many cats each player has (Policecats, C9).
Kept apart from the box so a test can walk every phase of every engine.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from controller.decks import VARIANTS
from controller.games.base import Engine

#: A show or prompt to play: its name and its context.
Cue = tuple[str, dict[str, Any]]


def setup_of(game: str, options: dict[str, Any]) -> str:
    """Which set-up the table needs: the game's own, or the policecat-alarm track's (C10)."""
    if game == "policecats" and options.get("variant") == "alarm":
        return "policecats-alarm"
    return game


def variants_on(engine: Engine) -> list[str]:
    """The variants a game runs with, said when it starts: a house rule set long ago is not forgotten."""
    return [name for name, (game, key, _, on) in VARIANTS.items() if game == engine.game and engine.options.get(key) == on]


def set_up_again(engine: Engine) -> Cue | None:
    """After a power cut where nothing was played since the cards were dealt, how to deal them (the box
    cannot know whether the family had): the game's set-up, or a new round's (P7); else None."""
    if not engine.log:
        return "deal", {"game": engine.game, "setup": setup_of(engine.game, engine.options)}
    if engine.game == "pirates" and engine.awaiting == "start_card" and engine.view()["round"] > 1:
        return "new_round", {}
    return None


def prompt_for(engine: Engine) -> Cue | None:
    """The prompt for what the referee awaits now; None when the game is over (the end has its own shows)."""
    if engine.over:
        return None
    hang = engine.next_hang()
    if hang is not None:
        seat, ear = hang
        return f"hang-{ear}", {"seat": seat}
    context: dict[str, Any] = {"seat": engine.current, "game": engine.game}
    if engine.awaiting == "play" and engine.view().get("pending_draw"):  # P5: said after whose turn it is
        context["debt"] = engine.view()["pending_draw"]
    return engine.awaiting, context


#: Refusals whose own line says what to do instead: no prompt follows them (it would say it twice).
SAYS_WHAT_INSTEAD: frozenset[str] = frozenset({
    "roll_first", "must_draw", "wait", "game_over", "joker_start",
    "special_start", "not_yours", "own_card", "not_on_table",
})

#: Prompts that begin by saying whose turn it is.
SEATED = ("hang-left", "hang-right", "play", "roll")


def resumed_context(engine: Engine) -> dict[str, Any]:
    """The ``resumed`` show's context: whose turn, to be said (``turn``) where the prompt after it does not say it."""
    prompt = prompt_for(engine)
    seated = prompt is not None and (prompt[0] in SEATED or (prompt[0] == "reveal" and engine.game == "floppy-ears"))
    return {"seat": engine.current, **({} if seated or engine.current is None else {"turn": "tell"})}


def event_shows(engine: Engine, events: Iterable[dict[str, Any]]) -> Iterator[Cue]:
    """The shows of an action's events, each followed by the summary it calls for (``engine`` after the action)."""
    penalty = False
    for event in events:
        name = event["event"]
        details = {k: v for k, v in event.items() if k != "event"}
        penalty = penalty or name in PENALTIES
        if name == "drew":
            details["drawn"] = _drawn(details.get("count", 1), penalty)
        elif name == "game_over" and (ending := _ending(engine)) is not None:
            details["ending"] = ending
        if name == "new_round":  # where the ships are, then how the new round starts (P7)
            yield "ships", {"ships": list(engine.view()["ships"])}
        yield name, details
        if name == "game_over" and engine.game == "pirates":
            yield "ships", {"ships": list(engine.view()["ships"])}
        elif name == "game_over" and engine.game == "policecats":
            yield "scores", {"scores": list(event["scores"])}


PENALTIES = ("ear_penalty", "bark_penalty", "mau_penalty")
"""Penalties whose own line says "take a card": the card they draw is not asked for twice."""


def _drawn(count: int, penalty: bool) -> str:
    """How a draw is said (the ``drew`` show's ``drawn``): an empty stack always, a penalty's card not again."""
    if count == 0:
        return "none"
    return "penalty" if penalty else "one" if count == 1 else "more"


def _ending(engine: Engine) -> str | None:
    """Why the game ended, for its ``game_over`` show: the last card (F9), the stack (C9), the alarm track (C10)."""
    if engine.game == "floppy-ears":
        return "last-card"
    if engine.game == "policecats":
        return "track" if engine.view().get("track") is not None and engine.view().get("stack") else "stack-empty"
    return None  # Pirate & Co.: the winner's own line says the ship reached Treasure Island (P7)


def describe(action: dict[str, Any]) -> str:
    """An action as a log line says it, the player counted from 1: ``Player 2: play red-3``."""
    rest = " ".join(f"{k}={v}" for k, v in action.items() if k not in ("type", "player"))
    said = f"{action.get('type')} {rest}".strip()
    player = action.get("player")
    return f"Player {player + 1}: {said}" if type(player) is int else said

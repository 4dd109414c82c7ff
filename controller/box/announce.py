"""What the box says about the game under way: the set-up, the prompt for what is awaited, and the summaries.

The box asks the referee what it awaits and turns that into the name of a
prompt show (``controller/stage/shows.toml``); after a round or a game it
adds what a family needs to hear that no single event carries: where every
ship is (Pirate & Co., P7) and how many cats each player has (Policecats, C9).
Kept apart from the box so a test can walk every phase of every engine.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from controller.games.base import Engine

#: A show or prompt to play: its name and its context.
Cue = tuple[str, dict[str, Any]]


def setup_of(game: str, options: dict[str, Any]) -> str:
    """Which set-up the table needs: the game's own, or the policecat-alarm track's (C10)."""
    if game == "policecats" and options.get("variant") == "alarm":
        return "policecats-alarm"
    return game


def prompt_for(engine: Engine) -> Cue | None:
    """The prompt for what the referee awaits now; None when the game is over (the end has its own shows)."""
    if engine.over:
        return None
    hang = engine.next_hang()
    if hang is not None:
        seat, ear = hang
        return f"hang-{ear}", {"seat": seat}
    return engine.awaiting, {"seat": engine.current, "game": engine.game}


def event_shows(engine: Engine, events: Iterable[dict[str, Any]]) -> Iterator[Cue]:
    """The shows of an action's events, each followed by the summary it calls for (``engine`` after the action)."""
    for event in events:
        name = event["event"]
        yield name, {k: v for k, v in event.items() if k != "event"}
        if name == "new_round" or (name == "game_over" and engine.game == "pirates"):
            yield "ships", {"ships": list(engine.view()["ships"])}
        elif name == "game_over" and engine.game == "policecats":
            yield "scores", {"scores": list(event["scores"])}


def describe(action: dict[str, Any]) -> str:
    """An action as a log line says it, the player counted from 1: ``Player 2: play red-3``."""
    rest = " ".join(f"{k}={v}" for k, v in action.items() if k not in ("type", "player"))
    said = f"{action.get('type')} {rest}".strip()
    player = action.get("player")
    return f"Player {player + 1}: {said}" if type(player) is int else said

"""What ``gamebox status`` and ``gamebox history`` print, read from the journal alone."""

from __future__ import annotations

import time
from typing import Any

from controller.games import engine_class
from controller.journal import GameRecord, Journal


def game_status(journal: Journal) -> dict[str, Any] | None:
    """The newest game replayed from its log: SCENARIOS.md's keys plus the game's identity."""
    record = journal.latest()
    if record is None:
        return None
    engine = engine_class(record.game).replay(record.players, record.options, journal.actions(record.id))
    return {
        "game_id": record.id,
        "game": record.game,
        "players": record.players,
        "options": record.options,
        "actions": record.actions,
        **engine.view(),
    }


def last_events(game: str, players: int, options: dict[str, Any], actions: list[dict[str, Any]]) -> list[str]:
    """The events the last action caused, replayed: what really happened (a stop-ear play lays no card)."""
    if not actions:
        return []
    engine = engine_class(game).replay(players, options, actions[:-1])
    outcome = engine.apply(actions[-1])
    return [event["event"] for event in getattr(outcome, "events", ())]


def history_lines(games: list[GameRecord]) -> list[str]:
    """One line per game, newest first, with a header."""
    lines = [f"{'date':16}  {'game':11}  {'players':>7}  {'winner':10}  {'duration':>8}  {'actions':>7}"]
    for g in games:
        date = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.started))
        if g.ended is None:
            winner, duration = ("(abandoned)" if g.abandoned else "(playing)"), "-"
        else:
            winner = ",".join(f"seat {w + 1}" for w in g.winners or []) or "-"
            minutes, seconds = divmod(int(g.ended - g.started), 60)
            duration = f"{minutes}:{seconds:02d}"
        lines.append(f"{date:16}  {g.game:11}  {g.players:>7}  {winner:10}  {duration:>8}  {g.actions:>7}")
    if not games:
        lines.append("(no games yet)")
    return lines

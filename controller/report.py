"""What ``gamebox status`` and ``gamebox history`` print, read from the journal alone."""

from __future__ import annotations

import json
import time
from typing import Any

from controller.games import engine_class
from controller.storage.journal import GameRecord, Journal, JournalError


def game_status(journal: Journal) -> dict[str, Any] | None:
    """The current game replayed from its log, read in one transaction: docs/scenarios.md's keys plus its identity.

    The current game is the one being played, else the newest one. With no
    game yet, or one whose log does not replay, the object says so instead
    of failing; the menu's choices (setting ``menu``) are always there.
    """
    with journal.snapshot():
        menu = journal.setting("menu")
        record = journal.unfinished() or journal.latest()
        if record is None:
            return None
        status: dict[str, Any] = {
            "game_id": record.id,
            "game": record.game,
            "players": record.players,
            "options": record.options,
            "actions": record.actions,
            "abandoned": record.abandoned,
            "menu": menu,
        }
        try:
            log = journal.actions(record.id)
            if record.problem:
                raise ValueError(record.problem)
            gap = journal.gap(record, len(log))
            if gap is not None:  # the box resumes at the gap: the count says where, one line says why
                status.update(actions=len(log), gap=gap)
            engine = engine_class(record.game).replay(record.players, record.options, log)
        except (JournalError, KeyError, ValueError, TypeError) as exc:
            status["problem"] = f"game {record.id} cannot be replayed: {exc}"
            return status
    rolls = [a.get("face") for a in log if a.get("type") == "roll"]
    hang = engine.next_hang()
    if hang is not None:  # Floppy Ears' setup: whose ear, which side (the turn ring's half-arc)
        status["next_ear"] = {"player": hang[0], "ear": hang[1]}
    return {**status, "last_roll": rolls[-1] if rolls else None, **engine.view()}


#: Keys of the status whose value is one seat, and those with a list of seats.
_SEAT = ("current", "police")
_SEATS = ("winners",)
#: Keys whose list has one entry per seat, in seat order.
_PER_SEAT = ("hands", "hand_sizes", "ears", "ships", "scores", "tableau", "families")


def status_lines(status: dict[str, Any]) -> list[str]:
    """``gamebox status`` for a person: one ``key: value`` line each, players counted from 1 (JSON keeps 0)."""
    players = status.get("players")

    def player(seat: Any) -> str:
        return f"Player {seat + 1}" if type(seat) is int else "-" if seat is None else json.dumps(seat)

    lines = []
    for key, value in status.items():
        if key in _SEAT:
            text = player(value)
        elif key in _SEATS and isinstance(value, list):
            text = ", ".join(player(seat) for seat in value) or "-"
        elif key == "next_ear" and isinstance(value, dict):
            text = f"{player(value.get('player'))}, {value.get('ear')} ear"
        elif key in _PER_SEAT and isinstance(value, list) and len(value) == players:
            text = "; ".join(f"{player(seat)}: {json.dumps(item)}" for seat, item in enumerate(value))
        else:
            text = json.dumps(value)
        lines.append(f"{key}: {text}")
    return lines


def last_events(game: str, players: int, options: dict[str, Any], actions: list[dict[str, Any]]) -> list[str]:
    """The events the last action caused, replayed: what really happened (a stop-ear play lays no card)."""
    if not actions:
        return []
    engine = engine_class(game).replay(players, options, actions[:-1])
    outcome = engine.apply(actions[-1])
    return [event["event"] for event in getattr(outcome, "events", ())]


def history_lines(games: list[GameRecord]) -> list[str]:
    """One line per game, newest first, with a header."""
    lines = [f"{'date':16}  {'game':11}  {'players':>7}  {'winner':12}  {'duration':>8}  {'actions':>7}"]
    for g in games:
        date = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.started))
        if g.ended is None:
            winner = "(set aside)" if g.problem and g.abandoned else "(abandoned)" if g.abandoned else "(playing)"
            duration = "-"
        else:
            winner = ",".join(f"Player {w + 1}" for w in g.winners or []) or "-"
            minutes, seconds = divmod(int(g.ended - g.started), 60)
            duration = f"{minutes}:{seconds:02d}" if g.ended >= g.started else "?"  # the clock was set back
        lines.append(f"{date:16}  {g.game:11}  {g.players:>7}  {winner:12}  {duration:>8}  {g.actions:>7}")
    if not games:
        lines.append("(no games yet)")
    return lines

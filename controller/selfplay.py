"""Self-play: whole games of bots at a virtual table, refereed as on the real table.

Everything is derived from one seed, so the same arguments always give the
same games and the same report.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from controller.games.base import Rejection
from controller.stage.narration import player_name
from controller.table import new_table
from controller.table.bots import Bot, make_bot

#: A game that has not ended after this many accepted actions counts as unfinished.
MAX_ACTIONS = 20_000


@dataclass(slots=True)
class GameRecord:
    actions: int
    finished: bool
    winners: list[int]
    rejected: int
    violations: list[str]


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run, spread so neighbouring runs share no games."""
    return (seed * 1_000_003 + index) & 0xFFFF_FFFF_FFFF


def play_game(
    game: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    bots: list[str],
    check: bool = True,
) -> GameRecord:
    """Play one game to its end; ``check`` tests every invariant after every action."""
    table = new_table(game, players, options, seed)
    seats: list[Bot] = [make_bot(bots[s % len(bots)], random.Random(seed * 7 + s), game) for s in range(players)]
    actions = rejected = 0
    violations: list[str] = []
    while not table.over and actions < MAX_ACTIONS:
        decision = table.decision()
        if not decision.actions:
            violations.append(f"action {actions}: nothing to do before the game is over")
            break
        if decision.seat is None or decision.chance:
            action = table.rng.choice(decision.actions)
        else:
            action = seats[decision.seat].choose(table, decision)
        result = table.act(action)
        if isinstance(result, Rejection):
            rejected += 1
            violations.append(f"action {actions}: {action} rejected: {result.code}: {result.message}")
            break
        actions += 1
        if check:
            problems = table.violations()
            if problems:
                violations.extend(f"action {actions}: {p}" for p in problems)
                break
    winners = list(table.referee.view().get("winners") or []) if table.over else []
    return GameRecord(actions, table.over, winners, rejected, violations)


@dataclass(slots=True)
class Summary:
    game: str
    players: int
    games: int
    seed: int
    bots: list[str]
    options: dict[str, Any]
    finished: int = 0
    actions_mean: float = 0.0
    actions_median: float = 0.0
    actions_max: int = 0
    wins: list[int] = field(default_factory=list)
    rejected: int = 0
    violations: int = 0
    first_violation: str | None = None

    @property
    def ok(self) -> bool:
        return self.finished == self.games and self.rejected == 0 and self.violations == 0

    def lines(self) -> list[str]:
        wins = "  ".join(f"{player_name(s)}: {w}" for s, w in enumerate(self.wins))
        out = [
            f"{self.game}, {self.players} players, {self.games} games, seed {self.seed}, bots {','.join(self.bots)}",
            f"games finished: {self.finished}/{self.games}",
            f"actions per game: mean {self.actions_mean:.1f}, median {self.actions_median:g}, max {self.actions_max}",
            f"wins per seat: {wins}",
            f"rejected bot actions: {self.rejected}",
            f"invariant violations: {self.violations}",
        ]
        if self.first_violation:
            out.append(f"first violation: {self.first_violation}")
        return out

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def selfplay(
    game: str,
    players: int,
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    bots: list[str] | None = None,
) -> Summary:
    """Play ``games`` games and summarise them."""
    options = options or {}
    bots = bots or ["greedy"]
    summary = Summary(game, players, games, seed, bots, options, wins=[0] * players)
    counts: list[int] = []
    for index in range(games):
        record = play_game(game, players, options, game_seed(seed, index), bots)
        counts.append(record.actions)
        summary.finished += record.finished
        summary.rejected += record.rejected
        summary.violations += len(record.violations)
        if record.violations and summary.first_violation is None:
            summary.first_violation = f"game {index}: {record.violations[0]}"
        for seat in record.winners:
            summary.wins[seat] += 1
    if counts:
        summary.actions_mean = statistics.fmean(counts)
        summary.actions_median = statistics.median(counts)
        summary.actions_max = max(counts)
    return summary

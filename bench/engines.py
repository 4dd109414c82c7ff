"""Engine speed: self-play actions and games per second, beside OpenSpiel and RLCard.

Run it in the benchmark's own environment (the peers are not runtime dependencies):

    python3 -m venv bench/.venv && bench/.venv/bin/pip install -e '.[bench]' && bench/.venv/bin/python bench/engines.py

Every figure is a loop run for ``--seconds`` on this machine, in one process,
one after the other, so the ratios compare like with like:

* ours: the self-play loop (virtual table decision, random choice, referee
  apply, physical follow-up) with random bots, and the referee alone
  (replaying recorded logs through ``apply``);
* OpenSpiel ``crazy_eights`` driven from a Python loop (legal_actions,
  random choice, apply_action; chance nodes sampled the same way);
* RLCard ``uno`` with random agents (``env.run``).

A Pirate & Co. game to ``wins_needed`` rounds is several UNO games long, so the
games-per-second ratio is given for one round (``wins_needed: 1``) as well.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Callable

from controller.games import engine_class
from controller.table import new_table

GAMES = {
    "floppy-ears": (3, {}),
    "pirates": (3, {}),
    "pirates (one round)": (3, {"wins_needed": 1}),
    "policecats": (4, {}),
}


def timed(seconds: float, play_one: Callable[[int], int]) -> tuple[float, float]:
    """Call ``play_one(i)`` (which returns its action count) until ``seconds`` pass; return (actions/s, games/s)."""
    start = time.perf_counter()
    actions = games = 0
    while time.perf_counter() - start < seconds:
        actions += play_one(games)
        games += 1
    elapsed = time.perf_counter() - start
    return actions / elapsed, games / elapsed


def ours_selfplay(game: str, players: int, options: dict) -> Callable[[int], int]:
    def play(seed: int) -> int:
        table = new_table(game.split(" ")[0], players, options, seed)
        choose = table.rng.choice
        n = 0
        while not table.referee.over:
            table.act(choose(table.decision().actions))
            n += 1
        return n

    return play


def ours_referee(game: str, players: int, options: dict) -> Callable[[int], int]:
    name = game.split(" ")[0]
    cls = engine_class(name)
    logs = []
    for seed in range(50):
        table = new_table(name, players, options, seed)
        while not table.referee.over:
            table.act(table.rng.choice(table.decision().actions))
        logs.append(table.referee.log)

    def replay(i: int) -> int:
        log = logs[i % len(logs)]
        engine = cls(players, options)
        apply = engine.apply
        for action in log:
            apply(action)
        return len(log)

    return replay


def openspiel_crazy_eights(players: int) -> Callable[[int], int] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = random.Random(0)

    def play(_: int) -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                action = rng.choice(state.chance_outcomes())[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            n += 1
        return n

    return play


def rlcard_uno(players: int) -> Callable[[int], int] | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0, "game_num_players": players})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def play(_: int) -> int:
        trajectories, _payoffs = env.run(is_training=False)
        return sum(len(t) // 2 for t in trajectories)

    return play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    rows: dict[str, tuple[float, float]] = {}
    for game, (players, options) in GAMES.items():
        rows[f"gamebox {game}, self-play"] = timed(args.seconds, ours_selfplay(game, players, options))
        rows[f"gamebox {game}, referee alone"] = timed(args.seconds, ours_referee(game, players, options))
    peers = {
        "OpenSpiel crazy_eights, Python loop": openspiel_crazy_eights(3),
        "RLCard uno, random agents": rlcard_uno(3),
    }
    for name, play in peers.items():
        rows[name] = timed(args.seconds, play) if play else (float("nan"), float("nan"))

    width = max(map(len, rows))
    print(f"{'':{width}}  {'actions/s':>12}  {'games/s':>10}")
    for name, (aps, gps) in rows.items():
        print(f"{name:{width}}  {aps:12,.0f}  {gps:10,.1f}")
    spiel = rows["OpenSpiel crazy_eights, Python loop"][0]
    uno = rows["RLCard uno, random agents"][1]
    print()
    for variant in ("pirates", "pirates (one round)"):
        aps, gps = rows[f"gamebox {variant}, self-play"]
        print(f"gamebox {variant} self-play: {aps / spiel:.2f}x OpenSpiel actions/s (target >= 1.0), "
              f"{gps / uno:.1f}x RLCard UNO games/s (target >= 15)")


if __name__ == "__main__":
    main()

"""Engine speed: self-play actions and games per second, beside OpenSpiel and RLCard.

Run it in the benchmark's own environment (the peers are not runtime dependencies):

    python3 -m venv bench/.venv && bench/.venv/bin/pip install -e '.[bench]' && bench/.venv/bin/python bench/engines.py

Every figure is the median of ``--rounds`` runs of a loop of ``--seconds`` on
this machine, in one process, the loops taking turns, so the ratios compare
like with like:

* ours: the self-play loop (a new virtual table per game, its decision, a
  random choice, the referee's apply and the table following it), and the
  referee alone (replaying recorded logs through ``apply``);
* OpenSpiel ``crazy_eights`` driven from a Python loop (legal_actions,
  random choice, apply_action; chance nodes sampled the same way);
* RLCard ``uno`` with random agents (``env.run``).

A Pirate & Co. game to ``wins_needed`` rounds is several UNO games long, so the
games-per-second ratio is given for one round (``wins_needed: 1``) as well.
"""

from __future__ import annotations

import argparse
import random
import statistics
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


# Every loop below picks with the same expression: the only action when there
# is one, else ``seq[int(random() * len(seq))]`` (uniform to 2**-53, and a
# fifth of the cost of ``random.choice``), so the loops differ only in the
# engines they drive. Each loop draws from one generator for all its games.


def ours_selfplay(game: str, players: int, options: dict) -> Callable[[int], int]:
    name = game.split(" ")[0]
    rng = random.Random(0)
    rand = rng.random

    def play(_: int) -> int:
        table = new_table(name, players, options, rng)
        referee, decision, act = table.referee, table.decision, table.act
        n = 0
        while referee.awaiting != "over":
            actions = decision().actions
            act(actions[0] if len(actions) == 1 else actions[int(rand() * len(actions))])
            n += 1
        return n

    return play


def ours_referee(game: str, players: int, options: dict) -> Callable[[int], int]:
    name = game.split(" ")[0]
    cls = engine_class(name)
    rng = random.Random(0)
    logs = []
    for _ in range(50):
        table = new_table(name, players, options, rng)
        while not table.over:
            table.act(rng.choice(table.decision().actions))
        logs.append(table.referee.log)

    def replay(i: int) -> int:
        log = logs[i % len(logs)]
        apply = cls(players, options).apply
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
    rand = random.Random(0).random

    def play(_: int) -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():  # the deal and every drawn card: uniform outcomes
                outcomes = state.chance_outcomes()
                action = (outcomes[0] if len(outcomes) == 1 else outcomes[int(rand() * len(outcomes))])[0]
            else:
                legal = state.legal_actions()
                action = legal[0] if len(legal) == 1 else legal[int(rand() * len(legal))]
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
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed loop")
    parser.add_argument("--rounds", type=int, default=3, help="times every loop runs, interleaved")
    args = parser.parse_args()
    loops: dict[str, Callable[[int], int] | None] = {}
    for game, (players, options) in GAMES.items():
        loops[f"gamebox {game}, self-play"] = ours_selfplay(game, players, options)
        loops[f"gamebox {game}, referee alone"] = ours_referee(game, players, options)
    loops["OpenSpiel crazy_eights, Python loop"] = openspiel_crazy_eights(3)
    loops["RLCard uno, random agents"] = rlcard_uno(3)

    # Interleaved rounds, median per loop: a busy neighbour slows every loop a little, not one a lot.
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in loops}
    for _ in range(args.rounds):
        for name, play in loops.items():
            runs[name].append(timed(args.seconds, play) if play else (float("nan"), float("nan")))
    rows = {name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
            for name, rs in runs.items()}

    width = max(map(len, rows))
    print(f"{'':{width}}  {'actions/s':>12}  {'games/s':>10}   (median of {args.rounds} x {args.seconds:g} s)")
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

"""A box whose broker is away for long, and restarted meanwhile, catches up from its journal (issue 20).

The box is ``gamebox run`` as a station with a small ``queue`` (what it keeps
in memory), so the games played while the broker is away are more than its
memory holds; a restart in the middle loses whatever memory held. The
broker must still get every accepted action and every game's end, in order,
each once. The events read back are those the box told live, and an action
taken back is told again with the one that replaced it.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.station.catchup import read_mark
from tests.station.brokers import Broker, Station, Watcher, game_lines, wait_until

EVENTS = "gamebox/red/events"


def test_every_action_played_while_the_broker_was_away_across_a_restart_arrives_in_order(tmp_path: Path, broker: Broker) -> None:
    groups = game_lines(tmp_path / "ref")  # a whole game of Pirate & Co.: its start, then one group per action
    game = [line for group in groups for line in group]
    per_game = len(groups) - 1
    red = Station(tmp_path / "red", broker, "red", queue=20)
    watcher = Watcher(broker)
    try:
        red.send([line for group in groups[:4] for line in group])
        watcher.wait_for(EVENTS, lambda e: e.get("seq") == 2)
        watcher.close()
        broker.stop()
        red.send(game[sum(len(g) for g in groups[:4]):] + game)  # game 1 to its end, and game 2, while away
        wait_until(lambda: red.accepted() == 2 * per_game, 60, what="two games without the broker")
        red.stop()  # the box restarts while the broker is still away: nothing it held in memory survives
        red = Station(tmp_path / "red", broker, "red", queue=20)
        red.send(game + [line for group in groups[:11] for line in group])  # game 3, and game 4's first 10 actions
        wait_until(lambda: red.accepted() == per_game + 10, 60, what="a game and a half after the restart")
        broker.start()
        watcher = Watcher(broker)  # listening before the box's next try to connect (every 4 s at most)
        last = watcher.wait_for(EVENTS, lambda e: e.get("game_id") == 4 and e.get("seq") == 9, timeout=30)
        assert last["action"]["type"]
        events = [(e["game_id"], e["kind"], e.get("seq")) for e in watcher.json_on(EVENTS)]
        expected = [(1, "action", seq) for seq in range(3, per_game)] + [(1, "game_over", None)]
        expected += [(2, "action", seq) for seq in range(per_game)] + [(2, "game_over", None)]
        expected += [(3, "action", seq) for seq in range(per_game)] + [(3, "game_over", None)]
        expected += [(4, "action", seq) for seq in range(10)]
        assert events == expected  # every one, in order, once
        over = [e for e in watcher.json_on(EVENTS) if e["kind"] == "game_over"]
        assert all(e["game"] == "pirates" and e["winners"] and e["at"] >= e["started_at"] for e in over)
    finally:
        red.stop()
        watcher.close()


def test_events_read_back_from_the_journal_are_those_the_box_told_live(tmp_path: Path) -> None:
    from controller.station.catchup import NOWHERE, end_of, events_after
    from tests.box.helpers import make_box, play_to_the_end

    box, _stage, clock = make_box(tmp_path, handover=0.0)
    live: dict[int, dict] = {}  # seq -> what the box told
    box.listeners.append(lambda action, outcome: live.__setitem__(box.seq - 1, {"action": action, "events": list(outcome.events)}))
    box.new_game("floppy-ears", 2)
    play_to_the_end(box, clock, 1)
    told = events_after(box.journal, "red", NOWHERE, 10_000)
    actions = [event for _place, event in told if event["kind"] == "action"]
    assert [(e["seq"], e["action"], e["events"]) for e in actions] == [(seq, e["action"], e["events"]) for seq, e in sorted(live.items())]
    assert told[-1][1]["kind"] == "game_over" and told[-1][1]["winners"] == box.snapshot()["winners"]
    assert told[-1][0] == end_of(box.journal) == (box.game_id, len(live))
    assert [place for place, _ in events_after(box.journal, "red", told[4][0], 3)] == [place for place, _ in told[5:8]]


def test_an_action_taken_back_after_the_broker_had_it_is_told_again_with_the_one_that_replaced_it(tmp_path: Path) -> None:
    import asyncio

    from controller.station.catchup import Catchup
    from controller.station.outbox import Outbox
    from controller.storage.journal import Journal
    from tests.box.helpers import make_box, play_to_the_end

    box, _stage, clock = make_box(tmp_path / "played", handover=0.0)
    box.new_game("floppy-ears", 2)
    play_to_the_end(box, clock, 1)
    actions = box.journal.actions(box.game_id)
    record = box.journal.game(box.game_id)

    async def main() -> list[tuple[int, int]]:
        journal = Journal(tmp_path / "journal.sqlite")
        catchup = Catchup(journal, Outbox(10, 10), "gamebox/red/events", "red")  # a box new to the broker: at the end
        game = journal.start_game(record.game, record.players, record.options, record.seed)
        for seq, action in enumerate(actions[:5]):
            journal.record(game, seq, action)
            catchup.table((game, seq), {"seq": seq})  # told live
        while catchup.outbox.take() is not None:
            pass
        catchup.acknowledged = (game, 4)  # the broker had actions 0 to 4
        journal.undo(game, 4)
        catchup.undone((game, 3))  # as the link does when the box takes action 4 back
        catchup.behind = True  # as when the outbox is full: what follows is read back from the journal
        for seq in (4, 5):  # the same card again: seq 4 is a new action
            journal.record(game, seq, actions[seq])
            catchup.table((game, seq), {"seq": seq})
        catchup.refill()
        told = []
        while (message := catchup.outbox.take()) is not None:
            told.append(json.loads(message[2]))
        catchup.keep()
        assert read_mark(journal) == (game, 3)  # the broker's place, kept: a restart tells 4 and 5 again too
        return [(e["game_id"], e["seq"]) for e in told]

    assert asyncio.run(main()) == [(1, 4), (1, 5)]

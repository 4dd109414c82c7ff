"""Boxes as stations on a real broker: state, events, presence, commands, a broker that goes away (issue 14).

Each station is ``gamebox run`` on the sim profile in its own process, with
``[network]`` on; the test listens on the broker like the teacher's page does.
"""

from __future__ import annotations

import signal
from pathlib import Path

from tests.station.brokers import OBEYS, Broker, Station, Watcher, game_lines, wait_until

PREFIX = "gamebox"


def topic(station: str, leaf: str) -> str:
    return f"{PREFIX}/{station}/{leaf}"


def test_two_stations_show_their_games_and_a_killed_box_shows_offline(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref")
    red, blue = Station(tmp_path / "red", broker, "red"), Station(tmp_path / "blue", broker, "blue")
    try:
        red.send([line for group in groups[:8] for line in group])
        blue.send(groups[0])
        wait_until(lambda: red.accepted() == 7, what="red's seven actions")
        red_state = watcher.wait_for(topic("red", "state"), lambda s: s.get("actions") == 7)
        blue_state = watcher.wait_for(topic("blue", "state"), lambda s: s.get("mode") == "playing")
        assert (red_state["game"], red_state["players"], red_state["mode"]) == ("pirates", 2, "playing")
        assert red_state["turn_color"] in ("yellow", "green") and red_state["ships"] == red_state["ships"][:2]
        assert blue_state["actions"] == 0 and blue_state["started_at"] > 0
        events = watcher.wait_for(topic("red", "events"), lambda e: e.get("seq") == 6) and watcher.json_on(topic("red", "events"))
        assert [e["seq"] for e in events] == list(range(7))  # every accepted action, once, in order
        assert all(e["kind"] == "action" and e["action"]["type"] for e in events)
        assert watcher.wait_for(topic("red", "online"), lambda o: o.get("online") is True)
        assert watcher.latest(topic("red", "health"))["devices"]

        blue.proc.send_signal(signal.SIGKILL)  # the plug pulled: the broker says it for the box (last will)
        assert watcher.wait_for(topic("blue", "online"), lambda m: m["online"] is False)
        assert watcher.latest(topic("red", "online"))["online"] is True
    finally:
        red.stop()
        blue.stop()
    assert watcher.wait_for(topic("red", "online"), lambda m: m["online"] is False)  # a clean stop says goodbye


def test_commands_reach_one_station_or_all_and_bad_ones_are_refused(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref")
    red, blue = Station(tmp_path / "red", broker, "red", **OBEYS), Station(tmp_path / "blue", broker, "blue", **OBEYS)
    try:
        red.send(groups[0])
        watcher.wait_for(topic("red", "state"), lambda s: s["mode"] == "playing")
        watcher.wait_for(topic("blue", "state"), lambda s: s["mode"] == "menu")

        watcher.publish(topic("red", "set/volume"), "0.3")
        watcher.wait_for(topic("red", "state"), lambda s: s["volume"] == 0.3)
        watcher.publish(topic("all", "set/language"), "de")
        watcher.wait_for(topic("red", "state"), lambda s: s["language"] == "de")
        watcher.wait_for(topic("blue", "state"), lambda s: s["language"] == "de")
        assert watcher.latest(topic("blue", "state"))["volume"] == 0.6  # only red was told

        for leaf, payload in [("set/volume", "loud"), ("set/self-destruct", "1"), ("set/new-game", '{"game": "pirates", "options": {"joker": 0}}'),
                              ("set/new-game", "{}")]:  # the last: a game runs, so no new one
            watcher.publish(topic("red", leaf), payload)
        refusals = wait_until(lambda: [e for e in watcher.json_on(topic("red", "events")) if e["kind"] == "refused"] if
                              len([e for e in watcher.json_on(topic("red", "events")) if e["kind"] == "refused"]) == 4 else None,
                              what="four refusals")
        assert [r["command"] for r in refusals] == ["volume", "self-destruct", "new-game", "new-game"]
        assert "the rules come from the box's config" in refusals[2]["reason"]
        assert "refused command on gamebox/red/set/self-destruct" in red.log()
        assert watcher.latest(topic("red", "state"))["volume"] == 0.3 and watcher.latest(topic("red", "state"))["game"] == "pirates"

        watcher.publish(topic("all", "set/end-session"), "")
        watcher.wait_for(topic("red", "state"), lambda s: s["mode"] == "menu")
        watcher.publish(topic("blue", "set/new-game"), '{"game": "policecats", "players": 3}')
        state = watcher.wait_for(topic("blue", "state"), lambda s: s["mode"] == "playing")
        assert (state["game"], state["players"]) == ("policecats", 3)
    finally:
        red.stop()
        blue.stop()
    assert "password" not in red.log().lower()


def test_broker_away_mid_game_loses_nothing_at_the_table_and_catches_up(tmp_path: Path, broker: Broker) -> None:
    groups = game_lines(tmp_path / "ref")
    red = Station(tmp_path / "red", broker, "red")
    watcher = Watcher(broker)
    try:
        red.send([line for group in groups[:4] for line in group])
        watcher.wait_for(topic("red", "state"), lambda s: s.get("actions") == 3)
        before = [e["seq"] for e in watcher.json_on(topic("red", "events"))]
        assert before == [0, 1, 2]  # a state is sent after the events it follows
        watcher.close()
        broker.stop()
        red.send([line for group in groups[4:12] for line in group])  # the game goes on without the broker
        wait_until(lambda: red.accepted() == 11, what="the table to go on while the broker is away")
        broker.start()
        watcher = Watcher(broker)
        state = watcher.wait_for(topic("red", "state"), lambda s: s.get("actions") == 11)
        assert state["mode"] == "playing"
        events = watcher.wait_for(topic("red", "events"), lambda e: e.get("seq") == 10) and watcher.json_on(topic("red", "events"))
        assert [e["seq"] for e in events] == list(range(3, 11))  # what happened while away, queued and sent
        assert watcher.wait_for(topic("red", "online"), lambda o: o.get("online") is True)  # it may come after the state
    finally:
        red.stop()
        watcher.close()


def test_time_up_lets_the_game_finish_then_the_box_returns_to_its_menu(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref")
    red = Station(tmp_path / "red", broker, "red", **OBEYS)
    try:
        red.send([line for group in groups[:3] for line in group])
        watcher.wait_for(topic("red", "state"), lambda s: s.get("actions") == 2)
        watcher.publish(topic("red", "set/time-up"), "")
        watcher.wait_for(topic("red", "state"), lambda s: s["last_round"] is True and s["mode"] == "playing")
        red.send([line for group in groups[3:] for line in group])  # the round is played to its end
        wait_until(lambda: red.accepted() == len(groups) - 1, what="the whole game")
        state = watcher.wait_for(topic("red", "state"), lambda s: s["mode"] == "menu")
        assert state["last_winner"].startswith("pirates: player") and state["games_today"] == 1 and not state["last_round"]
        over = watcher.wait_for(topic("red", "events"), lambda e: e["kind"] == "game_over")  # for the page's statistics
        assert over["game"] == "pirates" and over["winners"] and over["started_at"] <= over["at"]
    finally:
        red.stop()


def test_a_flood_of_junk_commands_loses_no_action_and_is_told_in_a_few_lines(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref")
    red = Station(tmp_path / "red", broker, "red", **OBEYS)
    try:
        red.send(groups[0])
        watcher.wait_for(topic("red", "state"), lambda s: s["mode"] == "playing")
        for n in range(5000):  # junk, as fast as the client sends it, while the game goes on
            watcher.client.publish(topic("red", "set/volume"), "loud")
            if n % 500 == 0:
                red.send(groups[1 + n // 500])
        watcher.publish(topic("red", "set/volume"), "0.3")  # a good one after the flood still works
        watcher.wait_for(topic("red", "state"), lambda s: s["volume"] == 0.3, timeout=30)
        wait_until(lambda: red.accepted() == 10, what="ten actions")
        events = watcher.wait_for(topic("red", "events"), lambda e: e.get("seq") == 9) and watcher.json_on(topic("red", "events"))
        assert [e["seq"] for e in events if e["kind"] == "action"] == list(range(10))  # every accepted action, in order
        assert len([e for e in events if e["kind"] == "refused"]) <= 60  # at most 10 per 10 s, not 5,000
        wait_until(lambda: "more commands refused, not each told" in red.log(), what="the count of the rest")
    finally:
        red.stop()
    assert red.log().count("refused command") <= 60

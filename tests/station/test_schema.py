"""What the box sends matches docs/stations.md, field for field; Home Assistant discovery comes and goes (issue 14)."""

from __future__ import annotations

import re
from pathlib import Path

from controller.station.checks import SCHEMAS, checked
from controller.station.discovery import CONFIG_FIELDS, DEVICE_FIELDS, discovery_messages, discovery_topics
from controller.station.topics import EVENT_FIELDS, HEALTH_FIELDS, ONLINE_FIELDS, STATE_FIELDS, Topics
from tests.station.brokers import OBEYS, Broker, Station, Watcher, game_lines, wait_until

DOC = Path(__file__).resolve().parents[2] / "docs" / "stations.md"


def documented(heading: str) -> list[str]:
    """The first column of the table under a heading of docs/stations.md."""
    text = DOC.read_text()
    section = text[text.index(heading):]
    table = section[section.index("\n|"):]
    fields = []
    for line in table.splitlines()[3:]:
        if not line.startswith("|"):
            break
        fields.append(re.sub(r"[`|]", "", line.split("|")[1]).strip())
    return fields


def test_the_documented_fields_are_the_fields_the_code_knows() -> None:
    assert documented("### `state`") == list(STATE_FIELDS)
    assert documented("### `events`") == list(EVENT_FIELDS)
    assert documented("### `online`") == list(ONLINE_FIELDS)
    assert documented("### `health`") == list(HEALTH_FIELDS)
    assert documented("## Home Assistant") == list(CONFIG_FIELDS)


def test_real_payloads_keep_to_the_documented_fields(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref", game="policecats", players=3)
    red = Station(tmp_path / "red", broker, "red", **OBEYS)
    try:
        red.send([line for group in groups[:4] for line in group])
        state = watcher.wait_for("gamebox/red/state", lambda s: s.get("actions") == 3)
        watcher.publish("gamebox/red/set/volume", "much")
        watcher.wait_for("gamebox/red/events", lambda e: e["kind"] == "refused")
    finally:
        red.stop()
    assert set(state) == set(STATE_FIELDS)  # every field, every time (null where it does not apply)
    assert len(state["scores"]) == 3 and state["turn_color"] in ("yellow", "green", "blue") and state["ships"] is None
    for event in watcher.json_on("gamebox/red/events"):
        assert set(event) <= set(EVENT_FIELDS)
    assert set(watcher.latest("gamebox/red/health")) <= set(HEALTH_FIELDS)
    assert set(watcher.latest("gamebox/red/online")) == set(ONLINE_FIELDS)
    leaves = [(topic.split("/")[2], payload) for topic, payload, _ in watcher.messages if topic.count("/") == 2]
    assert {leaf for leaf, _ in leaves} == set(SCHEMAS)
    for leaf, payload in leaves:  # what a real box sends passes the teacher's page's checks
        checked(leaf, payload)


def test_home_assistant_discovery_announces_a_device_and_is_removed_when_switched_off(
        tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref")
    red = Station(tmp_path / "red", broker, "red", homeassistant=True, **OBEYS)
    configs = set(discovery_topics("homeassistant", Topics("gamebox", "red")))
    try:
        wait_until(lambda: all(watcher.latest(t) for t in configs), what="the discovery messages")
        state = watcher.wait_for("gamebox/red/state", lambda s: True)
        for topic in configs:
            config = watcher.latest(topic)
            assert set(config) <= set(CONFIG_FIELDS), topic
            assert set(config["device"]) == set(DEVICE_FIELDS) and config["device"]["identifiers"] == ["gamebox_red"]
            assert config["origin"]["name"] == "gamebox" and config["availability_topic"] == "gamebox/red/online"
            assert config["default_entity_id"] == f"{topic.split('/')[1]}.gamebox_red_{topic.split('/')[3]}"
            for name in re.findall(r"value_json\.(\w+)", config.get("value_template", "")):
                assert name in state, f"{topic} reads {name}, which the state does not carry"
        volume = watcher.latest("homeassistant/number/gamebox_red/volume/config")
        assert volume["command_topic"] == "gamebox/red/set/volume" and volume["max"] == 0.8
        assert watcher.latest("homeassistant/sensor/gamebox_red/games_today/config")["state_class"] == "total_increasing"

        language = watcher.latest("homeassistant/select/gamebox_red/language/config")  # what Home Assistant would send
        watcher.publish(language["command_topic"], "de")
        watcher.wait_for("gamebox/red/state", lambda s: s["language"] == "de")
        new_game = watcher.latest("homeassistant/button/gamebox_red/new_game/config")
        watcher.publish(new_game["command_topic"], new_game["payload_press"])
        watcher.wait_for("gamebox/red/state", lambda s: s["mode"] == "playing")
        time_up = watcher.latest("homeassistant/button/gamebox_red/time_up/config")
        watcher.publish(time_up["command_topic"], time_up["payload_press"])
        watcher.wait_for("gamebox/red/state", lambda s: s["last_round"])
        end = watcher.latest("homeassistant/button/gamebox_red/end_session/config")
        watcher.publish(end["command_topic"], end["payload_press"])
        watcher.wait_for("gamebox/red/state", lambda s: s["mode"] == "menu")
    finally:
        red.stop()

    red = Station(tmp_path / "red", broker, "red")  # the same box with the feature switched off
    red.stop()
    fresh = Watcher(broker)  # sees only what the broker still retains
    try:
        wait_until(lambda: fresh.latest("gamebox/red/online") is not None, what="the retained messages")
        assert not any(topic in fresh.retained for topic in configs)
    finally:
        fresh.close()


def test_home_assistant_ids_differ_for_names_that_differ_only_in_dash_and_underscore() -> None:
    dash = discovery_messages("homeassistant", Topics("gamebox", "table-1"), 0.8)
    underscore = discovery_messages("homeassistant", Topics("gamebox", "table_1"), 0.8)
    assert not set(dash) & set(underscore)
    assert not {c["unique_id"] for c in dash.values()} & {c["unique_id"] for c in underscore.values()}

"""Only the teacher steers the boxes: locked by default, and the broker set-up ``broker-config`` writes (issue 20).

The attacks are those of issue 20, tried on a real Mosquitto: with the
generated configuration an anonymous client is turned away at the door and a
station's own account can neither command another box nor forge its state;
the teacher's account works. Without that set-up a box obeys nothing.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from controller.cli import run_command
from controller.config import ConfigError, load_config
from tests.station.brokers import Broker, SecuredBroker, Station, TeacherPageProcess, Watcher, game_lines, wait_until

ATTACKS = [("gamebox/all/set/end-session", ""), ("gamebox/red/set/volume", "1"), ("gamebox/all/set/language", "nl"),
           ("gamebox/red/set/new-game", '{"game": "policecats"}'), ("gamebox/red/set/time-up", "")]


def connack(broker: Broker, login: tuple[str, str] | None) -> str:
    """What the broker answers a client logging in with ``login`` (None: anonymous)."""
    import paho.mqtt.client as mqtt

    answer: list[str] = []
    done = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_connect = lambda _c, _u, _f, reason, _p: (answer.append(str(reason)), done.set())
    if login:
        client.username_pw_set(*login)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        assert done.wait(10), "no CONNACK"
    finally:
        client.loop_stop()
        client.disconnect()
    return answer[0]


def account(broker: SecuredBroker, name: str) -> dict[str, Any]:
    """The settings of a box's ``[network]`` table that ``broker-config`` wrote for it."""
    return {k: broker.accounts[name][k] for k in ("username", "password", "commands")}


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[SecuredBroker]:
    broker = SecuredBroker(tmp_path / "broker", ["red", "blue"])
    broker.start()
    yield broker
    broker.stop()


def test_a_station_obeys_no_command_unless_told_to(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    groups = game_lines(tmp_path / "ref")
    # the broker of issue 20: `allow_anonymous true`, anyone may publish anything
    plain = Station(tmp_path / "plain", broker, "plain")
    trusting = Station(tmp_path / "trusting", broker, "trusting", username="trusting", password="its-own", commands=True)
    try:
        plain.send(groups[0])
        trusting.send(groups[0])
        for name in ("plain", "trusting"):
            watcher.wait_for(f"gamebox/{name}/state", lambda s: s["mode"] == "playing")
        for topic, payload in ATTACKS:
            watcher.publish(topic, payload)
        watcher.wait_for("gamebox/trusting/state", lambda s: s["mode"] == "menu")  # the attack did arrive
        plain.send(groups[1])
        state = watcher.wait_for("gamebox/plain/state", lambda s: s["actions"] == 1)
        assert (state["mode"], state["volume"], state["language"], state["last_round"]) == ("playing", 0.6, "en", False)
        assert not [e for e in watcher.json_on("gamebox/plain/events") if e["kind"] != "action"]
        assert "obeys no commands" in plain.log()
    finally:
        plain.stop()
        trusting.stop()


def test_commands_need_the_box_s_own_account(tmp_path: Path) -> None:
    path = tmp_path / "box.toml"
    path.write_text('[network]\nenabled = true\ncommands = true\n')
    with pytest.raises(ConfigError, match="commands = true needs username and password"):
        load_config(path)


def test_the_generated_broker_lets_only_the_teacher_steer(tmp_path: Path, secured: SecuredBroker) -> None:
    groups = game_lines(tmp_path / "ref")
    red = Station(tmp_path / "red", secured, "red", **account(secured, "red"))
    teacher = Watcher(secured, login=secured.login("teacher"))
    spy = Watcher(secured, topic="gamebox/#", login=secured.login("blue"))
    try:
        red.send(groups[0])
        teacher.wait_for("gamebox/red/state", lambda s: s["mode"] == "playing")

        assert connack(secured, None) == "Not authorized"  # anonymous: turned away
        assert connack(secured, ("red", "guessed")) == "Not authorized"
        for topic, payload in ATTACKS:  # another station's account: connected, but the broker drops each one
            spy.publish(topic, payload)
        spy.publish("gamebox/red/state", '{"station": "red", "mode": "playing", "players": 300000000}', retain=True)
        spy.publish("gamebox/red/online", '{"online": false}', retain=True)

        teacher.publish("gamebox/red/set/volume", "0.3")  # sent after every attack was acknowledged by the broker
        state = teacher.wait_for("gamebox/red/state", lambda s: s["volume"] == 0.3)
        assert (state["mode"], state["language"], state["last_round"], state["players"]) == ("playing", "en", False, 2)
        assert [e["command"] for e in teacher.json_on("gamebox/red/events") if e["kind"] != "action"] == ["volume"]
        assert all(p["players"] == 2 for p in teacher.json_on("gamebox/red/state") if p.get("players"))
        assert teacher.latest("gamebox/red/online")["online"] is True
        assert not [t for t, _, _ in spy.messages if t.startswith("gamebox/red/")]  # and it reads nothing of red's
    finally:
        red.stop()
        teacher.close()
        spy.close()


def test_the_teacher_s_page_logs_in_with_the_teacher_s_account(tmp_path: Path, secured: SecuredBroker) -> None:
    red = Station(tmp_path / "red", secured, "red", **account(secured, "red"))
    page = TeacherPageProcess(tmp_path, secured, "--config", str(secured.folder / "teacher.toml"))
    watcher = Watcher(secured, login=secured.login("teacher"))
    try:
        watcher.wait_for("gamebox/red/state", lambda s: s["mode"] == "menu")
        wait_until(lambda: page.command("red", "volume", 0.2)[0] == 200, what="the page's broker connection")
        watcher.wait_for("gamebox/red/state", lambda s: s["volume"] == 0.2)
    finally:
        page.stop()
        red.stop()
        watcher.close()


def test_broker_config_refuses_names_that_would_open_a_hole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for names in (["all"], ["teacher"], ["red", "red"], ["red/#"]):
        assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", *names]) == 2
    assert not (tmp_path / "b").exists()
    assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", "red"]) == 0
    assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", "red"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "b" / "passwords").stat().st_mode & 0o077 == 0
    assert "red:$7$" in (tmp_path / "b" / "passwords").read_text()  # hashed, never the password itself

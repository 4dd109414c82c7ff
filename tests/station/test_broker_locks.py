"""Only the teacher steers the boxes: locked by default, and the broker set-up ``broker-config`` writes (issue 20).

The attacks are those of issue 20, tried on a real Mosquitto: with the
generated configuration an anonymous client is turned away at the door and a
station's own account can neither command another box nor forge its state;
the teacher's account works. Without that set-up a box obeys nothing.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from controller.cli import run_command
from controller.config import ConfigError, load_config
from controller.station.brokerconf import Tls, write_broker_config
from tests.station.brokers import Broker, SecuredBroker, Station, TeacherPageProcess, Watcher, connack, game_lines, wait_until

ATTACKS = [("gamebox/all/set/end-session", ""), ("gamebox/red/set/volume", "1"), ("gamebox/all/set/language", "nl"),
           ("gamebox/red/set/new-game", '{"game": "policecats"}'), ("gamebox/red/set/time-up", "")]


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


def test_home_assistant_s_account_sees_every_station_and_steers_none(tmp_path: Path) -> None:
    groups = game_lines(tmp_path / "ref")
    broker = SecuredBroker(tmp_path / "broker", ["red", "blue"], homeassistant=True)
    broker.start()
    red = Station(tmp_path / "red", broker, "red", homeassistant=True, **account(broker, "red"))
    hass = Watcher(broker, login=broker.login("homeassistant"))  # subscribes to everything, as Home Assistant may
    teacher = Watcher(broker, login=broker.login("teacher"))
    try:
        assert "commands" not in broker.accounts["homeassistant"] and "station" not in broker.accounts["homeassistant"]
        red.send(groups[0] + groups[1])
        hass.wait_for("gamebox/red/state", lambda s: s.get("actions") == 1)
        hass.wait_for("gamebox/red/events", lambda e: e["kind"] == "action" and e["seq"] == 0)
        assert hass.wait_for("gamebox/red/health", lambda h: h["devices"])
        assert hass.wait_for("gamebox/red/online", lambda o: o["online"] is True)  # it may come after the state
        controls = [json.loads(p) for t, p, _ in hass.messages if t.startswith("homeassistant/") and t.endswith("/config") and p]
        command_topics = sorted(c["command_topic"] for c in controls if "command_topic" in c)
        assert len(command_topics) == 5  # volume, language and three buttons: shown, and pressed here
        for topic in command_topics:
            hass.publish(topic, {"gamebox/red/set/volume": "1", "gamebox/red/set/language": "nl"}.get(topic, ""))
        for topic, payload in ATTACKS:
            hass.publish(topic, payload)
        hass.publish("gamebox/red/state", '{"station": "red", "mode": "menu"}', retain=True)
        hass.publish("homeassistant/status", "online")  # its birth message: the one thing it may write

        teacher.publish("gamebox/red/set/volume", "0.3")  # after every one of those was acknowledged by the broker
        state = teacher.wait_for("gamebox/red/state", lambda s: s["volume"] == 0.3)
        assert (state["mode"], state["language"], state["last_round"], state["actions"]) == ("playing", "en", False, 1)
        assert [e["command"] for e in teacher.json_on("gamebox/red/events") if e["kind"] != "action"] == ["volume"]
        assert all(s["mode"] == "playing" for s in teacher.json_on("gamebox/red/state"))
        assert teacher.json_on("homeassistant/status") == [] and [p for t, p, _ in hass.messages if t == "homeassistant/status"] == [b"online"]
    finally:
        red.stop()
        hass.close()
        teacher.close()
        broker.stop()


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
    for names in (["all"], ["teacher"], ["homeassistant"], ["red", "red"], ["red/#"]):
        assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", *names]) == 2
    assert not (tmp_path / "b").exists()
    assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", "red"]) == 0
    assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", "red"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "b" / "passwords").stat().st_mode & 0o077 == 0
    assert "red:$7$" in (tmp_path / "b" / "passwords").read_text()  # hashed, never the password itself


def certificates(folder: Path) -> dict[str, Path]:
    """A CA, the broker's certificate for 127.0.0.1 and two client certificates, made by openssl for this test."""
    folder.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=gamebox test CA")
    (folder / "san").write_text("subjectAltName=IP:127.0.0.1\n")
    for name in ("broker", "red", "teacher"):
        openssl("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.crt", "-days", "2", *(["-extfile", "san"] if name == "broker" else []))
    return {p.stem + p.suffix.replace(".", "_"): p for p in folder.iterdir()}


def broker_requiring_certificates(tmp_path: Path) -> tuple[SecuredBroker, dict[str, Path]]:
    """A started broker for the station red that takes only clients with a certificate of the test's CA."""
    certs = certificates(tmp_path / "certs")
    broker = SecuredBroker(tmp_path / "broker", ["red"], tls=Tls(certs["broker_crt"], certs["broker_key"], certs["ca_crt"],
                                                                 require_certificate=True, ca_key=certs["ca_key"]))
    broker.start()
    return broker, certs


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make the test's certificates")
def test_tls_with_client_certificates_for_the_boxes_and_the_page(tmp_path: Path) -> None:
    broker, certs = broker_requiring_certificates(tmp_path)
    red = teacher = page = None
    made = {p.name for p in broker.folder.iterdir()}
    try:
        assert {"ca.crt", "red.crt", "red.key", "teacher.crt", "teacher.key"} <= made and "red.csr" not in made
        assert (broker.folder / "red.key").stat().st_mode & 0o077 == 0
        assert connack_tls(broker, broker.login("red"), certs, None) != "Success"  # no client certificate: no entry
        box = broker.accounts["red"]  # its table names where its comment says to copy the files: here, the test's folder
        copied = tmp_path / "etc-gamebox"
        copied.mkdir()
        for key in ("ca_file", "cert_file", "key_file"):
            assert box[key].startswith("/etc/gamebox/") and f"{broker.folder / Path(box[key]).name}" in \
                (broker.folder / "red.toml").read_text().splitlines()[0]
            shutil.copy(broker.folder / Path(box[key]).name, copied)
        red = Station(tmp_path / "red", broker, "red", tls=True, **account(broker, "red"),
                      **{key: box[key].replace("/etc/gamebox", str(copied)) for key in ("ca_file", "cert_file", "key_file")})
        teacher_files = {key: broker.accounts["teacher"][key] for key in ("ca_file", "cert_file", "key_file")}
        assert all(Path(path).is_file() for path in teacher_files.values())  # the teacher's table names the files written
        teacher = Watcher(broker, login=broker.login("teacher"), tls={
            "ca_certs": teacher_files["ca_file"], "certfile": teacher_files["cert_file"], "keyfile": teacher_files["key_file"]})
        teacher.wait_for("gamebox/red/state", lambda s: s["mode"] == "menu")
        page = TeacherPageProcess(tmp_path, broker, "--config", str(broker.folder / "teacher.toml"))  # as generated
        wait_until(lambda: page.command("red", "volume", 0.3)[0] == 200, what="the page over TLS with its certificate")
        teacher.wait_for("gamebox/red/state", lambda s: s["volume"] == 0.3)
    finally:
        for running in (page, red):
            if running is not None:
                running.stop()
        if teacher is not None:
            teacher.close()
        broker.stop()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make the test's certificates")
def test_the_documented_openssl_commands_make_a_certificate_the_broker_takes(tmp_path: Path) -> None:
    broker, certs = broker_requiring_certificates(tmp_path)
    try:
        docs = (Path(__file__).resolve().parents[2] / "docs" / "stations.md").read_text()
        block = docs.split("<!-- client certificate by hand -->")[1].split("```sh")[1].split("```")[0]
        commands = [line for line in block.splitlines() if line.startswith("openssl")]
        assert len(commands) == 2
        mine = tmp_path / "mine"
        mine.mkdir()
        shutil.copy(broker.folder / "ca.crt", mine)
        script = "\n".join(commands).replace("/path/to/ca.key", str(certs["ca_key"])).replace("table-4", "red")
        subprocess.run(["sh", "-ec", script], cwd=mine, check=True, capture_output=True, timeout=60)
        made = {"ca_crt": mine / "ca.crt", "red_crt": mine / "red.crt", "red_key": mine / "red.key"}
        assert connack_tls(broker, broker.login("red"), made, "red") == "Success"  # as red: its CN is its account
    finally:
        broker.stop()


def connack_tls(broker: Broker, login: tuple[str, str], certs: dict[str, Path], client: str | None) -> str:
    """What the broker answers a TLS client with the CA and, when named, that client's certificate."""
    files = {"certfile": str(certs[f"{client}_crt"]), "keyfile": str(certs[f"{client}_key"])} if client else {}
    return connack(broker, login, tls={"ca_certs": str(certs["ca_crt"]), **files})


def test_doctor_says_whether_the_station_obeys_commands(tmp_path: Path) -> None:
    from controller.cli import _station_rows

    path = tmp_path / "box.toml"
    path.write_text('[network]\nenabled = true\nstation = "red"\n')
    assert "obeys no commands" in _station_rows(load_config(path))[0].detail
    path.write_text('[network]\nenabled = true\nstation = "red"\nusername = "red"\npassword = "x"\ncommands = true\n')
    assert "obeys commands (logged in as red" in _station_rows(load_config(path))[0].detail
    path.write_text("")
    assert _station_rows(load_config(path)) == []


def test_client_certificates_need_the_ca_s_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("b.crt", "b.key", "ca.crt"):
        (tmp_path / name).write_text("x")
    assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", "--tls-cert",
                        str(tmp_path / "b.crt"), "--tls-key", str(tmp_path / "b.key"), "--tls-ca", str(tmp_path / "ca.crt"),
                        "--require-certificate", "red"]) == 2
    assert "--tls-ca-key" in capsys.readouterr().err and not (tmp_path / "b").exists()
    assert run_command(["classroom", "broker-config", "--dir", str(tmp_path / "b"), "--broker", "x", "--tls-cert",
                        str(tmp_path / "b.crt"), "--tls-key", str(tmp_path / "b.key"), "--tls-ca", str(tmp_path / "ca.crt"),
                        "--tls-ca-key", str(tmp_path / "missing.key"), "red"]) == 2  # the key given: certificates required
    assert "missing.key: no such file" in capsys.readouterr().err and not (tmp_path / "b").exists()


def as_root_with_mosquitto_s_user() -> bool:
    try:
        pwd.getpwnam("mosquitto")
    except KeyError:
        return False
    return os.geteuid() == 0 and shutil.which("openssl") is not None


@pytest.mark.skipif(not as_root_with_mosquitto_s_user(), reason="needs root, openssl and the mosquitto package's user")
def test_the_documented_steps_let_mosquitto_read_its_files_and_its_key_as_its_own_user() -> None:
    from tests.station.brokers import free_port

    folder = Path(tempfile.mkdtemp(dir="/tmp"))  # outside pytest's root-only folder: the mosquitto user must reach it
    proc: subprocess.Popen | None = None
    try:
        folder.chmod(0o755)
        certs = certificates(folder / "certs")
        (folder / "certs").chmod(0o755)
        certs["broker_key"].chmod(0o600)  # as a key is made: root's alone
        port = free_port()
        write_broker_config(folder / "gamebox", ["red"], broker="127.0.0.1", port=port, bind="127.0.0.1",
                            tls=Tls(certs["broker_crt"], certs["broker_key"], certs["ca_crt"]))
        with open(folder / "gamebox" / "mosquitto.conf", "a") as conf:
            conf.write("persistence false\n")  # and Mosquitto's own default, `user mosquitto`

        def starts() -> bool:
            nonlocal proc
            proc = subprocess.Popen([shutil.which("mosquitto"), "-c", str(folder / "gamebox" / "mosquitto.conf")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_until(lambda: proc.poll() is not None or _ours(port, certs["ca_crt"]), what="mosquitto to listen or exit")
            running = proc.poll() is None
            proc.kill()
            proc.wait()
            return running

        docs = (Path(__file__).resolve().parents[2] / "docs" / "stations.md").read_text()
        steps = [line.removeprefix("sudo ") for line in docs.split("```sh")[1].split("```")[0].splitlines() if "chown" in line]
        key_steps = [line.removeprefix("sudo ") for line in
                     docs.split("<!-- broker key -->")[1].split("```sh")[1].split("```")[0].splitlines() if line]
        assert len(steps) == 1 and len(key_steps) == 2

        def run(lines: list[str]) -> None:
            script = "\n".join(lines).replace("/etc/mosquitto/gamebox", str(folder / "gamebox"))
            subprocess.run(["sh", "-ec", script.replace("/etc/mosquitto/certs/broker.key", str(certs["broker_key"]))],
                           check=True, capture_output=True, timeout=30)

        run(steps)
        assert not starts()  # its files readable, but its key root's alone: Mosquitto exits
        run(key_steps)
        assert starts()
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _ours(port: int, ca: Path) -> bool:
    """A TLS handshake on ``port`` with a certificate of the test's CA: this test's broker listens there."""
    import ssl

    context = ssl.create_default_context(cafile=str(ca))
    try:
        with socket.create_connection(("127.0.0.1", port), 1) as raw, context.wrap_socket(raw, server_hostname="127.0.0.1"):
            return True
    except OSError:  # nothing there yet, or not this broker (ssl.SSLError is an OSError)
        return False

"""No account can knock a box off the broker with the box's MQTT client id (issue 31, item 1).

Mosquitto drops the older connection when a client id is used again. The
read-only Home Assistant account reads every station's retained ``online``
message; before, its ``boot`` was part of the box's client id, and connecting
with that id, again and again, flipped the box offline. Tried on a real
Mosquitto set up by ``broker-config``, with and without TLS client certificates.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from controller.station.brokerconf import Tls
from tests.station.brokers import SecuredBroker, Station, Watcher, connack, wait_until
from tests.station.test_broker_locks import account, certificates

TAKEOVERS = 20


def files_of(broker: SecuredBroker, name: str) -> dict[str, str] | None:
    """paho's TLS arguments for an account, from the table broker-config wrote (None without TLS)."""
    table = broker.accounts[name]
    if not table.get("tls"):
        return None
    return {"ca_certs": str(broker.folder / "ca.crt"), "certfile": str(broker.folder / f"{name}.crt"),
            "keyfile": str(broker.folder / f"{name}.key")}


@pytest.fixture(params=["plain", "client certificates"])
def room(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SecuredBroker]:
    """The broker of ``broker-config --homeassistant red``, and with TLS also ``--tls-ca-key``."""
    tls: dict[str, Any] = {}
    if request.param != "plain":
        if shutil.which("openssl") is None:
            pytest.skip("no openssl to make the test's certificates")
        certs = certificates(tmp_path / "certs")
        tls = {"tls": Tls(certs["broker_crt"], certs["broker_key"], certs["ca_crt"], require_certificate=True,
                          ca_key=certs["ca_key"])}
    broker = SecuredBroker(tmp_path / "broker", ["red"], homeassistant=True, **tls)
    broker.start()
    yield broker
    broker.stop()


def box_settings(broker: SecuredBroker) -> dict[str, Any]:
    files = files_of(broker, "red")
    paths = {"ca_file": files["ca_certs"], "cert_file": files["certfile"], "key_file": files["keyfile"]} if files else {}
    return {**account(broker, "red"), **({"tls": True} | paths if files else {})}


def test_the_read_only_account_cannot_take_a_box_s_client_id(tmp_path: Path, room: SecuredBroker) -> None:
    red = Station(tmp_path / "red", room, "red", **box_settings(room))
    teacher = Watcher(room, login=room.login("teacher"), tls=files_of(room, "teacher"))
    hass = Watcher(room, login=room.login("homeassistant"), tls=files_of(room, "homeassistant"))
    try:
        online = hass.wait_for("gamebox/red/online", lambda o: o["online"] is True)
        teacher.wait_for("gamebox/red/state", lambda s: s["mode"] == "menu")
        read = b"".join(payload for _, payload, _ in hass.messages)
        guesses = [f"gamebox-red-{online['boot']}", "gamebox-red", "red"]  # what it can read, and the account's name
        for i in range(TAKEOVERS):
            connack(room, room.login("homeassistant"), guesses[i % len(guesses)], files_of(room, "homeassistant"))

        teacher.publish("gamebox/red/set/volume", '{"id": "a1", "value": 0.3}')  # after every takeover was answered
        teacher.wait_for("gamebox/red/events", lambda e: e.get("id") == "a1" and e["kind"] == "command")
        assert [o["online"] for o in teacher.json_on("gamebox/red/online")] == [True]  # never knocked off, not once
        ids = re.findall(r"as (\S+) \(p\d, c\d, k\d, u'red'\)", (room.folder / "broker.log").read_text())
        assert len(ids) == 1 and ids[0].encode() not in read  # its real id is in nothing the account could read
    finally:
        red.stop()
        teacher.close()
        hass.close()


def test_a_certificate_is_its_own_account_whatever_password_comes_with_it(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make the test's certificates")
    certs = certificates(tmp_path / "certs")
    broker = SecuredBroker(tmp_path / "broker", ["red"], homeassistant=True,
                           tls=Tls(certs["broker_crt"], certs["broker_key"], certs["ca_crt"], require_certificate=True,
                                   ca_key=certs["ca_key"]))
    broker.start()
    red = Station(tmp_path / "red", broker, "red", **box_settings(broker))
    teacher = Watcher(broker, login=broker.login("teacher"), tls=files_of(broker, "teacher"))
    # Home Assistant's certificate with the teacher's name and password: it is Home Assistant, and may only read
    forged = Watcher(broker, login=broker.login("teacher"), tls=files_of(broker, "homeassistant"))
    try:
        teacher.wait_for("gamebox/red/state", lambda s: s["mode"] == "menu")
        wait_until(lambda: forged.client.is_connected(), what="the forged client's connection")
        forged.publish("gamebox/red/set/volume", '{"id": "bad", "value": 0.1}')
        teacher.publish("gamebox/red/set/volume", '{"id": "c3", "value": 0.3}')
        teacher.wait_for("gamebox/red/events", lambda e: e.get("id") == "c3")
        teacher.wait_for("gamebox/red/state", lambda s: s["volume"] == 0.3)
        assert [e.get("id") for e in teacher.json_on("gamebox/red/events")] == ["c3"]
        assert all(s["volume"] != 0.1 for s in teacher.json_on("gamebox/red/state"))
    finally:
        red.stop()
        teacher.close()
        forged.close()
        broker.stop()
